"""Rulesets as data that can be trusted: every parameter bounded (issue 15), every parser
bounded before it loops or allocates (issue 8, item 3), house rules that say exactly
what they change, and records that name a preset only for its exact rules (issue 8,
item 7)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest

from bohnanza_core import PlantFromHand, new_game
from bohnanza_core.errors import RulesetError
from bohnanza_core.events import (
    OfferAccepted,
    OfferDeclined,
    OfferMade,
    OfferVoided,
    OfferWithdrawn,
)
from bohnanza_core.rulesets import (
    BOUNDS,
    MAX_PLAYERS,
    PRESETS,
    RULE_PARAMETERS,
    TEXT_LIMITS,
    Ruleset,
    TieBreak,
    customize,
    display_name,
    event_bounds,
    listed_name,
    preset_mismatch,
    ruleset_for,
)
from bohnanza_core.simulator import EngineBoard, bot_classes, play_game
from tests.core.invariants import house_rules, ruleset_bands
from tests.core.table import SEATS, arrange, assert_illegal, run, start

RULESETS_MD = Path(__file__).resolve().parents[2] / "docs" / "rulesets.md"


def refused(preset: str, players: int, overrides: dict[str, Any], name: str | None = None
            ) -> str:
    with pytest.raises(RulesetError) as error:
        customize(preset, players, overrides, name)
    return str(error.value)


def parse_refused(**changes: Any) -> str:
    """The refusal of classic's parameters with ``changes``, read as from a file."""
    params = {**ruleset_for("classic", 4).parameters(), **changes}
    with pytest.raises(RulesetError) as error:
        Ruleset.from_parameters(params)
    return str(error.value)


# -- every numeric parameter has bounds (issue 15) ------------------------------------


def test_every_numeric_parameter_has_bounds():
    numeric = {f.name for f in dataclasses.fields(Ruleset) if f.type in ("int", "int | None")}
    assert set(BOUNDS) == numeric


@pytest.mark.parametrize("name", sorted(BOUNDS))
def test_a_value_past_either_bound_is_refused_naming_the_bounds(name):
    low, high = BOUNDS[name]
    for value in (low - 1, high + 1, 10**12, -(10**12)):
        message = parse_refused(**{name: value})
        assert f"{name} must be between {low} and {high}, not {value}" in message


@pytest.mark.parametrize("name", sorted(BOUNDS))
def test_every_preset_lies_within_the_bounds(name):
    low, high = BOUNDS[name]
    for band, _ in ruleset_bands():
        value = getattr(band, name)
        assert value is None or low <= value <= high


def test_the_runaway_draw_of_issue_15_is_refused_before_anything_is_dealt():
    """Issue 15: one draw looped through 10**12 run-outs of an empty pile."""
    message = refused("classic", 4, {"ends_on_run_out": 10**12, "draw_cards": 40})
    assert "ends_on_run_out must be between 1 and 5, not 1000000000000" in message
    assert "draw_cards must be between 0 and 10, not 40" in message


@pytest.mark.parametrize(("overrides", "message"), [
    ({"players": [1, 3]}, "players: each count between 2 and 7, not 1"),
    ({"players": [3, 8]}, "players: each count between 2 and 7, not 8"),
    ({"players": [3, 50000000]}, "players: each count between 2 and 7, not 50000000"),
    ({"players": []}, "players: at least one count"),
    ({"players": [4, 3]}, "players: list each count once, smallest first"),
    ({"players": [3, 3, 4]}, "players: list each count once, smallest first"),
    ({"deal": [5, 11]}, "deal: each seat between 0 and 10 cards, not 11"),
    ({"deal": [-1]}, "deal: each seat between 0 and 10 cards, not -1"),
    ({"deal": []}, "deal: at least one number"),
    ({"deal": [5] * 8}, "deal: at most 7 numbers (one per seat), not 8"),
    ({"players": [2, 3, 4, 5, 6, 7, 8]}, "players: at most 6 counts, not 7"),
    ({"beans": []}, "beans: at least one"),
])
def test_list_parameters_are_bounded(overrides, message):
    assert message in refused("classic", 4, overrides)


def test_the_worst_accepted_values_are_accepted():
    for ruleset in (worst_command(), worst_game()):
        assert ruleset.house_rules


# -- consistency (issue 15) -------------------------------------------------------------


