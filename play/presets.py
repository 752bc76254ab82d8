"""The rulesets in the reader's words: one line each saying which rulebook a preset
follows and how it differs, for the rules page, the lobby and the new-table form.

The engine's own descriptions (``Ruleset.description``) are English notes for bot
authors and arbiters; these are the players' lines, translated."""

from __future__ import annotations

from django.utils.translation import gettext_lazy
from django_stubs_ext import StrPromise

from bohnanza_core.rulesets import PRESETS

EXPLAINED: dict[str, StrPromise] = {
    "classic": gettext_lazy(
        "The German edition as the Hungarian rulebook tells it: 104 cards, 3-5 players, "
        "the game ends when the draw pile runs out the third time."),
    "amigo-en": gettext_lazy(
        "The current English rulebook: 3-5 players; with 3, everyone has three fields "
        "from the start; a tie goes to the player seated furthest from the starting one."),
    "rio-grande": gettext_lazy(
        "The 154-card edition: 3-7 players, more bean kinds; with 6-7 players, four cards "
        "drawn and a cheaper third field."),
    "finnish": gettext_lazy(
        "The Finnish rulebook: 2-7 players, all 154 cards; traded beans are planted at "
        "once, and a tie is a shared win."),
    "duel": gettext_lazy(
        "Bean duel for two: no trading, three face-up cards, leftovers go to the "
        "opponent."),
}
"""One line per preset of ``bohnanza_core.rulesets.PRESETS`` (a test checks that every
preset has its line)."""


def explained(preset: str) -> str:
    """The preset's line in the reader's language ("" for a name the engine lacks)."""
    line = EXPLAINED.get(preset)
    return str(line) if line is not None else ""


def choices() -> list[tuple[str, str]]:
    """The presets for a form's choice: the name, then its line."""
    return [(name, f"{name}: {explained(name)}") for name in PRESETS]


PARAMETERS: dict[str, StrPromise] = {
    # The rule parameters by the rulebooks' names for them (docs/rulesets.md).
    "players": gettext_lazy("players"),
    "beans": gettext_lazy("bean kinds in the deck"),
    "deal": gettext_lazy("cards dealt"),
    "starting_fields": gettext_lazy("bean fields at the start"),
    "max_fields": gettext_lazy("bean fields at most"),
    "third_field_cost": gettext_lazy("price of the third bean field"),
    "paid_coins_to": gettext_lazy("where the third field's coins go"),
    "planting_from_hand": gettext_lazy("cards planted from the hand"),
    "discard_from_hand_after_planting": gettext_lazy("a hand card discarded after planting"),
    "face_up_cards": gettext_lazy("cards turned over"),
    "take_matching_discards": gettext_lazy("matching discards join the turned-over cards"),
    "trading": gettext_lazy("trading"),
    "received_cards_planted": gettext_lazy("when traded beans are planted"),
    "leftover_face_up": gettext_lazy("turned-over cards left unplanted"),
    "draw_cards": gettext_lazy("cards drawn at the end of a turn"),
    "ends_on_run_out": gettext_lazy("draw pile run-outs that end the game"),
    "run_out_while_turning_over": gettext_lazy("running out while turning over"),
    "run_out_while_drawing": gettext_lazy("running out while drawing"),
    "reshuffle_when": gettext_lazy("when the discard pile is reshuffled"),
    "empty_reshuffle": gettext_lazy("an empty reshuffle"),
    "tie_break": gettext_lazy("tie-break"),
    "harvest_out_of_turn": gettext_lazy("harvesting in others' turns"),
}
"""Each rule parameter a house rule may change, by its name in the reader's language."""



OPTION_WORDS: dict[str, StrPromise] = {
    # The engine's words for each option value (bohnanza_core.rulesets), as people say them.
    "discard pile": gettext_lazy("to the discard pile"),
    "out of the game": gettext_lazy("out of the game"),
    "finish phases 2 and 3, then end": gettext_lazy("the turn is finished, then the game ends"),
    "end at once": gettext_lazy("the game ends at once"),
    "when a card is needed": gettext_lazy("when a card is needed"),
    "as soon as the last card is drawn": gettext_lazy("as soon as the last card is drawn"),
    "the pile counts as run out again": gettext_lazy("the pile counts as run out again"),
    "the game ends": gettext_lazy("the game ends"),
    "more cards in hand": gettext_lazy("more cards in hand"),
    "seated furthest clockwise from the starting player": gettext_lazy(
        "seated furthest clockwise from the starting player"),
    "shared win": gettext_lazy("shared win"),
    "in phase 3, after trading": gettext_lazy("after trading"),
    "at once, before trading goes on": gettext_lazy("at once, before trading goes on"),
    "the active player must plant them": gettext_lazy("the active player plants them"),
    "they stay on the table for the next player": gettext_lazy(
        "they stay on the table for the next player"),
}
"""The option values of the rule parameters in the reader's words (a test checks that
every value of every option has its words)."""
