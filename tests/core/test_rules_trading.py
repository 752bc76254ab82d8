"""Phase 2, trading and gifts, as an exact protocol: offers to one player or to all,
acceptance by naming cards, declining, withdrawing, void offers, gifts, received cards,
the end of trading; and the Finnish rule that traded beans are planted at once."""

from __future__ import annotations

import pytest

from bohnanza_core import (
    AcceptOffer,
    BeanKind,
    DeclineOffer,
    EndTrading,
    MakeOffer,
    Phase,
    PlantCard,
    WithdrawOffer,
    awaiting,
    legal_commands,
)
from bohnanza_core.events import (
    BeanPlanted,
    CardSource,
    OfferAccepted,
    OfferDeclined,
    OfferMade,
    OfferVoided,
    OfferWithdrawn,
    TradingEnded,
)
from bohnanza_core.rulesets import ReceivedCardsPlanted
from tests.core.table import (
    arrange,
    assert_conserved,
    assert_illegal,
    card,
    finish_phase1,
    fitting_field,
    kinds,
    run,
    start,
)

RED, GREEN, SOY, BLACK_EYED, CHILI = (BeanKind.RED, BeanKind.GREEN, BeanKind.SOY,
                                      BeanKind.BLACK_EYED, BeanKind.CHILI)
TRADERS = [("classic", 4), ("amigo-en", 4), ("rio-grande", 4), ("finnish", 4)]


def trading_table(name="classic", players=4):
    """Seat 0 has planted its front Blue bean and turned over Soy and Black-eyed."""
    state = start(name, players)
    arrange(
        state,
        hands={0: ["blue", "chili", "stink", "green", "soy"],
               1: ["red", "black-eyed", "red", "soy", "chili"],
               2: ["green", "red", "blue", "stink", "black-eyed"],
               3: ["soy", "soy", "blue", "green", "red"]},
        fields={seat: [[] for _ in state.fields[seat]] for seat in range(players)},
        draw=["soy", "black-eyed"],
    )
    finish_phase1(state)
    assert state.phase is Phase.TRADING and kinds(state, state.face_up) == ["soy", "black-eyed"]
    return state


def settle(state):
    """Under the Finnish rules, plant what the last trade brought, as one must."""
    if state.ruleset.received_cards_planted is ReceivedCardsPlanted.AT_ONCE:
        for seat, area in enumerate(state.trade_areas):
            for c in list(area):
                run(state, PlantCard(seat, c, fitting_field(state, seat, c)))


@pytest.mark.parametrize(("name", "players"), TRADERS)
def test_offer_to_one_player_accepted_by_naming_cards(name, players):
    """001 (en) Example #2: 'I'll give you the turned- over Soy Bean and a Chili Bean from
    my hand for a Red Bean'; Example #3: 'Anna accepts ... Anna does the same with the
    Soy Bean and the Chili Bean.' 001 (en): 'The active player can use the two
    turned-over cards for trading in addition to their hand cards.'"""
    state = trading_table(name, players)
    soy, black_eyed = state.face_up
    chili = state.hands[0][0]
    events = run(state, MakeOffer(0, gives=(soy, chili), wants=((RED, 1),), to=1))
    assert events == [OfferMade(offer=1, proposer=0, counterparty=1, gives=(soy, chili),
                                wants=((RED, 1),))]
    assert awaiting(state) == (1, 0)
    hand1 = list(state.hands[1])
    red = card(state, hand1, "red", 1)  # the second Red bean, third in the hand
    events = run(state, AcceptOffer(1, 1, (red,)))
    assert events == [OfferAccepted(offer=1, seat=1, cards=(red,))]
    assert state.trade_areas[1] == [soy, chili]
    assert state.trade_areas[0] == [red]
    assert state.face_up == [black_eyed]
    assert kinds(state, state.hands[0]) == ["stink", "green", "soy"]
    assert state.hands[1] == [c for c in hand1 if c != red]
    assert state.offers == {}
    assert_conserved(state)


@pytest.mark.parametrize(("name", "players"), TRADERS)
def test_only_the_counterparty_answers_an_offer_to_one_player(name, players):
    state = trading_table(name, players)
    soy = state.face_up[0]
    run(state, MakeOffer(0, gives=(soy,), wants=((GREEN, 1),), to=1))
    green2 = card(state, state.hands[2], "green")
    assert_illegal(state, AcceptOffer(2, 1, (green2,)), "offer 1 is not yours to accept")
    assert_illegal(state, DeclineOffer(2, 1), "offer 1 is not yours to decline")
    assert_illegal(state, AcceptOffer(0, 1, ()), "not yours to accept")
    assert_illegal(state, AcceptOffer(1, 7, ()), "offer 7 is not open")


