"""Setting up: the deal, the fields at the start, the starting player, which player
counts each ruleset supports, and house rules that contradict themselves."""

from __future__ import annotations

import pytest

from bohnanza_core import (
    PRESETS,
    BuyThirdField,
    Phase,
    RulesetError,
    customize,
    new_game,
    ruleset_for,
    seed_commitment,
    seeded_shuffle,
)
from bohnanza_core.commitments import offline_salt
from bohnanza_core.events import CardDealt, DeckShuffled, GameStarted, TurnStarted
from tests.core.table import SEATS, assert_conserved, assert_illegal, draw_top, names, start

# (ruleset, players, cards dealt to seat 0, 1, 2, ...)
DEALS = [
    # 000 (hu): 'minden játékosnak öt lapot osztani'; 001 (en): 'deal five cards to
    # each player'; 004 (fi): 'Jokaiselle pelaajalle jaetaan viisi korttia.'
    ("classic", 3, [5, 5, 5]),
    ("classic", 5, [5] * 5),
    ("amigo-en", 3, [5, 5, 5]),
    ("amigo-en", 4, [5] * 4),
    ("rio-grande", 3, [5, 5, 5]),
    ("rio-grande", 4, [5] * 4),
    ("finnish", 2, [5, 5]),
    ("finnish", 6, [5] * 6),
    ("finnish", 7, [5] * 7),
    ("duel", 2, [5, 5]),
    # 000 (hu): 'Kezdéskor az osztó az első játékosnak 3, a másodiknak 4, a harmadiknak
    # 5 lapot oszt, a többieknek pedig hatot.'
    ("rio-grande", 6, [3, 4, 5, 6, 6, 6]),
    ("rio-grande", 7, [3, 4, 5, 6, 6, 6, 6]),
]


@pytest.mark.parametrize(("name", "players", "dealt"), DEALS)
def test_deal(name, players, dealt):
    """001 (en): 'The first card you are dealt is the first card in your hand ... Put
    all other cards you receive behind it, in the order drawn.' The deal takes the
    shuffled deck from the top; the rest is the draw pile."""
    ruleset = ruleset_for(name, players)
    state, events = new_game(ruleset, SEATS[:players], "deal")
    assert names(events[:2]) == ["GameStarted", "DeckShuffled"]
    order = events[1].order
    assert order == seeded_shuffle(range(ruleset.deck_size), "deal", 0)
    deals = [e for e in events if isinstance(e, CardDealt)]
    assert [e.card for e in deals] == list(order[: sum(dealt)])
    assert [len(h) for h in state.hands] == dealt
    for seat in range(players):
        assert state.hands[seat] == [e.card for e in deals if e.seat == seat]
    assert draw_top(state) == list(order[sum(dealt):])
    assert state.discard_pile == [] and state.face_up == []
    assert all(c == [] for c in state.coins)
    assert_conserved(state)


def test_deal_goes_round_the_table_one_card_at_a_time():
    """000 (hu): 'a kártyákat abban a sorrendben kell kézbevenniük, amilyen sorrendben az
    osztótól kapják' - seat 0 gets the 1st, 4th, 7th ... card of a 3-player deal."""
    _, events = new_game(ruleset_for("classic", 3), SEATS[:3], "deal")
    assert [e.seat for e in events if isinstance(e, CardDealt)] == [0, 1, 2] * 5
    _, events = new_game(ruleset_for("rio-grande", 6), SEATS[:6], "deal")
    seats = [e.seat for e in events if isinstance(e, CardDealt)]
    assert seats[:6] == [0, 1, 2, 3, 4, 5]
    assert seats[-3:] == [3, 4, 5]  # only seats 3-5 get a sixth card


