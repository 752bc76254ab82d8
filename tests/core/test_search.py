"""The search bot: it never peeks, it always plays by the rules, and the same seed and
budget give the same game."""

from __future__ import annotations

import random
from typing import ClassVar

import pytest

from bohnanza_core.bots import BOTS, HeuristicBot, NonTradingBot, RandomBot
from bohnanza_core.bots.registry import registry
from bohnanza_core.bots.search import SearchBot, candidates, determinize
from bohnanza_core.commands import Command
from bohnanza_core.engine import awaiting, evolve, is_decision
from bohnanza_core.rulesets import Ruleset, ruleset_for
from bohnanza_core.seatview import SeatView
from bohnanza_core.simulator import play_game
from bohnanza_core.state import STATE_FIELDS, GameState
from bohnanza_core.views import view
from tests.core.invariants import apply_checked, house_rules, ruleset_bands


class QuickSearch(SearchBot):
    """The search with a small budget: the tests check what it does, not how well."""

    name: ClassVar[str] = "quick-search"
    PLAYOUTS: ClassVar[int] = 12
    VERIFY: ClassVar[int] = 3


def _label(table: tuple[Ruleset, int]) -> str:
    return f"{table[0].name}-{table[1]}p"


def decision_points(ruleset: Ruleset, players: int, seed: str) -> list[GameState]:
    """Tables from a game of trading bots at which some seat has several moves."""
    lineup = [HeuristicBot, RandomBot, NonTradingBot, HeuristicBot, RandomBot][:players]
    record = play_game(ruleset, lineup, seed)
    points: list[GameState] = []
    state: GameState | None = None
    for event in record.events:
        if is_decision(event) and state is not None and state.phase.value != "game over":
            seats = awaiting(state)
            if seats and len(candidates(view(state, seats[0]))) > 1:
                points.append(state.copy())
        state = evolve(state, event)
    return points


def behind_the_view(state: GameState, seat: int, rng: random.Random) -> GameState:
    """The same table as ``seat`` sees it, with what it cannot see dealt anew: the other
    hands (but cards an open offer shows), the draw pile's order and the coins' cards."""
    other = state.copy()
    offered = {card for offer in state.offers.values() for card in offer.gives}
    places: list[list[int]] = [other.draw_pile]
    places += [hand for s, hand in enumerate(other.hands) if s != seat]
    places += other.coins
    hidden = [card for place in places for card in place if card not in offered]
    rng.shuffle(hidden)
    for place in places:
        for index, card in enumerate(place):
            if card not in offered:
                place[index] = hidden.pop()
    other.seed = "another seed altogether"
    return other


@pytest.mark.slow
def test_the_search_never_peeks() -> None:
    """The same view with other cards behind it: the same samples and the same move."""
    tried = 0
    for game in range(3):
        for state in decision_points(ruleset_for("classic", 4), 4, f"peek:{game}")[::9]:
            seat = awaiting(state)[0]
            hidden = behind_the_view(state, seat, random.Random(game))
            assert hidden.hands != state.hands or hidden.draw_pile != state.draw_pile
            assert view(hidden, seat).as_dict() == view(state, seat).as_dict()
            one = determinize(view(state, seat), seat, random.Random(7))
            two = determinize(view(hidden, seat), seat, random.Random(7))
            for name in STATE_FIELDS:
                assert getattr(one, name) == getattr(two, name), name
            bot_one, bot_two = QuickSearch(seat, "same"), QuickSearch(seat, "same")
            assert bot_one.act(view(state, seat)) == bot_two.act(view(hidden, seat))
            tried += 1
    assert tried >= 10


def test_a_sample_is_a_table_the_view_allows() -> None:
    """Every sampled table holds the whole deck once, shows the seat exactly what it
    sees, and plays on to an end."""
    for state in decision_points(ruleset_for("rio-grande", 5), 5, "sample")[::7]:
        seat = awaiting(state)[0]
        sample = determinize(view(state, seat), seat, random.Random(1))
        assert sorted(_cards(sample)) == list(range(state.ruleset.deck_size))
        assert view(sample, seat).as_dict() | {"seed_commitment": ""} == \
            view(state, seat).as_dict() | {"seed_commitment": ""}
        assert sample.planted == state.planted and sample.planting_done == state.planting_done


def _cards(s: GameState) -> list[int]:
    return [*s.draw_pile, *s.discard_pile, *s.out_of_game, *s.face_up,
            *(c for hand in s.hands for c in hand), *(c for fs in s.fields for f in fs for c in f),
            *(c for coins in s.coins for c in coins), *(c for area in s.trade_areas for c in area)]


class LegalSearch(SearchBot):
    """The search with the least budget, a playout a move, and a coin toss for the
    rollouts' verdict on a disagreement: legality does not depend on how many games
    judge a move, only on which moves it judges (the engine's own) and plays (the
    heuristic bot's move or one of those). The rollouts play on sampled tables, never
    the game, and cost more than all the rest (a disagreement in 2-player games came
    up some 150 times a game: 0.5 s of rollouts); the toss plays either move, as they
    would."""

    name: ClassVar[str] = "legal-search"
    PLAYOUTS: ClassVar[int] = 1

    def gain(self, view: SeatView, advice: Command, choice: Command,
             rng: random.Random) -> tuple[float, float]:
        return (1.0 if rng.random() < 0.5 else -1.0), 0.0


GAMES_PER_RULESET = 200
"""Games of every preset ruleset (split among its player counts) for the legality test."""
GAMES_PER_HOUSE_RULES = 25


def _games(table: tuple[Ruleset, int]) -> int:
    tables = ruleset_bands() + house_rules()
    if table not in ruleset_bands():
        return GAMES_PER_HOUSE_RULES
    sizes = sum(1 for other, _ in tables if other.name == table[0].name)
    return -(-GAMES_PER_RULESET // sizes)


@pytest.mark.slow
@pytest.mark.parametrize("table", ruleset_bands() + house_rules(), ids=_label)
def test_the_search_always_plays_by_the_rules(table: tuple[Ruleset, int]) -> None:
    """Whole games with the search in one seat (each game another) against heuristic
    bots, 200 of every preset ruleset (its player counts together) and 25 of each
    house-rules table: no move refused, no default move played for it, every event
    keeps the table's invariants."""
    ruleset, players = table
    for game in range(_games(table)):
        lineup = [LegalSearch if seat == game % players else HeuristicBot
                  for seat in range(players)]
        record = play_game(ruleset, lineup, f"legal:{game}")
        assert record.illegal == (0,) * players and record.fallbacks == (0,) * players, game
        apply_checked(evolve(None, record.events[0]), record.events[1:])


def test_the_same_seed_and_budget_give_the_same_game() -> None:
    ruleset = ruleset_for("classic", 3)
    lineup = [QuickSearch, HeuristicBot, QuickSearch]
    first = play_game(ruleset, lineup, "again")
    assert play_game(ruleset, lineup, "again").events == first.events


def test_the_search_levels_are_registered_bots() -> None:
    assert BOTS["search"].PLAYOUTS < BOTS["search-deep"].PLAYOUTS  # type: ignore[attr-defined]
    assert {"search", "search-deep"} <= set(registry())