@pytest.mark.parametrize(("cards", "reason"), [
    (lambda s: (card(s, s.hands[1], "black-eyed"),), "offer 1 wants 1 red bean; you named "
                                                     "1 black-eyed bean"),
    (lambda s: tuple(card(s, s.hands[1], "red", i) for i in (0, 1)), "you named 2 red beans"),
    (lambda s: (), "you named nothing"),
    (lambda s: (card(s, s.hands[2], "red"),), "is not yours to give"),
    (lambda s: (s.face_up[1],), "is not yours to give"),
    (lambda s: (card(s, s.hands[1], "red"),) * 2, "name each card once"),
])
def test_acceptance_must_name_own_hand_cards_matching_the_wants(cards, reason):
    state = trading_table()
    run(state, MakeOffer(0, gives=(state.face_up[0],), wants=((RED, 1),), to=1))
    assert_illegal(state, AcceptOffer(1, 1, cards(state)), reason)


@pytest.mark.parametrize(("name", "players"), TRADERS)
def test_declining_closes_an_offer_to_one_player(name, players):
    state = trading_table(name, players)
    before = [list(h) for h in state.hands], list(state.face_up)
    run(state, MakeOffer(0, gives=(state.face_up[0],), wants=((RED, 1),), to=1))
    assert run(state, DeclineOffer(1, 1)) == [OfferDeclined(offer=1, seat=1)]
    assert state.offers == {}
    assert ([list(h) for h in state.hands], list(state.face_up)) == before
    assert_illegal(state, AcceptOffer(1, 1, (state.hands[1][0],)), "offer 1 is not open")


@pytest.mark.parametrize(("name", "players"), TRADERS)
def test_open_offer_to_every_player(name, players):
    """000 (hu): 'Azt a kártyát ..., amelyet ... nem kíván megtartani a játékos,
    felajánlja a többieknek cserére vagy ajándékba.' An offer to nobody in particular
    is open to each other player until one accepts or all decline."""
    state = trading_table(name, players)
    black_eyed = state.face_up[1]
    (made,) = run(state, MakeOffer(0, gives=(black_eyed,), wants=((GREEN, 1),)))
    assert made.counterparty is None
    assert awaiting(state) == (1, 2, 3, 0)
    run(state, DeclineOffer(1, 1))
    assert 1 in state.offers and state.offers[1].declined_by == {1}
    assert_illegal(state, AcceptOffer(1, 1, ()), "not yours to accept")
    green = card(state, state.hands[3], "green")
    assert run(state, AcceptOffer(3, 1, (green,))) == [OfferAccepted(1, 3, (green,))]
    assert state.trade_areas == [[green], [], [], [black_eyed]]
    settle(state)
    # Declined by all three: the offer is gone.
    soy = state.face_up[0]
    run(state, MakeOffer(0, gives=(soy,), wants=()))
    run(state, DeclineOffer(3, 2), DeclineOffer(1, 2))
    assert 2 in state.offers
    run(state, DeclineOffer(2, 2))
    assert state.offers == {} and state.face_up == [soy]


@pytest.mark.parametrize(("name", "players"), TRADERS)
def test_withdrawing_an_offer(name, players):
    state = trading_table(name, players)
    run(state, MakeOffer(0, gives=(state.face_up[0],), wants=((RED, 1),)))
    assert_illegal(state, WithdrawOffer(1, 1), "offer 1 is not yours to withdraw")
    assert run(state, WithdrawOffer(0, 1)) == [OfferWithdrawn(offer=1, seat=0)]
    assert state.offers == {}
    assert_illegal(state, WithdrawOffer(0, 1), "offer 1 is not open")


@pytest.mark.parametrize(("name", "players"), TRADERS)
def test_players_trade_only_with_the_active_player(name, players):
    """001 (en): 'Only the active player is allowed to trade with the other players. The
    other players cannot trade with each other.'; 004 (fi): 'Toiset pelaajat voivat
    tarjota vain kädessään olevia kortteja, eivätkä he saa käydä kauppaa kuin vuorossa
    olevan pelaajan kanssa.'"""
    state = trading_table(name, players)
    red = card(state, state.hands[1], "red")
    assert_illegal(state, MakeOffer(1, gives=(red,), wants=((GREEN, 1),), to=2),
                   "only the active player trades with the others")
    assert_illegal(state, MakeOffer(1, gives=(state.face_up[0],), wants=(), to=0),
                   "is not in your hand")
    (to_active,) = run(state, MakeOffer(1, gives=(red,), wants=((BLACK_EYED, 1),)))
    assert to_active.counterparty == 0
    assert_illegal(state, AcceptOffer(2, 1, (card(state, state.hands[2], "black-eyed"),)),
                   "not yours to accept")
    # The active player may answer with a face-up card.
    black_eyed = state.face_up[1]
    assert run(state, AcceptOffer(0, 1, (black_eyed,))) == [OfferAccepted(1, 0, (black_eyed,))]
    assert state.trade_areas[0] == [red] and state.trade_areas[1] == [black_eyed]


