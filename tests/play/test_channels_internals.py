"""The contract of play/channels_internals.py with Channels (checked against 4.3.2) and
channels_redis (4.3.0).

The libraries' functions the wall re-does or reaches into are held to fingerprints
(tests/walls.py); every private name it uses is checked on a real layer object (no Redis
needed: nothing connects until a command is sent); the dispatch is run beside Channels'
own. tests/services/test_channel_layer_redis.py (``test_a_commands_updates_go_in_one_
round_trip``) sends through ``publish_many`` on Redis and counts one PUBLISH a message,
each seat's updates arriving in order."""

from __future__ import annotations

import asyncio
from typing import Any

import channels
import channels_redis
import pytest
from channels import consumer as channels_consumer
from channels.consumer import AsyncConsumer, get_handler_name
from channels_redis.pubsub import (
    RedisPubSubChannelLayer,
    RedisPubSubLoopLayer,
    RedisSingleShardConnection,
)

from play import channels_internals
from play.channels_internals import dispatch_without_hop
from play.consumers import LobbyConsumer, NoHopConsumer, TableConsumer
from tests.walls import changed_shapes, parameters

PINNED = {
    # dispatch_without_hop is this without its aclose_old_connections().
    "AsyncConsumer.dispatch": (AsyncConsumer.dispatch, "641964c7ad88d6d1"),
    "get_handler_name": (get_handler_name, "bac274eee498d40b"),
    # publish_many is group_send, and the shard's publish, for several messages.
    "RedisPubSubLoopLayer.group_send": (RedisPubSubLoopLayer.group_send, "41c7befabfc01bd2"),
    "RedisSingleShardConnection.publish": (RedisSingleShardConnection.publish,
                                           "f2a57e766b44bd82"),
    # ...and reaches into these.
    "RedisPubSubChannelLayer._get_layer": (RedisPubSubChannelLayer._get_layer,
                                           "dbdd7316585227fd"),
    "RedisPubSubChannelLayer.serialize": (RedisPubSubChannelLayer.serialize,
                                          "9d09d39004fb96c1"),
    "RedisPubSubLoopLayer._get_shard": (RedisPubSubLoopLayer._get_shard, "f2d75b2158dcd21d"),
    "RedisPubSubLoopLayer._get_group_channel_name": (
        RedisPubSubLoopLayer._get_group_channel_name, "98e0e6f45208dd39"),
    "RedisSingleShardConnection._ensure_redis": (RedisSingleShardConnection._ensure_redis,
                                                 "c18ac1508541296b"),
    "RedisSingleShardConnection.__init__": (RedisSingleShardConnection.__init__,
                                            "dff10e4c8dbc86d4"),
}


def test_the_checked_versions_are_installed() -> None:
    assert (channels.__version__, channels_redis.__version__) == (
        channels_internals.CHANNELS_CHECKED_AGAINST,
        channels_internals.CHANNELS_REDIS_CHECKED_AGAINST), (
        "Channels or channels_redis was upgraded: run this file, read the failures against "
        "play/channels_internals.py, then update its CHECKED_AGAINST versions and docstring")


def test_the_library_functions_the_wall_re_does_are_unchanged() -> None:
    assert not changed_shapes(PINNED, "play/channels_internals.py")


def test_the_private_names_publish_many_uses_are_there() -> None:
    assert parameters(RedisPubSubLoopLayer._get_shard) == [
        ("self", "POSITIONAL_OR_KEYWORD"), ("channel_or_group_name", "POSITIONAL_OR_KEYWORD")]
    assert parameters(RedisPubSubLoopLayer._get_group_channel_name) == [
        ("self", "POSITIONAL_OR_KEYWORD"), ("group", "POSITIONAL_OR_KEYWORD")]

    async def look() -> None:
        layer = RedisPubSubChannelLayer(hosts=["redis://127.0.0.1:6379/13"])
        loop_layer = layer._get_layer()
        assert isinstance(loop_layer, RedisPubSubLoopLayer)
        assert loop_layer is layer._get_layer()  # one per event loop
        channel = loop_layer._get_group_channel_name("seat-1")
        shard = loop_layer._get_shard(channel)
        assert isinstance(shard, RedisSingleShardConnection)
        assert isinstance(shard._lock, asyncio.Lock) and shard._redis is None
        shard._ensure_redis()  # a client and its pool: nothing connects yet
        pipe = shard._redis.pipeline(transaction=False)
        pipe.publish(channel, layer.serialize({"type": "update"}))
        assert len(pipe) == 1
        await shard._redis.aclose()

    asyncio.run(look())


class Probe(AsyncConsumer):
    """A consumer with one handler, to dispatch to."""

    def __init__(self) -> None:
        self.handled: list[dict[str, Any]] = []

    async def probe_message(self, message: dict[str, Any]) -> None:
        self.handled.append(message)


def test_dispatch_without_hop_is_channels_dispatch_without_the_hop(
        monkeypatch: pytest.MonkeyPatch) -> None:
    hops: list[str] = []

    async def close_old_connections() -> None:
        hops.append("hop")

    monkeypatch.setattr(channels_consumer, "aclose_old_connections", close_old_connections)

    async def both() -> None:
        theirs, ours = Probe(), Probe()
        message = {"type": "probe.message", "n": 1}
        await AsyncConsumer.dispatch(theirs, message)
        assert hops == ["hop"] and theirs.handled == [message]
        await dispatch_without_hop(ours, message)
        assert hops == ["hop"] and ours.handled == [message]
        for bad in ({"type": "no.such"}, {"type": "_private"}, {}):
            errors = []
            for dispatch in (AsyncConsumer.dispatch, dispatch_without_hop):
                with pytest.raises(ValueError) as raised:
                    await dispatch(Probe(), bad)
                errors.append(str(raised.value))
            assert errors[0] == errors[1], bad

    asyncio.run(both())


def test_the_live_consumers_dispatch_without_the_hop() -> None:
    for consumer in (TableConsumer, LobbyConsumer):
        assert issubclass(consumer, NoHopConsumer)
        assert consumer.dispatch is NoHopConsumer.dispatch
