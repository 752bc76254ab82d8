"""The production channel layers: channels_redis at REDIS_URL (Redis at 127.0.0.1:6379),
its pub/sub layer (the default) and its core layer (``BOHNANZA_CHANNEL_LAYER=core``)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from django.conf import settings as django_settings

from tests.services.conftest import require_service

REDIS = "redis://127.0.0.1:6379/13"


def with_the_settings(code: str, layer: str = "core") -> list[str]:
    """What ``code`` prints, run in a process whose settings have REDIS_URL set and
    ``layer`` chosen (the layer is built from the settings at start-up)."""
    env = {**os.environ, "REDIS_URL": REDIS, "DJANGO_SETTINGS_MODULE": "config.settings",
           "BOHNANZA_CHANNEL_LAYER": layer}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=False, cwd=django_settings.BASE_DIR)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.split()


def test_a_waiting_consumer_outlives_the_layers_blocking_read() -> None:
    """redis-py 8 cuts every read at 5 s by default, the very time channels_redis blocks
    in BZPOPMIN for a consumer that waits: idle consumers died with "Timeout reading".
    The settings' pool reads longer than the layer blocks, and a message still arrives."""
    require_service("Redis", "127.0.0.1", 6379)
    code = (
        "import asyncio, django; django.setup()\n"
        "from channels.layers import get_channel_layer\n"
        "from channels_redis.utils import create_pool\n"
        "layer = get_channel_layer()\n"
        "pool = create_pool(layer.hosts[0])\n"
        "print(pool.connection_kwargs['socket_timeout'] > layer.brpop_timeout)\n"
        "async def main():\n"
        "    name = await layer.new_channel()\n"
        "    await layer.send(name, {'type': 'probe'})\n"
        "    print((await layer.receive(name))['type'])\n"
        "asyncio.run(main())\n"
    )
    assert with_the_settings(code) == ["True", "probe"]


@pytest.mark.parametrize("layer", ["pubsub", "core"])
def test_a_busy_process_receives_every_group_message(layer: str) -> None:
    """The core layer keeps every message for one process's consumers in one Redis key,
    and channels_redis dropped what came past 100 of them (logging it at INFO only): a
    process serving 200 seats fell that far behind under load and seats silently missed
    updates. 250 messages to five groups sent before the process reads any: every one
    arrives, on either layer."""
    require_service("Redis", "127.0.0.1", 6379)
    code = (
        "import asyncio, django; django.setup()\n"
        "from channels.layers import get_channel_layer\n"
        "layer = get_channel_layer()\n"
        "async def main():\n"
        "    await layer.flush()\n"
        "    names = [await layer.new_channel() for _ in range(5)]\n"
        "    for seat, name in enumerate(names):\n"
        "        await layer.group_add(f'seat-{seat}', name)\n"
        "    for n in range(50):\n"
        "        for seat in range(5):\n"
        "            await layer.group_send(f'seat-{seat}', {'type': 'update', 'n': n})\n"
        "    got = []\n"
        "    for name in names:\n"
        "        for _ in range(50):\n"
        "            got.append((await asyncio.wait_for(layer.receive(name), 10))['n'])\n"
        "    print(len(got), sorted(got) == sorted(list(range(50)) * 5))\n"
        "    await layer.flush()\n"
        "asyncio.run(main())\n"
    )
    assert with_the_settings(code, layer) == ["250", "True"]


def test_a_commands_updates_go_in_one_round_trip() -> None:
    """The production layer (play/layers.py) sends a command's updates to their groups
    together (one pipeline): each group's members get their own, in order, each sent
    as one PUBLISH (counted by a pattern subscription to these groups' Redis channels:
    the server's own count of PUBLISH takes in every other test's at the same time)."""
    require_service("Redis", "127.0.0.1", 6379)
    code = (
        "import asyncio, uuid, django; django.setup()\n"
        "import redis\n"
        "from channels.layers import get_channel_layer\n"
        "layer = get_channel_layer()\n"
        "print(type(layer).__name__)\n"
        "async def main():\n"
        "    token = uuid.uuid4().hex\n"
        "    names = [await layer.new_channel() for _ in range(5)]\n"
        "    for seat, name in enumerate(names):\n"
        "        await layer.group_add(f'many-{token}-{seat}', name)\n"
        "    watcher = redis.Redis.from_url('" + REDIS + "').pubsub()\n"
        "    watcher.psubscribe(f'*many-{token}-*')\n"
        "    assert watcher.get_message(timeout=5)['type'] == 'psubscribe'\n"
        "    for n in range(3):\n"
        "        await layer.group_send_many([(f'many-{token}-{seat}', {'type': 'update', "
        "'seat': seat, 'n': n}) for seat in range(5)])\n"
        "    published = 0\n"
        "    while (message := watcher.get_message(timeout=1)) is not None:\n"
        "        published += message['type'] == 'pmessage'\n"
        "    print(published)\n"
        "    got = [[(m['seat'], m['n']) for m in [await asyncio.wait_for(layer.receive("
        "name), 10) for _ in range(3)]] for name in names]\n"
        "    print(got == [[(seat, n) for n in range(3)] for seat in range(5)])\n"
        "asyncio.run(main())\n"
    )
    assert with_the_settings(code, "pubsub") == ["PubSubChannelLayer", "15", "True"]
