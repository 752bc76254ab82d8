"""A real Celery worker (``celery.contrib.testing``: a worker thread consuming an
in-memory broker) runs a small competition of every format to the end (a ladder's
ticks: tests/tournaments/test_ladders.py): every game in the store once, replayable
and auditable, the standings and ratings rebuilt from the competition's events, and
the ratings re-rated from the stored games alone."""

from __future__ import annotations

import time
from typing import Any
from uuid import UUID

import pytest

from bohnanza_core.rulesets import customize, ruleset_for
from bohnanza_core.verify import verify_text
from replays.store import games
from tournaments import tasks
from tournaments.core import games as core_games
from tournaments.core.competition import Competition
from tournaments.core.games import stored_results
from tournaments.core.ratings import rerate
from tournaments.core.store import Competitions, create
from tournaments.models import CompetitionGame

BOTS3 = ["heuristic@builtin", "random@builtin", "nontrading@builtin"]
BOTS4 = [*BOTS3, "heuristic@builtin #2"]


def run_to_the_end(competitions: Competitions, competition_id: UUID,
                   timeout: float = 120) -> Competition:
    tasks.start(competitions.get(competition_id))
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        t = competitions.get(competition_id)
        if t.finished:
            return t
        time.sleep(0.05)
    raise AssertionError(f"not finished: {t.games_done()} of {t.games_total()} games")


CASES: list[tuple[str, Any, int, dict[str, int], list[str], int]] = [
    ("round-robin", ruleset_for("classic", 3), 3, {"cycles": 1}, BOTS3, 3),
    ("swiss", ruleset_for("duel", 2), 2, {"rounds": 2}, BOTS4, 4),
    ("knockout", ruleset_for("duel", 2), 2, {"advance": 1}, BOTS4, 6),
    ("duplicate", customize("classic", 3, {"draw_cards": 2}), 3, {"deals": 2}, BOTS3, 6),
    ("league", ruleset_for("duel", 2), 2, {"divisions": 2, "moves": 1, "seasons": 2}, BOTS4, 8),
]


@pytest.mark.parametrize("fmt, ruleset, table, options, entrants, total", CASES,
                         ids=[c[0] for c in CASES])
def test_a_worker_runs_a_competition_of_every_format_to_the_end(
        worker, fmt, ruleset, table, options, entrants, total):
    t = create(f"Cup {fmt}", fmt, options, ruleset, table, entrants)
    done = run_to_the_end(worker, t.id)
    assert done.games_done() == done.games_total() == total
    assert CompetitionGame.objects.filter(competition_id=t.id).count() == total
    store = games()
    for r, paired in enumerate(done.rounds):
        for i, pairing in enumerate(paired.games):
            game = store.game(done.game_id(r, i))
            assert game.finished
            assert game.players == tuple(f"bot:{done.entrants[e]}" for e in pairing.seats)
            assert game.state.ruleset == ruleset
    # one game of each round audits clean
    from bohnanza_core.export import export_jsonl
    record = store.record(done.game_id(0, 0))
    assert verify_text(export_jsonl([e.event for e in record])).ok
    standings = done.standings()
    assert sorted(done.entrants[s.entrant] for s in standings) == sorted(entrants)
    assert sum(s.games for s in standings) == total * table
    # the ratings the competition shows are the ones its stored games give
    again = rerate(stored_results(done))
    assert {e: (r.mu, r.sigma) for e, r in again.ratings.items()} == {
        e: (mu, sigma) for e, (mu, sigma, _) in done.ratings.items()}


def test_a_redelivered_deal_stores_nothing_twice(worker):
    t = create("Twice", "round-robin", {"cycles": 1}, ruleset_for("classic", 3), 3, BOTS3)
    done = run_to_the_end(worker, t.id)
    assert tasks.play_deals.apply(args=(str(t.id), 0, [0])).get() == 0
    assert CompetitionGame.objects.filter(competition_id=t.id).count() == 3
    assert worker.get(t.id).version == done.version


def test_a_duplicate_set_shares_its_seed_but_not_its_commitments(worker):
    t = create("Dup", "duplicate", {"deals": 1}, ruleset_for("classic", 3), 3, BOTS3)
    run_to_the_end(worker, t.id)
    store = games()
    records = [store.record(t.game_id(0, i)) for i in range(3)]
    seeds = {r[-1].event.seed for r in records}
    commitments = {r[0].event.seed_commitment for r in records}
    assert len(seeds) == 1 and len(commitments) == 3
    (seed,) = seeds
    assert len(seed) == 32 and str(t.id) not in seed


def test_a_batch_stores_its_deals_together_and_skips_those_stored(competitions, settings):
    """A task's batch: the deals not stored yet, in one transaction; a batch sent again
    with one deal stored since (a redelivery racing its first delivery, ``resume``)
    stores only the others; out-of-range deals in a message store nothing."""
    t = create("Batches", "round-robin", {"cycles": 1}, ruleset_for("duel", 2), 2, BOTS4)
    paired = t.rounds[0].games
    deals = core_games.deals_of(t, 0)
    assert len(deals) >= 4
    assert core_games.play_deals(t.id, 0, [deals[1]]) == 1
    assert core_games.play_deals(t.id, 0, deals[:3]) == 2  # deals[1] was stored already
    assert core_games.play_deals(t.id, 0, deals[:3]) == 0
    assert core_games.play_deals(t.id, 0, [10_000]) == 0
    stored = set(CompetitionGame.objects.filter(competition_id=t.id)
                 .values_list("index", flat=True))
    assert stored == {i for i, p in enumerate(paired) if p.deal in deals[:3]}

    # a batch racing another worker: one of its deals goes in elsewhere between the
    # batch's look at the store and its commit; the others still go in, once each
    real = core_games.play_bot_game
    rest = deals[3:5]

    def meanwhile(*args, **kwargs):
        game = real(*args, **kwargs)
        if kwargs.get("game_id") == t.game_id(0, next(
                i for i, p in enumerate(paired) if p.deal == rest[-1])) and \
                not CompetitionGame.objects.filter(game_id=kwargs["game_id"]).exists():
            core_games.play_bot_game = real
            assert core_games.play_deals(t.id, 0, [rest[0]]) == 1  # the other worker
        return game

    core_games.play_bot_game = meanwhile
    try:
        assert core_games.play_deals(t.id, 0, rest) == len(rest) - 1
    finally:
        core_games.play_bot_game = real
    assert CompetitionGame.objects.filter(competition_id=t.id).count() == 5
    # a round's deals go out a few to a task, the last batch possibly shorter (one
    # task for every batch: a lone deal is a batch of one)
    sent: list[tuple[Any, ...]] = []
    settings.TOURNAMENT_BATCH = 3
    saved = tasks.play_deals.delay
    tasks.play_deals.delay = lambda *a: sent.append(a)  # type: ignore[method-assign]
    try:
        tasks.send_deals(t.id, 0, [0, 1, 2, 3, 4, 5, 6])
    finally:
        tasks.play_deals.delay = saved  # type: ignore[method-assign]
    assert sent == [(str(t.id), 0, [0, 1, 2]), (str(t.id), 0, [3, 4, 5]), (str(t.id), 0, [6])]