def test_max_fields_beyond_the_one_field_for_sale_is_refused():
    """Every rulebook sells one field, once: 004 (fi) 'Koska tahansa (mutta vain kerran
    pelin aikana) voi myös ostaa kolmannen papupellon'. A max_fields that buying cannot
    reach is refused rather than a way to buy more invented."""
    message = refused("classic", 4, {"max_fields": 5})
    assert "max_fields=5 cannot be reached: with starting_fields=2 and one field " in message
    assert "for sale, max_fields is 2 or 3" in message
    more = customize("classic", 4, {"starting_fields": 4, "max_fields": 5})
    assert (more.starting_fields, more.max_fields) == (4, 5)


def test_a_player_count_override_applies_before_the_count_is_checked():
    """Issue 15: customize("classic", 2, {"players": [2, 3, 4, 5]}) was refused while
    customize("classic", 3, {"players": [2, 3]}) was accepted."""
    two = customize("classic", 2, {"players": [2, 3, 4, 5]})
    three = customize("classic", 3, {"players": [2, 3]})
    assert two.players == (2, 3, 4, 5) and three.players == (2, 3)
    assert dataclasses.replace(two, players=(2, 3)) == three
    assert two.house_rules == ("players",)
    state, _ = new_game(two, SEATS[:2], "two")
    assert state.players == 2
    assert "classic is played by 3-5 players, not 2" in refused("classic", 2, {"players": [3, 4]})
    assert "must still allow 4 players" in refused("classic", 4, {"players": [3, 5]})
    assert "classic is played by 3-5 players, not 2" in refused("classic", 2, {"draw_cards": 4})


@pytest.mark.parametrize(("preset", "players", "overrides", "message"), [
    ("classic", 4, {"leftover_face_up": "they stay on the table for the next player"},
     "leftover_face_up=they stay on the table for the next player needs trading=false"),
    ("classic", 4, {"harvest_out_of_turn": False}, "harvest_out_of_turn=false needs trading=false"),
    ("duel", 2, {"received_cards_planted": "at once, before trading goes on"},
     "received_cards_planted=at once, before trading goes on needs trading=true"),
    ("classic", 4, {"third_field_cost": None},
     "max_fields=3 exceeds starting_fields=2 but third_field_cost=null"),
    ("amigo-en", 3, {"third_field_cost": 3},
     "third_field_cost=3 but max_fields=3 leaves no field to buy; set it to null"),
])
def test_messages_use_the_values_users_type(preset, players, overrides, message):
    assert message in refused(preset, players, overrides)


def test_a_deal_check_names_the_player_count_it_was_computed_for():
    message = refused("classic", 4, {"deal": [10], "beans": ["blue", "chili"]})
    assert ("the deck of 38 cards is too small to deal 50 cards to 5 players (the most "
            "players 3-5 allows) and turn over 2") in message
    message = refused("duel", 2, {"deal": [10], "face_up_cards": 10, "beans": ["garden"]})
    assert "too small to deal 20 cards to 2 players and turn over 10" in message


def test_planting_from_hand_says_card_not_cards_for_one():
    """Issue 15: 'at most 1 cards'. The duel keeps phase 1 open after the last planting
    (a hand card may still be discarded), so the limit itself is what refuses."""
    state = start("duel", 2, ruleset=customize("duel", 2, {"planting_from_hand": 1}))
    arrange(state, hands={0: ["blue", "blue", "blue"]}, fields={0: [[], []], 1: [[], []]})
    run(state, PlantFromHand(0, 0))
    reason = assert_illegal(state, PlantFromHand(0, 0), "at most 1 card from the hand")
    assert "1 cards" not in reason


def test_overrides_equal_to_the_preset_are_no_house_rules():
    """Issue 15: {"draw_cards": 3} on classic was listed as a house rule."""
    classic = ruleset_for("classic", 4)
    assert customize("classic", 4, {"draw_cards": 3}) is classic
    assert customize("classic", 4, {"draw_cards": 3}, name="mine") is classic
    assert customize("classic", 4, {}) is classic
    assert customize("rio-grande", 6, {"deal": [3, 4, 5, 6], "draw_cards": 4}).name == "rio-grande"
    mixed = customize("classic", 4, {"draw_cards": 3, "tie_break": "shared win"})
    assert mixed.house_rules == ("tie_break",) and mixed.name == "classic (house rules)"


@pytest.mark.parametrize("key", ["name", "description", "source", "house_rules"])
def test_what_is_not_a_rule_cannot_be_overridden(key):
    assert f"{key} cannot be overridden" in refused("classic", 4, {key: "x"})


# -- every parser bounded before it loops or allocates (issue 8, item 3) -------------------


