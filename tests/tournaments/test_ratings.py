"""Ratings (openskill Plackett-Luce over final ranks, ties allowed): a newcomer at a
conservative 0, winners rise, the stronger leads, re-rating gives the same numbers."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.core.ratings import Rating, Ratings, rerate


def test_a_new_entrant_starts_at_a_conservative_zero():
    assert Rating().conservative == pytest.approx(0.0)


def test_winners_rise_losers_fall_and_a_tie_rates_equal():
    ratings = Ratings()
    ratings.rate(["a", "b", "c"], [1, 2, 3])
    assert ratings.of("a").mu > ratings.of("b").mu > ratings.of("c").mu
    tied = Ratings()
    tied.rate(["a", "b", "c"], [1, 1, 3])
    assert tied.of("a") == tied.of("b")
    assert tied.of("a").sigma < Rating().sigma


def test_the_stronger_entrant_leads_after_many_games():
    rnd = random.Random(1)
    games = []
    for _ in range(300):  # "strong" finishes first 70% of the time
        ranks = [1, 2, 3] if rnd.random() < 0.7 else [2, 1, 3]
        games.append((["strong", "weak", "worst"], ranks))
    board = rerate(games).leaderboard()
    assert [name for name, _ in board] == ["strong", "weak", "worst"]


@given(st.lists(st.tuples(st.permutations(["a", "b", "c", "d"]),
                          st.lists(st.integers(1, 4), min_size=4, max_size=4)), max_size=20))
def test_rerating_the_same_games_gives_the_same_numbers(games):
    first, second = rerate(games), rerate(games)
    assert first.ratings == second.ratings and first.games == second.games


def test_a_bot_seated_twice_is_rated_once_at_its_better_place():
    ratings = Ratings()
    ratings.rate(["a", "b", "a"], [3, 2, 1])
    assert ratings.games == {"a": 1, "b": 1}
    assert ratings.of("a").mu > ratings.of("b").mu
