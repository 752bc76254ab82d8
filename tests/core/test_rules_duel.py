"""The bean duel (Babpárbaj, 000 (hu)): its own four-step turn, no trading."""

from __future__ import annotations

from bohnanza_core import (
    DiscardCard,
    EndPlanting,
    EndTrading,
    Harvest,
    MakeOffer,
    Phase,
    PlantCard,
    PlantFromHand,
    awaiting,
)
from bohnanza_core.events import (
    BeanPlanted,
    CardDiscarded,
    CardDrawn,
    CardSource,
    CardTakenFromDiscard,
    CardTurnedOver,
    PhaseStarted,
    PlantingEnded,
    TurnEnded,
    TurnStarted,
)
from tests.core.table import (
    arrange,
    assert_conserved,
    assert_illegal,
    draw_top,
    finish_turn,
    kinds,
    names,
    of_type,
    run,
    start,
)


def duel(**layout):
    state = start("duel", 2, seed="duel")
    layout.setdefault("fields", {0: [[], []], 1: [[], []]})
    arrange(state, **layout)
    return state


def test_step_1_is_skipped_at_the_start():
    """000 (hu): '1. A felajánlott babkártyák elültetése vagy eldobása ... A játék
    kezdetekor ez a fázis természetesen kimarad.'"""
    state = start("duel", 2)
    assert state.phase is Phase.PLANTING and state.face_up == []
    assert_illegal(state, DiscardCard(0, state.hands[0][0]),
                   "plant the front card of your hand before discarding")


def test_step_2_plant_one_then_discard_any_hand_card():
    """000 (hu): '2. ... Miután (a rendes játék szabályai szerint) a játékos egy vagy két
    babot a kezéből elültetett, a kezéből egy további, tetszőleges lapot eldobhat. A
    lap baboldalával felfelé a dobott lapokra kerül.'"""
    state = duel(hands={0: ["blue", "red", "soy", "chili"]}, draw=["wax", "wax", "wax"],
                 discard=["green"])
    hand = list(state.hands[0])
    events = run(state, PlantFromHand(0, 0))
    assert names(events) == ["BeanPlanted"] and state.phase is Phase.PLANTING
    events = run(state, DiscardCard(0, hand[2]))  # the Soy bean, third in the hand
    assert events[0] == CardDiscarded(seat=0, card=hand[2], source=CardSource.HAND)
    assert state.discard_pile[-1] == hand[2]
    assert state.hands[0] == [hand[1], hand[3]]
    # Only one discard; then three cards are turned over.
    assert names(events[1:]) == ["CardTurnedOver"] * 3 + ["PhaseStarted"]
    assert_illegal(state, DiscardCard(0, hand[1]), "no card may be discarded")
    assert_illegal(state, PlantFromHand(0, 1), "phase 1")


def test_step_2_plant_two_then_discard_or_stop():
    state = duel(hands={0: ["blue", "blue", "red", "soy"]}, draw=["wax"] * 6)
    hand = list(state.hands[0])
    run(state, PlantFromHand(0, 0), PlantFromHand(0, 0))
    assert state.phase is Phase.PLANTING
    assert_illegal(state, PlantFromHand(0, 1), "at most 2 cards")
    assert_illegal(state, DiscardCard(0, hand[0]), f"card {hand[0]} is not in your hand")
    events = run(state, DiscardCard(0, hand[3]))
    assert state.hands[0] == [hand[2]] and events[0].card == hand[3]
    # Or no discard at all.
    state = duel(hands={0: ["blue", "red"]}, draw=["wax"] * 6)
    events = run(state, PlantFromHand(0, 0), EndPlanting(0))
    assert names(events)[:3] == ["BeanPlanted", "PlantingEnded", "CardTurnedOver"]
    assert len(state.hands[0]) == 1


def test_step_3_turn_over_three_and_take_matching_discards_repeatedly():
    """000 (hu): 'A soron lévő játékos húz három kártyát, és mindhármat felfordítva ...
    az asztalra helyezi. A dobott pakli legfölső lapja megegyezik valamelyik húzott
    lappal, akkor azt negyedikként az asztalra kell tenni. Ezt mindaddig újra meg újra
    meg kell ismételnie, amíg a dobott pakli tetején olyan bab nem lesz, amellyel
    azonos nincsen a felhúzott lapok között.'"""
    state = duel(hands={0: ["blue"]}, draw=["red", "soy", "chili", "stink"],
                 discard=["wax", "green", "chili", "soy", "red", "red"])
    turned = draw_top(state)[:3]
    discard = list(state.discard_pile)
    events = run(state, PlantFromHand(0, 0))
    assert of_type(events, CardTurnedOver) == [CardTurnedOver(c) for c in turned]
    taken = of_type(events, CardTakenFromDiscard)
    assert taken == [CardTakenFromDiscard(c) for c in reversed(discard[2:])]
    assert kinds(state, [e.card for e in taken]) == ["red", "red", "soy", "chili"]
    assert state.discard_pile == discard[:2]  # Green on top: no Green face up
    assert state.face_up == turned + list(reversed(discard[2:]))
    assert events[-1] == PhaseStarted(Phase.PLANTING_RECEIVED)
    assert kinds(state, draw_top(state)[:1]) == ["stink"]