HUGE = 10**5000


@pytest.mark.parametrize(("changes", "message"), [
    ({"players": [3, 50_000_000]}, "players: each count between 2 and 7, not 50000000"),
    ({"players": list(range(2, 100_002))}, "rule option players: at most 6 counts, not 100000"),
    ({"players": [3, HUGE]}, "rule option players: a number of about 5000 digits"),
    ({"players": [[3], 4]}, "rule option players: [[3], 4] is not a valid"),
    ({"players": "3-5"}, "rule option players: '3-5' is not a valid"),
    ({"deal": [5] * 1_000_000},
     "rule option deal: at most 7 numbers (one per seat), not 1000000"),
    ({"beans": ["blue"] * 1_000_000}, "rule option beans: at most 11 bean kinds, not 1000000"),
    ({"beans": ["x" * 1_000_000]}, "rule option beans: 'xxxxxxxxxxxx"),
    ({"beans": "blue" * 1_000_000}, "rule option beans: 'blueblueblue"),
    ({"house_rules": ["draw_cards"] * 1_000_000},
     "rule option house_rules: at most 22 option names, not 1000000"),
    ({"house_rules": ["wild_beans"]}, "house_rules: 'wild_beans' is no rule option"),
    ({"house_rules": ["name"]}, "house_rules: 'name' is no rule option"),
    ({"house_rules": ["draw_cards", "draw_cards"]}, "house_rules: list each option once"),
    ({"name": "x" * 61}, "name: at most 60 characters, not 61"),
    ({"name": "x" * 10_000_000}, "name: at most 60 characters, not 10000000"),
    ({"name": ""}, "name: at least one character"),
    ({"name": " \t"}, "name: at least one character"),
    ({"name": "tab\there"}, "name: no control characters"),
    ({"description": "x" * 301}, "description: at most 300 characters, not 301"),
    ({"source": "x" * 201}, "source: at most 200 characters, not 201"),
    ({"draw_cards": HUGE}, "rule option draw_cards: a number of about 5000 digits"),
    ({"draw_cards": -HUGE}, "rule option draw_cards: a number of about 5000 digits"),
    ({"third_field_cost": HUGE}, "rule option third_field_cost: a number of about 5000 digits"),
    ({"tie_break": "x" * 10_000_000}, "rule option tie_break: 'xxxxxxxx"),
    ({"tie_break": 3}, "rule option tie_break: 3 is not a valid"),
])
def test_uploaded_rulesets_are_bounded_before_they_are_read(changes, message):
    text = parse_refused(**changes)
    assert message in text
    assert len(text) < 400, "a refusal quotes a bounded part of what it refuses"


def test_unknown_options_are_named_a_few_at_a_time():
    params = {**ruleset_for("classic", 4).parameters(),
              **{f"option{n}": n for n in range(100_000)}}
    with pytest.raises(RulesetError) as error:
        Ruleset.from_parameters(params)
    message = str(error.value)
    assert message.startswith("unknown rule option(s): option0, option1, option2")
    assert "and 99995 more" in message and len(message) < 200


def test_a_ruleset_that_is_not_an_object_is_refused():
    with pytest.raises(RulesetError, match="a ruleset is an object of rule options"):
        Ruleset.from_parameters(["classic"])  # type: ignore[arg-type]


def test_a_ruleset_built_in_code_is_checked_too():
    """Bounds hold for every Ruleset value, not only for parsed ones: nothing can be
    dealt under a ruleset that was never checked."""
    with pytest.raises(RulesetError, match="ends_on_run_out must be between 1 and 5"):
        dataclasses.replace(ruleset_for("classic", 4), ends_on_run_out=10**12)
    with pytest.raises(RulesetError, match="players: at most 6 counts"):
        dataclasses.replace(ruleset_for("classic", 4), players=tuple(range(2, 10**6)))


# -- events per command and per game are bounded (issue 15) ----------------------------


def worst_command() -> Ruleset:
    """Every parameter that lengthens one command at its bound: most players, the whole
    deck, the most cards dealt, turned over and drawn, the most fields and run-outs,
    discards taken back."""
    return customize("finnish", 7, {
        "deal": [10], "starting_fields": 4, "max_fields": 5, "third_field_cost": 0,
        "planting_from_hand": 10, "face_up_cards": 10, "draw_cards": 10,
        "ends_on_run_out": 5, "take_matching_discards": True,
    })


