"""The draw pile running out, reshuffles, the end of the game, the final harvest,
scoring and tie-breaks."""

from __future__ import annotations

import pytest

from bohnanza_core import (
    AcceptOffer,
    BeanKind,
    EndPlanting,
    EndTrading,
    Harvest,
    MakeOffer,
    Phase,
    PlantCard,
    PlantFromHand,
    customize,
    seed_commitment,
    seeded_shuffle,
)
from bohnanza_core.events import (
    CardDrawn,
    CardTakenFromDiscard,
    DiscardPileReshuffled,
    DrawPileRanOut,
    FieldHarvested,
    GameEnd,
    GameEnded,
    GameStarted,
    PhaseStarted,
    TurnEnded,
    TurnStarted,
)
from bohnanza_core.rulesets import TieBreak
from tests.core.table import (
    arrange,
    assert_conserved,
    assert_illegal,
    draw_top,
    finish_phase1,
    finish_turn,
    names,
    of_type,
    run,
    start,
)

# (ruleset, players, the run-out that ends the game)
ENDS = [
    # 000 (hu): 'A játék akkor ér véget, amikor harmadszor fogy el a húzópakli.'
    ("classic", 3, 3), ("classic", 5, 3),
    # 001 (en): 'The game ends when the draw pile runs out for the third time.'
    ("amigo-en", 3, 3), ("amigo-en", 4, 3),
    # 000 (hu), 3 players: 'A játék akkor ér véget, ha a húzópakli másodszor is elfogy.'
    ("rio-grande", 3, 2),
    ("rio-grande", 4, 3), ("rio-grande", 7, 3),
    # 004 (fi): 'Kun pakka loppuu kolmannen kerran, peli päättyy välittömästi.'
    ("finnish", 2, 3), ("finnish", 6, 3),
    # 000 (hu), Babpárbaj: 'A játék akkor ér véget, amikor a húzópakli első alkalommal
    # elfogy.'
    ("duel", 2, 1),
]


def last_turn(name, players, *, runs_out, draw, discard=("red", "red", "red"), hands=None,
              coins=None, fields=None):
    """Seat 0 to play with a Blue bean in hand (the others hold a Soy bean); the draw
    pile holds exactly ``draw``, the discard pile ``discard``; every other card is out
    of the game."""
    state = start(name, players, seed="end")
    empty = {seat: [[] for _ in state.fields[seat]] for seat in range(players)}
    arrange(state,
            hands={0: ["blue"], **{s: ["soy"] for s in range(1, players)}, **(hands or {})},
            fields={**empty, **(fields or {})},
            coins={s: 0 for s in range(players)} | (coins or {}),
            draw=list(draw), discard=list(discard), rest="box", runs_out=runs_out)
    return state


def after(events, event):
    return events[events.index(event) + 1:]


@pytest.mark.parametrize(("name", "players", "n"), ENDS)
def test_the_nth_run_out_while_drawing_ends_the_game_at_once(name, players, n):
    """000 (hu): 'Ha a húzópakli az Új babkártya húzása-lépés alatt fogy el harmadszorra,
    akkor a játék azonnal végetér.' The card drawn before stays in the hand."""
    faces = start(name, players).ruleset.face_up_cards
    state = last_turn(name, players, runs_out=n - 1, draw=["blue"] * (faces + 1))
    last = draw_top(state)[-1]
    events = finish_turn(state)
    assert of_type(events, CardDrawn) == [CardDrawn(0, last)]
    rest = after(events, CardDrawn(0, last))
    assert rest[0] == DrawPileRanOut(times=n, game_end=GameEnd.NOW)
    assert names(rest[1:]) == ["FieldHarvested", "GameEnded"]
    assert of_type(events, TurnEnded) == []
    assert state.finished and state.hands[0] == [last] and state.runs_out == n
    assert_conserved(state)


@pytest.mark.parametrize(("name", "players", "n"), [e for e in ENDS if e[2] > 1])
def test_an_earlier_run_out_reshuffles_the_discard_pile(name, players, n):
    """000 (hu): 'Amennyiben akár most, akár a Kereskedés-fázisban elfogy a húzópakli,
    akkor a dobott lapok megkeverésével új húzópaklit kell csinálni.' The k-th
    reshuffle reads the seed's k-th stream."""
    ruleset = start(name, players).ruleset
    state = last_turn(name, players, runs_out=n - 2,
                      draw=["blue"] * (ruleset.face_up_cards + 1),
                      discard=["red", "chili", "stink", "soy", "green", "chili"])
    discard = list(state.discard_pile)
    events = finish_turn(state)
    ran_out = DrawPileRanOut(times=n - 1, game_end=GameEnd.NOT_YET)
    order = seeded_shuffle(discard, "end", n - 1)
    assert after(events, ran_out)[0] == DiscardPileReshuffled(cards=6, order=order)
    assert names(events).count("CardDrawn") == ruleset.draw_cards
    assert [e.card for e in of_type(after(events, ran_out), CardDrawn)] == list(
        order[: ruleset.draw_cards - 1])
    assert draw_top(state) == list(order[ruleset.draw_cards - 1:])
    assert state.discard_pile == [] and state.runs_out == n - 1 and not state.finished
    assert events[-1] == TurnStarted(1, 2)


