"""Illegal commands raise IllegalMove with a reason a player can read, and change
nothing (DESIGN.md: 'Illegal commands raise one exception type with a reason a player
can read; nothing is stored for them.'); ``decide`` never changes the table."""

from __future__ import annotations

import pytest

from bohnanza_core import (
    AcceptOffer,
    BuyThirdField,
    DiscardCard,
    EndPlanting,
    EndTrading,
    Harvest,
    MakeOffer,
    PlantCard,
    PlantFromHand,
    WithdrawOffer,
    decide,
    play,
)
from tests.core.table import (
    arrange,
    assert_illegal,
    finish_phase1,
    finish_turn,
    run,
    snapshot,
    start,
)


def phase1(name="classic", players=3):
    state = start(name, players)
    arrange(state, hands={0: ["blue", "red"], 1: ["soy", "green"]},
            fields={0: [["chili", "chili"], []], 1: [["red"], []],
                    2: [["red"], ["green", "green"]]}, coins={1: 2})
    return state


def trading(name="classic", players=3):
    state = phase1(name, players)
    arrange(state, draw=["stink", "green"])
    finish_phase1(state)
    return state


def game_over():
    state = start("classic", 3)
    arrange(state, hands={0: ["blue"]}, fields={0: [[], []]}, draw=["blue", "blue"],
            discard=[], rest="box", runs_out=2)
    finish_turn(state)
    assert state.finished
    return state


CASES = [
    # (situation, command, words the reason must contain)
    (phase1, lambda s: PlantFromHand(1, 0), "only the active player (Ann)"),
    (phase1, lambda s: PlantFromHand(3, 0), "there is no seat 3"),
    (phase1, lambda s: PlantFromHand(-1, 0), "there is no seat -1"),
    (phase1, lambda s: PlantFromHand(True, 0), "there is no seat True"),
    (phase1, lambda s: PlantFromHand(0, "0"), "there is no field '0'"),
    (phase1, lambda s: PlantFromHand(0, 0), "field 0 holds chili beans"),
    (phase1, lambda s: PlantCard(0, s.hands[0][0], 1), "neither in your trade area nor face up"),
    (phase1, lambda s: EndPlanting(1), "only the active player"),
    (phase1, lambda s: DiscardCard(0, s.hands[0][1]), "no card may be discarded"),
    (phase1, lambda s: EndTrading(0), "no trading to end during planting from the hand"),
    (phase1, lambda s: AcceptOffer(1, 1), "only during trading"),
    (phase1, lambda s: WithdrawOffer(0, 1), "only during trading"),
    (phase1, lambda s: Harvest(2, 0), "bean protection"),
    (phase1, lambda s: Harvest(1, 1), "field 1 is empty"),
    (phase1, lambda s: Harvest(1, "x"), "there is no field 'x'"),
    (phase1, lambda s: BuyThirdField(1), "costs 3 coins; you have 2"),
    (phase1, lambda s: "plant!", "is not a command of this game"),
    (trading, lambda s: PlantFromHand(0, 1), "phase 1"),
    (trading, lambda s: PlantCard(1, s.face_up[0], 1), "only the active player"),
    (trading, lambda s: EndPlanting(0), "no planting to end during trading"),
    (trading, lambda s: EndTrading(2), "only the active player (Ann) may end trading"),
    (trading, lambda s: MakeOffer(1, gives=(s.hands[2][0],), wants=()), "not in your hand"),
    (game_over, lambda s: Harvest(0, 0), "the game is over"),
    (game_over, lambda s: BuyThirdField(0), "the game is over"),
    (game_over, lambda s: PlantFromHand(1, 0), "the game is over"),
    (game_over, lambda s: EndTrading(1), "the game is over"),
]


@pytest.mark.parametrize(("situation", "command", "reason"), CASES)
def test_illegal_commands_change_nothing(situation, command, reason):
    state = situation()
    text = assert_illegal(state, command(state), reason)
    assert text[0].isalpha() and len(text) > 10
    assert "Traceback" not in text and "<" not in text  # no object reprs


def test_an_illegal_command_between_legal_ones_leaves_no_trace():
    state = trading()
    reference = trading()
    assert snapshot(state) == snapshot(reference)
    assert_illegal(state, AcceptOffer(1, 1, ()), "offer 1 is not open")
    for s in (state, reference):
        run(s, MakeOffer(0, gives=(s.face_up[0],), wants=(), to=1))
    assert snapshot(state) == snapshot(reference)


@pytest.mark.parametrize("command", [
    lambda s: PlantFromHand(0, 1),
    lambda s: Harvest(0, 0),
    lambda s: BuyThirdField(0),
])
def test_decide_tells_without_changing_the_table(command):
    state = phase1()
    arrange(state, coins={0: 3})
    before = snapshot(state)
    told = decide(state, command(state))
    assert snapshot(state) == before
    assert play(state, command(state)) == told
    assert snapshot(state) != before