def worst_game() -> Ruleset:
    """Every parameter that lengthens a game at its bound: the most run-outs, the fewest
    cards taken per turn (nothing dealt or drawn, one turned over), discards taken back
    and leftovers passed on, so that cards can go round and round."""
    return customize("finnish", 7, {
        "deal": [0], "starting_fields": 4, "max_fields": 5, "third_field_cost": 0,
        "face_up_cards": 1, "draw_cards": 0, "ends_on_run_out": 5,
        "take_matching_discards": True, "trading": False, "received_cards_planted":
        "in phase 3, after trading", "harvest_out_of_turn": False,
        "leftover_face_up": "they stay on the table for the next player",
        "discard_from_hand_after_planting": True,
    })


TRADING_STEPS = (OfferMade, OfferAccepted, OfferDeclined, OfferWithdrawn, OfferVoided)


def _stated(label: str) -> int:
    """A figure docs/rulesets.md states, e.g. '**298** events per command'."""
    found = re.search(r"\*\*([\d,]+)\*\* " + re.escape(label),
                      RULESETS_MD.read_text(encoding="utf-8"))
    assert found, f"docs/rulesets.md states no figure for {label!r}"
    return int(found.group(1).replace(",", ""))


def test_the_stated_bounds_are_those_of_the_worst_accepted_rulesets():
    assert event_bounds(worst_command()).command == _stated("events per command")
    assert event_bounds(worst_game()).game == _stated("events per game")
    without = customize("finnish", 7, {"deal": [0], "face_up_cards": 1, "draw_cards": 0,
                                       "ends_on_run_out": 5, "starting_fields": 4,
                                       "max_fields": 5, "third_field_cost": 0})
    assert event_bounds(without).game == _stated("events per game without")
    for band, _ in [*ruleset_bands(), *house_rules()]:
        bounds = event_bounds(band)
        assert bounds.command <= _stated("events per command")
        assert bounds.game <= _stated("events per game")


def test_the_runaway_draw_now_stops_at_the_last_run_out():
    """The draw of issue 15 at the bounds: empty draw and discard piles, ten cards to
    draw, five run-outs to go. One command, then the final harvest."""
    ruleset = worst_command()
    state = start("finnish", 7, ruleset=ruleset)
    arrange(state, hands={0: ["blue"]}, fields={s: [[]] * 4 for s in range(7)},
            face_up=[], draw=[], discard=[], rest="box")
    events = run(state, PlantFromHand(0, 0))
    assert state.finished and len(events) <= event_bounds(ruleset).command


class CountingBoard(EngineBoard):
    """The bare engine, keeping the most events any one command (or the deal) caused,
    voided offers left out."""

    def __init__(self, ruleset: Ruleset, seats: tuple[str, ...], seed: str) -> None:
        super().__init__(ruleset, seats, seed)
        self.most = len(self.events)

    def play(self, command: Any) -> list[Any]:
        events = super().play(command)
        self.most = max(self.most, sum(not isinstance(e, OfferVoided) for e in events))
        return events


@pytest.mark.slow
@pytest.mark.parametrize("worst", [worst_command, worst_game])
@pytest.mark.parametrize("bots", [["heuristic"], ["random", "nontrading", "heuristic"]])
def test_bots_play_the_worst_accepted_rulesets_within_the_bounds(worst, bots):
    ruleset = worst()
    bounds = event_bounds(ruleset)
    boards: list[CountingBoard] = []

    def board(*args: Any) -> CountingBoard:
        boards.append(CountingBoard(*args))
        return boards[-1]

    lineup = bot_classes([bots[seat % len(bots)] for seat in range(MAX_PLAYERS)])
    record = play_game(ruleset, lineup, f"worst:{worst.__name__}", board=board,
                       command_limit=bounds.game * 3)
    assert record.result.winners
    assert boards[0].most <= bounds.command
    assert sum(not isinstance(e, TRADING_STEPS) for e in record.events) <= bounds.game


# -- presets named honestly (issue 8, item 7) ----------------------------------------


def _id(value: object) -> str:
    return f"{value.name}-{value.players_label}" if isinstance(value, Ruleset) else str(value)


@pytest.mark.parametrize(("band", "players"), ruleset_bands(), ids=_id)
def test_every_preset_is_itself(band, players):
    assert preset_mismatch(band) is None
    assert display_name(band) == band.name


@pytest.mark.parametrize(("ruleset", "players"), house_rules(), ids=_id)
def test_house_rules_made_by_customize_pass(ruleset, players):
    assert preset_mismatch(ruleset) is None
    assert display_name(ruleset) == ruleset.name


