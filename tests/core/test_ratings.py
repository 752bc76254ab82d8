"""Statistics with 95% intervals, and the SPRT (the ratings: tests/tournaments/test_ratings.py)."""

from __future__ import annotations

import random

import pytest

from bohnanza_core.headtohead import head_to_head
from bohnanza_core.ratings import (
    Moments,
    Sprt,
    entrant_statistics,
    mean_interval,
    pairwise_score,
    seat_results,
    statistics_from_moments,
    wilson_interval,
)
from bohnanza_core.rulesets import ruleset_for
from bohnanza_core.simulator import SimulationError


def test_intervals_hold_the_estimate_and_narrow_with_more_games():
    few, many = mean_interval([1, 5, 3]), mean_interval([1, 5, 3] * 40)
    assert few.low < few.value == 3 < few.high
    assert many.high - many.low < few.high - few.low
    rate = wilson_interval(0, 10)
    assert rate.value == 0 and rate.low == 0 and 0.2 < rate.high < 0.35
    assert wilson_interval(10, 10).high == pytest.approx(1.0)


def test_a_coins_interval_never_reaches_below_no_coins():
    low_scores = mean_interval([0, 0, 9])  # the normal interval would reach -7.2
    assert low_scores.low == 0 and low_scores.value == 3 < low_scores.high
    assert Moments(3, 9, 81, 1).coins_interval() == low_scores  # the database's sums


def test_statistics_per_entrant_overall_and_by_seat():
    results = (seat_results(["a", "b"], [10, 4], [0]) + seat_results(["b", "a"], [6, 6], [0, 1])
               + seat_results(["a", "b"], [2, 9], [1]))
    stats = {s.entrant: s for s in entrant_statistics(results)}
    a = stats["a"]
    assert a.games == 3 and a.coins.value == 6 and a.win_rate.value == pytest.approx(0.5)
    assert [(seat, games) for seat, games, _, _ in a.by_seat] == [(0, 2), (1, 1)]
    assert a.by_seat[1][3].value == 0.5  # the shared win, in seat 1


def test_statistics_from_sums_equal_those_from_the_results():
    rng = random.Random(7)
    results = []
    for _ in range(60):
        coins = [rng.randrange(0, 25) for _ in range(3)]
        top = max(coins)
        results += seat_results(["a", "b", "c"][::rng.choice((1, -1))], coins,
                                [s for s, c in enumerate(coins) if c == top])
    expected = {s.entrant: s for s in entrant_statistics(results)}["a"]
    sums: dict[int, Moments] = {}
    for r in results:
        if r.entrant == "a":
            sums[r.seat] = sums.get(r.seat, Moments(0, 0, 0, 0)) + Moments(
                1, r.coins, r.coins * r.coins, r.win)
    got = statistics_from_moments("a", sums)
    assert got.games == expected.games
    for mine, theirs in [(got.coins, expected.coins), (got.win_rate, expected.win_rate)] + [
            (m, t) for g, e in zip(got.by_seat, expected.by_seat, strict=True)
            for m, t in ((g[2], e[2]), (g[3], e[3]))]:
        assert (mine.value, mine.low, mine.high) == pytest.approx(
            (theirs.value, theirs.low, theirs.high))
    assert [s[:2] for s in got.by_seat] == [s[:2] for s in expected.by_seat]
    one = statistics_from_moments("a", {0: Moments(1, 7, 49, 1.0)})
    assert (one.coins.low, one.coins.high) == (7, 7)


def test_pairwise_score_counts_places_against_the_other_side():
    assert pairwise_score([1, 2], [0], [1]) == 1.0
    assert pairwise_score([1, 2, 2, 4], [0, 2], [1, 3]) == pytest.approx((1 + 1 + 0.5 + 1) / 4)


def test_sprt_decides_for_a_clear_edge_and_not_for_noise():
    test = Sprt()
    assert test.verdict([0.9, 0.8, 1.0] * 4, 24).stronger == "A"
    assert test.verdict([0.1, 0.2, 0.0] * 4, 24).stronger == "B"
    assert test.verdict([0.9] * 4, 8).stronger is None  # too few sets to judge
    rnd = random.Random(3)
    level = [rnd.choice([0.0, 0.5, 1.0]) for _ in range(30)]
    assert test.verdict(level, 60).stronger is None


def test_head_to_head_stops_when_significant_and_says_which_way():
    duel = ruleset_for("duel", 2)
    result = head_to_head(duel, 2, "random", "heuristic", "h2h", max_sets=200)
    assert result.verdict.stronger == "B"
    assert result.verdict.games == 2 * result.verdict.samples < 400
    assert result.summary().startswith(f"heuristic is stronger than random, after "
                                       f"{result.verdict.games} games")


def test_head_to_head_refuses_a_table_the_ruleset_does_not_seat():
    with pytest.raises(SimulationError):
        head_to_head(ruleset_for("duel", 2), 4, "random", "heuristic", "s")


def test_an_interval_is_shown_only_when_it_says_something() -> None:
    """Two wins in two games: "100% (34-100%)" says less than nothing; 40 wins in 100
    games a narrow interval; a single game's mean has no width at all."""
    from bohnanza_core.ratings import mean_interval, wilson_interval

    assert not wilson_interval(2, 2).tells(0.3)
    assert wilson_interval(40, 100).tells(0.3)
    assert not mean_interval([12.0]).tells(4.0)
    assert mean_interval([10.0, 11.0, 12.0, 11.0, 10.0, 12.0]).tells(4.0)