@pytest.mark.parametrize(("name", "players"), TRADERS)
def test_any_number_of_beans_for_any_number(name, players):
    """001 (en): 'You are allowed to trade any number of beans for any number of other
    beans (e.g., two Blue Beans for one Green Bean).'"""
    state = trading_table(name, players)
    blue, stink = card(state, state.hands[2], "blue"), card(state, state.hands[2], "stink")
    run(state, MakeOffer(2, gives=(blue, stink), wants=((SOY, 2),), to=0))
    soys = (state.face_up[0], card(state, state.hands[0], "soy"))
    assert run(state, AcceptOffer(0, 1, soys)) == [OfferAccepted(1, 0, soys)]
    assert state.trade_areas[0] == [blue, stink] and state.trade_areas[2] == list(soys)


@pytest.mark.parametrize(("name", "players"), TRADERS)
def test_gifts(name, players):
    """000 (hu): 'A soron lévő játékos bármelyik felfordított vagy kézben tartott
    kártyáját ... odaajándékozhatja bármelyik másik játékosnak. A többi játékos csak
    kézből és csak az éppen soron lévőnek ajándékozhat kártyát, senki másnak. Az
    ajándékot nem kötelező elfogadni.'; 001 (en): 'Players receiving gifts have to agree
    to take them, though. If they refuse, you cannot give them the cards.'"""
    state = trading_table(name, players)
    soy, black_eyed = state.face_up
    run(state, MakeOffer(0, gives=(soy,), wants=(), to=3))
    assert_illegal(state, AcceptOffer(3, 1, (state.hands[3][0],)),
                   "wants nothing (a gift); you named 1 soy bean")
    assert run(state, AcceptOffer(3, 1)) == [OfferAccepted(1, 3, ())]
    assert state.trade_areas[3] == [soy] and state.face_up == [black_eyed]
    settle(state)
    # A refused gift stays where it was.
    run(state, MakeOffer(0, gives=(black_eyed,), wants=(), to=2))
    run(state, DeclineOffer(2, 2))
    assert state.face_up == [black_eyed] and state.trade_areas[2] == []
    # The others give only from the hand and only to the active player.
    hand2 = list(state.hands[2])
    stink = card(state, hand2, "stink")
    assert_illegal(state, MakeOffer(2, gives=(stink,), wants=(), to=1),
                   "only the active player trades with the others")
    run(state, MakeOffer(2, gives=(stink,), wants=()))
    run(state, DeclineOffer(0, 3))
    # 004 (fi): 'Jos lahjoitusta ei oteta vastaan, täytyy kortit pitää kädessä samalla
    # paikalla.'
    assert state.hands[2] == hand2
    run(state, MakeOffer(2, gives=(stink,), wants=()))
    run(state, AcceptOffer(0, 4))
    assert state.trade_areas[0] == [stink]
    assert state.hands[2] == [c for c in hand2 if c != stink]


def test_received_cards_cannot_be_traded_and_never_enter_the_hand():
    """000 (hu): 'Ezeket a kártyákat nem vehetik fel a kezükbe, nem lehet velük tovább
    kereskedni, és elajándékozni sem lehet őket.'; 001 (en): 'You cannot trade cards you
    have received in a trade.' and 'Do not add them to your hand!'"""
    state = trading_table("classic")
    soy = state.face_up[0]
    red = card(state, state.hands[1], "red")
    run(state, MakeOffer(0, gives=(soy,), wants=((RED, 1),), to=1),
        AcceptOffer(1, 1, (red,)))
    assert soy not in state.hands[1] and red not in state.hands[0]
    assert_illegal(state, MakeOffer(1, gives=(soy,), wants=()), f"card {soy} is not in your hand")
    assert_illegal(state, MakeOffer(0, gives=(red,), wants=(), to=2),
                   "is not in your hand or the face-up cards")
    # They wait in the trade area for phase 3.
    assert_illegal(state, PlantCard(1, soy, 0), "planted in phase 3")


