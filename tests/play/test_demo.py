"""``manage.py demo``: the content ``python3 run.py start`` puts on an empty platform."""

from __future__ import annotations

from collections.abc import Iterator
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from bohnanza_core.games import Game
from bohnanza_core.verify import verify_record
from play.management.commands.demo import ACCOUNTS, BOT_GAMES
from play.models import Table
from play.tables import start
from replays.store import games, reset_games
from tests.core.attack import seed_guesses


@pytest.fixture
def fresh_store(db: None) -> Iterator[None]:
    reset_games()
    yield
    reset_games()


def _stored_games() -> list[Game]:
    store = games()
    ids = []
    for n in store.recorder.select_notifications(start=None, limit=1_000_000):
        if n.originator_id not in ids:
            ids.append(n.originator_id)
    return [store.game(i) for i in ids]


def test_demo_fills_an_empty_platform_once(fresh_store: None) -> None:
    out = StringIO()
    call_command("demo", stdout=out)
    stored = _stored_games()
    assert len(stored) == len(BOT_GAMES) + 1
    finished = [g for g in stored if g.finished]
    assert len(finished) == len(BOT_GAMES)
    assert {g.state.ruleset.name for g in finished} == {"classic", "amigo-en", "rio-grande",
                                                        "finnish", "duel"}
    assert sum(g.private for g in stored) == 1
    assert any("user:ann" in g.players for g in finished)
    for game in stored:
        assert verify_record(games().record(game.id), game.head_hash).ok
        # Issue 8: seeds of 128 secret bits, commitments no guess confirms.
        assert len(game.state.seed) == 32 and len(game.state.salt) == 32
        assert seed_guesses(game.state.seed_commitment) == []
    assert len({g.state.seed for g in stored}) == len(stored)
    users = get_user_model().objects
    assert {u.username for u in users.all()} >= {name for name, _ in ACCOUNTS}
    assert users.get(username="arbiter").is_staff
    assert users.get(username="ann").check_password("bohnanza")

    waiting = Table.objects.get(status=Table.Status.OPEN)
    assert waiting.created_by.username == "ann" and "/play/tables/" in out.getvalue()
    assert [s.player() for s in waiting.seats.all()] == [
        "user:ann", "bot:heuristic", "bot:nontrading", "bot:random"]

    again = StringIO()
    call_command("demo", stdout=again)
    assert "nothing added" in again.getvalue()
    assert len(_stored_games()) == len(stored)
    assert Table.objects.count() == 1
    start(waiting, waiting.created_by)  # the visitor starts it: another one waits
    call_command("demo", stdout=StringIO())
    assert Table.objects.filter(status=Table.Status.OPEN).count() == 1