def test_game_starts_with_the_first_seat_and_a_seed_commitment():
    """000 (hu): 'Az osztótól balra ülő játékos kezdi a játékot.' Seat 0 is the
    starting player; the seed is committed before the first card."""
    state, events = new_game(ruleset_for("classic", 4), SEATS[:4], "start")
    started = events[0]
    assert isinstance(started, GameStarted)
    assert started.seed_commitment == seed_commitment("start", offline_salt("start"))
    assert started.seed_commitment == state.seed_commitment
    assert isinstance(events[1], DeckShuffled)
    assert events[-1] == TurnStarted(seat=0, turn=1)
    assert state.active == 0 and state.phase is Phase.PLANTING and state.turn == 1


FIELDS = [
    # 000 (hu): 'A játék kezdetén minden játékosnak két - egyelőre még üres - babföldje van.'
    ("classic", 3, 2, 3),
    ("classic", 5, 2, 3),
    # 001 (en): 'If there are three players, use the mats with the three bean fields side
    # up. If there are four or five players, start with two bean fields each.'
    ("amigo-en", 3, 3, None),
    ("amigo-en", 5, 2, 3),
    # 000 (hu): '3 játékos esetén ... A játékosok kezdéskor megkapják ingyen a 3.
    # babföldet, de később nem vehetnek még egyet.'
    ("rio-grande", 3, 3, None),
    ("rio-grande", 4, 2, 3),
    # 000 (hu): 'A 3. babföld három babtallér helyett csak kettőbe kerül.'
    ("rio-grande", 6, 2, 2),
    # 004 (fi): 'Koska tahansa (mutta vain kerran pelin aikana) voi myös ostaa kolmannen
    # papupellon kolmella kolikolla.'
    ("finnish", 3, 2, 3),
    ("finnish", 7, 2, 3),
    ("duel", 2, 2, 3),
]


@pytest.mark.parametrize(("name", "players", "fields", "cost"), FIELDS)
def test_fields_at_the_start_and_the_price_of_a_third(name, players, fields, cost):
    state = start(name, players)
    assert [len(f) for f in state.fields] == [fields] * players
    assert all(beans == [] for seat_fields in state.fields for beans in seat_fields)
    assert state.ruleset.third_field_cost == cost
    if cost is None:
        assert_illegal(state, BuyThirdField(1), "no third field to buy")


@pytest.mark.parametrize("name", ["classic", "amigo-en", "rio-grande"])
def test_two_player_games_are_refused_naming_the_duel(name):
    """000 (hu): '3-5 játékos (2-7 játékos)' and 'Babpárbaj két játékosra': two players
    play the bean duel; the 3-5 player rules do not cover two."""
    with pytest.raises(RulesetError, match="duel"):
        ruleset_for(name, 2)
    with pytest.raises(RulesetError, match="duel"):
        new_game(ruleset_for(name, 3 if name != "amigo-en" else 4), SEATS[:2], "s")


@pytest.mark.parametrize(("name", "players", "named"), [
    ("classic", 6, {"rio-grande", "finnish"}),
    ("classic", 7, {"rio-grande", "finnish"}),
    ("amigo-en", 6, {"rio-grande", "finnish"}),
    ("duel", 3, {"classic", "amigo-en", "rio-grande", "finnish"}),
    ("rio-grande", 2, {"finnish", "duel"}),
    ("finnish", 1, set()),
    ("finnish", 8, set()),
])
def test_unsupported_player_counts_name_the_rulesets_that_support_them(name, players, named):
    with pytest.raises(RulesetError) as refused:
        ruleset_for(name, players)
    message = str(refused.value)
    assert f"not {players}" in message
    if named:
        assert set(message.split("use: ")[1].split(", ")) == named
    else:
        assert "use:" not in message


def test_every_preset_band_covers_its_counts_and_nothing_else():
    supported = {name: sorted(p for band in bands for p in band.players)
                 for name, bands in PRESETS.items()}
    assert supported == {
        "classic": [3, 4, 5], "amigo-en": [3, 4, 5], "rio-grande": [3, 4, 5, 6, 7],
        "finnish": [2, 3, 4, 5, 6, 7], "duel": [2],
    }


