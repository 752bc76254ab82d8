"""An outside bot, from the OpenAPI document and the socket protocol alone
(tests/botapi/outside_client.py imports nothing of the platform), against a real
daphne (Channels' live server): it challenges two built-in bots, is seated (its event
stream says so), plays to the end over the table's websocket, then enters a ladder
with its owner's standing consent (a token of scope ``enter``) and plays the game the
ladder's next tick seats it at, with the ladder's clock."""

from __future__ import annotations

import os
from uuid import UUID

import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.contrib.auth.models import User
from django.test import override_settings

from bohnanza_core.rulesets import customize
from play import tokens
from play.models import Table
from replays.store import reset_games
from tests.botapi import outside_client
from tests.live_server import SweepingDaphne
from tournaments.core.competition import LivePlay
from tournaments.core.rounds import tick
from tournaments.core.store import competitions, create, reset_competitions

pytestmark = pytest.mark.e2e

SHORT = {"draw_cards": 1, "beans": ["wax", "blue", "chili", "stink"]}


@override_settings(PLAY_BOT_PACE_SECONDS=0, PLAY_SWEEP_SECONDS=0.2)
class OutsideBotTest(ChannelsLiveServerTestCase):
    ProtocolServerProcess = SweepingDaphne

    def test_a_bot_challenges_plays_and_is_seated_by_a_ladder(self) -> None:
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
        reset_games()
        reset_competitions()
        owner = User.objects.create_user("olga", password="pw")
        account = tokens.create_bot(owner, "robo")
        _row, token = tokens.issue(account, "ci", ("play", "read", "enter"))
        base = self.live_server_url
        api = outside_client.Api(base, token)
        events = outside_client.Listener(api)

        status, table = api.call("create_challenge", {
            "ruleset": "classic", "players": 3, "house_rules": SHORT,
            "seats": ["me", "bot:heuristic", "bot:random"],
            "clock": {"move_seconds": 60, "game_seconds": 0}})
        assert status == 201, table
        started = events.wait_for("gameStart")
        assert started["table"]["id"] == table["id"] and started["seat"] == 0
        last = outside_client.play(base, started["socket"], token)
        assert last["finished"] and last["seat"] == 0
        finished = events.wait_for("gameFinish")
        assert finished["table"]["id"] == table["id"]
        status, mine = api.call("my_games", None)
        assert status == 200 and [g["status"] for g in mine] == ["finished"]

        # A ladder whose games are live tables: robo enters it, by its own token.
        ruleset = customize("classic", 3, SHORT)
        ladder = create("Bot Ladder", "ladder", {}, ruleset, 3,
                        ["heuristic@builtin", "random@builtin"], every=60,
                        live=LivePlay("classic", SHORT, 60, 0, 1, False))
        status, entry = api.call("enter_competition", {"account": "robo"},
                                 competition_id=str(ladder.id))
        assert status == 201, entry
        assert entry["entrant"] == "user:robo"
        assert "user:robo" in competitions().get(ladder.id).entrants
        # The ladder's tick (the beat's, run here) seats robo at a live table.
        assert tick(ladder.id, lambda *_: None) == "paired"
        seated = Table.objects.filter(seats__user=account.user, status="running").get()
        assert seated.move_seconds == 60  # the ladder's clock
        told = events.wait_for("gameStart", seat=next(
            s.number for s in seated.seats.all() if s.user_id == account.user.pk))
        assert UUID(told["table"]["id"]) == seated.id
        last = outside_client.play(base, told["socket"], token)
        assert last["finished"]
        status, refused = api.call("enter_competition", {"account": "robo"},
                                   competition_id=str(ladder.id))
        assert status == 409 and refused["code"] == "entry_refused", (status, refused)
