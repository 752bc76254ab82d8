"""``{{ entrant_id|entrant:bots }}``: an entrant by name (a bot's name with its version
in small type, a person's username, a bot account's marked as a bot: ``bots``, the page's
bot accounts, looked up once), its id in the title for authors."""

from __future__ import annotations

from typing import Any

from django import template
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from play.models import BotAccount
from tournaments.core.entrants import EntrantName, entrant_name
from tournaments.zones import when

register = template.Library()


def _bot_account(named: EntrantName, bots: Any) -> bool:
    """Whether a person's entrant is a bot account: one of the page's ``bots`` (looked up
    once for all its entrants: ``tournaments.views``), or, on a page that passes none,
    asked of the database for this one."""
    if not named.person:
        return False
    if isinstance(bots, (set, frozenset)):
        return named.id in bots
    return BotAccount.objects.filter(user__username=named.name).exists()


@register.filter(name="entrant")
def entrant(entrant_id: str, bots: Any = None) -> SafeString:
    named = entrant_name(str(entrant_id))
    if _bot_account(named, bots):
        # an outside bot's account: a person's entrant id, marked as the bot it is
        return format_html('<span class="entrant person bot-account" translate="no" '
                           'title="{}">{} <small class="bot-mark">{}</small></span>',
                           named.id, named.name, _("bot"))
    if named.person:
        return format_html('<span class="entrant person" translate="no" title="{}">{}</span>',
                           named.id, named.name)
    version = _("built in") if named.builtin else named.version
    return format_html('<span class="entrant" translate="no" title="{}">{} '
                       '<small class="version">{}</small></span>', named.id, named.name,
                       version)


@register.filter(name="entrant_short")
def entrant_short(entrant_id: str) -> str:
    """The name alone (the chart's line labels)."""
    return entrant_name(str(entrant_id)).name


@register.filter(name="entrant_url")
def entrant_url(entrant_id: str) -> str:
    """The entrant's statistics page (a copy's, ``heuristic@builtin #2``, is its bot
    version's)."""
    return reverse("tournaments:entrant", args=[str(entrant_id).split(" #", 1)[0]])


WIDEST = {"rate": 0.3, "coins": 4.0}
"""The widest interval a page shows: 30 points of a win rate, 4 coins of an average."""


@register.filter
def tells(estimate: Any, kind: str) -> bool:
    """Whether ``estimate``'s 95% interval says something worth showing (its width at
    most :data:`WIDEST` of its kind, "rate" or "coins")."""
    check = getattr(estimate, "tells", None)
    return bool(check and check(WIDEST[kind]))


@register.filter(name="when")
def when_filter(moment: Any) -> str:
    """A time with its zone named (``tournaments.zones.when``): a deadline on a page
    read in several countries."""
    return when(moment) if moment else ""
