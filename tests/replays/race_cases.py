"""Two commands racing on one table, for any database alias (SQLite in
``test_race_sqlite``, PostgreSQL in ``tests/services/test_race_postgres``).

Two writers, each a thread with its own Django connection and its own ``Games``
application (as two server processes would be), load the same game at the same
version, wait at a barrier, and store two different legal commands at once. The store
must keep exactly one: the other writer gets :class:`StaleCommand` and nothing of its
command is stored. After every race the record has no gap and no duplicate, the
winner's events are the ones stored, and the whole record still verifies.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.db import connections

from bohnanza_core import awaiting, legal_commands, ruleset_for
from bohnanza_core.commands import Command
from bohnanza_core.engine import OfferShape
from bohnanza_core.games import Games, StaleCommand
from bohnanza_core.record import Entry
from bohnanza_core.verify import verify_record

GAMES = 4
RACES_PER_GAME = 5
SEATS = ("Ann", "Bob", "Cy")
PLAYERS = ("user:ann", "user:bob", "user:cy")

# The two ways a loser hears it: its insert collided with the winner's (it decided on
# the same version), or it loaded the game after the winner had stored its command.
COLLIDED = re.compile(r"^another command was recorded at step (\d+) first; "
                      r"this one was not stored$")
MOVED_ON = re.compile(r"^the table is at step (\d+), not (\d+): "
                      r"another command was recorded first$")


def store_on(alias: str) -> Games:
    """A Games application on ``alias`` through the project's persistence module."""
    return Games(env={"PERSISTENCE_MODULE": "replays.persistence", "DJANGO_DB_ALIAS": alias})


@dataclass
class Outcome:
    command: Command
    stored: list[Entry] | None = None
    refused: StaleCommand | None = None
    error: BaseException | None = None


def two_moves(app: Games, game_id: UUID) -> tuple[Command, Command] | None:
    """Two different legal commands of the seat the table waits for, if it has two."""
    table = app.game(game_id).state
    seat = awaiting(table)[0]
    moves = [m for m in legal_commands(table, seat) if not isinstance(m, OfferShape)]
    return (moves[0], moves[-1]) if len(moves) >= 2 and moves[0] != moves[-1] else None


def advance(app: Games, game_id: UUID) -> None:
    """Play the first legal command (to reach a position with a choice)."""
    table = app.game(game_id).state
    seat = awaiting(table)[0]
    move = next(m for m in legal_commands(table, seat) if not isinstance(m, OfferShape))
    app.play(game_id, move, PLAYERS[seat])


def race(alias: str, writers: tuple[Games, Games], game_id: UUID,
         commands: tuple[Command, Command], preload: bool) -> tuple[int, list[Outcome]]:
    """Release two writers at once; returns the version they raced at and the outcomes.

    ``preload``: each writer loads the game before the barrier and stores it after
    (both certainly decided on the same version: the database settles it); otherwise
    each calls ``Games.play(..., expected_version=)`` after the barrier, as a request
    carrying the version its page showed does.
    """
    version = writers[0].game(game_id).version
    barrier = threading.Barrier(2)
    outcomes = [Outcome(commands[0]), Outcome(commands[1])]

    def write(i: int) -> None:
        app, outcome = writers[i], outcomes[i]
        actor = PLAYERS[outcome.command.seat]
        try:
            if preload:
                game = app.game(game_id)
                assert game.version == version
                barrier.wait(timeout=30)
                outcome.stored = app.play_on(game, outcome.command, actor)
            else:
                barrier.wait(timeout=30)
                outcome.stored = app.play(game_id, outcome.command, actor,
                                          expected_version=version)
        except StaleCommand as refused:
            outcome.refused = refused
        except BaseException as error:  # reported by the caller, never swallowed
            outcome.error = error
        finally:
            connections[alias].close()  # this thread's connection only

    threads = [threading.Thread(target=write, args=(i,)) for i in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a writer hung"
    return version, outcomes


def check_race(app: Games, game_id: UUID, version: int, outcomes: list[Outcome]) -> None:
    """Exactly one command stored, the other refused clearly; the record whole."""
    errors = [o.error for o in outcomes if o.error is not None]
    assert not errors, f"a writer failed with something other than StaleCommand: {errors!r}"
    winners = [o for o in outcomes if o.stored is not None]
    losers = [o for o in outcomes if o.refused is not None]
    assert len(winners) == 1 and len(losers) == 1, outcomes
    winner, loser = winners[0], losers[0]
    message = str(loser.refused)
    collided, moved_on = COLLIDED.match(message), MOVED_ON.match(message)
    assert collided or moved_on, f"unclear conflict message: {message!r}"
    if collided:
        assert int(collided.group(1)) == version + 1
    if moved_on:
        assert int(moved_on.group(2)) == version
    assert winner.stored
    record = app.record(game_id)
    assert [e.seq for e in record] == list(range(1, len(record) + 1)), "gap or duplicate"
    assert len(record) == version + len(winner.stored)
    assert [e.event for e in record[version:]] == [e.event for e in winner.stored]
    assert [e.hash for e in record[version:]] == [e.hash for e in winner.stored]
    game = app.game(game_id)
    assert game.version == len(record) and game.chain_broken_at is None
    verdict = verify_record(record, game.head_hash)
    assert verdict.ok, verdict.report()


def run_races(alias: str) -> int:
    """GAMES x RACES_PER_GAME races; returns how many were settled by a collision in the
    database (both writers had decided on the same version)."""
    writers = (store_on(alias), store_on(alias))
    app = writers[0]
    collisions = 0
    started: list[UUID] = []
    for g in range(GAMES):
        game = app.start(ruleset_for("classic", len(SEATS)), SEATS, f"race-{g}",
                         players=PLAYERS)
        started.append(game.id)
        for _ in range(g * 12):  # later games race deeper, past the first snapshots
            advance(app, game.id)
        for r in range(RACES_PER_GAME):
            moves = two_moves(app, game.id)
            while moves is None:
                advance(app, game.id)
                moves = two_moves(app, game.id)
            version, outcomes = race(alias, writers, game.id, moves, preload=(g + r) % 2 == 0)
            check_race(app, game.id, version, outcomes)
            collisions += sum(1 for o in outcomes
                              if o.refused is not None and COLLIDED.match(str(o.refused)))
    check_notifications(app, started)
    return collisions


def check_notifications(app: Games, game_ids: list[UUID]) -> None:
    """The application's log: ids without a gap, each (game, version) once, and every
    game's events all there: a refused command left no trace, not even a used id."""
    log: list[Any] = list(app.recorder.select_notifications(start=None, limit=1_000_000))
    ids = [n.id for n in log]
    assert ids == list(range(ids[0], ids[0] + len(ids))), "the notification ids have a gap"
    keys = [(n.originator_id, n.originator_version) for n in log]
    assert len(keys) == len(set(keys)), "an event was stored twice"
    for game_id in game_ids:
        versions = sorted(v for o, v in keys if str(o) == str(game_id))
        assert versions == list(range(1, app.game(game_id).version + 1))