@pytest.mark.parametrize(("name", "players", "n"), [
    ("classic", 3, 3), ("classic", 4, 3), ("amigo-en", 3, 3), ("amigo-en", 5, 3),
    ("rio-grande", 3, 2), ("rio-grande", 5, 3), ("rio-grande", 6, 3)])
def test_run_out_while_turning_over_finishes_phases_2_and_3(name, players, n):
    """001 (en): 'If this happens during phase 2, "Trading Bean Cards", complete phases 2
    and 3 of your turn (even if you could only turn over one card instead of two), then
    the game ends.'; 000 (hu): 'Ha ez az egyik játékos Kereskedés és ajándékozás-lépése
    során történik, akkor ezt és a Babok elültetése-lépést még le kell játszani'"""
    state = last_turn(name, players, runs_out=n - 1, draw=["soy"], hands={1: ["green"]})
    soy = draw_top(state)[0]
    events = finish_phase1(state)
    assert names(events)[-3:] == ["CardTurnedOver", "DrawPileRanOut", "PhaseStarted"]
    assert events[-2:] == [DrawPileRanOut(times=n, game_end=GameEnd.AFTER_THIS_TURN),
                           PhaseStarted(Phase.TRADING)]
    assert state.face_up == [soy] and state.ending
    # Trading and phase 3 still happen.
    green = state.hands[1][0]
    run(state, MakeOffer(0, gives=(soy,), wants=((BeanKind.GREEN, 1),), to=1),
        AcceptOffer(1, 1, (green,)), EndTrading(0), PlantCard(1, soy, 0))
    events = run(state, PlantCard(0, green, 1))
    assert events[1] == PhaseStarted(Phase.FINAL_HARVEST)
    assert of_type(events, CardDrawn) == []
    assert isinstance(events[-1], GameEnded) and state.finished


@pytest.mark.parametrize(("name", "players", "n"), [("finnish", 2, 3), ("finnish", 5, 3),
                                                    ("duel", 2, 1)])
def test_run_out_while_turning_over_ends_at_once(name, players, n):
    """004 (fi): 'Kun pakka loppuu kolmannen kerran, peli päättyy välittömästi.' The duel
    ends the same way (RULES.md decision; 000 (hu): 'A játék akkor ér véget, amikor a
    húzópakli első alkalommal elfogy.')"""
    state = last_turn(name, players, runs_out=n - 1, draw=["soy"],
                      fields={1: [["chili"] * 3, []]})
    soy = draw_top(state)[0]
    events = finish_phase1(state)
    rest = after(events, DrawPileRanOut(times=n, game_end=GameEnd.NOW))
    assert names(rest) == ["FieldHarvested", "FieldHarvested", "GameEnded"]
    assert Phase.TRADING not in [e.phase for e in of_type(events, PhaseStarted)]
    assert state.face_up == [soy]  # turned over, never planted, worth nothing
    assert rest[-1].coins[1] == 1


@pytest.mark.parametrize("name", ["classic", "amigo-en"])
def test_the_pile_emptied_by_the_last_draw(name):
    """001 (en): 'When you draw the last card from the draw pile, re-shuffle the discard
    pile.' - under amigo-en the pile runs out with the last card drawn, so at the third
    time the game ends at once. RULES.md decision `reshuffle_when` for the others: the
    pile runs out when a card is needed, so the next player still plays phases 1-3."""
    state = last_turn(name, 3, runs_out=2, draw=["blue"] * 5, hands={1: ["blue", "soy"]})
    events = finish_turn(state)
    assert names(events).count("CardDrawn") == 3
    if name == "amigo-en":
        assert after(events, of_type(events, CardDrawn)[-1])[0] == DrawPileRanOut(
            3, GameEnd.NOW)
        assert state.finished and state.turn == 1
        return
    assert events[-2:] == [TurnEnded(0), TurnStarted(1, 2)]
    events = run(state, PlantFromHand(1, 0), EndPlanting(1))
    assert events[-2:] == [DrawPileRanOut(3, GameEnd.AFTER_THIS_TURN),
                           PhaseStarted(Phase.TRADING)]
    assert state.face_up == []
    events = run(state, EndTrading(1))
    assert isinstance(events[-1], GameEnded)


