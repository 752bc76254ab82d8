"""An event the game list cannot apply stops neither the list nor the platform, and is
told (issue 26, finding 3: one username longer than its column kept every later game of
every player off the list, for good, and nothing said so but a log line per save).

The event is skipped and recorded (``ProjectionFailure``) with an error log naming its
position; the events after it are applied, in the same run too; ``/health/`` answers
503 and ``manage.py run_projections`` prints a STALLED line until a fix and ``manage.py
rebuild_read_models`` apply it again. Here the projection is made to fail as a bug would,
on the events of one competition's games (``cursed``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from datetime import timedelta
from io import StringIO
from typing import Any
from uuid import UUID

import pytest
from django.core.management import call_command
from django.db import OperationalError
from django.test import Client
from django.utils import timezone

from bohnanza_core.games import Game, Games
from replays import projections
from replays.health import game_list_health
from replays.models import GameSummary, ProjectionFailure
from replays.projections import catch_up, game_list_view, rebuild
from replays.store import games, reset_games
from tests.factories import bot_game, running_game

CURSED = "Cursed Cup"
"""The competition whose games the projection cannot list."""
FAULT = "the projection cannot list this game"


@pytest.fixture
def cursed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A projection that raises on the first event of each game of the Cursed Cup."""
    real = projections._Batch.started

    def started(self: Any, stored: Any) -> None:
        if stored.tournament == CURSED:
            raise ValueError(FAULT)
        real(self, stored)

    monkeypatch.setattr(projections._Batch, "started", started)
    yield
    monkeypatch.undo()


def first_notification(store: Games, game: Game) -> int:
    """The store's position of ``game``'s first event, read page by page (a store the
    other tests of the process filled may hold more than one page before it)."""
    start: int | None = None
    while page := store.recorder.select_notifications(start=start, limit=10_000):
        for n in page:
            if n.originator_id == game.id and n.originator_version == 1:
                return int(n.id)
        start = page[-1].id + 1
    raise AssertionError(f"no first event of {game.id} in the store")


def position(store: Games) -> int:
    return game_list_view().max_tracking_id(store.name) or 0


def stored_events(store: Games) -> int:
    return store.recorder.max_notification_id() or 0


def listed() -> set[UUID]:
    return set(GameSummary.objects.values_list("game_id", flat=True))


def errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if r.name == "replays.projections" and r.levelno >= logging.ERROR]


# -- skipped, recorded, told; the rest goes on ----------------------------------------------


def test_a_game_whose_first_event_fails_is_skipped_and_the_games_after_it_are_listed(
        store: Games, cursed: None, caplog: pytest.LogCaptureFixture) -> None:
    before = bot_game("pf-before")
    bad = bot_game("pf-bad", tournament=CURSED)  # caught up after each of its commands
    after = bot_game("pf-after")
    running = running_game("pf-running", commands=3)

    assert listed() == {before.id, after.id, running.id}
    assert position(store) == stored_events(store)  # the list went past the bad event
    failure = ProjectionFailure.objects.get()
    at = first_notification(store, bad)
    assert (failure.projection, failure.notification_id, failure.game_id, failure.version,
            failure.event, failure.error) == (
        "GameList", at, bad.id, 1, "GameStarted", f"ValueError: {FAULT}")
    # Said once, loudly, with the event's position; the game's later events go unsaid.
    assert errors(caplog) == [
        f"GameList: could not apply event {at} (game {bad.id}, version 1, GameStarted): "
        f"ValueError: {FAULT}; the event is skipped and recorded, the events after it are "
        "applied; manage.py rebuild_read_models applies it again once the cause is fixed"]
    assert "arrived before the game's first event" not in caplog.text
    page = Client().get("/replays/games/").content.decode()
    assert str(after.id) in page and str(bad.id) not in page


def test_a_game_whose_end_fails_stays_listed_as_running(
        store: Games, monkeypatch: pytest.MonkeyPatch) -> None:
    real = projections._Batch._ended

    def ended(self: Any, row: GameSummary, event: Any, at: Any) -> None:
        if row.tournament == CURSED:
            raise ValueError(FAULT)
        real(self, row, event, at)

    monkeypatch.setattr(projections._Batch, "_ended", ended)
    bad = bot_game("pf-bad-end", tournament=CURSED)
    after = bot_game("pf-after-end")

    row = GameSummary.objects.get(pk=bad.id)
    assert row.status == GameSummary.Status.RUNNING and row.events < bad.version
    failure = ProjectionFailure.objects.get()
    assert (failure.game_id, failure.version, failure.event) == (bad.id, bad.version,
                                                                 "GameEnded")
    assert GameSummary.objects.get(pk=after.id).status == GameSummary.Status.FINISHED


