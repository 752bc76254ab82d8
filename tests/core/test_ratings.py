"""Statistics with 95% intervals, and the generalised SPRT (the ratings:
tests/tournaments/test_ratings.py)."""

from __future__ import annotations

import random

import pytest

from bohnanza_core.headtohead import head_to_head
from bohnanza_core.ratings import (
    Gsprt,
    Moments,
    elo_score,
    entrant_statistics,
    mean_interval,
    pairwise_score,
    score_elo,
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


def test_the_gsprt_accepts_h1_for_a_clear_edge_h0_for_none_and_waits_on_noise():
    test = Gsprt()  # [0, 5]
    assert test.verdict([0.9, 0.8, 1.0] * 100, 600).accepted == "H1"
    assert test.verdict([0.1, 0.2, 0.0] * 100, 600).accepted == "H0"
    assert test.verdict([0.9] * 4, 8).accepted is None  # too few sets to judge
    rnd = random.Random(3)
    level = [rnd.choice([0.0, 0.5, 1.0]) for _ in range(30)]
    assert test.verdict(level, 60).accepted is None


def test_alike_samples_give_a_bounded_llr_and_accept_no_difference():
    """The guard against degenerate variance: a bot against itself scores exactly one
    half in every set; the normal approximation divided by a variance of (almost) 0 and
    gave an LLR of 5,717. Here each such sample moves the LLR by a bounded step towards
    H0, which is accepted after a bounded number of sets."""
    test = Gsprt()
    for n in (8, 50, 100):
        llr = test.llr([0.5] * n)
        assert -0.02 * n < llr < 0
    v = test.verdict([0.5] * 400, 800)
    assert v.accepted == "H0" and v.elo.value == pytest.approx(0.0, abs=1e-9)
    assert v.elo.low < 0 < v.elo.high
    assert -0.02 * 400 < v.llr <= v.lower  # past the bound, but not by thousands


def test_elo_and_score_are_each_others_inverse_and_the_interval_holds_the_truth():
    for elo in (-300.0, -5.0, 0.0, 5.0, 120.0):
        assert score_elo(elo_score(elo)) == pytest.approx(elo)
    rnd = random.Random(5)
    p = elo_score(40.0)
    samples = [sum(rnd.random() < p for _ in range(4)) / 4 for _ in range(4000)]
    estimate = Gsprt().elo(Gsprt.count(samples))
    assert estimate.low < 40.0 < estimate.high
    assert estimate.high - estimate.low < 30


def _run(test: Gsprt, true_elo: float, rnd: random.Random, comparisons: int = 4) -> str:
    """One test between two simulated bots whose difference is known exactly: in each
    set, A finishes ahead of B in each of ``comparisons`` pairwise comparisons with the
    probability ``elo_score(true_elo)`` (a four-seat set's shape: scores 0, 1/4 .. 1).
    The LLR is looked at every second set, as fishtest looks at batches."""
    p = elo_score(true_elo)
    counts: dict[float, float] = {}
    for n in range(1, 5000):
        score = sum(rnd.random() < p for _ in range(comparisons)) / comparisons
        Gsprt.count([score], counts)
        if n % 2 == 0:
            verdict = test.verdict_of(counts, n)
            if verdict.accepted is not None:
                return verdict.accepted
    raise AssertionError("no verdict in 5000 sets")


@pytest.mark.parametrize("alpha,beta", [(0.05, 0.05), (0.1, 0.2)])
def test_false_positives_and_negatives_stay_within_alpha_and_beta(alpha: float,
                                                                  beta: float) -> None:
    """Over many seeds: with A exactly elo0 stronger, H1 is accepted at most about
    ``alpha`` of the time; with A exactly elo1 stronger, H0 at most about ``beta`` of the
    time (the count's own sampling error allowed: three standard deviations)."""
    test = Gsprt(0.0, 60.0, alpha, beta)
    runs = 240
    rnd = random.Random(28)
    false_positive = sum(_run(test, 0.0, rnd) == "H1" for _ in range(runs))
    false_negative = sum(_run(test, 60.0, rnd) == "H0" for _ in range(runs))

    def limit(rate: float) -> float:
        return runs * rate + 3 * (runs * rate * (1 - rate)) ** 0.5

    assert false_positive <= limit(alpha), false_positive
    assert false_negative <= limit(beta), false_negative
    # and the test does tell them apart: most runs accept the true hypothesis
    assert false_positive < runs / 4 and false_negative < runs / 4


def test_head_to_head_ends_self_play_with_h0_and_a_clear_edge_with_h1():
    duel = ruleset_for("duel", 2)
    same = head_to_head(duel, 2, "heuristic", "heuristic", "self", test=Gsprt(0, 20),
                        max_sets=1000)
    assert same.verdict.accepted == "H0" and same.verdict.samples < 1000
    assert same.verdict.elo.low <= 0 <= same.verdict.elo.high
    assert same.summary().startswith("H0 accepted after ")
    better = head_to_head(duel, 2, "heuristic", "random", "edge",
                          test=Gsprt(0, 20), max_sets=1000)
    assert better.verdict.accepted == "H1" and better.verdict.elo.low > 100
    assert better.verdict.games == 2 * better.verdict.samples
    assert better.summary().startswith(
        f"H1 accepted after {better.verdict.games} games ({better.verdict.samples} sets): "
        "heuristic is stronger than random by 20 Elo or more; Elo heuristic - random: +")


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


def test_head_to_head_gives_the_score_with_its_interval_and_plays_one_against_a_table() -> None:
    """``lone``: A in one seat against a table of Bs, every seat in turn; the score is
    A's pairwise score against the Bs, with its 95% interval around it."""
    four = ruleset_for("classic", 4)
    result = head_to_head(four, 4, "heuristic", "random", "lone", test=Gsprt(0, 20),
                          max_sets=3, lone=True)
    v = result.verdict
    assert v.games == 4 * v.samples
    assert v.score.low <= v.score.value <= v.score.high and v.score.value > 0.6
    assert f"score heuristic vs random: {v.score.value:.3f} [" in result.summary()
