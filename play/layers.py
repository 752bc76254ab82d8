"""The production channel layer: channels_redis's pub/sub layer, with a command's
updates sent together (:meth:`PubSubChannelLayer.group_send_many`).

channels_redis publishes each group message on its own, holding the process's one
connection lock for the round trip to Redis: a command's five updates (four seats and
the spectators) were five round trips one after the other, and every other command of
the process, its updates and its connections' subscriptions, queued behind them on
that lock. In a busy process each round trip waits for the event loop to come back to
its answer, so the queue grew with the load. Here the five go in one pipeline: one
round trip, one turn of the lock.

The layer's private parts this needs are in play/channels_internals.py
(:func:`~play.channels_internals.publish_many`, checked against channels_redis 4.3.0),
with their contract; tests/services/test_channel_layer_redis.py runs the layer on Redis.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from channels_redis.pubsub import RedisPubSubChannelLayer

from play.channels_internals import publish_many


class PubSubChannelLayer(RedisPubSubChannelLayer):  # type: ignore[misc]
    """channels_redis's pub/sub layer, and :meth:`group_send_many`."""

    async def group_send_many(self, messages: Sequence[tuple[str, dict[str, Any]]]) -> None:
        """Send each ``(group, message)`` as ``group_send`` would, in order, in one
        pipeline per Redis shard (one round trip, not one each)."""
        await publish_many(self, messages)
