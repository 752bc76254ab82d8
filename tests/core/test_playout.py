"""Playouts follow the engine's rules exactly: every decision a playout makes is a
command the engine accepts, and the engine, given the same decisions, ends the game
with the same table (coins, ranks, every pile, every field)."""

from __future__ import annotations

import pytest

from bohnanza_core.bots import HeuristicBot, NonTradingBot, RandomBot
from bohnanza_core.commands import Command
from bohnanza_core.engine import STEP_NONE, evolve, is_decision, new_game, next_step, play
from bohnanza_core.playout import play_out, start
from bohnanza_core.rulesets import PRESETS, Ruleset, customize
from bohnanza_core.simulator import play_game
from bohnanza_core.state import STATE_FIELDS, GameState, Phase
from tests.core.invariants import house_rules, ruleset_bands

TABLES: list[tuple[Ruleset, int]] = ruleset_bands()
HOUSE_RULES: list[tuple[Ruleset, int]] = [
    *house_rules(),
    (customize("rio-grande", 3, {"starting_fields": 2, "third_field_cost": 3,  # UMBC's
                                 "ends_on_run_out": 3,
                                 "run_out_while_turning_over": "end at once",
                                 "run_out_while_drawing": "end at once"}), 3),
]
COMPARED = tuple(name for name in STATE_FIELDS if name != "events_applied")


def _label(table: tuple[Ruleset, int]) -> str:
    return f"{table[0].name}-{table[1]}p"


def assert_same_table(playout: GameState, engine: GameState) -> None:
    for name in COMPARED:
        assert getattr(playout, name) == getattr(engine, name), name


def replay(state: GameState, log: list[Command]) -> GameState:
    """The engine given the playout's decisions, one by one (IllegalMove if refused)."""
    for command in log:
        assert state.phase is not Phase.GAME_OVER, f"the game ended before {command}"
        play(state, command)
    return state


@pytest.mark.slow
@pytest.mark.parametrize("table", TABLES + HOUSE_RULES, ids=_label)
def test_whole_playouts_end_as_the_engine_ends_them(table: tuple[Ruleset, int]) -> None:
    ruleset, players = table
    for game in range(40):
        seed = f"playout:{game}"
        state = start(ruleset, players, seed)
        log: list[Command] = []
        coins = play_out(state, log)
        engine, _ = new_game(ruleset, tuple(f"seat {n}" for n in range(players)), seed)
        replay(engine, log)
        assert engine.phase is Phase.GAME_OVER
        assert engine.result is not None and engine.result.coins == coins
        for name in ("salt", "seed_commitment"):  # a playout is never recorded
            setattr(engine, name, "")
        assert_same_table(state, engine)


@pytest.mark.slow
@pytest.mark.parametrize("table", TABLES + HOUSE_RULES, ids=_label)
def test_playouts_from_the_middle_of_trading_games_end_as_the_engine_ends_them(
        table: tuple[Ruleset, int]) -> None:
    """From decision points of games the trading bots played (offers open, beans in
    trade areas, leftovers face up), the playout goes on as the engine would."""
    ruleset, players = table
    lineup = [HeuristicBot, RandomBot, NonTradingBot, HeuristicBot, RandomBot, HeuristicBot,
              RandomBot][:players]
    for game in range(8):
        record = play_game(ruleset, lineup, f"middle:{game}")
        decisions = [i for i, event in enumerate(record.events) if is_decision(event)]
        for cut in decisions[len(decisions) // 7::max(1, len(decisions) // 6)]:
            state: GameState | None = None
            for event in record.events[:cut]:
                state = evolve(state, event)
            assert state is not None
            if next_step(state) != STEP_NONE:
                continue  # not a decision point (a PlantingEnded may happen by itself)
            log: list[Command] = []
            playout = state.copy()
            play_out(playout, log)
            assert_same_table(playout, replay(state.copy(), log))


def test_a_playout_does_not_touch_what_it_was_not_given() -> None:
    ruleset = PRESETS["classic"][0]
    state, _ = new_game(ruleset, ("a", "b", "c", "d"), "untouched")
    before = state.copy()
    play_out(state.copy())
    assert_same_table(state, before)
