"""The game list read model: built by the projection after each command, caught up,
rebuilt from the events alone, and shown to nobody who may not know a private game."""

from __future__ import annotations

import json
import logging
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from io import StringIO
from typing import Any

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import OperationalError, ProgrammingError, connection
from eventsourcing.persistence import Tracking

from bohnanza_core import awaiting, legal_commands
from bohnanza_core.commands import HandSeatToBot
from bohnanza_core.engine import OfferShape
from bohnanza_core.events import Handover
from bohnanza_core.games import Game, Games
from replays import projections
from replays.models import GameSummary, ProjectionFailure, SeatSummary
from replays.projections import (
    apply_events,
    catch_up,
    game_list_view,
    projection_runner,
    rebuild,
    winners_text,
)
from replays.store import games, reset_games
from tests.factories import bot_game, running_game


def snapshot() -> dict[str, Any]:
    """Every row of the read model, comparable."""
    return {
        str(row["game_id"]): {
            **{k: v for k, v in row.items() if k != "game_id"},
            "seats": list(SeatSummary.objects.filter(game_id=row["game_id"])
                          .order_by("seat").values("seat", "name", "player", "coins", "rank",
                                                   "winner", "handed_to")),
        }
        for row in GameSummary.objects.order_by("game_id").values()
    }


def position() -> int | None:
    return game_list_view().max_tracking_id(games().name)


def stored_events(store: Games) -> int:
    return store.recorder.max_notification_id() or 0


@pytest.fixture
def several(store: Games) -> list[Game]:
    """A finished public game, a finished private one with people, a tournament game and
    a running game."""
    return [
        bot_game("rm-public"),
        bot_game("rm-private", players=("user:ann", "bot:nontrading", "user:bob"),
                 private=True),
        bot_game("rm-cup", ruleset="finnish", bots=("heuristic", "random"),
                 tournament="Spring Cup"),
        running_game("rm-running", commands=4),
    ]


# -- what a row says --------------------------------------------------------------------


def test_a_finished_game_is_listed_with_its_result(store: Games) -> None:
    game = bot_game("rm-result")
    row = GameSummary.objects.get(pk=game.id)
    result = game.state.result
    assert result is not None
    started, *_, ended = store.events.get(game.id)

    assert row.ruleset == "classic"
    assert row.player_count == 3
    assert row.status == GameSummary.Status.FINISHED
    assert row.events == game.version
    assert row.started_at == started.timestamp
    assert row.ended_at == ended.timestamp == row.last_event_at
    assert row.tournament == ""
    assert row.private is False
    seats = list(row.seats.order_by("seat"))
    assert [s.name for s in seats] == list(game.state.seats)
    assert [s.player for s in seats] == list(game.players)
    assert tuple(s.coins for s in seats) == result.coins
    assert tuple(s.rank for s in seats) == result.ranks
    assert [s.seat for s in seats if s.winner] == list(result.winners)
    assert row.winners == winners_text([game.state.seats[w] for w in result.winners])


def test_a_running_game_is_listed_as_running_without_a_result(store: Games) -> None:
    game = running_game("rm-run", commands=3, private=True)
    row = GameSummary.objects.get(pk=game.id)
    assert row.status == GameSummary.Status.RUNNING
    assert row.events == game.version
    assert row.ended_at is None
    assert row.winners == ""
    assert row.private is True
    assert list(row.seats.values_list("player", "coins", "winner")) == [
        ("user:ann", None, False), ("user:bob", None, False), ("user:cy", None, False)]


def test_the_list_follows_every_stored_command(store: Games) -> None:
    game = running_game("rm-follow")
    for _ in range(5):
        seat = awaiting(game.state)[0]
        move = next(m for m in legal_commands(game.state, seat) if not isinstance(m, OfferShape))
        store.play_on(game, move, game.players[seat])
        assert GameSummary.objects.get(pk=game.id).events == game.version
        assert position() == stored_events(store)


def test_no_secret_reaches_the_read_model(store: Games) -> None:
    game = running_game("secret-seed-xyz", commands=2)
    everything = json.dumps(snapshot(), default=str)
    assert "secret-seed-xyz" not in everything
    assert game.state.seed == "secret-seed-xyz"  # the store does hold it
    assert game.share_token not in everything


