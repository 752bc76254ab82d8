"""Cards, decks and the beanometer; what a harvest pays and where its cards go."""

from __future__ import annotations

from collections import Counter

import pytest

from bohnanza_core import BEANOMETER, DECK_COUNTS, BeanKind, Harvest, PlantFromHand, coins_for
from bohnanza_core.events import FieldHarvested
from tests.core.table import arrange, assert_conserved, kinds, run, start

ORIGINAL = ["blue", "chili", "stink", "green", "soy", "black-eyed", "red", "garden"]
EXTRA = ["coffee", "wax", "cocoa"]


def test_card_counts_of_every_kind():
    """001 (en): '- 24 Coffee Bean Cards - 22 Wax Bean Cards - 20 Blue Bean Cards -
    18 Chili Bean Cards - 16 Stink Bean Cards - 14 Green Bean Cards - 12 Soy Bean
    Cards - 10 Black-eyed Bean Cards - 8 Red Bean Cards - 6 Garden Bean Cards -
    4 Cocoa Bean Cards'"""
    expected = {"coffee": 24, "wax": 22, "blue": 20, "chili": 18, "stink": 16, "green": 14,
                "soy": 12, "black-eyed": 10, "red": 8, "garden": 6, "cocoa": 4}
    assert {k.value: n for k, n in DECK_COUNTS.items()} == expected
    assert sum(expected.values()) == 154


DECKS = [
    # 000 (hu): '104 babkártya (154 babkártya)' - the German edition has the 8 originals.
    ("classic", 3, ORIGINAL),
    ("classic", 5, ORIGINAL),
    # 001 (en): 'The three additional bean kinds - Cocoa Bean, Wax Bean and Coffee Bean -
    # are only used in the variant for up to 7 players.'
    ("amigo-en", 3, ORIGINAL),
    ("amigo-en", 4, ORIGINAL),
    # 000 (hu): '3 játékos esetén vegyük ki a kakaóbabokat a pakliból.'
    ("rio-grande", 3, [*ORIGINAL, "coffee", "wax"]),
    # 000 (hu): '4 vagy 5 játékos esetén vegyük ki a kakaóbabokat a pakliból.'
    ("rio-grande", 5, [*ORIGINAL, "coffee", "wax"]),
    # 000 (hu): '6 vagy 7 játékos esetén vegyük ki a kakaóbabokat és a kertibabokat'
    ("rio-grande", 6, [k for k in ORIGINAL if k != "garden"] + ["coffee", "wax"]),
    ("rio-grande", 7, [k for k in ORIGINAL if k != "garden"] + ["coffee", "wax"]),
    # 004 (fi): '154 papukorttia'
    ("finnish", 2, [*ORIGINAL, *EXTRA]),
    ("finnish", 7, [*ORIGINAL, *EXTRA]),
    # 000 (hu), Babpárbaj: 'Vegyük ki a kakaóbabokat és a kertibabokat a pakliból.'
    ("duel", 2, [k for k in ORIGINAL if k != "garden"] + ["coffee", "wax"]),
]


@pytest.mark.parametrize(("name", "players", "beans"), DECKS)
def test_deck_of_each_ruleset(name, players, beans):
    state = start(name, players)
    counted = Counter(k.value for k in state.kinds)
    assert counted == {k: DECK_COUNTS[BeanKind(k)] for k in beans}
    assert len(state.kinds) == state.ruleset.deck_size == sum(counted.values())
    assert_conserved(state)


def test_deck_sizes():
    """000 (hu): '104 babkártya (154 babkártya)'; 150 without Cocoa, 144 without Cocoa
    and Garden."""
    assert [start(n, p).ruleset.deck_size for n, p in
            [("classic", 4), ("amigo-en", 4), ("rio-grande", 4), ("rio-grande", 6),
             ("finnish", 4), ("duel", 2)]] == [104, 104, 150, 144, 154, 144]


