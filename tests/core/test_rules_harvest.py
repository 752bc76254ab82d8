"""Harvesting: when it is allowed, bean protection (with the Finnish single-bean
discard), the forced harvest, and the third bean field."""

from __future__ import annotations

import pytest

from bohnanza_core import (
    BeanKind,
    BuyThirdField,
    EndTrading,
    Harvest,
    Phase,
    PlantCard,
    PlantFromHand,
)
from bohnanza_core.events import BeanPlanted, CardSource, FieldHarvested, ThirdFieldBought
from tests.core.table import (
    arrange,
    assert_conserved,
    assert_illegal,
    finish_phase1,
    finish_turn,
    kinds,
    run,
    start,
)

ALL_GAMES = [("classic", 3), ("classic", 5), ("amigo-en", 3), ("amigo-en", 4),
             ("rio-grande", 3), ("rio-grande", 4), ("rio-grande", 7), ("finnish", 2),
             ("finnish", 5), ("duel", 2)]
OUT_OF_TURN = [g for g in ALL_GAMES if g[0] != "duel"]


def fields_of(state, *beans):
    """``beans`` for the first fields, the rest empty."""
    out = [list(b) for b in beans]
    return out + [[] for _ in range(len(state.fields[0]) - len(out))]


# -- when --------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "players"), OUT_OF_TURN)
def test_harvest_at_any_time_even_out_of_turn(name, players):
    """001 (en): 'You may harvest beans from your fields at any time during the game,
    even when you are not the active player.'; 000 (hu): 'Bármelyik játékos bármikor
    betakaríthatja és eladhatja a babtermést, még akkor is, ha nem ő van soron.';
    004 (fi): 'Pelaajat voivat koska tahansa, jopa muulloin kuin oman vuoronsa aikana,
    myydä papujaan.'"""
    state = start(name, players)
    other = players - 1
    arrange(state, fields={other: fields_of(state, ["red"] * 3, ["soy"] * 2)},
            coins={other: 0})
    # During the active player's phase 1 ...
    assert run(state, Harvest(other, 0)) == [
        FieldHarvested(seat=other, field=0, kind=BeanKind.RED, beans=3, coins=2)]
    # ... and during trading.
    finish_phase1(state)
    assert state.phase is Phase.TRADING
    assert run(state, Harvest(other, 1))[0].coins == 1
    assert len(state.coins[other]) == 3


def test_duel_harvest_only_in_ones_own_turn():
    """000 (hu), Babpárbaj: 'A játékosok csak a saját körükben takaríthatják be a
    termésüket.'"""
    state = start("duel", 2)
    arrange(state, hands={0: ["blue", "green"]},
            fields={0: [["red"] * 3, []], 1: [["soy"] * 2, []]})
    assert_illegal(state, Harvest(1, 0), "only during your own turn")
    finish_phase1(state)
    assert state.phase is Phase.PLANTING_RECEIVED
    assert_illegal(state, Harvest(1, 0), "only during your own turn")
    assert run(state, Harvest(0, 0))[0].coins == 2
    finish_turn(state)
    assert state.active == 1
    assert_illegal(state, Harvest(0, 1), "only during your own turn")
    assert run(state, Harvest(1, 0))[0].coins == 1


@pytest.mark.parametrize(("name", "players"), ALL_GAMES)
def test_an_empty_field_cannot_be_harvested(name, players):
    state = start(name, players)
    arrange(state, fields={0: fields_of(state)})
    assert_illegal(state, Harvest(0, 0), "field 0 is empty")
    assert_illegal(state, Harvest(0, 5), "there is no field 5")


# -- bean protection ---------------------------------------------------------------


@pytest.mark.parametrize(("name", "players"), ALL_GAMES)
def test_bean_protection(name, players):
    """001 (en): 'If there is only one bean card in one of your fields, you cannot harvest
    it as long as you have another field containing more than one bean card.'; 000
    (hu): 'Arról a babföldről, amelyen csak egy bab van, azonban csak abban az esetben
    lehet termést betakarítani, ha a játékos mindegyik babföldjén csak egy (vagy
    kevesebb, vagyis nulla) bab van.'"""
    state = start(name, players)
    arrange(state, fields={0: fields_of(state, ["blue"], ["chili", "chili"])})
    assert_illegal(state, Harvest(0, 0), "bean protection")
    # A field of two is not protected.
    assert run(state, Harvest(0, 1))[0].beans == 2
    # Now no field holds more than one: the lone bean may go.
    assert run(state, Harvest(0, 0)) == [FieldHarvested(0, 0, BeanKind.BLUE, 1, 0)]