def test_winners_text_reads_naturally() -> None:
    assert winners_text([]) == ""
    assert winners_text(["Ann"]) == "Ann"
    assert winners_text(["Ann", "Bob"]) == "Ann and Bob"
    assert winners_text(["Ann", "Bob", "Cy"]) == "Ann, Bob and Cy"


# -- catch-up ---------------------------------------------------------------------------


def test_catch_up_processes_what_was_stored_while_it_was_off(
        store: Games, settings: Any) -> None:
    settings.READ_MODELS_CATCH_UP = False
    first = bot_game("rm-off-1")
    second = running_game("rm-off-2", commands=2)
    assert not GameSummary.objects.exists()
    assert position() is None

    done = catch_up()

    assert done.events == stored_events(store) == done.position == position()
    assert done.games == {first.id, second.id}
    assert GameSummary.objects.get(pk=first.id).status == GameSummary.Status.FINISHED
    assert GameSummary.objects.get(pk=second.id).events == second.version


def test_catch_up_is_idempotent(several: list[Game]) -> None:
    before = snapshot()
    at = position()
    again = catch_up()
    assert (again.events, again.games, again.position) == (0, set(), at)
    assert snapshot() == before


def test_applying_events_twice_changes_nothing(several: list[Game], store: Games) -> None:
    """Two processors racing over the same events agree: folding is idempotent."""
    before = snapshot()
    notifications = store.recorder.select_notifications(start=None, limit=10_000)
    events = [store.mapper.to_domain_event(n) for n in notifications]
    apply_events(events, "default")
    apply_events(list(reversed(events)), "default")
    assert snapshot() == before


def test_small_batches_build_the_same_list(several: list[Game]) -> None:
    incremental = snapshot()
    game_list_view().wipe(games().name)
    done = catch_up(batch_size=7)
    assert done.events == position()
    assert snapshot() == incremental


def test_a_processor_that_lost_the_race_writes_nothing(store: Games, settings: Any) -> None:
    settings.READ_MODELS_CATCH_UP = False
    bot_game("rm-race")
    notifications = store.recorder.select_notifications(start=None, limit=50)
    items = [(store.mapper.to_domain_event(n), Tracking(store.name, n.id))
             for n in notifications]
    view = game_list_view()
    view.insert_tracking(Tracking(store.name, notifications[-1].id))  # someone got there

    assert view.record(items) is None
    assert not GameSummary.objects.exists()
    assert position() == notifications[-1].id