def test_the_good_games_of_a_run_with_a_bad_event_are_listed_and_a_rebuild_applies_it(
        store: Games, settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The games around the bad one go in one run (a catch-up after a while off, a
    rebuild): the run is applied again one event at a time, keeping every other game."""
    settings.READ_MODELS_CATCH_UP = False
    before = bot_game("pf-run-before")
    bad = bot_game("pf-run-bad", tournament=CURSED)
    after = running_game("pf-run-after", commands=2)
    real = projections._Batch.started

    def started(self: Any, stored: Any) -> None:
        if stored.tournament == CURSED:
            raise ValueError(FAULT)
        real(self, stored)

    monkeypatch.setattr(projections._Batch, "started", started)
    done = catch_up(batch_size=100_000)

    assert done.position == position(store) == stored_events(store)
    assert done.games == {before.id, bad.id, after.id}  # went through all three
    assert listed() == {before.id, after.id}
    assert [f.game_id for f in ProjectionFailure.objects.all()] == [bad.id]
    assert game_list_health().stalled

    monkeypatch.undo()  # the fix
    rebuild()
    assert listed() == {before.id, bad.id, after.id}
    assert not ProjectionFailure.objects.exists()
    assert not game_list_health().stalled


def test_a_rebuild_tells_of_the_events_that_still_fail(store: Games, cursed: None) -> None:
    bad = bot_game("pf-still-bad", tournament=CURSED)
    out = StringIO()
    call_command("rebuild_read_models", stdout=out)
    assert [f.game_id for f in ProjectionFailure.objects.all()] == [bad.id]  # once
    assert (f"GameList: STALLED: 1 event could not be applied and is skipped, the first "
            f"event {first_notification(store, bad)} (game {bad.id}, version 1, "
            "GameStarted)") in out.getvalue()


# -- /health/ ---------------------------------------------------------------------------------


def test_health_answers_200_while_the_list_keeps_up(store: Games) -> None:
    bot_game("pf-healthy")
    answer = Client().get("/health/")
    assert answer.status_code == 200
    assert "no-store" in answer["Cache-Control"]
    events = stored_events(store)
    assert answer.json() == {"ok": True, "projections": {"GameList": {
        "ok": True, "stalled": False, "position": events, "head": events, "behind": 0,
        "waiting_seconds": None, "failed": 0, "first_failed": None}},
        "worker": {"seen_seconds_ago": None, "silent": False}}


def test_health_answers_503_with_a_failed_event_and_tells_no_secret(
        store: Games, cursed: None) -> None:
    bad = bot_game("pf-health-bad", tournament=CURSED)
    answer = Client().get("/health/")
    assert answer.status_code == 503
    told = answer.json()
    game_list = told["projections"]["GameList"]
    assert told["ok"] is False and game_list["stalled"] is True
    assert game_list["failed"] == 1 and game_list["behind"] == 0
    first = game_list["first_failed"]
    assert (first["event"], first["version"], first["kind"]) == (
        first_notification(store, bad), 1, "GameStarted")
    # Which game (a private one's existence is its players') and why (a message may
    # quote a value) go to the log and the table only.
    assert str(bad.id) not in answer.content.decode() and FAULT not in answer.content.decode()


def test_health_answers_503_once_events_wait_too_long(store: Games, settings: Any) -> None:
    settings.READ_MODELS_CATCH_UP = False  # and no run_projections: nothing follows
    settings.READ_MODELS_STALL_SECONDS = 60
    running_game("pf-waiting", commands=2)
    behind = stored_events(store)

    fresh = Client().get("/health/")  # behind, but not for long: not stalled
    assert fresh.status_code == 200
    assert fresh.json()["projections"]["GameList"]["behind"] == behind
    later = game_list_health(now=timezone.now() + timedelta(seconds=61))
    assert later.stalled and not later.failed
    assert later.stalled_line() == (f"GameList: STALLED: event 1 has waited "
                                    f"{later.waiting:.0f} s ({behind} events behind).")

    settings.READ_MODELS_STALL_SECONDS = 0
    stalled = Client().get("/health/")
    assert stalled.status_code == 503
    assert stalled.json()["projections"]["GameList"]["waiting_seconds"] is not None

    catch_up()
    assert Client().get("/health/").status_code == 200


def test_health_answers_503_when_the_database_cannot_be_read(
        store: Games, monkeypatch: pytest.MonkeyPatch) -> None:
    def unreachable() -> Any:
        raise OperationalError("connection refused")

    monkeypatch.setattr("config.health.projections_health", unreachable)
    answer = Client().get("/health/")
    assert answer.status_code == 503
    assert answer.json() == {"ok": False, "database": "unavailable", "projections": {}}


# -- run_projections --------------------------------------------------------------------------


@pytest.fixture
def committed_store(transactional_db: None, settings: Any) -> Iterator[Games]:
    """The store where run_projections runs: the catch-up after each save off (see
    tests/replays/test_read_models.py)."""
    settings.READ_MODELS_CATCH_UP = False
    reset_games()
    yield games()
    reset_games()


def test_run_projections_prints_a_stalled_line_and_goes_on(
        committed_store: Games, cursed: None) -> None:
    bad = bot_game("pf-runner-bad", tournament=CURSED)
    after = bot_game("pf-runner-after")
    at = first_notification(committed_store, bad)
    out = StringIO()

    call_command("run_projections", "--stop-after", "3", stdout=out)

    said = out.getvalue().splitlines()
    assert (f"GameList: STALLED on event {at} (game {bad.id}, version 1, GameStarted): "
            f"ValueError: {FAULT}; the event is skipped and recorded, the events after it "
            "are applied; manage.py rebuild_read_models applies it again once the cause is "
            "fixed.") in said
    summary = (f"GameList: STALLED: 1 event could not be applied and is skipped, the first "
               f"event {at} (game {bad.id}, version 1, GameStarted): ValueError: {FAULT}; "
               "manage.py rebuild_read_models applies them again once the cause is fixed.")
    assert said[-1] == summary  # said again as it stops
    assert GameSummary.objects.get(pk=after.id).status == GameSummary.Status.FINISHED
    assert position(committed_store) == stored_events(committed_store)

    again = StringIO()  # and as the next run starts
    call_command("run_projections", "--stop-after", "0", stdout=again)
    assert again.getvalue().splitlines()[1] == summary
    assert json.dumps(Client().get("/health/").json()["ok"]) == "false"
