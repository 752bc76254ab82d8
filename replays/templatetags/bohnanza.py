"""Template filters of the platform's pages: players and beans as people read them."""

from typing import Any

from django import template
from django.utils import translation
from django.utils.translation import gettext, pgettext

from bohnanza_core.narrate import phase_name as narrate_phase
from bohnanza_core.state import Phase
from replays.table import bean, display_player
from replays.table import person_name as _person_name

register = template.Library()


@register.filter
def player_name(player: str) -> str:
    """``user:ann`` → "ann", ``bot:heuristic`` → "Heuristic bot" (see
    :func:`replays.table.display_player`)."""
    return display_player(str(player))


@register.filter
def person_name(player: str) -> str:
    """Who played, by the name people know: ``user:ann`` → "ann", a competition's
    ``bot:nontrading@builtin #2`` → "Non-trading bot" (see
    :func:`replays.table.person_name`)."""
    return _person_name(str(player))


@register.filter
def winner_names(game: Any) -> str:
    """A finished game's winners (a game list row with its seats) as the reader says
    them: "ann", "ann and bob", "ann, bob and cy" in the reader's language. The read
    model's ``winners`` text is English; a tie would show its "and" untranslated."""
    names = [seat.name for seat in game.seats.all() if seat.winner]
    if len(names) <= 1:
        return "".join(names)
    return gettext("%(names)s and %(last)s") % {"names": ", ".join(names[:-1]),
                                                "last": names[-1]}


@register.filter
def bean_name(kind: str) -> str:
    """A bean kind's name in the reader's language."""
    return bean(str(kind))


@register.filter
def get_item(mapping: dict[str, str], key: object) -> str:
    """``mapping[str(key)]``, or "" when it has none."""
    return mapping.get(str(key), "") if isinstance(mapping, dict) else ""


@register.filter
def phase_name(phase: str) -> str:
    """A phase (its value, e.g. "trading") in the reader's language."""
    try:
        return narrate_phase(Phase(str(phase)), translation)
    except ValueError:
        return str(phase)


@register.filter
def dispute_status(status: str) -> str:
    """ "open", "upheld", "rejected" in the reader's language."""
    return {"open": pgettext("dispute", "open"), "upheld": pgettext("dispute", "upheld"),
            "rejected": pgettext("dispute", "rejected")}.get(str(status), str(status))
