"""Template filters of the platform's pages: players and beans as people read them."""

from collections.abc import Collection
from typing import Any

from django import template
from django.utils import translation
from django.utils.translation import gettext, pgettext

from bohnanza_core.narrate import phase_name as narrate_phase
from bohnanza_core.state import Phase
from replays.table import bean, bot_account_mark, display_player
from replays.table import person_name as _person_name

register = template.Library()


def _bots(bots: Any) -> Collection[str]:
    """A filter's argument of bot accounts: the page's set (``replays.table.bot_accounts``),
    or nothing when the page passed none (a variable it does not have is "")."""
    return bots if isinstance(bots, (set, frozenset)) else ()


@register.filter
def player_name(player: str, bots: Any = None) -> str:
    """``user:ann`` → "ann", ``bot:heuristic`` → "Heuristic bot", and with the page's
    bot accounts (``seat.player|player_name:bots``) ``user:robo`` → "robo (bot account)"
    (see :func:`replays.table.display_player`)."""
    return display_player(str(player), _bots(bots))


@register.filter
def person_name(player: str, bots: Any = None) -> str:
    """Who played, by the name people know: ``user:ann`` → "ann", a competition's
    ``bot:nontrading@builtin #2`` → "Non-trading bot", a bot account (one of ``bots``)
    marked (see :func:`replays.table.person_name`)."""
    return _person_name(str(player), _bots(bots))


@register.filter
def winner_names(game: Any, bots: Any = None) -> str:
    """A finished game's winners (a game list row with its seats) as the reader says
    them: "ann", "ann and bob", "ann, bob and cy" in the reader's language, a bot
    account's seat (its player one of ``bots``) marked. The read model's ``winners``
    text is English; a tie would show its "and" untranslated."""
    marked = _bots(bots)
    names = [bot_account_mark(seat.name) if marked and seat.player in marked else seat.name
             for seat in game.seats.all() if seat.winner]
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
