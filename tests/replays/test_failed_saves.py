"""A game whose save failed is never played on as it is (issue 9, item 3).

A failed save that is not a lost race (here: the database stays locked by another
writer past the busy timeout) leaves the game object ahead of the store: its events
were taken out of it and its version moved on. The next command on the same object
used to store its events after a gap, and the game could no longer be loaded
(``OriginatorVersionError``). Now the next command first loads the game again from the
store, and the store itself refuses events that do not follow the last stored one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from eventsourcing.persistence import OperationalError

from bohnanza_core import IllegalMove, awaiting, legal_commands, ruleset_for
from bohnanza_core.commands import Command
from bohnanza_core.engine import OfferShape
from bohnanza_core.games import Game, Games, StaleCommand
from bohnanza_core.verify import verify_record
from tests.replays import persistence_cases as cases
from tests.replays.race_cases import PLAYERS, SEATS, store_on

ALIAS = "failed_saves_test"


@pytest.fixture
def database(tmp_path: Path, django_db_blocker: Any) -> Iterator[Path]:
    """A SQLite store whose writers give up on a locked database after 50 ms."""
    path = tmp_path / "store.sqlite3"
    settings_dict = {"ENGINE": "django.db.backends.sqlite3", "NAME": str(path),
                     "OPTIONS": {**cases.SQLITE_OPTIONS, "timeout": 0.05}}
    with django_db_blocker.unblock(), cases.database_alias(ALIAS, settings_dict):
        yield path


def first_move(game: Game) -> Command:
    seat = awaiting(game.state)[0]
    return next(m for m in legal_commands(game.state, seat) if not isinstance(m, OfferShape))


def fail_a_save(app: Games, game: Game, path: Path) -> Command:
    """Play a command on ``game`` while another connection holds the write lock: the
    save fails (not a lost race) after the command changed the game in memory."""
    command = first_move(game)
    lock = sqlite3.connect(path, isolation_level=None)
    try:
        lock.execute("BEGIN IMMEDIATE")
        with pytest.raises(OperationalError, match="locked"):
            app.play_on(game, command, PLAYERS[command.seat])
    finally:
        lock.close()
    return command


def assert_whole(app: Games, game: Game) -> None:
    """The stored game loads, has no gap, verifies, and is what the object holds."""
    stored = app.game(game.id)
    record = app.record(game.id)
    assert [e.seq for e in record] == list(range(1, len(record) + 1))
    verdict = verify_record(record, stored.head_hash)
    assert verdict.ok, verdict.report()
    assert (game.version, game.head_hash) == (stored.version, stored.head_hash)


@pytest.fixture
def app(database: Path) -> Iterator[Games]:
    app = store_on(ALIAS)
    yield app
    app.close()


def started(app: Games, commands: int) -> Game:
    game = app.start(ruleset_for("classic", len(SEATS)), SEATS, "failed-save", players=PLAYERS)
    for _ in range(commands):
        command = first_move(game)
        app.play_on(game, command, PLAYERS[command.seat])
    return game


def test_the_next_command_after_a_failed_save_leaves_no_gap(app: Games,
                                                            database: Path) -> None:
    # The sequence of the issue: a failed save, then another command on the same object,
    # chosen from what the object shows (a holder that did not notice the failure).
    game = started(app, commands=3)
    version = game.version
    fail_a_save(app, game, database)
    assert game.version > version  # the object moved on; the store did not
    assert app.game(game.id).version == version
    following = first_move(game)
    try:
        app.play_on(game, following, PLAYERS[following.seat])
    except IllegalMove:  # legal only after the command that was not stored: refused
        assert game.version == version
    assert_whole(app, game)


def test_the_failed_command_can_be_played_again_on_the_same_object(
        app: Games, database: Path) -> None:
    game = started(app, commands=2)
    version = game.version
    command = fail_a_save(app, game, database)
    entries = app.play_on(game, command, PLAYERS[command.seat])
    assert entries[0].seq == version + 1
    assert_whole(app, game)
    for _ in range(5):  # and it goes on as usual
        command = first_move(game)
        app.play_on(game, command, PLAYERS[command.seat])
    assert_whole(app, game)


def test_saving_a_game_whose_save_failed_is_refused(app: Games, database: Path) -> None:
    game = started(app, commands=1)
    fail_a_save(app, game, database)
    with pytest.raises(StaleCommand, match="load it again"):
        app.save(game)
    assert_whole(app, app.game(game.id))