def test_an_accepted_trade_voids_other_offers_naming_the_same_cards():
    """RULES.md: 'Offers that name cards the proposer no longer holds are void.'"""
    state = trading_table("classic")
    soy = state.face_up[0]
    red1 = card(state, state.hands[1], "red")
    run(state, MakeOffer(1, gives=(red1,), wants=((BLACK_EYED, 1),)))      # offer 1
    run(state, MakeOffer(0, gives=(soy,), wants=((GREEN, 1),), to=2))      # offer 2
    run(state, MakeOffer(0, gives=(soy,), wants=((RED, 1),), to=1))        # offer 3
    run(state, MakeOffer(0, gives=(state.face_up[1],), wants=(), to=3))    # offer 4
    events = run(state, AcceptOffer(1, 3, (red1,)))
    assert events == [OfferAccepted(3, 1, (red1,)), OfferVoided(1), OfferVoided(2)]
    assert sorted(state.offers) == [4]
    assert_illegal(state, AcceptOffer(2, 2, (card(state, state.hands[2], "green"),)),
                   "offer 2 is not open")


def test_finnish_offer_of_a_face_up_card_planted_meanwhile_is_void():
    """004 (fi): 'Molemmat kortit voi pitää itsellään, jolloin ne täytyy pelata pelloille
    saman tien.' Once planted, the card can no longer be given: the offer closes at
    once, so seat 1 is no longer awaited for an answer it cannot give."""
    state = trading_table("finnish")
    soy = state.face_up[0]
    run(state, MakeOffer(0, gives=(soy,), wants=((RED, 1),), to=1))
    assert awaiting(state) == (1, 0)
    events = run(state, PlantCard(0, soy, 1))
    assert events == [BeanPlanted(0, soy, 1, CardSource.FACE_UP), OfferVoided(1)]
    assert state.offers == {} and awaiting(state) == (0,)
    assert_illegal(state, AcceptOffer(1, 1, (card(state, state.hands[1], "red"),)),
                   "offer 1 is not open")


def test_classic_face_up_cards_wait_for_phase_3():
    """000 (hu): 'akkor azt a kártyát vagy kártyákat maga elé helyezi, de - egyelőre -
    távol a babföldjeitől.'"""
    state = trading_table("classic")
    assert_illegal(state, PlantCard(0, state.face_up[0], 1),
                   "face-up cards cannot be planted during trading")


@pytest.mark.parametrize(("name", "players"), TRADERS)
def test_trading_goes_on_after_the_face_up_cards_are_gone(name, players):
    """000 (hu): 'Ha a két felfordított kártya már elkelt, akkor is lehet folytatni a
    kereskedést és az ajándékozást a kézben lévő kártyákkal.'"""
    state = trading_table(name, players)
    soy, black_eyed = state.face_up
    run(state, MakeOffer(0, gives=(soy, black_eyed), wants=()), AcceptOffer(3, 1))
    settle(state)
    assert state.face_up == []
    green = card(state, state.hands[0], "green")
    run(state, MakeOffer(0, gives=(green,), wants=((RED, 1),), to=2))
    red = card(state, state.hands[2], "red")
    assert run(state, AcceptOffer(2, 2, (red,))) == [OfferAccepted(2, 2, (red,))]


@pytest.mark.parametrize(("name", "players"), TRADERS)
def test_the_active_player_ends_trading_and_open_offers_lapse(name, players):
    """001 (en): 'You may continue trading for as long as you like ... When you want to
    stop, tell the other players. This ends phase 2.'"""
    state = trading_table(name, players)
    run(state, MakeOffer(0, gives=(state.face_up[0],), wants=((RED, 1),), to=1),
        MakeOffer(2, gives=(state.hands[2][0],), wants=()))
    assert_illegal(state, EndTrading(1), "only the active player (Ann) may end trading")
    assert run(state, EndTrading(0)) == [TradingEnded(0)]
    assert state.offers == {} and state.phase is Phase.PLANTING_RECEIVED
    assert_illegal(state, AcceptOffer(1, 1, (state.hands[1][0],)), "only during trading")
    assert_illegal(state, MakeOffer(0, gives=(), wants=((RED, 1),)), "only during trading")
    assert_illegal(state, EndTrading(0), "no trading to end")


def test_no_offers_outside_phase_2():
    state = start("classic", 3)
    assert_illegal(state, MakeOffer(0, gives=(state.hands[0][1],), wants=(), to=1),
                   "offers are made only during trading (phase 2), not during planting")