@pytest.mark.parametrize("name", ["classic", "amigo-en"])
def test_when_the_reshuffle_happens(name):
    """001 (en): 'When you draw the last card from the draw pile, re-shuffle the discard
    pile.' Under amigo-en the reshuffle comes with the last card drawn; under the
    RULES.md default it waits until a card is needed, and takes in the beans harvested
    meanwhile - so the two options do not give the same game."""
    state = last_turn(name, 4, runs_out=0, draw=["blue"] * 5, hands={1: ["blue"]},
                      fields={2: [["chili", "chili"], []]})
    events = finish_turn(state)
    if name == "amigo-en":
        assert names(events)[-5:] == ["CardDrawn", "DrawPileRanOut", "DiscardPileReshuffled",
                                      "TurnEnded", "TurnStarted"]
        reshuffled = of_type(events, DiscardPileReshuffled)[0]
    else:
        assert names(events)[-2:] == ["TurnEnded", "TurnStarted"]
        assert of_type(events, DrawPileRanOut) == []
        run(state, Harvest(2, 0))  # two more cards on the discard pile
        events = run(state, PlantFromHand(1, 0))
        reshuffled = of_type(events, DiscardPileReshuffled)[0]
        assert of_type(events, DrawPileRanOut) == [DrawPileRanOut(1, GameEnd.NOT_YET)]
    assert reshuffled.cards == (3 if name == "amigo-en" else 5)


@pytest.mark.parametrize(("name", "players", "runs_out", "expected"), [
    ("classic", 4, 1, [(2, GameEnd.NOT_YET), (3, GameEnd.NOW)]),
    ("rio-grande", 3, 0, [(1, GameEnd.NOT_YET), (2, GameEnd.NOW)]),
    ("finnish", 3, 1, [(2, GameEnd.NOT_YET), (3, GameEnd.NOW)]),
])
def test_an_empty_discard_pile_counts_as_running_out_again(name, players, runs_out, expected):
    """RULES.md decision `empty_reshuffle`: nothing to reshuffle, the new pile runs out
    at once, which may end the game."""
    state = last_turn(name, players, runs_out=runs_out, draw=["blue", "blue"], discard=[])
    events = finish_turn(state)
    ran_out = of_type(events, DrawPileRanOut)
    assert [(e.times, e.game_end) for e in ran_out] == expected
    assert of_type(events, DiscardPileReshuffled) == [DiscardPileReshuffled(0, ())]
    assert state.finished


@pytest.mark.parametrize(("name", "players", "n"), ENDS)
def test_final_harvest_ignores_bean_protection_and_hands_are_worth_nothing(name, players, n):
    """000 (hu): 'A játék végén még minden játékos betakaríthatja és eladhatja a
    babföldjein található babokat. A kézben lévő lapok már nem számítanak. Az a
    győztes, akinek a legtöbb babtallérja van.'; 001 (en): 'Cards in your hand do not
    count towards your total.'"""
    faces = start(name, players).ruleset.face_up_cards
    other = players - 1
    extra = [[] for _ in range(len(start(name, players).fields[0]) - 2)]
    state = last_turn(name, players, runs_out=n - 1, draw=["blue"] * faces,
                      fields={other: [["soy"], ["chili"] * 6, *extra]},
                      hands={other: ["red"] * 5}, coins={other: 2, 0: 1})
    events = finish_turn(state)
    final = [e for e in of_type(events, FieldHarvested) if e.seat == other]
    assert final == [FieldHarvested(other, 0, BeanKind.SOY, 1, 0, final=True),
                     FieldHarvested(other, 1, BeanKind.CHILI, 6, 2, final=True)]
    (ended,) = of_type(events, GameEnded)
    assert ended.coins[other] == 4 and ended.coins[0] == 1
    assert ended.winners == (other,) and ended.tie_break is None
    assert ended.hand_sizes[other] == 5
    assert all(beans == [] for fields in state.fields for beans in fields)
    assert_illegal(state, Harvest(other, 0), "the game is over")


TIES = [
    # 000 (hu): '(Döntetlen esetén az nyer, akinek több babkártya van a kezében.)'
    ("classic", TieBreak.MOST_CARDS_IN_HAND, (0,), (1, 3, 2)),
    ("rio-grande", TieBreak.MOST_CARDS_IN_HAND, (0,), (1, 3, 2)),  # RULES.md decision
    # 001 (en): 'If there is a tie, the tied player who sits the furthest away from the
    # starting player (going around the table clockwise) wins the game.'
    ("amigo-en", TieBreak.FURTHEST_CLOCKWISE, (2,), (2, 3, 1)),
    # 004 (fi) names no tie-break: 'Eniten rahaa kerännyt pelaaja voittaa.' (decision)
    ("finnish", TieBreak.SHARED, (0, 2), (1, 3, 1)),
]


