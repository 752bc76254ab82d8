"""Whole games of every ruleset, every band, every player count, checked after
every single event (tests/core/invariants.py): by a seeded random player over
``legal_commands`` and by every registered bot."""

from __future__ import annotations

import random

import pytest

from bohnanza_core import (
    BeanKind,
    Harvest,
    IllegalMove,
    legal_commands,
    new_game,
    play,
    ruleset_for,
)
from bohnanza_core.engine import evolve
from bohnanza_core.events import (
    BeanPlanted,
    CardDrawn,
    CardSource,
    DrawPileRanOut,
    Event,
    FieldHarvested,
    GameEnd,
    GameEnded,
)
from bohnanza_core.rederive import rederive
from bohnanza_core.rulesets import PRESETS, Ruleset
from bohnanza_core.state import GameState, Phase
from tests.core.invariants import (
    InvariantBroken,
    RandomPolicy,
    apply_checked,
    check_invariants,
    house_rules,
    random_game,
    ruleset_bands,
)

pytestmark = pytest.mark.slow

BANDS = ruleset_bands()
GAMES_PER_BAND = 12


def _id(band: tuple[Ruleset, int]) -> str:
    ruleset, players = band
    return f"{ruleset.name}-{players}p"


def test_every_band_and_player_count_is_covered() -> None:
    counts = {(name, n) for name, bands in PRESETS.items() for b in bands for n in b.players}
    assert {(r.name, n) for r, n in BANDS} == counts
    assert len(BANDS) == 18


@pytest.mark.parametrize("band", BANDS, ids=_id)
def test_random_games_keep_every_invariant(band: tuple[Ruleset, int]) -> None:
    ruleset, players = band
    ends: set[GameEnd] = set()
    for game in range(GAMES_PER_BAND):
        state, events = random_game(ruleset, players, f"inv-{ruleset.name}-{players}-{game}",
                                    compare_every=25)
        assert state.finished and isinstance(events[-1], GameEnded)
        run_outs = [e for e in events if isinstance(e, DrawPileRanOut)]
        assert [e.times for e in run_outs] == list(range(1, ruleset.ends_on_run_out + 1))
        ends.add(run_outs[-1].game_end)
    assert GameEnd.NOT_YET not in ends


@pytest.mark.parametrize("band", house_rules(), ids=_id)
def test_house_rule_options_keep_every_invariant(band: tuple[Ruleset, int]) -> None:
    ruleset, players = band
    for game in range(6):
        state, _ = random_game(ruleset, players, f"house-{game}", compare_every=25)
        assert state.finished


def test_random_games_rederive() -> None:
    """The random player's games are records the rederivation accepts."""
    for ruleset, players in BANDS[::3]:
        _, events = random_game(ruleset, players, "rederive", check=False)
        verdict = rederive(events)
        assert verdict.ok, verdict.reason
        assert verdict.events_checked == len(events)


# -- bots ----------------------------------------------------------------------------

@pytest.mark.parametrize("band", BANDS, ids=_id)
def test_bot_games_keep_every_invariant(band: tuple[Ruleset, int]) -> None:
    from bohnanza_core.bots import QUICK_BOTS as BOTS
    from bohnanza_core.simulator import play_game

    ruleset, players = band
    names = sorted(BOTS)
    lineups = [[BOTS[name]] * players for name in names]
    rng = random.Random(f"{ruleset.name}-{players}")
    lineups.append([BOTS[rng.choice(names)] for _ in range(players)])  # a mixed table
    for number, lineup in enumerate(lineups):
        for game in range(4):
            record = play_game(ruleset, lineup, f"bots-{number}-{game}")
            state = evolve(None, record.events[0])
            check_invariants(state)
            apply_checked(state, record.events[1:])
            assert state.finished
            assert record.result == record.events[-1]


# -- the checker itself catches what it should ----------------------------------------


def _started(
    name: str = "classic", players: int = 3, seed: str = "checker"
) -> tuple[GameState, list[Event]]:
    return new_game(ruleset_for(name, players), tuple(f"P{i}" for i in range(players)), seed)


def test_checker_catches_a_lost_card() -> None:
    state, _ = _started()
    check_invariants(state)
    state.draw_pile.pop()
    with pytest.raises(InvariantBroken, match="cards on the table"):
        check_invariants(state)


def test_checker_catches_a_card_twice() -> None:
    state, _ = _started()
    state.draw_pile[0] = state.draw_pile[1]
    with pytest.raises(InvariantBroken, match="exactly once"):
        check_invariants(state)


def test_checker_catches_a_mixed_field() -> None:
    state, _ = _started()
    kinds = state.kinds
    blue = next(c for c in state.draw_pile if kinds[c] is BeanKind.BLUE)
    red = next(c for c in state.draw_pile if kinds[c] is BeanKind.RED)
    state.draw_pile.remove(blue)
    state.draw_pile.remove(red)
    state.fields[1][0] += [blue, red]
    with pytest.raises(InvariantBroken, match="mixes"):
        check_invariants(state)


def test_checker_catches_a_reordered_hand() -> None:
    state, _ = _started()
    previous = state.copy()
    event = CardDrawn(seat=1, card=state.draw_pile[-1])
    evolve(state, event)
    state.hands[1].reverse()
    with pytest.raises(InvariantBroken, match="hand"):
        check_invariants(state, previous, event)


def test_checker_catches_planting_not_from_the_front() -> None:
    state, _ = _started()
    previous = state.copy()
    hand = state.hands[0]
    second = hand[1]
    event = BeanPlanted(seat=0, card=second, field=0, source=CardSource.HAND)
    hand.remove(second)
    state.fields[0][0].append(second)
    state.events_applied += 1
    with pytest.raises(InvariantBroken, match="front card"):
        check_invariants(state, previous, event)


def _take(state: GameState, kind: BeanKind) -> int:
    card = next(c for c in state.draw_pile if state.kinds[c] is kind)
    state.draw_pile.remove(card)
    return card


def test_checker_catches_a_broken_bean_protection() -> None:
    state, _ = _started()
    state.fields[0][0].append(_take(state, BeanKind.BLUE))
    state.fields[0][1] += [_take(state, BeanKind.RED), _take(state, BeanKind.RED)]
    check_invariants(state)
    with pytest.raises(IllegalMove, match="bean protection"):
        play(state, Harvest(seat=0, field=0))
    previous = state.copy()
    event = FieldHarvested(seat=0, field=0, kind=BeanKind.BLUE, beans=1, coins=0)
    evolve(state, event)
    with pytest.raises(InvariantBroken, match="bean protection"):
        check_invariants(state, previous, event)


def test_checker_catches_an_early_end() -> None:
    state, _ = _started()
    state.discard_pile.extend(state.draw_pile)
    state.draw_pile.clear()
    check_invariants(state)
    previous = state.copy()
    event = DrawPileRanOut(times=1, game_end=GameEnd.NOW)
    evolve(state, event)
    assert state.phase is Phase.FINAL_HARVEST
    with pytest.raises(InvariantBroken, match="run-out 1 of 3"):
        check_invariants(state, previous, event)


def test_the_random_player_is_deterministic() -> None:
    ruleset = ruleset_for("classic", 4)
    _, first = random_game(ruleset, 4, "same", check=False)
    _, second = random_game(ruleset, 4, "same", check=False)
    assert first == second
    policy = RandomPolicy(random.Random(1))
    state, _ = _started()
    assert policy.choose(state) in legal_commands(state, 0)
