"""Channels' and channels_redis's internals that live play relies on, all of them, here.

Checked against **Channels 4.3.2** and **channels_redis 4.3.0** (requirements.lock pins
them). Each was measured under bench/live.py (docs/serving.md, "Live tables") and is
worth it; each reaches past the libraries' public API, so it lives in this one module,
and tests/play/test_channels_internals.py is its contract: the libraries' functions that
these re-do are held to fingerprints (tests/walls.py), every private name used is
checked, and both are run against the libraries' own behaviour (on Redis where one
answers), so that an upgrade that changes what they rely on fails there, by name.

- :func:`publish_many`: a command's five updates (four seats and the spectators) in one
  Redis pipeline, where channels_redis's pub/sub layer publishes each group message on
  its own, holding its connection's lock for a round trip each, every other message of
  the process queued behind them. Uses ``RedisPubSubChannelLayer._get_layer()`` (this
  event loop's ``RedisPubSubLoopLayer``), its ``_get_group_channel_name`` and
  ``_get_shard``, and the shard's ``_lock``, ``_ensure_redis()`` and ``_redis``: what
  ``RedisSingleShardConnection.publish`` does, for several messages at once.
- :func:`dispatch_without_hop`: Channels' ``AsyncConsumer.dispatch`` without the
  ``aclose_old_connections()`` it awaits before every message, a hop to the process's
  one sync thread per frame received and per seat's update (11% of a daphne's CPU a
  command), for consumers that reach the database only through
  ``database_sync_to_async``, which closes old connections around each call itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from channels.consumer import get_handler_name

CHANNELS_CHECKED_AGAINST = "4.3.2"
"""The Channels version :func:`dispatch_without_hop` was written against."""
CHANNELS_REDIS_CHECKED_AGAINST = "4.3.0"
"""The channels_redis version :func:`publish_many` was written against."""


async def publish_many(layer: Any, messages: Sequence[tuple[str, dict[str, Any]]]) -> None:
    """Send each ``(group, message)`` through channels_redis's pub/sub ``layer`` as its
    ``group_send`` would, in order, in one pipeline per Redis shard (one round trip, not
    one each), under the lock the shard's own ``publish`` holds."""
    loop_layer = layer._get_layer()  # this event loop's (RedisPubSubLoopLayer)
    shards: dict[int, tuple[Any, list[tuple[str, bytes]]]] = {}
    for group, message in messages:
        channel = loop_layer._get_group_channel_name(group)
        shard = loop_layer._get_shard(channel)  # a RedisSingleShardConnection
        shards.setdefault(id(shard), (shard, []))[1].append(
            (channel, layer.serialize(message)))
    for shard, published in shards.values():
        async with shard._lock:
            shard._ensure_redis()
            pipe = shard._redis.pipeline(transaction=False)
            for channel, payload in published:
                pipe.publish(channel, payload)
            await pipe.execute()


async def dispatch_without_hop(consumer: Any, message: dict[str, Any]) -> None:
    """Hand ``message`` to ``consumer``'s handler for its type, as Channels'
    ``AsyncConsumer.dispatch`` does, without first closing old database connections in
    the sync thread (see the module)."""
    handler = getattr(consumer, get_handler_name(message), None)
    if handler is None:
        raise ValueError(f"No handler for message type {message['type']}")
    await handler(message)


__all__ = ["CHANNELS_CHECKED_AGAINST", "CHANNELS_REDIS_CHECKED_AGAINST",
           "dispatch_without_hop", "publish_many"]
