"""A real Celery worker (``celery.contrib.testing``: a worker thread consuming an
in-memory broker) runs a small competition of every format to the end: every game in
the store once, replayable and auditable, the standings and ratings rebuilt from the
competition's events, and the ratings re-rated from the stored games alone."""

from __future__ import annotations

import time
from typing import Any
from uuid import UUID

import pytest

from bohnanza_core.rulesets import customize, ruleset_for
from bohnanza_core.verify import verify_text
from replays.store import games
from tournaments import tasks
from tournaments.competitions import Tournament, Tournaments, game_id
from tournaments.models import TournamentGame
from tournaments.ratings import rerate
from tournaments.runner import stored_results

BOTS3 = ["heuristic@builtin", "random@builtin", "nontrading@builtin"]
BOTS4 = [*BOTS3, "heuristic@builtin #2"]


def run_to_the_end(competitions: Tournaments, tournament_id: UUID,
                   timeout: float = 120) -> Tournament:
    tasks.start(tournament_id)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        t = competitions.get_tournament(tournament_id)
        if t.finished:
            return t
        time.sleep(0.05)
    raise AssertionError(f"not finished: {t.games_done()} of {t.games_total()} games")


CASES: list[tuple[str, Any, int, dict[str, int], list[str], int]] = [
    ("round-robin", ruleset_for("classic", 3), 3, {"cycles": 1}, BOTS3, 3),
    ("swiss", ruleset_for("duel", 2), 2, {"rounds": 2}, BOTS4, 4),
    ("knockout", ruleset_for("duel", 2), 2, {"advance": 1}, BOTS4, 6),
    ("duplicate", customize("classic", 3, {"draw_cards": 2}), 3, {"deals": 2}, BOTS3, 6),
]


@pytest.mark.parametrize("fmt, ruleset, table, options, entrants, total", CASES,
                         ids=[c[0] for c in CASES])
def test_a_worker_runs_a_competition_of_every_format_to_the_end(
        worker, fmt, ruleset, table, options, entrants, total):
    t = worker.create(f"Cup {fmt}", fmt, ruleset, table, options, entrants)
    done = run_to_the_end(worker, t.id)
    assert done.games_done() == done.games_total() == total
    assert TournamentGame.objects.filter(tournament_id=t.id).count() == total
    store = games()
    for r, pairings in enumerate(done.rounds):
        for i, pairing in enumerate(pairings):
            game = store.game(game_id(t.id, r, i))
            assert game.finished
            assert game.players == tuple(f"bot:{done.entrants[e]}" for e in pairing.seats)
            assert game.table.ruleset == ruleset
    # one game of each round audits clean
    from bohnanza_core.export import export_jsonl
    record = store.record(game_id(t.id, 0, 0))
    assert verify_text(export_jsonl([e.event for e in record])).ok
    standings = done.standings()
    assert sorted(s.entrant for s in standings) == sorted(entrants)
    assert sum(s.games for s in standings) == total * table
    # the ratings the competition shows are the ones its stored games give
    again = rerate(stored_results(done))
    assert {e: (r.mu, r.sigma) for e, r in again.ratings.items()} == {
        e: (mu, sigma) for e, (mu, sigma, _) in done.ratings.items()}


def test_a_redelivered_deal_stores_nothing_twice(worker):
    t = worker.create("Twice", "round-robin", ruleset_for("classic", 3), 3, {"cycles": 1},
                      BOTS3)
    done = run_to_the_end(worker, t.id)
    assert tasks.play_deal.apply(args=(str(t.id), 0, 0)).get() == 0
    assert TournamentGame.objects.filter(tournament_id=t.id).count() == 3
    assert worker.get_tournament(t.id).version == done.version


def test_a_duplicate_set_shares_its_seed_but_not_its_commitments(worker):
    t = worker.create("Dup", "duplicate", ruleset_for("classic", 3), 3, {"deals": 1}, BOTS3)
    run_to_the_end(worker, t.id)
    store = games()
    records = [store.record(game_id(t.id, 0, i)) for i in range(3)]
    seeds = {r[-1].event.seed for r in records}
    commitments = {r[0].event.seed_commitment for r in records}
    assert len(seeds) == 1 and len(commitments) == 3
    (seed,) = seeds
    assert len(seed) == 32 and str(t.id) not in seed