# The beanometer as RULES.md tabulates it (cards for 1, 2, 3, 4 coins; None: no step).
TABLE = {
    "coffee": (4, 7, 10, 12), "wax": (4, 7, 9, 11), "blue": (4, 6, 8, 10),
    "chili": (3, 6, 8, 9), "stink": (3, 5, 7, 8), "green": (3, 5, 6, 7),
    "soy": (2, 4, 6, 7), "black-eyed": (2, 4, 5, 6), "red": (2, 3, 4, 5),
    "garden": (None, 2, 3, None), "cocoa": (None, 2, 3, 4),
}


def test_beanometer_table():
    assert {k.value: v for k, v in BEANOMETER.items()} == TABLE


@pytest.mark.parametrize("kind", sorted(TABLE))
def test_coins_for_every_count(kind):
    """A field pays the highest step it reaches; more than the last step still pays
    the last step (000 (hu): 'nyolc vagy több ilyen bab eladásáért négy babtallér')."""
    steps = TABLE[kind]
    for beans in range(0, 30):
        expected = max([coins for coins, needed in enumerate(steps, 1)
                        if needed is not None and beans >= needed], default=0)
        assert coins_for(BeanKind(kind), beans) == expected, beans


def test_stink_bean_example():
    """000 (hu) 1. példa: 'csak egy vagy két disznóbabot ad el, nem kap egy babtallért
    sem. Három, illetve négy disznóbab egy tallért ér, öt vagy hat ... két, hét ...
    három ..., végül nyolc vagy több ilyen bab eladásáért négy babtallér'; 001 (en):
    'If you harvest 1 or 2 Stink Beans, you don not get any gold coins.'"""
    assert [coins_for(BeanKind.STINK, n) for n in range(1, 11)] == [0, 0, 1, 1, 2, 2, 3, 4, 4, 4]


def test_chili_examples():
    """001 (en) Example #5: 'Greg has 3 Chili Beans ... worth 1 gold coin'; 000 (hu)
    6. példa: 'Két tűzbab eladásakor a játékos nem kap pénzt.'"""
    assert coins_for(BeanKind.CHILI, 3) == 1
    assert coins_for(BeanKind.CHILI, 2) == 0


@pytest.mark.parametrize(("kind", "beans", "coins"), [
    ("chili", 3, 1),     # 001 (en) Example #5
    ("chili", 2, 0),     # 000 (hu) 6. példa
    ("stink", 8, 4),
    ("stink", 11, 4),    # more than the last step
    ("garden", 1, 0),    # no step for 1 Garden bean
    ("garden", 2, 2),
    ("garden", 4, 3),
    ("red", 5, 4),
])
def test_harvest_turns_coins_over_and_discards_the_rest(kind, beans, coins):
    """001 (en): 'Turn over as many of those cards as you get gold coins ... Put these
    cards on your gold coin stack. Put the remaining cards from your field face-up
    on the discard pile. After you harvest, the field must be empty-you cannot
    harvest only part of a field.'"""
    state = start("rio-grande", 4)
    other = ["blue"] * (1 if beans == 1 else 2)  # bean protection spares a lone bean
    arrange(state, fields={1: [[kind] * beans, other]}, coins={1: 0}, discard=[])
    field = list(state.fields[1][0])
    events = run(state, Harvest(seat=1, field=0))
    assert events == [FieldHarvested(seat=1, field=0, kind=BeanKind(kind), beans=beans,
                                     coins=coins)]
    assert state.fields[1][0] == []
    assert state.fields[1][1] != []  # the other field is untouched
    assert len(state.coins[1]) == coins
    assert len(state.discard_pile) == beans - coins
    assert sorted(state.coins[1] + state.discard_pile) == sorted(field)
    assert kinds(state, state.discard_pile) == [kind] * (beans - coins)
    assert_conserved(state)


def test_two_fields_may_hold_the_same_kind():
    """001 (en): 'You are allowed to plant the same kind of bean in two different fields
    at the same time, but not two kinds of bean in the same field.'"""
    state = start("classic", 3)
    arrange(state, hands={0: ["blue", "blue", "red"]}, fields={0: [["blue"], []]})
    run(state, PlantFromHand(0, 1), PlantFromHand(0, 0))
    assert [kinds(state, f) for f in state.fields[0]] == [["blue", "blue"], ["blue"]]