def classic_changed(**changes: Any) -> Ruleset:
    return dataclasses.replace(ruleset_for("classic", 4), **changes)


def test_a_preset_name_over_different_rules_is_a_mismatch():
    """Issue 8, item 7: named classic, no house rules, third field for 9 coins, a
    clockwise tie-break."""
    ruleset = classic_changed(third_field_cost=9, tie_break=TieBreak.FURTHEST_CLOCKWISE)
    message = preset_mismatch(ruleset)
    assert message is not None
    assert "ruleset 'classic' differs from classic (3-5 players)" in message
    assert "third_field_cost=9 (classic: 3)" in message
    assert ("tie_break=seated furthest clockwise from the starting player (classic: more "
            "cards in hand)") in message
    assert display_name(ruleset) == "classic (house rules)"


def test_house_rules_must_name_exactly_what_differs():
    marked = classic_changed(third_field_cost=9, house_rules=("third_field_cost",))
    assert preset_mismatch(marked) is None
    assert display_name(marked) == "classic (house rules)"
    renamed = dataclasses.replace(marked, name="classic (house rules)")
    assert preset_mismatch(renamed) is None and display_name(renamed) == "classic (house rules)"
    wrong = classic_changed(third_field_cost=9, house_rules=("draw_cards",))
    message = preset_mismatch(wrong)
    assert message is not None
    assert ("house_rules lists draw_cards, but what differs from classic (3-5 players) is: "
            "third_field_cost") in message
    too_many = classic_changed(third_field_cost=9, house_rules=("draw_cards", "third_field_cost"))
    assert preset_mismatch(too_many) is not None


def test_a_look_alike_name_is_taken_for_the_preset():
    ruleset = classic_changed(name=" Classic ", draw_cards=4)
    assert preset_mismatch(ruleset) is not None
    assert display_name(ruleset) == "classic (house rules)"


def test_a_custom_name_is_shown_as_it_is():
    mine = customize("classic", 4, {"draw_cards": 4}, name="Ann's beans")
    assert preset_mismatch(mine) is None and display_name(mine) == "Ann's beans"
    unmarked = dataclasses.replace(mine, house_rules=())
    message = preset_mismatch(unmarked)
    assert message is not None and "lists no house rules" in message


def test_customize_refuses_a_preset_name_over_another_presets_rules():
    message = refused("classic", 4, {"draw_cards": 4}, name="duel")
    assert "ruleset 'duel'" in message


def test_text_limits_fit_the_game_list():
    """replays.models.GameSummary.ruleset holds 64 characters."""
    assert TEXT_LIMITS["name"] <= 64
    assert all(len(band.name) <= TEXT_LIMITS["name"] for bands in PRESETS.values()
               for band in bands)


def test_rule_parameters_are_the_fields_that_make_rules():
    fields = [f.name for f in dataclasses.fields(Ruleset)]
    rules = [name for name in fields if name not in ("name", "description", "source",
                                                     "house_rules")]
    assert list(RULE_PARAMETERS) == rules


def test_a_list_files_every_ruleset_under_a_preset_or_its_house_rules():
    """Issue 8, item 4: whatever name a file brings, a list's ruleset menu holds only
    presets and "<preset> (house rules)"; the exact preset keeps its own name."""
    assert listed_name(PRESETS["classic"][0]) == "classic"
    club = customize("rio-grande", 4, {"draw_cards": 4}, name="Club rules 2027")
    assert display_name(club) == "Club rules 2027"
    assert listed_name(club) == "rio-grande (house rules)"
    assert listed_name(customize("classic", 4, {"draw_cards": 4})) == "classic (house rules)"
    renamed = dataclasses.replace(PRESETS["duel"][0], name="Friday duel")
    assert listed_name(renamed) == "duel"


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_the_rules_in_play_are_the_rulesets_own(name: str) -> None:
    """``state.RulesInPlay`` copies parameters out of the ruleset for speed: every one it
    keeps must be the ruleset's, for every band of every preset, so the ruleset stays
    the one source of the rules."""
    from bohnanza_core.state import RulesInPlay

    for band in PRESETS[name]:
        rules = RulesInPlay(band)
        # A compiled class has no __slots__ to list: ask for each ruleset parameter.
        kept = [f.name for f in dataclasses.fields(band) if hasattr(rules, f.name)]
        assert len(kept) >= 19, kept
        for field in kept:
            assert getattr(rules, field) == getattr(band, field), (name, field)
