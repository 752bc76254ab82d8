"""A turn of the trading games: hand order, phase 1 (planting from the hand), phase 2
(turning over), phase 3 (planting what was turned over and traded), phase 4
(drawing) and the next player."""

from __future__ import annotations

import pytest

from bohnanza_core import (
    AcceptOffer,
    BeanKind,
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
    CardDrawn,
    CardSource,
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
    card,
    draw_top,
    finish_phase1,
    finish_turn,
    kinds,
    names,
    of_type,
    run,
    start,
)

TRADING_GAMES = [("classic", 3), ("amigo-en", 4), ("rio-grande", 3), ("rio-grande", 5),
                 ("rio-grande", 6), ("finnish", 4)]


def empty_fields(state, seat):
    return [[] for _ in state.fields[seat]]


# -- hand order ----------------------------------------------------------------------


@pytest.mark.parametrize(("name", "players"), [*TRADING_GAMES, ("duel", 2)])
def test_phase_1_plants_the_front_card_of_the_hand(name, players):
    """001 (en): 'You cannot change the order of the cards in your hand at any point
    during the game!' and 'You must plant the first card in your hand'; 000 (hu):
    'A játékosnak kötelező a kezében legelöl lévő babkártyát kijátszania'."""
    state = start(name, players)
    arrange(state, hands={0: ["red", "blue", "chili", "red"]},
            fields={0: empty_fields(state, 0)})
    hand = list(state.hands[0])
    events = run(state, PlantFromHand(seat=0, field=1))
    assert events == [BeanPlanted(seat=0, card=hand[0], field=1, source=CardSource.HAND)]
    assert state.hands[0] == hand[1:]
    events = run(state, PlantFromHand(seat=0, field=0))
    assert events[0] == BeanPlanted(seat=0, card=hand[1], field=0, source=CardSource.HAND)
    assert kinds(state, state.hands[0][:2]) == ["chili", "red"]


def test_drawn_cards_go_to_the_back_of_the_hand_in_the_order_drawn():
    """000 (hu): 'Később mindig egyesével kell az új kártyákat felhúzniuk és a már a
    kezükben lévő kártyák mögé tenniük.'; 001 (en) phase 4: 'Put them in the back of
    your hand, behind the last card, in the order you draw them.'"""
    state = start("classic", 3)
    arrange(state, hands={0: ["blue", "red", "soy", "green"]}, fields={0: [[], []]},
            draw=["chili", "chili", "stink", "black-eyed", "garden"])
    kept = list(state.hands[0][1:])
    pile = draw_top(state)
    events = run(state, PlantFromHand(0, 0), EndPlanting(0))
    assert [e.card for e in of_type(events, CardTurnedOver)] == pile[:2]
    events = finish_turn(state)
    drawn = of_type(events, CardDrawn)
    assert [(e.seat, e.card) for e in drawn] == [(0, c) for c in pile[2:5]]
    assert state.hands[0] == kept + pile[2:5]
    assert kinds(state, state.hands[0]) == ["red", "soy", "green", "stink", "black-eyed",
                                            "garden"]


def test_trading_takes_cards_from_anywhere_in_the_hand_and_keeps_the_rest_in_order():
    """000 (hu): 'A csere folyamán sem szabad változtatni a kézben tartott kártyák
    sorrendjén, de a játékosok bármelyik, kezükben lévő lapjukat felajánlhatják
    cserére, függetlenül attól, hogy az a kártya hányadik a kezükben.'"""
    state = start("classic", 3)
    arrange(state, hands={0: ["blue", "red", "soy", "green", "stink"],
                          1: ["chili", "garden", "blue", "garden", "soy"]},
            fields={0: [[], []]}, draw=["black-eyed", "black-eyed"])
    finish_phase1(state)
    before0, before1 = list(state.hands[0]), list(state.hands[1])
    give = [card(state, before0, "soy")]
    want = card(state, before1, "garden", 1)  # the second Garden bean, fourth card
    (made,) = run(state, MakeOffer(0, gives=tuple(give), wants=((BeanKind.GARDEN, 1),), to=1))
    run(state, AcceptOffer(1, made.offer, (want,)))
    assert state.hands[0] == [c for c in before0 if c not in give]
    assert state.hands[1] == [c for c in before1 if c != want]
    assert kinds(state, state.hands[1]) == ["chili", "garden", "blue", "soy"]


# -- phase 1 -------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "players"), TRADING_GAMES)
def test_phase_1_at_most_two_cards(name, players):
    """001 (en): 'After that, you may choose to plant one more card ... You cannot
    plant a third bean at this time.'"""
    state = start(name, players)
    arrange(state, hands={0: ["blue", "blue", "blue", "blue"]},
            fields={0: empty_fields(state, 0)})
    events = run(state, PlantFromHand(0, 0))
    assert names(events) == ["BeanPlanted"] and state.phase is Phase.PLANTING
    events = run(state, PlantFromHand(0, 0))
    # After the second card, phase 1 ends by itself and phase 2 turns two cards over.
    assert names(events) == ["BeanPlanted", "PlantingEnded", "CardTurnedOver",
                             "CardTurnedOver", "PhaseStarted"]
    assert len(state.hands[0]) == 2
    assert_illegal(state, PlantFromHand(0, 0), "phase 1")


