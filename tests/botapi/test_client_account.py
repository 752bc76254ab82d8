"""The client package (clients/python) as a bot author runs it, against a real daphne
(Channels' live server), with nothing but ``bohnanza_client``: the account challenges
two built-in bots through the API, its :class:`Player` reads the event stream, is told
``gameStart``, plays the game to the end at the table's socket with the example's
heuristic bot (examples/remote_bot.py), and is told ``gameFinish``."""

from __future__ import annotations

import asyncio
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.contrib.auth.models import User
from django.test import override_settings

from play import tokens
from replays.store import reset_games
from tests.live_server import SweepingDaphne

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients" / "python"))

from bohnanza_client import Account, ApiError, Player

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.e2e

SHORT = {"draw_cards": 1, "beans": ["wax", "blue", "chili", "stink"]}


def _remote() -> Any:
    spec = importlib.util.spec_from_file_location("remote_bot", ROOT / "examples" / "remote_bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@override_settings(PLAY_BOT_PACE_SECONDS=0, PLAY_SWEEP_SECONDS=0.2,
                   BOHNANZA_STREAM_KEEPALIVE=0.5)
class ClientAccountTest(ChannelsLiveServerTestCase):
    ProtocolServerProcess = SweepingDaphne

    def test_the_client_challenges_two_bots_and_plays_the_game_its_stream_announces(
            self) -> None:
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
        reset_games()
        owner = User.objects.create_user("olga", password="pw")
        bot = tokens.create_bot(owner, "robo")
        _row, token = tokens.issue(bot, "ci", ("play", "read"))
        account = Account(self.live_server_url, token)
        assert account.me()["username"] == "robo"
        with pytest.raises(ApiError) as refused:
            account.challenge(["me", "bot:heuristic", "bot:nobody"])
        assert refused.value.status == 400 and refused.value.code == "unknown_bot"
        player = Player(account, lambda: _remote().Heuristic().decide, log=None)

        async def run() -> dict[str, Any]:
            playing = asyncio.create_task(player.run(games=1))
            table = await asyncio.to_thread(
                account.challenge, ["me", "bot:heuristic", "bot:random"],
                house_rules=SHORT, move_seconds=60)
            await asyncio.wait_for(playing, 120)
            return dict(table)

        table = asyncio.run(run())
        kinds = [(e["type"], e["table"]["id"]) for e in player.events]
        assert ("gameStart", table["id"]) in kinds and ("gameFinish", table["id"]) in kinds
        assert kinds.index(("gameStart", table["id"])) < kinds.index(
            ("gameFinish", table["id"]))
        assert not player.failures
        last = player.results[table["id"]]
        assert last.finished and last.seat == 0 and last.result is not None
        assert [g["status"] for g in account.games()] == ["finished"]
        assert account.games("running") == []


@override_settings(PLAY_BOT_PACE_SECONDS=0, PLAY_SWEEP_SECONDS=0.2,
                   BOHNANZA_STREAM_KEEPALIVE=0.5)
class ExampleBotTest(ChannelsLiveServerTestCase):
    ProtocolServerProcess = SweepingDaphne

    def test_the_example_bot_challenges_and_plays_as_a_long_lived_bot(self) -> None:
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
        reset_games()
        bot = tokens.create_bot(User.objects.create_user("ivan", password="pw"), "robo2")
        _row, token = tokens.issue(bot, "ci", ("play", "read"))
        player = asyncio.run(asyncio.wait_for(_remote().serve(
            self.live_server_url, token, challenge=["bot:heuristic", "bot:random"],
            games=1), 120))
        (table,) = player.results
        assert player.results[table].finished and table in player.finished
        assert not player.failures
