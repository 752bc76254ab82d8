"""Game analysis: deterministic, from each seat's own view, only of finished games, and
it tells a careless player from a careful one."""

from __future__ import annotations

import json
import random

import pytest

from bohnanza_core.analysis import (
    Analysis,
    NotFinished,
    analyse,
    decision_points,
    judge,
)
from bohnanza_core.bots import HeuristicBot, RandomBot
from bohnanza_core.engine import evolve
from bohnanza_core.events import Event
from bohnanza_core.rulesets import customize
from bohnanza_core.simulator import play_game
from bohnanza_core.state import GameState
from bohnanza_core.views import view
from tests.core.test_search import behind_the_view

SHORT = customize("classic", 3, {"ends_on_run_out": 1})
"""A game that ends when the draw pile first runs out: quick to analyse."""


@pytest.fixture(scope="module")
def game() -> list[Event]:
    return list(play_game(SHORT, [HeuristicBot, RandomBot, HeuristicBot], "analysed").events)


@pytest.fixture(scope="module")
def analysis(game: list[Event]) -> Analysis:
    return analyse(game, 60, "seed")


def test_an_analysis_computed_twice_is_the_same_record(game: list[Event],
                                                       analysis: Analysis) -> None:
    again = analyse(game, 60, "seed")
    assert json.dumps(again.as_dict()) == json.dumps(analysis.as_dict())
    assert Analysis.from_dict(json.loads(json.dumps(analysis.as_dict()))) == analysis


def test_every_decision_with_a_choice_is_judged_and_names_its_means(
        game: list[Event], analysis: Analysis) -> None:
    assert [j.event for j in analysis.judgments] == decision_points(game)
    assert (analysis.bot, analysis.playouts) == ("search", 60)
    assert analysis.chart and analysis.luck and len(analysis.luck) == 3
    assert all(j.best_estimate.coins >= j.played_estimate.coins for j in analysis.judgments)
    assert {j.flag for j in analysis.judgments} <= {"", "inaccuracy", "mistake", "blunder"}


def test_the_analysis_tells_a_random_player_from_a_careful_one(analysis: Analysis) -> None:
    def average_loss(seat: int) -> float:
        losses = [j.loss for j in analysis.judgments if j.seat == seat]
        return sum(losses) / len(losses)

    assert average_loss(1) > 2 * max(average_loss(0), average_loss(2))
    assert any(j.flag for j in analysis.judgments if j.seat == 1)


def test_a_running_game_is_not_analysed(game: list[Event]) -> None:
    with pytest.raises(NotFinished):
        analyse(game[:-40], 10)


def test_a_judgment_reads_only_its_seats_view(game: list[Event]) -> None:
    """The same decision with other cards hidden behind the seat's view: the same
    judgment."""
    index = decision_points(game)[5]
    state: GameState | None = None
    for event in game[:index]:
        state = evolve(state, event)
    assert state is not None
    seat = judge(game, index, 30, "s", state).seat
    hidden = behind_the_view(state, seat, random.Random(3))
    assert view(hidden, seat).as_dict() == view(state, seat).as_dict()
    assert judge(game, index, 30, "s", hidden) == judge(game, index, 30, "s", state)


def test_a_stopped_analysis_goes_on_from_where_it_stopped(game: list[Event],
                                                          analysis: Analysis) -> None:
    told: list[int] = []
    resumed = analyse(game, 60, "seed", done=analysis.judgments[:10],
                      on_judgment=lambda j, made, total: told.append(j.event))
    assert resumed == analysis
    assert told == [j.event for j in analysis.judgments[10:]]