def test_step_3_a_discard_matching_nothing_stays():
    state = duel(hands={0: ["blue"]}, draw=["red", "soy", "chili"], discard=["red", "wax"])
    events = run(state, PlantFromHand(0, 0))
    assert of_type(events, CardTakenFromDiscard) == []
    assert kinds(state, state.discard_pile) == ["red", "wax"]


def test_step_2_discard_can_come_back_in_step_3():
    """The discarded hand card is the top discard when step 3 begins."""
    state = duel(hands={0: ["blue", "soy"]}, draw=["soy", "red", "red"], discard=[])
    soy = state.hands[0][1]
    events = run(state, PlantFromHand(0, 0), DiscardCard(0, soy))
    assert of_type(events, CardTakenFromDiscard) == [CardTakenFromDiscard(soy)]
    assert soy in state.face_up and state.discard_pile == []


def test_step_3_plant_any_face_up_cards_leave_the_rest_then_draw_two():
    """000 (hu): 'Ezután a játékos a két pakliból felhúzott lapok közül tetszőleges
    számút a babföldjeire rakhat. A lapokat, amelyekre nem tart igényt, felajánlja a
    másik játékosnak azzal, hogy az asztalon hagyja azokat. Akár az összes felhúzott lap
    is felajánlható a másik játékosnak.' and '4. ... egyesével két kártyát húz'"""
    state = duel(hands={0: ["blue"], 1: ["green", "green"]},
                 draw=["red", "soy", "chili", "stink", "wax", "coffee"], discard=[])
    run(state, PlantFromHand(0, 0))
    red, soy, chili = state.face_up
    assert awaiting(state) == (0,)
    assert_illegal(state, PlantCard(1, red, 0), "only the active player")
    assert_illegal(state, EndTrading(0), "no trading to end")
    assert_illegal(state, MakeOffer(0, gives=(red,), wants=(), to=1), "only during trading")
    assert run(state, PlantCard(0, soy, 1)) == [BeanPlanted(0, soy, 1, CardSource.FACE_UP)]
    stink, wax = draw_top(state)[:2]
    events = run(state, EndPlanting(0))
    assert events[:5] == [PlantingEnded(0), PhaseStarted(Phase.DRAWING), CardDrawn(0, stink),
                          CardDrawn(0, wax), TurnEnded(0)]
    assert events[5] == TurnStarted(1, 2)
    assert state.face_up == [red, chili]
    assert state.hands[0] == [stink, wax]
    # Step 1 for the opponent: plant or discard the leftovers, one by one.
    assert state.phase is Phase.PLANTING_LEFTOVERS and awaiting(state) == (1,)
    assert_illegal(state, PlantFromHand(1, 0), "phase 1")
    assert_illegal(state, DiscardCard(0, red), "only the active player")
    assert_illegal(state, DiscardCard(1, state.hands[1][0]), "not among the cards left to you")
    assert_illegal(state, EndPlanting(1), "no planting to end")
    assert run(state, PlantCard(1, chili, 0)) == [BeanPlanted(1, chili, 0, CardSource.FACE_UP)]
    assert state.phase is Phase.PLANTING_LEFTOVERS
    assert run(state, DiscardCard(1, red)) == [CardDiscarded(1, red, CardSource.FACE_UP)]
    assert state.phase is Phase.PLANTING and state.discard_pile == [red]
    run(state, PlantFromHand(1, 1))
    assert kinds(state, state.fields[1][1]) == ["green"]
    assert_conserved(state)


def test_leftovers_may_need_a_harvest_in_ones_own_turn():
    state = duel(hands={0: ["blue"], 1: ["soy"]}, fields={0: [[], []],
                                                          1: [["red"] * 3, ["wax"] * 2]},
                 draw=["chili", "chili", "chili", "blue", "blue"], discard=[])
    run(state, PlantFromHand(0, 0))
    finish_turn(state)
    chili = state.face_up[0]
    assert_illegal(state, PlantCard(1, chili, 0), "no field fits a chili bean")
    run(state, Harvest(1, 0), PlantCard(1, chili, 0))
    assert state.fields[1][0] == [chili]