def test_a_catch_up_overtaken_by_another_looks_again(
        store: Games, settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    settings.READ_MODELS_CATCH_UP = False
    game = bot_game("rm-overtaken")
    real_record = projections.GameListView.record_notifications
    overtaken: list[int] = []

    def record_after_a_rival(self: Any, app: Any, notifications: Any) -> Any:
        if not overtaken:  # a rival processes everything between our read and our write
            overtaken.append(1)
            monkeypatch.setattr(projections.GameListView, "record_notifications", real_record)
            rival = catch_up()
            monkeypatch.setattr(projections.GameListView, "record_notifications",
                                record_after_a_rival)
            assert rival.events == stored_events(store)
        return real_record(self, app, notifications)

    monkeypatch.setattr(projections.GameListView, "record_notifications", record_after_a_rival)
    done = catch_up(batch_size=100)

    assert overtaken and done.events == 0  # it wrote nothing twice
    assert done.position == position() == stored_events(store)
    assert GameSummary.objects.get(pk=game.id).events == game.version


def test_rows_and_position_commit_together(store: Games, settings: Any,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    settings.READ_MODELS_CATCH_UP = False
    game = bot_game("rm-atomic")

    def broken(self: Any) -> None:
        GameSummary.objects.update(ruleset="half-written")
        # The database's own trouble, every event's: not skipped, stops the catch-up.
        raise OperationalError("could not extend file: No space left on device")

    monkeypatch.setattr(projections._Batch, "write", broken)
    with pytest.raises(OperationalError, match="No space left"):
        catch_up()
    assert position() is None
    assert not GameSummary.objects.exists()

    monkeypatch.undo()
    catch_up()
    assert GameSummary.objects.get(pk=game.id).ruleset == "classic"


def test_a_failing_catch_up_does_not_fail_the_stored_command(
        store: Games, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("read model offline")

    monkeypatch.setattr(projections, "catch_up", broken)
    game = running_game("rm-offline", commands=1)  # stored despite the read model

    assert store.game(game.id).version == game.version
    assert "catching up after a save failed" in caplog.text
    monkeypatch.undo()
    catch_up()
    assert GameSummary.objects.get(pk=game.id).events == game.version


def play_first_moves(store: Games, game: Game, count: int) -> None:
    for _ in range(count):
        seat = awaiting(game.state)[0]
        move = next(m for m in legal_commands(game.state, seat) if not isinstance(m, OfferShape))
        store.play_on(game, move, game.players[seat])


def test_a_seat_handed_to_a_bot_is_listed_also_after_a_rebuild(store: Games) -> None:
    game = running_game("rm-left", commands=2)
    store.play_on(game, HandSeatToBot(1, "heuristic", Handover.LEFT), "user:bob")
    play_first_moves(store, game, 3)  # the handover is not the last event any more
    shown = list(SeatSummary.objects.filter(game_id=game.id).order_by("seat")
                 .values_list("player", "handed_to"))
    assert shown == [("user:ann", ""), ("user:bob", "heuristic"), ("user:cy", "")]
    incremental = snapshot()

    # A rebuild reads the handover from the middle of a batch, where only a game's
    # first and last events are decoded.
    call_command("rebuild_read_models", stdout=StringIO())

    assert snapshot() == incremental


# -- rebuild ----------------------------------------------------------------------------


def test_rebuilt_read_model_equals_the_incremental_one(several: list[Game],
                                                       store: Games) -> None:
    incremental = snapshot()
    assert len(incremental) == 4
    out = StringIO()

    call_command("rebuild_read_models", stdout=out)

    assert snapshot() == incremental
    events = stored_events(store)
    assert f"from {events} events of 4 games" in out.getvalue()
    assert "4 games listed" in out.getvalue()
    assert position() == events


def test_deleted_rows_come_back_with_a_rebuild(several: list[Game]) -> None:
    before = snapshot()
    GameSummary.objects.filter(pk__in=[several[0].id, several[3].id]).delete()
    SeatSummary.objects.filter(game_id=several[1].id).update(coins=99, winner=False)
    assert snapshot() != before

    call_command("rebuild_read_models", stdout=StringIO())

    assert snapshot() == before


def test_rebuild_of_an_empty_store_lists_nothing(store: Games) -> None:
    out = StringIO()
    call_command("rebuild_read_models", stdout=out)
    assert not GameSummary.objects.exists()
    assert "from 0 events of 0 games" in out.getvalue()


def test_rebuild_forgets_rows_of_games_the_store_never_had(several: list[Game]) -> None:
    before = snapshot()
    stray = GameSummary.objects.get(pk=several[0].id)
    stray.pk = "00000000-0000-0000-0000-000000000001"
    stray.save(force_insert=True)
    rebuild()
    assert snapshot() == before


# -- who may know a game exists ---------------------------------------------------------


def test_private_games_are_visible_only_to_their_players_and_staff(
        several: list[Game]) -> None:
    public, private, cup, running = several
    everyone = {public.id, cup.id, running.id}

    def ids(username: str | None, is_staff: bool = False) -> set[Any]:
        rows = GameSummary.objects.visible_to(username, is_staff=is_staff)
        return set(rows.values_list("game_id", flat=True))

    assert ids(None) == everyone
    assert ids("cy") == everyone | {running.id}  # cy sits at the (public) running game
    assert ids("ann") == everyone | {private.id}
    assert ids("bob") == everyone | {private.id}
    assert ids("nontrading") == everyone  # a bot's name is not an account
    assert ids("mallory", is_staff=True) == everyone | {private.id}


# -- run_projections: the continuous runner ---------------------------------------------


@pytest.fixture
def committed_store(transactional_db: None, settings: Any) -> Iterator[Games]:
    """The store on a database other connections (threads, processes) see, with the
    synchronous catch-up off, as where run_projections runs. Committed events outlive a
    test (the store's tables are not Django models, so the flush leaves them): tests
    here look at their own games and at positions relative to where they began."""
    settings.READ_MODELS_CATCH_UP = False
    reset_games()
    yield games()
    reset_games()


def wait_for(predicate: Any, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.05)


def test_the_runner_follows_the_store_as_events_are_committed(
        committed_store: Games) -> None:
    before = bot_game("rm-runner-1")
    with projection_runner() as runner:
        runner.wait(stored_events(committed_store), timeout=30)
        assert GameSummary.objects.get(pk=before.id).status == GameSummary.Status.FINISHED
        during = bot_game("rm-runner-2", tournament="Live Cup")
        runner.wait(stored_events(committed_store), timeout=30)
        row = GameSummary.objects.get(pk=during.id)
    assert (row.status, row.events, row.tournament) == ("finished", during.version, "Live Cup")
    assert position() == stored_events(committed_store)


def test_one_event_per_transaction_builds_the_same_list_as_batches(
        several: list[Game], store: Games) -> None:
    """Batches decode a game's first and last events only (listed_events): the list is
    what the library's one-event-at-a-time protocol builds from every event."""
    batched = snapshot()
    view = game_list_view()
    view.wipe(store.name)
    projection = projections.GameListProjection(view)
    for n in store.recorder.select_notifications(start=None, limit=100_000):
        projection.process_event(store.mapper.to_domain_event(n), Tracking(store.name, n.id))
    assert snapshot() == batched


def test_the_runner_writes_what_has_arrived_in_few_transactions(
        committed_store: Games) -> None:
    """Issue 9: one transaction per event could not keep up with tournaments. What the
    runner finds waiting goes in batches, each with its position, exactly once."""
    start = position() or 0
    stored = [bot_game(f"rm-batches-{i}") for i in range(4)]
    end = stored_events(committed_store)
    batches: list[list[int]] = []

    def seen(notifications: Any, committed_at: float) -> None:
        batches.append([n.id for n in notifications])

    with projections.GameListRunner(batch_size=1000, on_batch=seen) as runner:
        runner.wait(end, timeout=60)
    ids = [i for batch in batches for i in batch]
    assert ids == list(range(start + 1, end + 1))  # each event once, in order
    # At least what the subscription pulls at a time (500) goes in each transaction.
    assert len(batches) <= (end - start) // 500 + 1
    assert all(len(batch) <= 1000 for batch in batches)
    assert position() == end
    for game in stored:
        row = GameSummary.objects.get(pk=game.id)
        assert (row.status, row.events) == ("finished", game.version)


def test_the_runner_stops_on_an_error_that_is_not_an_outage(
        committed_store: Games, monkeypatch: pytest.MonkeyPatch) -> None:
    """An error of the database that is every event's but no outage (here: a migration
    not run) stops the runner where it is: skipping would lose every event after it."""
    start = position()
    bot_game("rm-runner-error")

    def broken(self: Any) -> None:
        raise ProgrammingError('relation "replays_gamesummary" does not exist')

    monkeypatch.setattr(projections._Batch, "write", broken)
    with pytest.raises(ProgrammingError, match="does not exist"), \
            projection_runner() as runner:
        runner.run_forever(timeout=30)
    assert position() == start  # nothing half-written
    assert not ProjectionFailure.objects.exists()  # and nothing skipped


def test_run_projections_logs_its_rate_and_lag(committed_store: Games,
                                               caplog: pytest.LogCaptureFixture) -> None:
    game = bot_game("rm-report")
    with caplog.at_level(logging.INFO, logger="replays.projections"):
        call_command("run_projections", "--stop-after", "1", "--report-every", "0.25",
                     stdout=StringIO())
    reports = [r.getMessage() for r in caplog.records if r.name == "replays.projections"]
    busy = [m for m in reports if "events/s" in m]
    assert busy and all(re.search(r"lag p50 [\d.]+ s, p99 [\d.]+ s, max [\d.]+ s; at event "
                                  r"\d+$", m) for m in busy)
    assert any(m.startswith("GameList: no new events in") for m in reports)  # then idle
    assert GameSummary.objects.get(pk=game.id).events == game.version


def test_a_runner_stopped_between_reports_reports_its_last_stretch(
        committed_store: Games, caplog: pytest.LogCaptureFixture) -> None:
    """A stop comes between two reports: what the runner did since the last one is
    still reported (a short run used to say nothing of its events)."""
    import threading

    bot_game("rm-last-stretch")
    end = stored_events(committed_store)
    with caplog.at_level(logging.INFO, logger="replays.projections"), \
            projection_runner() as runner:
        def stop_once_followed() -> None:
            deadline = time.monotonic() + 60
            while (runner.position or 0) < end and time.monotonic() < deadline:
                time.sleep(0.01)
            runner.stop()

        threading.Thread(target=stop_once_followed, daemon=True).start()
        runner.run_forever(timeout=120, report_every=600)
    assert runner.position == end
    assert [m for m in (r.getMessage() for r in caplog.records) if "events/s" in m]


def test_run_projections_refuses_bad_options(store: Games) -> None:
    from django.core.management.base import CommandError
    for option, value in [("--report-every", "0"), ("--batch-size", "0")]:
        with pytest.raises(CommandError, match=option):
            call_command("run_projections", option, value)


def test_run_projections_command_processes_events_and_stops(committed_store: Games) -> None:
    start = position() or 0  # committed tests before this one may have left events
    game = running_game("rm-command", commands=3)
    out = StringIO()
    call_command("run_projections", "--stop-after", "1.5", stdout=out)
    assert GameSummary.objects.get(pk=game.id).events == game.version
    assert f"processing events after event {start};" in out.getvalue()
    assert f"stopped after event {stored_events(committed_store)}." in out.getvalue()


def test_run_projections_refuses_a_bad_duration(store: Games) -> None:
    from django.core.management.base import CommandError
    with pytest.raises(CommandError, match="--stop-after"):
        call_command("run_projections", "--stop-after", "-1")


def shared_database_url() -> str:
    """The test database as a ``DATABASE_URL``, for another process."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{db['HOST'] or 'localhost'}:{db['PORT'] or 5432}/{db['NAME']}"


def _as_if_started_in_the_background() -> None:
    """A child of a shell's background job begins with SIGINT ignored."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_run_projections_in_its_own_process_stops_on_ctrl_c_and_sigterm(
        committed_store: Games, stop: signal.Signals) -> None:
    """Production: a separate process projects what the web processes store, until Ctrl-C
    or a process manager's SIGTERM, even started with SIGINT ignored (``command &``)."""
    env = {**os.environ, "DATABASE_URL": shared_database_url(), "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [sys.executable, "manage.py", "run_projections"], cwd=settings.BASE_DIR, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=_as_if_started_in_the_background)
    try:
        assert process.stdout is not None
        assert "Ctrl-C to stop" in process.stdout.readline()
        game = bot_game(f"rm-process-{stop.name}")
        wait_for(lambda: GameSummary.objects.filter(
            pk=game.id, status="finished", events=game.version).exists())
        process.send_signal(stop)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, err
    assert f"stopped after event {stored_events(committed_store)}" in out


def test_a_deferred_catch_up_lists_the_game_once_at_the_end(
        store: Games, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = projections.catch_up

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(projections, "catch_up", counted)
    with projections.catch_up_deferred():
        game = bot_game("rm-deferred")
        with projections.catch_up_deferred():  # nested: still one catch-up, at the end
            other = running_game("rm-deferred-2", commands=2)
        assert not GameSummary.objects.exists()
    assert len(calls) == 1
    assert GameSummary.objects.get(pk=game.id).events == game.version
    assert GameSummary.objects.get(pk=other.id).events == other.version


def test_a_deferred_catch_up_still_runs_after_an_error(store: Games) -> None:
    with pytest.raises(RuntimeError), projections.catch_up_deferred():
        game = running_game("rm-deferred-error", commands=1)
        raise RuntimeError("the bot crashed")
    assert GameSummary.objects.get(pk=game.id).events == game.version