@pytest.mark.parametrize(("name", "tie_break", "winners", "ranks"), TIES)
def test_tie_breaks(name, tie_break, winners, ranks):
    n = 2 if name == "rio-grande" else 3
    state = last_turn(name, 3, runs_out=n - 1, draw=["blue", "blue"],
                      hands={0: ["blue", "red", "red", "red"], 1: ["soy"], 2: ["green"]},
                      coins={0: 4, 1: 3, 2: 4})
    events = finish_turn(state)
    (ended,) = of_type(events, GameEnded)
    assert ended.coins == (4, 3, 4) and ended.hand_sizes == (3, 1, 1)
    assert ended.tie_break is tie_break
    assert ended.winners == winners and ended.ranks == ranks
    assert state.result.winners == winners


def test_duel_tie_break_more_cards_in_hand():
    """RULES.md decision: the duel keeps the base game's tie-break (000 (hu): 'Döntetlen
    esetén az nyer, akinek több babkártya van a kezében.')."""
    state = last_turn("duel", 2, runs_out=0, draw=["blue"] * 3,
                      hands={0: ["blue", "red"], 1: ["soy", "soy", "soy"]},
                      coins={0: 4, 1: 4})
    (ended,) = of_type(finish_turn(state), GameEnded)
    assert ended.coins == (4, 4) and ended.hand_sizes == (1, 3)
    assert ended.winners == (1,) and ended.tie_break is TieBreak.MOST_CARDS_IN_HAND


def test_a_tie_the_tie_break_cannot_break_is_shared():
    state = last_turn("classic", 3, runs_out=2, draw=["blue", "blue"],
                      hands={0: ["blue", "red"], 1: ["soy"]}, coins={0: 2, 1: 2, 2: 1})
    (ended,) = of_type(finish_turn(state), GameEnded)
    assert ended.winners == (0, 1) and ended.ranks == (1, 1, 3)


def test_the_end_reveals_the_committed_seed():
    """DESIGN.md: 'Each game commits to its seed at the start ... and reveals it at the
    end, so anyone can recompute every shuffle.'"""
    state = last_turn("classic", 3, runs_out=2, draw=["blue", "blue"])
    (ended,) = of_type(finish_turn(state), GameEnded)
    assert ended.seed == "end" and ended.salt == state.salt
    assert seed_commitment(ended.seed, ended.salt) == state.seed_commitment
    assert GameStarted.SECRET == ("seed", "salt")


@pytest.mark.parametrize(("timing", "taken"), [
    ("finish phases 2 and 3, then end", ["soy", "soy"]),
    ("end at once", []),
])
def test_duel_step_3_takes_matching_discards_after_the_last_run_out(timing, taken):
    """000 (hu), Babpárbaj step 3: 'A dobott pakli legfölső lapja megegyezik valamelyik
    húzott lappal, akkor azt negyedikként az asztalra kell tenni.' Under "finish phases
    2 and 3" (a house rule for the duel) step 3 is finished after the run-out, taking
    the matching discards included (docs/events.md, "The end of the game"); under "end
    at once" (the preset) the final harvest comes first and nothing is taken."""
    ruleset = customize("duel", 2, {"run_out_while_turning_over": timing})
    state = start("duel", 2, seed="end", ruleset=ruleset)
    arrange(state, hands={0: ["blue"], 1: ["red"]}, fields={0: [[], []], 1: [[], []]},
            draw=["soy"], discard=["green", "soy", "soy"], rest="box")
    soy = draw_top(state)[0]
    discard = list(state.discard_pile)
    events = run(state, PlantFromHand(0, 0))  # the hand is empty: step 2 ends by itself
    game_end = GameEnd.AFTER_THIS_TURN if taken else GameEnd.NOW
    rest = after(events, DrawPileRanOut(times=1, game_end=game_end))
    assert [state.kinds[e.card].value for e in of_type(rest, CardTakenFromDiscard)] == taken
    if taken:
        assert state.face_up == [soy, discard[2], discard[1]]
        assert rest[-1] == PhaseStarted(Phase.PLANTING_RECEIVED) and state.ending
        for card in list(state.face_up):
            run(state, PlantCard(0, card, 1))
        assert state.phase is Phase.GAME_OVER
        assert of_type(rest, CardDrawn) == []
    else:
        assert names(rest)[-1] == "GameEnded" and state.face_up == [soy]
