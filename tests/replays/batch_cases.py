"""Several games saved as one write (``Games.save_games``, a tournament task's batch), for
any database alias (SQLite in ``test_batch_saves``, PostgreSQL in
``tests/services/test_batch_saves_postgres``).

The batch is all or none; its events are numbered after everything stored before, each
game's in one consecutive run, in the batch's order, with no gap; each game loads back
and its record verifies; the snapshots go in with it. In the platform's store the
events' statement (the one that takes the counter row on PostgreSQL) is the batch's
last, after the snapshots'.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from unittest.mock import patch
from uuid import UUID, uuid5

import pytest
from django.db import connections, transaction
from eventsourcing.persistence import IntegrityError

from bohnanza_core import ruleset_for
from bohnanza_core.games import (
    SNAPSHOT_INTERVAL,
    Game,
    GameNotFound,
    Games,
    StaleCommand,
    play_bot_game,
)
from bohnanza_core.verify import verify_record
from replays import store
from replays.store import PlatformGames

BOTS = ("heuristic", "heuristic", "heuristic")
NAMESPACE = UUID("6c0b8e55-6a4c-4d8e-9a53-2f2b1f0a3b11")


def platform_store_on(alias: str) -> PlatformGames:
    return PlatformGames(env={"PERSISTENCE_MODULE": "replays.persistence",
                              "DJANGO_DB_ALIAS": alias})


def played(app: Games, name: str) -> Game:
    """A whole bot game played in memory, not stored, with an id of its own."""
    return play_bot_game(app, ruleset_for("classic", len(BOTS)), BOTS, f"seed-{name}" * 4,
                         save_each_command=False, save=False, game_id=uuid5(NAMESPACE, name))


def notifications_after(app: Games, after: int) -> list[tuple[int, UUID, int]]:
    return [(n.id, n.originator_id, n.originator_version)
            for n in app.recorder.select_notifications(start=after + 1, limit=100_000)]


def check_batch_saves(alias: str) -> None:
    saves: list[int] = []
    hooks = [lambda: saves.append(1)]  # the read models' catch-up, in the platform
    with patch.object(store, "_after_save", hooks):
        check_batch_saves_with_hooks(alias, saves)
    assert len(saves) == 4  # once a call that stored games, not once a game


def check_batch_saves_with_hooks(alias: str, saves: list[int]) -> None:
    app = platform_store_on(alias)
    before = played(app, "before")
    app.save(before)
    last = before.version
    batch = [played(app, name) for name in ("a", "b", "c")]
    versions = [game.version for game in batch]
    assert all(v > SNAPSHOT_INTERVAL for v in versions)

    statements: list[str] = []

    def spy(execute: Callable[..., Any], sql: str, *args: Any) -> Any:
        statements.append(sql)
        return execute(sql, *args)

    with connections[alias].execute_wrapper(spy):
        recordings = app.save_games(batch)
    def written(table: str) -> list[int]:
        return [i for i, s in enumerate(statements) if table in s
                and s.lstrip().upper().startswith(("INSERT", "COPY"))]

    events_at, snapshots_at = written("games_events"), written("games_snapshots")
    assert snapshots_at and max(snapshots_at) < min(events_at)
    # after the events, nothing but SQLite's look at the ids it gave them
    assert [s for s in statements[max(events_at) + 1:]
            if "last_insert_rowid" not in s] == []
    if connections[alias].vendor == "postgresql":  # the counter, then one COPY of all
        assert len(events_at) == 1
        assert statements[-2].lstrip().startswith('UPDATE "games_notification_counter"')

    # numbered after what was stored, one consecutive run a game, in the batch's order
    found = notifications_after(app, last)
    assert [n for n, _, _ in found] == list(range(last + 1, last + 1 + sum(versions)))
    expected = [(game.id, v) for game in batch for v in range(1, game.version + 1)]
    assert [(o, v) for _, o, v in found] == expected
    assert [len(r) for r in recordings] == versions
    assert [r[0].notification.id for r in recordings] == [
        last + 1 + sum(versions[:i]) for i in range(len(batch))]
    for game in batch:
        again = app.game(game.id)
        assert again.version == game.version and again.head_hash == game.head_hash
        assert again.state.result == game.state.result is not None
        verify_record(app.record(game.id))
        assert app.snapshots is not None  # one at each multiple of the interval passed
        assert [s.originator_version // SNAPSHOT_INTERVAL for s in app.snapshots.get(
            game.id)] == list(range(1, game.version // SNAPSHOT_INTERVAL + 1))

    # all or none: a batch with a game stored already stores nothing of the others, and
    # takes no notification id (the next save follows on without a gap)
    fresh = [played(app, "d"), played(app, "e")]
    with pytest.raises(IntegrityError):
        app.save_games([fresh[0], played(app, "b"), fresh[1]])
    for game in fresh:
        with pytest.raises(GameNotFound):
            app.game(game.id)
        assert not app.snapshots or not list(app.snapshots.get(game.id))
        with pytest.raises(StaleCommand):  # its events were taken out of it
            app.save_games([game])
    top = last + sum(versions)
    assert app.recorder.max_notification_id() == top
    ids = [played(app, "d")]
    app.save_games(ids)
    assert [n for n, _, _ in notifications_after(app, top)] == list(
        range(top + 1, top + 1 + ids[0].version))

    # inside a caller's transaction that rolls back, nothing stays either
    late = played(app, "f")
    with pytest.raises(RuntimeError), transaction.atomic(using=alias):
        app.save_games([late])
        raise RuntimeError("the caller fails after the save")
    with pytest.raises(GameNotFound):
        app.game(late.id)
    assert app.save_games([]) == []
    with pytest.raises(ValueError, match="once"):
        app.save_games([played(app, "g"), played(app, "g")])
    app.close()