@pytest.mark.parametrize(("name", "players"), [*TRADING_GAMES, ("duel", 2)])
def test_phase_1_first_card_is_compulsory(name, players):
    """004 (fi): 'Pelaajan on pelattava ensimmäinen kortti kädestään yhdelle pelloistaan.'"""
    state = start(name, players)
    assert_illegal(state, EndPlanting(0), "front card")


def test_phase_1_stop_after_one_card():
    """000 (hu): 'Ezután a játékos, ha akarja, kijátszhatja a kezéből a második kártyát is'"""
    state = start("classic", 4)
    arrange(state, hands={0: ["blue", "red"]}, fields={0: [[], []]}, draw=["soy", "chili"])
    events = run(state, PlantFromHand(0, 0), EndPlanting(0))
    assert names(events) == ["BeanPlanted", "PlantingEnded", "CardTurnedOver", "CardTurnedOver",
                             "PhaseStarted"]
    assert kinds(state, state.hands[0]) == ["red"]
    assert kinds(state, state.face_up) == ["soy", "chili"]


@pytest.mark.parametrize(("name", "players"), [*TRADING_GAMES, ("duel", 2)])
def test_phase_1_skipped_with_an_empty_hand(name, players):
    """001 (en): 'If you do not have any cards in your hand at the start of phase 1,
    skip it and go straight to phase 2.'; 000 (hu): 'Amennyiben a játékos kezében
    nincsen egyetlen kártya sem, az egész 1. lépés elmarad.'"""
    state = start(name, players)
    arrange(state, hands={1: []}, fields={0: empty_fields(state, 0)},
            draw=["blue"] * (state.ruleset.face_up_cards + state.ruleset.draw_cards))
    events = finish_turn(state)
    while state.phase is Phase.PLANTING_LEFTOVERS:  # duel: first the opponent's leftovers
        events += run(state, DiscardCard(1, state.face_up[0]))
    after = events[events.index(TurnStarted(seat=1, turn=2)) + 1:]
    after = [e for e in after if type(e).__name__ != "CardDiscarded"]
    assert after[:2] == [PlantingEnded(seat=1), CardTurnedOver(after[1].card)]
    assert state.active == 1 and state.hands[1] == []
    assert state.phase is (Phase.TRADING if state.ruleset.trading else Phase.PLANTING_RECEIVED)


def test_planting_needs_an_empty_field_or_one_of_the_same_kind():
    """001 (en): 'You can only plant one kind of bean in each field at a time.'"""
    state = start("classic", 3)
    arrange(state, hands={0: ["red", "red"]}, fields={0: [["blue", "blue"], ["red"]]})
    assert_illegal(state, PlantFromHand(0, 0), "field 0 holds blue beans")
    assert_illegal(state, PlantFromHand(0, 2), "there is no field 2")
    assert_illegal(state, PlantFromHand(1, 0), "only the active player")
    run(state, PlantFromHand(0, 1))
    assert kinds(state, state.fields[0][1]) == ["red", "red"]


# -- phase 2: turning over -----------------------------------------------------------


@pytest.mark.parametrize(("name", "players"), TRADING_GAMES)
def test_phase_2_turns_over_the_top_two_cards(name, players):
    """001 (en): 'Turn over the top two cards from the draw pile and put them next to it
    face-up for all players to see. The turned-over cards belong to you'"""
    state = start(name, players)
    arrange(state, hands={0: ["blue"]}, fields={0: empty_fields(state, 0)},
            draw=["soy", "chili", "red"])
    pile = draw_top(state)
    events = finish_phase1(state)
    assert of_type(events, CardTurnedOver) == [CardTurnedOver(pile[0]), CardTurnedOver(pile[1])]
    assert events[-1] == PhaseStarted(Phase.TRADING)
    assert state.face_up == pile[:2] and draw_top(state) == pile[2:]
    assert state.hands[0] == []  # face-up cards are not hand cards


# -- phase 3 -------------------------------------------------------------------------