@pytest.mark.parametrize(("name", "players"), ALL_GAMES)
def test_lone_beans_may_be_harvested_when_every_field_holds_at_most_one(name, players):
    """000 (hu): 'mindegyik babföldjén csak egy (vagy kevesebb, vagyis nulla) bab van'"""
    state = start(name, players)
    arrange(state, fields={0: fields_of(state, ["blue"], ["chili"])}, discard=[])
    assert run(state, Harvest(0, 1)) == [FieldHarvested(0, 1, BeanKind.CHILI, 1, 0)]
    arrange(state, fields={0: fields_of(state, [], ["red"])}, discard=[])
    assert run(state, Harvest(0, 1)) == [FieldHarvested(0, 1, BeanKind.RED, 1, 0)]


def test_bean_protection_with_three_fields():
    state = start("rio-grande", 3)
    arrange(state, fields={0: [["blue"], ["soy"], ["red", "red"]]})
    assert_illegal(state, Harvest(0, 0), "bean protection")
    assert_illegal(state, Harvest(0, 1), "bean protection")
    run(state, Harvest(0, 2))
    run(state, Harvest(0, 1))


def test_finnish_single_bean_discard():
    """004 (fi): 'Papuja ei saa myydä pellolta, jossa on vain yksi papu. Jos kaikilla
    pelloilla on vain yksi papu, voi pelaaja valita yhden pellon ja heittää sillä olevan
    kortin poistopakkaan.' Bean protection covers it: a lone bean pays nothing for any
    kind, so harvesting it is discarding it - and only when no field holds more."""
    state = start("finnish", 4)
    arrange(state, fields={2: [["coffee"], ["cocoa"]], 3: [["wax"], ["garden"] * 2]},
            coins={2: 0}, discard=["red"])
    assert_illegal(state, Harvest(3, 0), "bean protection")
    lone = state.fields[2][1][0]
    assert run(state, Harvest(2, 1)) == [FieldHarvested(2, 1, BeanKind.COCOA, 1, 0)]
    assert state.discard_pile[-1] == lone and state.coins[2] == []
    assert kinds(state, state.fields[2][0]) == ["coffee"]


# -- forced harvest ------------------------------------------------------------------


@pytest.mark.parametrize(("name", "players"), ALL_GAMES)
def test_a_bean_that_fits_nowhere_forces_a_harvest(name, players):
    """001 (en): 'If you have to plant a kind of bean you do not have space for, you must
    harvest a field first..'; 004 (fi): 'Jos ensimmäistä korttia ei voi pelata, koska se
    ei sovi millekään pelloista eikä uutta voi perustaa, on joku pelto myytävä alta pois'"""
    state = start(name, players)
    full = [["blue"] * 2, ["chili"] * 3, ["stink"] * 2][: len(state.fields[0])]
    arrange(state, hands={0: ["soy", "red"]}, fields={0: full}, coins={0: 0})
    reason = assert_illegal(state, PlantFromHand(0, 0), "no field fits a soy bean",
                            "harvest a field first")
    assert "buy" not in reason
    soy = state.hands[0][0]
    assert run(state, Harvest(0, 1))[0].coins == 1
    assert run(state, PlantFromHand(0, 1)) == [BeanPlanted(0, soy, 1, CardSource.HAND)]


@pytest.mark.parametrize(("name", "players"), [("classic", 4), ("finnish", 3), ("duel", 2)])
def test_the_forced_harvest_hint_names_the_third_field_when_one_can_be_bought(name, players):
    """000 (hu): 'A másik lehetősége pedig az, hogy vesz egy 3. babföld-kártyát'"""
    state = start(name, players)
    arrange(state, hands={0: ["soy"]}, fields={0: [["blue"] * 2, ["chili"] * 3]},
            coins={0: 3})
    assert_illegal(state, PlantFromHand(0, 0), "no field fits", "(or buy a third field)")
    run(state, BuyThirdField(0))
    run(state, PlantFromHand(0, 2))
    assert kinds(state, state.fields[0][2]) == ["soy"]


# -- the third field -------------------------------------------------------------------


