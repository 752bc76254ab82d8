"""Pages of the play app: the home page (ways in: recent games, the rules, your games)
and the rules page (the bean kinds with their beanometers, and every ruleset)."""

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_safe

from bohnanza_core.cards import DECK_COUNTS, BeanKind
from bohnanza_core.narrate import tie_break_text
from bohnanza_core.rulesets import PRESETS, Ruleset
from play.presets import explained
from replays.models import GameSummary
from replays.table import bean, beanometer, bot_accounts, initials

logger = logging.getLogger(__name__)

RECENT_GAMES = 6
"""Finished games shown on the home page."""

# Shown in their own columns (or, the rule file a preset follows, not at all), so left
# out of each band's parameter list.
_SHOWN_APART = frozenset({"name", "players", "description", "source"})


@dataclass(frozen=True)
class RulesetRow:
    """One player-count band of a preset, ready for the rulesets table: the rules a
    player needs, in words of the reader's language, and every parameter as the
    engine names it (for bot authors and arbiters)."""

    name: str
    players: str
    description: str
    summary: list[tuple[str, str]]
    parameters: list[tuple[str, str]]


@dataclass(frozen=True)
class PresetGroup:
    """A preset with its bands, one table row each."""

    name: str
    bands: list[RulesetRow]
    line: str = ""
    """What the preset is, in one line of the reader's language (play/presets.py)."""


def format_players(players: Iterable[int]) -> str:
    """Write player counts compactly: (3, 4, 5) -> "3-5", (2,) -> "2", (3, 5) -> "3, 5"."""
    counts = sorted(set(players))
    if not counts:
        return ""
    runs: list[str] = []
    start = previous = counts[0]
    for count in [*counts[1:], None]:
        if count is not None and count == previous + 1:
            previous = count
            continue
        runs.append(str(start) if start == previous else f"{start}-{previous}")
        if count is not None:
            start = previous = count
    return ", ".join(runs)


def format_value(value: object) -> str:
    """Write a JSON-able parameter value as short readable text."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Mapping):
        if not value:
            return "none"
        return ", ".join(f"{key}: {format_value(item)}" for key, item in value.items())
    if isinstance(value, list | tuple | set | frozenset):
        return ", ".join(format_value(item) for item in value) if value else "none"
    return str(value)


def format_name(key: str) -> str:
    """Turn a parameter key into a label: "third_field_cost" -> "third field cost"."""
    return key.replace("_", " ")


def rules_summary(ruleset: Ruleset) -> list[tuple[str, str]]:
    """What a player needs to know of a ruleset, in the reader's language."""
    cards = sum(DECK_COUNTS[kind] for kind in ruleset.beans)
    deal = ", ".join(str(n) for n in ruleset.deal)
    third = (_("free at the start") if ruleset.third_field_cost is None
             and ruleset.starting_fields >= ruleset.max_fields
             else _("none") if ruleset.third_field_cost is None
             else ngettext("%(n)s coin", "%(n)s coins", ruleset.third_field_cost)
             % {"n": ruleset.third_field_cost})
    return [
        (_("Cards"), _("%(cards)s: %(beans)s") % {
            "cards": cards, "beans": ", ".join(bean(kind) for kind in ruleset.beans)}),
        (_("Dealt"), deal),
        (_("Fields"), _("%(start)s, at most %(most)s") % {
            "start": ruleset.starting_fields, "most": ruleset.max_fields}),
        (_("Third field"), third),
        (_("Trading"), _("yes") if ruleset.trading else _("no")),
        (_("Cards drawn"), str(ruleset.draw_cards)),
        (_("The game ends"), ngettext("after the draw pile runs out once",
                                      "after the draw pile runs out %(n)s times",
                                      ruleset.ends_on_run_out)
         % {"n": ruleset.ends_on_run_out}),
        (_("A tie is broken by"), tie_break_text(ruleset.tie_break, translation)),
    ]


def preset_groups() -> list[PresetGroup]:
    """Every preset of the engine with every band's parameters, in the engine's order."""
    groups: list[PresetGroup] = []
    for preset_name, bands in PRESETS.items():
        rows = [
            RulesetRow(
                name=ruleset.name,
                players=format_players(ruleset.players),
                description=ruleset.description,
                summary=rules_summary(ruleset),
                parameters=[
                    (format_name(key), format_value(value))
                    for key, value in ruleset.parameters().items()
                    if key not in _SHOWN_APART
                ],
            )
            for ruleset in bands
        ]
        groups.append(PresetGroup(name=preset_name, bands=rows, line=explained(preset_name)))
    return groups


def bean_kinds() -> list[dict[str, Any]]:
    """Every bean kind with its card count, beanometer, initials and pattern."""
    return [{"kind": kind.value, "name": bean(kind), "count": DECK_COUNTS[kind],
             "initials": initials(kind), "beanometer": beanometer(kind)}
            for kind in BeanKind]


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    """The front page: what the platform is and the ways in: recent games to watch, the
    rules, and (signed in) your own games."""
    recent: list[GameSummary] = []
    try:
        recent = list(GameSummary.objects.filter(status=GameSummary.Status.FINISHED,
                                                 private=False)
                      .order_by("-ended_at", "game_id").prefetch_related("seats")
                      [:RECENT_GAMES])
    except DatabaseError:
        # The ways in still work without the list (a database not migrated yet, or down).
        logger.warning("home page: the recent games could not be read", exc_info=True)
    # Bot accounts marked as bots: one lookup for every seat listed.
    bots = bot_accounts(seat.player for game in recent for seat in game.seats.all())
    return render(request, "home.html", {"recent": recent, "bots": bots})


@require_safe
def rules(request: HttpRequest) -> HttpResponse:
    """The rules page: the bean kinds and every ruleset the engine knows."""
    return render(request, "rules.html", {"presets": preset_groups(), "beans": bean_kinds()})
