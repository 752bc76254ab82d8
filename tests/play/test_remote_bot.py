"""examples/remote_bot.py, the heuristic bot written by a bot author against the
documented view (docs/protocol.md) on the client package (clients/python), decides as
the built-in heuristic bot does: both are asked the same questions through whole
games of every preset, the one on the engine's view, the other on the ``state`` frame
the seat would be sent, and must answer the same command every time."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

from bohnanza_core.bots import BOTS
from bohnanza_core.engine import awaiting, legal_commands, new_game, play
from bohnanza_core.errors import IllegalMove
from bohnanza_core.rulesets import PRESETS, ruleset_for
from bohnanza_core.state import Phase
from bohnanza_core.views import view
from bohnanza_core.wire import command_to_json, legal_to_json

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "clients" / "python"))

from bohnanza_client import BEANOMETER as CLIENT_BEANOMETER  # noqa: E402
from bohnanza_client import State  # noqa: E402


def _remote() -> Any:
    spec = importlib.util.spec_from_file_location("remote_bot", ROOT / "examples" / "remote_bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def frame_for(state: Any, seat: int) -> dict[str, Any]:
    """The parts of the ``state`` frame seat ``seat`` is sent that a bot reads
    (play.live.seat_update builds the real one the same way)."""
    seen = view(state, seat)
    return {"type": "state", "seat": seat, "finished": state.finished, "since": 0,
            "version": 0, "legal": legal_to_json(legal_commands(state, seat)),
            "facts": {"rules": state.ruleset.parameters(), "planted": seen.planted_this_turn,
                      "ending": seen.ending,
                      "harvestable": [[seen.may_harvest(s, f) for f in range(seen.field_count(s))]
                                      for s in range(state.players)]},
            "answer": {"table": seen.as_dict()}}


def test_the_beanometer_a_bot_author_reads_is_the_games() -> None:
    from bohnanza_core.cards import BEANOMETER
    assert {k.value: v for k, v in BEANOMETER.items()} == CLIENT_BEANOMETER


@pytest.mark.parametrize("preset", list(PRESETS))
def test_the_remote_heuristic_decides_as_the_built_in_one(preset: str) -> None:
    remote = _remote()
    players = 2 if preset == "duel" else 4
    for game in range(2):
        state, _ = new_game(ruleset_for(preset, players), [f"p{n}" for n in range(players)],
                            seed=f"remote-{preset}-{game}")
        ours = [BOTS["heuristic"](seat, f"s{seat}") for seat in range(players)]
        theirs = [remote.Heuristic() for _ in range(players)]
        asked = 0
        for _step in range(3000):
            if state.finished:
                break
            waited = awaiting(state)
            moved = False
            for seat in range(players):
                chance = (state.phase is Phase.TRADING and seat != state.active
                          and not ours[seat]._proposed)
                if seat not in waited and not chance:
                    continue
                expected = ours[seat].act(view(state, seat))
                got = theirs[seat].decide(State(frame_for(state, seat)))
                asked += 1
                assert got == (None if expected is None else command_to_json(expected)), (
                    preset, game, _step, seat)
                if expected is not None:
                    try:  # a proposal out of turn may be refused now: both made it
                        play(state, expected)
                    except IllegalMove:
                        continue
                    moved = True
                    break
            assert moved or state.finished, (preset, state.phase)
        assert state.finished and asked > 100