@pytest.mark.parametrize(("name", "players", "cost", "to_discard"), [
    # 000 (hu): 'A 3. babföld három babtallérba kerül. ... a játékos a babtallérjai közül
    # hármat baboldallal felfelé a dobott lapok közé rak.'
    ("classic", 3, 3, True),
    ("classic", 5, 3, True),
    ("amigo-en", 4, 3, True),
    ("rio-grande", 4, 3, True),
    ("rio-grande", 5, 3, True),
    # 000 (hu): 'A 3. babföld három babtallér helyett csak kettőbe kerül.' (6-7 players)
    ("rio-grande", 6, 2, True),
    ("rio-grande", 7, 2, True),
    # 004 (fi): 'ostaa kolmannen papupellon kolmella kolikolla' (where the coins go: silent)
    ("finnish", 2, 3, True),
    ("finnish", 7, 3, True),
    # 000 (hu), Babpárbaj: 'az érte fizetett kártyák (babtallérok) végleg kikerülnek a
    # játékból.'
    ("duel", 2, 3, False),
])
def test_buying_the_third_field(name, players, cost, to_discard):
    """000 (hu): 'A játék folyamán egyszer minden játékos vehet egy 3. babföldet - ezt
    szintén bármikor megteheti, még akkor is, ha nem ő van soron.' ... 'akár azonnal
    használatba is vehet.'"""
    state = start(name, players)
    seat = 0
    arrange(state, coins={seat: cost + 1}, discard=["red"], out_of_game=[])
    coins = list(state.coins[seat])
    assert run(state, BuyThirdField(seat)) == [ThirdFieldBought(seat=seat, cost=cost)]
    paid = coins[-cost:]
    assert state.coins[seat] == coins[:-cost]
    if to_discard:
        assert state.discard_pile[1:] == paid and state.out_of_game == []
    else:
        assert state.out_of_game == paid and len(state.discard_pile) == 1
    assert len(state.fields[seat]) == 3 and state.fields[seat][2] == []
    assert state.third_field_bought[seat]
    arrange(state, coins={seat: 5})
    assert_illegal(state, BuyThirdField(seat), "only once")
    # Used at once: the front hand card goes into it.
    run(state, PlantFromHand(seat, 2))
    assert len(state.fields[seat][2]) == 1
    assert_conserved(state)


@pytest.mark.parametrize(("name", "players"), [("classic", 3), ("amigo-en", 5),
                                               ("rio-grande", 6), ("finnish", 4)])
def test_the_third_field_out_of_turn(name, players):
    """000 (hu): 'ezt szintén bármikor megteheti, még akkor is, ha nem ő van soron'"""
    state = start(name, players)
    cost = state.ruleset.third_field_cost
    arrange(state, coins={2: cost - 1})
    assert_illegal(state, BuyThirdField(2), f"costs {cost} coins; you have {cost - 1}")
    arrange(state, coins={2: cost})
    run(state, BuyThirdField(2))
    assert len(state.fields[2]) == 3 and state.coins[2] == []


@pytest.mark.parametrize(("name", "players"), [("rio-grande", 3), ("amigo-en", 3)])
def test_three_player_third_field_is_free_and_no_other_can_be_bought(name, players):
    """000 (hu): 'A játékosok kezdéskor megkapják ingyen a 3. babföldet, de később nem
    vehetnek még egyet.'; 001 (en): 'If there are three players, use the mats with the
    three bean fields side up.'"""
    state = start(name, players)
    arrange(state, coins={0: 6})
    assert [len(f) for f in state.fields] == [3, 3, 3]
    assert_illegal(state, BuyThirdField(0), "no third field to buy")


def test_duel_third_field_may_be_bought_in_the_opponents_turn():
    """000 (hu), Babpárbaj: 'A babpárbaj szabályai megegyeznek a rendes szabályokkal,
    kivéve az alábbiakat' - the exceptions restrict harvesting to one's own turn, not
    buying, which the base rules allow 'bármikor ..., még akkor is, ha nem ő van
    soron'; and 'az érte fizetett kártyák (babtallérok) végleg kikerülnek a játékból.'"""
    state = start("duel", 2)
    arrange(state, coins={1: 3}, out_of_game=[])
    run(state, BuyThirdField(1))
    assert len(state.out_of_game) == 3 and len(state.fields[1]) == 3


def test_third_field_planting_in_phase_3():
    state = start("classic", 4)
    arrange(state, hands={0: ["blue"]}, fields={0: [[], ["chili"] * 2]}, coins={0: 3},
            draw=["soy", "red"])
    finish_phase1(state)
    soy, red = state.face_up
    run(state, BuyThirdField(0))
    run(state, EndTrading(0), PlantCard(0, soy, 2))
    assert_illegal(state, PlantCard(0, red, 0), "no field fits a red bean")