def test_unknown_ruleset():
    with pytest.raises(RulesetError, match="unknown ruleset 'monopoly'"):
        ruleset_for("monopoly", 4)


@pytest.mark.parametrize(("preset", "players", "overrides", "message"), [
    # The duel has no trading because a harvest is only allowed in one's own turn.
    ("duel", 2, {"trading": True}, "harvest_out_of_turn=false needs trading=false"),
    ("classic", 4, {"harvest_out_of_turn": False}, "harvest_out_of_turn=false needs"),
    ("classic", 4, {"third_field_cost": None}, "no way to get the extra field"),
    ("amigo-en", 3, {"third_field_cost": 3}, "no field to buy"),
    ("classic", 4, {"leftover_face_up": "they stay on the table for the next player"},
     "needs trading=false"),
    ("duel", 2, {"received_cards_planted": "at once, before trading goes on"},
     "needs trading"),
    ("classic", 4, {"planting_from_hand": 0}, "planting_from_hand must be between 1 and 10, not 0"),
    ("classic", 4, {"ends_on_run_out": 0}, "ends_on_run_out must be between 1 and 5, not 0"),
    ("classic", 5, {"deal": [10], "beans": ["blue", "chili"]}, "too small to deal"),
    ("classic", 4, {"beans": ["blue", "blue"]}, "at most once"),
    ("classic", 4, {"tie_break": "coin toss"}, "not a valid"),
    ("classic", 4, {"draw_cards": "3"}, "not a valid"),
    ("classic", 4, {"wild_beans": True}, "unknown rule option 'wild_beans'"),
    ("classic", 4, {"name": "mine"}, "cannot be overridden"),
    ("classic", 4, {"players": [3]}, "must still allow 4 players"),
])
def test_house_rules_that_contradict_themselves_are_refused(preset, players, overrides, message):
    with pytest.raises(RulesetError) as refused:
        customize(preset, players, overrides)
    assert message in str(refused.value)


def test_consistent_house_rules_are_named_and_recorded():
    ruleset = customize("classic", 4, {"tie_break": "shared win", "draw_cards": 4})
    assert ruleset.name == "classic (house rules)"
    assert ruleset.house_rules == ("draw_cards", "tie_break")
    assert ruleset.draw_cards == 4 and ruleset.tie_break.value == "shared win"
    assert ruleset_for("classic", 4).house_rules == ()
    state = start("classic", 4, ruleset=ruleset)
    assert state.ruleset is ruleset


@pytest.mark.parametrize("name", ["", "   ", "x" * 41, "a\nb", "tab\there", 7, None])
def test_seat_names_are_bounded(name: object) -> None:
    """Issue 8: a seat name comes from tables and uploaded files and is shown on every
    list and log line: 1 to 40 printable characters."""
    with pytest.raises(RulesetError, match="a seat name is 1 to 40 printable characters"):
        new_game(ruleset_for("classic", 3), ("Ann", "Bob", name), "s")  # type: ignore[arg-type]
    new_game(ruleset_for("classic", 3), ("Ann", "Bob", "Ännä \"q\" ✓" + "x" * 30), "s")


def test_seeds_are_bounded() -> None:
    """A seed comes from uploads and tables too: anything but a string of 1 to 128
    characters is a RulesetError, in the compiled build as in the pure one (compiled
    code would raise TypeError on a non-string read as ``str``)."""
    for seed in ("", "s" * 129, 7, None, b"bytes", ["s"]):
        with pytest.raises(RulesetError, match="the seed must be a string of 1 to 128"):
            new_game(ruleset_for("classic", 3), ("A", "B", "C"), seed)
    for salt in (7, "0" * 31, b"0" * 32):
        with pytest.raises(RulesetError, match="the salt must be 32 lowercase hex digits"):
            new_game(ruleset_for("classic", 3), ("A", "B", "C"), "s", salt)
