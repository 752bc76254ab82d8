"""Competitions, ladders and leagues stored before there was one competitions core are
read as competitions, with everything the old code said of them, and play on.

``data/legacy_store.json`` was made on main at 29402c9 by the code of the time (the
script is described in its docstring below): a finished round robin, Swiss, knockout
and duplicate competition, a round robin with its first round open, a ladder with three
ended ticks and a fourth open, a finished two-season league, and a league with people
(one invited who accepted, one who never answered) whose live games were scored at
their deadline. It holds their stored events (``tournaments_events``), their results'
rows in the old models, and what the old code said of each (standings, ratings,
re-rated ratings, pairings, divisions and moves, invitations).
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from bohnanza_core.formats import Result
from tournaments.core.competition import SCHEMES, Competition
from tournaments.core.games import missing_games, round_results
from tournaments.core.rounds import run_here
from tournaments.core.store import Competitions
from tournaments.models import CompetitionGame

STORE = json.loads((Path(__file__).parent / "data" / "legacy_store.json").read_text())
EXPECTED: dict[str, dict[str, Any]] = STORE["expected"]
BEFORE = ("tournaments", "0005_consent_and_quotas")
AFTER = ("tournaments", "0006_one_competitions_core")


def _value(cell: Any) -> Any:
    return bytes.fromhex(cell["hex"]) if isinstance(cell, dict) else cell


def _insert(table: str, rows: list[list[Any]], columns: list[str]) -> None:
    with connection.cursor() as cursor:
        cursor.executemany(
            f'INSERT INTO {table} ({", ".join(connection.ops.quote_name(c) for c in columns)}) '
            f'VALUES ({", ".join(["%s"] * len(columns))})',
            [[_value(cell) for cell in row] for row in rows])


def _load_events(app: Competitions) -> None:
    """The old store's events, as they were stored (the application's tables exist)."""
    events = STORE["tournaments_events"]
    _insert("tournaments_events", events["rows"], events["columns"])


def _migrated_results() -> None:
    """The old results' rows written in the old models, then the migration to the one
    results model run over them."""
    executor = MigrationExecutor(connection)
    executor.migrate([BEFORE])
    for table in ("tournaments_tournamentgame", "tournaments_laddergame",
                  "tournaments_leaguegame"):
        _insert(table, STORE[table]["rows"], STORE[table]["columns"])
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([AFTER])
    executor = MigrationExecutor(connection)  # then on to today's models
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())


@pytest.fixture
def legacy(competitions: Competitions) -> Competitions:
    _load_events(competitions)
    _migrated_results()
    return competitions


def _ratings(c: Competition) -> dict[str, list[float]]:
    return {e: [mu, sigma, games] for e, (mu, sigma, games) in sorted(c.ratings.items())}


def _rerated(c: Competition) -> dict[str, list[float]]:
    again = c.rerated()
    return {e: [r.mu, r.sigma, again.games.get(e, 0)] for e, r in sorted(again.ratings.items())}


READ_AS = {"duplicate": "duplicate-by-group"}


def test_every_old_competition_is_read_as_a_competition_with_what_the_old_code_said(
        legacy: Competitions) -> None:
    assert sorted(str(i) for i in legacy.ids()) == sorted(EXPECTED)
    for cid, old in EXPECTED.items():
        c = legacy.get(UUID(cid))
        assert (c.name, c.entrants, c.games_done()) == (old["name"], old["entrants"],
                                                         old["games_done"]), cid
        assert _ratings(c) == old["ratings"], c.name
        assert _rerated(c) == old["rerated"], c.name
        # Rated round after round from the recorded ratings: the same floats as from
        # the first game (each entrant with games, as the old code recorded them).
        assert {e: v for e, v in _rerated(c).items()} == {
            e: v for e, v in old["ratings"].items() if v[2]}, c.name
        if old["kind"] == "tournament":
            # The old duplicate gave each group its own deal: read as that format.
            assert (c.format, c.finished, len(c.rounds), len(c.results)) == (
                READ_AS.get(old["format"], old["format"]), old["finished"], old["rounds"],
                old["results"])
            assert c.games_total() == old["games_total"]
            assert c.open_round == old["current_round"]
            assert [[[list(p.seats), p.deal] for p in r.games] for r in c.rounds] == \
                old["pairings"]
            # The same rows the old code showed; their order is now the podium's (a
            # Swiss's Buchholz, a knockout's rounds), where the old code's was points.
            rows = [[c.entrants[s.entrant], s.games, s.points, s.coins, s.wins]
                    for s in c.standings()]
            assert sorted(rows) == sorted(old["standings"])
            assert [c.entrants.index(row[0]) for row in rows] == c.placings()
            if c.format in ("round-robin", "duplicate-by-group"):
                assert rows == old["standings"]
            assert c.scheme == "round" and c.every == 0
        elif old["kind"] == "ladder":
            assert (c.format, c.every, c.scheme) == ("ladder", 60, "ladder")
            assert [[list(p.seats) for p in r.games] for r in c.rounds] == old["ticks"]
            assert len(c.results) == old["results"] and c.open_round == old["open_tick"]
            assert c.ranking() == old["ranking"]
            assert [{e: [mu, sigma, g] for e, (mu, sigma, g) in sorted(h.items())}
                    for h in c.rating_history] == old["history"]
        else:
            assert (c.format, c.scheme) == ("league", "league")
            assert c.finished == old["finished"] or (
                not c.finished and not old["finished"])
            assert [[list(d) for d in r.divisions] for r in c.rounds] == old["divisions"]
            assert [[list(m.promoted), list(m.relegated)] for m in c.moves] == old["moved"]
            assert c.invitations == old["invitations"]
            for season, divisions in enumerate(old["standings"]):
                ranked = c.divisions(season)
                assert [[c.entrants[e] for e in d] for d in ranked] == [
                    [row[0] for row in d] for d in divisions]


def test_the_old_results_move_to_one_model_under_the_games_own_ids(
        legacy: Competitions) -> None:
    """Every old result row is one ``CompetitionGame`` row, at its round and place, under
    the id the competition gives that game (a ladder's numbered across its ticks, a
    league's by season and fixture), holding the results its round recorded."""
    moved = CompetitionGame.objects.count()
    assert moved == sum(len(STORE[t]["rows"]) for t in (
        "tournaments_tournamentgame", "tournaments_laddergame", "tournaments_leaguegame"))
    for row in CompetitionGame.objects.all():
        c = legacy.get(row.competition_id)
        assert row.game_id == c.game_id(row.round, row.index)
        if row.round < len(c.results):
            assert c.results[row.round][row.index] == Result(
                tuple(row.ranks), tuple(row.coins), tuple(row.winners))
    for cid in EXPECTED:
        c = legacy.get(UUID(cid))
        for r in range(len(c.results)):
            assert round_results(c, r) == c.results[r]


def test_an_old_running_competition_and_ladder_play_on(legacy: Competitions) -> None:
    """The round robin whose first round was open, and the ladder whose fourth tick was,
    play on under the core: their missing games under their own ids and seeds."""
    running = next(cid for cid, old in EXPECTED.items() if old["name"] == "legacy running")
    ladder = next(cid for cid, old in EXPECTED.items() if old["kind"] == "ladder")
    c = legacy.get(UUID(running))
    assert missing_games(c) == list(range(1, len(c.rounds[0].games)))
    done = run_here(c.id)
    assert done.finished and done.games_done() == done.games_total()
    assert _rerated(done) == {e: v for e, v in _ratings(done).items() if v[2]}
    lad = legacy.get(UUID(ladder))
    first_open = sum(len(r.games) for r in lad.rounds[:-1])
    assert [first_open + g for g in missing_games(lad)] == EXPECTED[ladder]["missing"]
    more = run_here(lad.id, rounds=2)
    assert len(more.results) == EXPECTED[ladder]["results"] + 2
    first = sum(len(r.games) for r in more.rounds[:3])
    assert more.game_id(3, 0) == uuid.uuid5(SCHEMES["ladder"].namespace, f"{lad.id}:{first}")
    assert _rerated(more) == {e: v for e, v in _ratings(more).items() if v[2]}