def test_phase_3_plant_in_any_order_with_harvests_between():
    """001 (en): 'All players who have horizontal cards next to their bean fields now
    have to plant them. As the active player, you will also have to plant any
    turned-over cards you have not traded away. You can plant your new bean cards in
    any order you choose.'; 000 (hu): 'Az egyes babfajták termesztése ... között
    lehetőség van a termés betakarítására'."""
    state = start("classic", 3)
    arrange(state, hands={0: ["blue"], 1: ["stink", "red"]},
            fields={0: [["blue"] * 3, ["green"] * 2], 1: [["chili"] * 3, []]},
            draw=["soy", "blue", "red"], coins={0: 0, 1: 0}, discard=[])
    finish_phase1(state)
    soy, blue = state.face_up
    (offer,) = run(state, MakeOffer(0, gives=(), wants=((BeanKind.STINK, 1),), to=1))
    run(state, AcceptOffer(1, offer.offer, (state.hands[1][0],)))
    stink = state.trade_areas[0][0]
    events = run(state, EndTrading(0))
    assert names(events) == ["TradingEnded"]
    assert state.phase is Phase.PLANTING_RECEIVED
    assert_illegal(state, EndPlanting(0), "every face-up card left must be planted")
    # The second face-up card first, then a harvest, then the first one.
    run(state, PlantCard(0, blue, 0))
    reason = assert_illegal(state, PlantCard(0, soy, 1), "no field fits a soy bean: harvest")
    assert "buy" not in reason  # no coins for a third field
    harvest = run(state, Harvest(0, 1))
    assert harvest[0].coins == 0 and harvest[0].beans == 2
    run(state, PlantCard(0, soy, 1))
    assert state.phase is Phase.PLANTING_RECEIVED and awaiting(state) == (0,)
    run(state, Harvest(0, 0))  # harvesting between plantings: 4 Blue pay 1
    assert len(state.coins[0]) == 1
    events = run(state, PlantCard(0, stink, 0))
    assert names(events)[:3] == ["BeanPlanted", "PhaseStarted", "CardDrawn"]
    assert kinds(state, state.fields[0][0]) == ["stink"]
    assert_conserved(state)


def test_phase_3_every_player_plants_received_cards():
    """000 (hu): 'Mindegyik játékosnak fel kell tennie minden (cserébe vagy ajándékba)
    kapott kártyáját a babföldjeire' - the turn waits for every receiver."""
    state = start("classic", 4)
    arrange(state, hands={0: ["blue", "red", "red"], 2: ["soy"], 3: ["soy"]},
            fields={0: [[], []], 2: [[], []], 3: [[], []]}, draw=["chili", "stink"])
    finish_phase1(state)
    chili, stink = state.face_up
    (o1,) = run(state, MakeOffer(0, gives=(chili,), wants=(), to=2))
    (o2,) = run(state, MakeOffer(0, gives=(stink, state.hands[0][0]), wants=(), to=3))
    assert kinds(state, o2.gives) == ["stink", "red"]
    run(state, AcceptOffer(2, o1.offer), AcceptOffer(3, o2.offer), EndTrading(0))
    assert state.phase is Phase.PLANTING_RECEIVED
    assert awaiting(state) == (2, 3)
    assert_illegal(state, PlantFromHand(2, 0), "phase 1")
    assert_illegal(state, PlantCard(2, stink, 0), "neither in your trade area nor face up")
    run(state, PlantCard(3, stink, 1))
    run(state, PlantCard(2, chili, 0))
    assert awaiting(state) == (3,)
    red = state.trade_areas[3][0]
    events = run(state, PlantCard(3, red, 0))
    assert of_type(events, PhaseStarted) == [PhaseStarted(Phase.DRAWING)]
    assert of_type(events, TurnEnded) == [TurnEnded(0)]


# -- phase 4 and the next player -----------------------------------------------------


@pytest.mark.parametrize(("name", "players", "drawn"), [
    # 001 (en): 'End your turn by drawing three cards, one after the other'
    ("classic", 3, 3), ("amigo-en", 5, 3), ("rio-grande", 3, 3), ("rio-grande", 4, 3),
    ("finnish", 6, 3), ("finnish", 2, 3),
    # 000 (hu): 'Új babkártyák húzásakor a játékosok három lap helyett négyet húznak.'
    ("rio-grande", 6, 4), ("rio-grande", 7, 4),
    # 000 (hu), Babpárbaj: 'A játékos egyesével két kártyát húz a húzópakliból'
    ("duel", 2, 2),
])
def test_phase_4_draws_and_the_next_seat_clockwise_plays(name, players, drawn):
    """001 (en): 'Then, the player to your left becomes the new active player.'"""
    state = start(name, players)
    for turn in range(1, players + 2):
        seat = (turn - 1) % players
        assert (state.active, state.turn) == (seat, turn)
        arrange(state, fields={s: empty_fields(state, s) for s in range(players)},
                hands={seat: ["blue"]},
                draw=["blue"] * state.ruleset.face_up_cards + ["red", "soy", "chili", "stink"])
        pile = draw_top(state)
        hand = list(state.hands[seat])
        events = finish_turn(state)
        faces = state.ruleset.face_up_cards
        assert [e.card for e in of_type(events, CardDrawn)] == pile[faces:faces + drawn]
        assert state.hands[seat] == hand[1:] + pile[faces:faces + drawn]
        assert events[-2:] == [TurnEnded(seat), TurnStarted((seat + 1) % players, turn + 1)]