@pytest.mark.parametrize(("command", "reason"), [
    (lambda s: MakeOffer(0, gives=(s.face_up[0],), wants=(), to=0), "trade with yourself"),
    (lambda s: MakeOffer(0, gives=(s.face_up[0],), wants=(), to=9), "no seat 9"),
    (lambda s: MakeOffer(0, gives=(s.face_up[0],) * 2, wants=(), to=1), "each card once"),
    (lambda s: MakeOffer(0, gives=(), wants=((BeanKind.COCOA, 1),)), "no 'cocoa' beans"),
    (lambda s: MakeOffer(0, gives=(), wants=((RED, 0),)), "positive number of red"),
    (lambda s: MakeOffer(0, gives=(), wants=((RED, 1), (RED, 1))), "name red beans once"),
    (lambda s: MakeOffer(0, gives=(), wants=()), "must give or want something"),
    (lambda s: MakeOffer(0, gives=(s.hands[1][0],), wants=()), "not in your hand or the face-up"),
    (lambda s: MakeOffer(7, gives=(), wants=((RED, 1),)), "there is no seat 7"),
])
def test_malformed_offers_are_refused(command, reason):
    state = trading_table("classic")
    assert_illegal(state, command(state), reason)


def test_finnish_traded_beans_are_planted_at_once():
    """004 (fi): 'Vaihdetut pavut on pelattava peltoihin heti kaupan vahvistamisen
    jälkeen.' Until both sides have planted, trading waits."""
    state = trading_table("finnish")
    soy = state.face_up[0]
    red = card(state, state.hands[1], "red")
    run(state, MakeOffer(0, gives=(soy,), wants=((RED, 1),), to=1),
        MakeOffer(0, gives=(state.face_up[1],), wants=(), to=2),
        AcceptOffer(1, 1, (red,)))
    assert set(awaiting(state)) == {0, 1}
    for blocked in (MakeOffer(0, gives=(), wants=((GREEN, 1),), to=3),
                    MakeOffer(3, gives=(state.hands[3][0],), wants=()),
                    AcceptOffer(2, 2),
                    DeclineOffer(2, 2),
                    WithdrawOffer(0, 2)):
        assert_illegal(state, blocked, "must first plant the beans received in the last trade")
    assert run(state, PlantCard(1, soy, 0)) == [BeanPlanted(1, soy, 0, CardSource.TRADE_AREA)]
    assert_illegal(state, AcceptOffer(2, 2), "Ann must first plant")
    run(state, PlantCard(0, red, 1))
    assert state.phase is Phase.TRADING
    assert run(state, AcceptOffer(2, 2)) == [OfferAccepted(2, 2, ())]



def test_finnish_trading_cannot_end_while_traded_beans_wait():
    """004 (fi), "3. Vaihtokauppa ja lahjoitukset": 'Vaihdetut pavut on pelattava
    peltoihin heti kaupan vahvistamisen jälkeen.' (Traded beans must be planted in the
    fields right after the trade is confirmed.) So the active player may not end
    trading while either side of the last trade still holds beans in its trade area:
    EndTrading is refused, with a reason naming who must plant, and not offered."""
    state = trading_table("finnish")
    soy = state.face_up[0]
    red = card(state, state.hands[1], "red")
    run(state, MakeOffer(0, gives=(soy,), wants=((RED, 1),), to=1), AcceptOffer(1, 1, (red,)))
    assert state.trade_areas[0] == [red] and state.trade_areas[1] == [soy]
    assert_illegal(state, EndTrading(0), "Ann must first plant the beans received")
    assert not any(isinstance(m, EndTrading) for seat in range(4)
                   for m in legal_commands(state, seat))
    run(state, PlantCard(0, red, fitting_field(state, 0, red)))
    assert_illegal(state, EndTrading(0), "Bob must first plant the beans received")
    assert EndTrading(0) not in legal_commands(state, 0)
    run(state, PlantCard(1, soy, fitting_field(state, 1, soy)))
    assert EndTrading(0) in legal_commands(state, 0)
    assert run(state, EndTrading(0)) == [TradingEnded(0)]


def test_classic_trading_may_end_with_traded_beans_waiting_for_phase_3():
    """000 (hu): traded beans are planted in phase 3, so trading may end before."""
    state = trading_table("classic")
    soy = state.face_up[0]
    red = card(state, state.hands[1], "red")
    run(state, MakeOffer(0, gives=(soy,), wants=((RED, 1),), to=1), AcceptOffer(1, 1, (red,)))
    assert EndTrading(0) in legal_commands(state, 0)
    assert run(state, EndTrading(0)) == [TradingEnded(0)]
    assert state.trade_areas[1] == [soy] and state.phase is Phase.PLANTING_RECEIVED
