"""The Games application and the Game aggregate (bohnanza_core/games.py), on the
library's own stores (in memory and SQLite): the platform's Django store is tested
with the same application in tests/replays/."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from bohnanza_core import IllegalMove, PlantFromHand, awaiting, legal_commands, ruleset_for
from bohnanza_core.engine import OfferShape, evolve, is_decision
from bohnanza_core.events import Event, GameEnded
from bohnanza_core.games import (
    SNAPSHOT_INTERVAL,
    Game,
    GameNotFound,
    Games,
    GameStateAsDict,
    StaleCommand,
    entry_of,
    play_bot_game,
)
from bohnanza_core.record import GENESIS, chain, check_chain
from bohnanza_core.simulator import bot_classes, play_game
from bohnanza_core.verify import verify_record

LINEUP = ["heuristic", "nontrading", "random", "heuristic"]


@pytest.fixture(params=["popo", "sqlite"])
def app(request: Any, tmp_path: Path) -> Iterator[Games]:
    env = {"PERSISTENCE_MODULE": f"eventsourcing.{request.param}",
           "SQLITE_DBNAME": str(tmp_path / "games.sqlite3")}
    games = Games(env=env)
    yield games
    games.close()


def _encoded(state: Any) -> Any:
    return GameStateAsDict().encode(state)


def unsalted(events: list[Event]) -> list[Event]:
    """The events without what the game's salt decides: a stored game draws a fresh
    secret salt, a simulation derives its own from the seed; the game is the same."""
    out = list(events)
    out[0] = replace(out[0], salt=None, seed_commitment="")  # type: ignore[type-var]
    if isinstance(out[-1], GameEnded):
        out[-1] = replace(out[-1], salt="")
    return out


def test_a_bot_game_stored_command_by_command_is_the_simulated_game(app: Games) -> None:
    ruleset = ruleset_for("classic", 4)
    game = play_bot_game(app, ruleset, LINEUP, "same")
    simulated = play_game(ruleset, bot_classes(LINEUP), "same")
    entries = app.record(game.id)
    assert unsalted([e.event for e in entries]) == unsalted(simulated.events)
    assert entries[0].event.salt != simulated.events[0].salt  # type: ignore[attr-defined]
    assert [e.seq for e in entries] == list(range(1, len(entries) + 1))
    assert game.finished and game.version == len(entries)
    assert entries[0].previous_hash == GENESIS
    assert check_chain(entries, game.head_hash).ok
    assert verify_record(entries, game.head_hash).ok
    # Decisions are credited to the bot in the seat, the table's own steps to no one:
    # the same credits as a simulation's record gets (record.decision_actor).
    assert entries[0].actor is None and entries[1].actor is None
    assert {e.actor for e in entries} == {None, "bot:heuristic", "bot:nontrading", "bot:random"}
    names = dict(zip(simulated.seats, game.players, strict=True))
    expected = [names.get(e.actor) if e.actor else None for e in chain(simulated.events)]
    assert [e.actor for e in entries] == expected


def test_every_step_rebuilds_exactly_from_snapshots(app: Games) -> None:
    game = play_bot_game(app, ruleset_for("classic", 3), LINEUP[:3], "steps",
                         save_each_command=False)
    entries = app.record(game.id)
    snapshots = list(app.snapshots.get(game.id)) if app.snapshots else []
    assert len(snapshots) >= len(entries) // (SNAPSHOT_INTERVAL * 2)
    state = None
    for entry in entries:
        state = evolve(state, entry.event)
        at_step = app.game(game.id, entry.seq)
        assert at_step.version == entry.seq
        assert _encoded(at_step.state) == _encoded(state), entry.seq
        assert at_step.head_hash == entry.hash
        assert at_step.players == game.players and isinstance(at_step.players, tuple)


def test_an_illegal_command_stores_nothing(app: Games) -> None:
    game = app.start(ruleset_for("classic", 3), ("A", "B", "C"), "illegal")
    before = app.record(game.id)
    with pytest.raises(IllegalMove):
        app.play(game.id, PlantFromHand(seat=1, field=0), "user:b")  # not B's turn
    assert app.record(game.id) == before
    assert app.game(game.id).version == game.version


def test_a_stale_command_is_refused_and_stores_nothing(app: Games) -> None:
    game = app.start(ruleset_for("classic", 3), ("A", "B", "C"), "race")
    first = app.game(game.id)
    second = app.game(game.id)
    move = PlantFromHand(seat=0, field=0)
    app.play_on(first, move, "user:a")
    with pytest.raises(StaleCommand, match="another command was recorded"):
        app.play_on(second, PlantFromHand(seat=0, field=1), "user:a")
    with pytest.raises(StaleCommand, match="not 18"):
        app.play(game.id, move, "user:a", expected_version=game.version)
    entries = app.record(game.id)
    assert entries[-len(app.game(game.id).state.seats):]  # unchanged shape
    assert [e.seq for e in entries] == list(range(1, len(entries) + 1))
    assert verify_record(entries, app.game(game.id).head_hash).ok


def test_unknown_games(app: Games) -> None:
    from uuid import uuid4

    with pytest.raises(GameNotFound):
        app.game(uuid4())
    with pytest.raises(GameNotFound):
        app.record(uuid4())


def test_the_game_state_survives_its_transcoding() -> None:
    codec = GameStateAsDict()
    for name, players in [("classic", 4), ("duel", 2), ("rio-grande", 7), ("finnish", 3)]:
        bots = ["heuristic", "random"] * 4
        record = play_game(ruleset_for(name, players), bot_classes(bots[:players]), name)
        state = None
        for i, event in enumerate(record.events):
            state = evolve(state, event)
            if i % 25 == 0 or i == len(record.events) - 1:
                again = codec.decode(codec.encode(state))
                assert codec.encode(again) == codec.encode(state)
                assert again.offers.keys() == state.offers.keys()
                assert again.kinds == state.kinds and again.seats == state.seats


def test_a_row_changed_in_the_database_breaks_the_chain(tmp_path: Path) -> None:
    path = tmp_path / "tamper.sqlite3"
    app = Games(env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(path)})
    game = play_bot_game(app, ruleset_for("classic", 3), LINEUP[:3], "tamper")
    app.close()
    with sqlite3.connect(path) as db:
        (state,) = db.execute("SELECT state FROM stored_events WHERE originator_version=30"
                              ).fetchone()
        db.execute("UPDATE stored_events SET state=? WHERE originator_version=30",
                   (state.replace(b'"at":"2026-', b'"at":"2025-'),))
    app = Games(env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(path)})
    reloaded = app.game(game.id, 35)  # before the first snapshot: rebuilt from the events
    assert reloaded.chain_broken_at == 31
    verdict = verify_record(app.record(game.id), game.head_hash)
    assert not verdict.ok and verdict.first_bad == 30
    app.close()


def test_a_running_game_keeps_its_seed_in_the_store_only(app: Games) -> None:
    game = app.start(ruleset_for("classic", 3), ("A", "B", "C"), "secret-seed")
    seat = awaiting(game.state)[0]
    move = next(m for m in legal_commands(game.state, seat) if not isinstance(m, OfferShape))
    app.play(game.id, move, "user:a")
    entries = app.record(game.id)
    assert entries[0].event.seed == "secret-seed"  # type: ignore[attr-defined]
    assert not app.game(game.id).finished
    assert isinstance(app.game(game.id), Game)


def test_is_decision_agrees_with_command_for() -> None:
    from bohnanza_core.engine import command_for, is_decision

    for name, players in [("classic", 4), ("duel", 2), ("rio-grande", 7), ("finnish", 3),
                          ("amigo-en", 5)]:
        bots = ["heuristic", "random", "nontrading"] * 3
        record = play_game(ruleset_for(name, players), bot_classes(bots[:players]), name)
        for event in record.events:
            assert is_decision(event) == (command_for(event) is not None), event


def test_events_look_the_same_however_the_library_collects_them(app: Games) -> None:
    """A game's commands wait unchained until something asks (Game._seal): looking at
    the pending events halfway, or never, stores the same record."""
    ruleset = ruleset_for("classic", 3)
    records = []
    for peek in (False, True):
        game, _ = app._start(ruleset, ("A", "B", "C"), "twins", save=False)
        assert game.version > 1 and not app.recorder.select_events(game.id)
        for turn in range(60):
            seat = awaiting(game.state)[0]
            move = next(m for m in legal_commands(game.state, seat)
                        if not isinstance(m, OfferShape))
            game.play(move, f"user:{seat}")
            if peek and turn == 30:  # the library's view: Game.Happened events, chained
                pending = game.pending_events
                assert [e.originator_version for e in pending] == list(
                    range(1, game.version + 1))
                assert [e.previous_hash for e in pending[1:]] == [
                    entry_of(e).hash for e in pending[:-1]]
        unsaved = game.unsaved_entries()
        assert [e.seq for e in unsaved] == list(range(1, game.version + 1))
        head = game.head_hash
        recordings = app.save(game)
        assert len(recordings) == game.version == len(unsaved)
        assert [r.notification.originator_version for r in recordings] == [
            e.seq for e in unsaved]
        assert recordings[-1].domain_event.previous_hash == unsaved[-1].previous_hash
        assert not game.pending_events and not game.unsaved_entries()
        entries = app.record(game.id)
        assert entries[1:] == unsaved[1:]  # (the first's time is the library's own)
        assert check_chain(entries, head).ok and app.game(game.id).head_hash == head
        records.append(list(zip(unsalted([e.event for e in entries]),
                                [(e.seq, e.actor) for e in entries], strict=True)))
        for snapshot in (app.snapshots.get(game.id) if app.snapshots else []):
            assert not {"_unsealed", "_sealed", "_snapshots_due"} & set(snapshot.state)
    assert records[0] == records[1]


def test_automatic_events_are_credited_to_no_one(app: Games) -> None:
    """Issue 15, item 5: a planting that ends because the hand is empty (right after
    TurnStarted) happens by itself: no actor, in the store and in a simulation's record
    (docs/export.md: the actor is null for what the table does by itself). Only the
    event that opens a command is its issuer's."""
    from bohnanza_core import customize
    from bohnanza_core.events import PlantingEnded, TurnStarted

    ruleset = customize("classic", 3, {"draw_cards": 0})
    game = play_bot_game(app, ruleset, LINEUP[:3], "empty-hands", save_each_command=False)
    stored = app.record(game.id)
    simulated = chain(play_game(ruleset, bot_classes(LINEUP[:3]), "empty-hands").events)
    for entries in (stored, simulated):
        automatic = [e for before, e in pairwise(entries)
                     if isinstance(e.event, PlantingEnded)
                     and isinstance(before.event, TurnStarted)]
        assert len(automatic) >= 3
        assert {e.actor for e in automatic} == {None}
        openings = [e for e in entries if e.actor is not None]
        assert all(is_decision(e.event) for e in openings)


def test_a_game_with_a_given_id_is_stored_once(app: Games) -> None:
    """A tournament's game id follows from its pairing: a second attempt at the same
    game (a redelivered task) is refused by the store and stores nothing."""
    from uuid import NAMESPACE_URL, uuid5

    from eventsourcing.persistence import IntegrityError

    gid = uuid5(NAMESPACE_URL, "tournament:round:pairing")
    first = play_bot_game(app, ruleset_for("classic", 4), LINEUP, "shared seed",
                          save_each_command=False, game_id=gid)
    assert first.id == gid
    again = play_bot_game(app, ruleset_for("classic", 4), LINEUP, "shared seed",
                          save_each_command=False, save=False, game_id=gid)
    with pytest.raises(IntegrityError):
        app.save(again)
    assert len(app.record(gid)) == first.version
