"""The one exception of the competitions core, and the engine's refusals in the
reader's language."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.utils.formats import number_format
from django.utils.translation import gettext as _

from bohnanza_core.errors import Worded


class CompetitionError(ValueError):
    """A competition that cannot be made or changed as asked; nothing stored. The
    message says why, in the reader's language where it is one a person meets."""


def _grouped(number: Any) -> str:
    return number_format(number, force_grouping=True)


def _advance(p: dict[str, Any]) -> str:
    if p["table"] == 2:
        return _("From a table of 2, 1 goes through, not %(advance)d.") % p
    return _("From each table of %(table)d, 1 to %(most)d go through, not %(advance)d.") % p


_WORDINGS: dict[str, Callable[[dict[str, Any]], str]] = {
    "too_many_games": lambda p: _(
        "That makes %(games)s games; a competition has at most %(most)s: fewer entrants, "
        "cycles or deals.") % {"games": _grouped(p["games"]), "most": _grouped(p["most"])},
    "swiss_tables": lambda p: _(
        "%(entrants)d entrants do not fill tables of %(table)d: a Swiss round needs a "
        "multiple of %(table)d.") % p,
    "advance": _advance,
    "knockout_tables": lambda p: _(
        "%(entrants)d entrants do not fill tables of %(table)d: a knockout of tables of "
        "%(table)d sending %(advance)d on takes %(fitting)s entrants.") % p,
    "knockout_final": lambda p: _(
        "The final table would seat %(seats)d, not %(table)d: enter %(fitting)s "
        "entrants.") % p,
    "entrant_count": lambda p: _(
        "A competition at tables of %(table)d needs %(table)d to %(most)d entrants, not "
        "%(entrants)d.") % p,
    "entrant_limit": lambda p: _(
        "A competition has at most %(most)d entrants, not %(entrants)d.") % p,
    "divisions_uneven": lambda p: _(
        "%(entrants)d entrants do not share out evenly into %(divisions)d divisions: every "
        "division holds the same number.") % p,
    "division_size": lambda p: _(
        "A division seats at least one table and sends at most half of it up or down (at "
        "least one when there are several divisions)."),
    "ruleset_out_of_bounds": lambda p: _(
        "The ruleset %(name)s is outside the engine's bounds: %(problems)s.") % p,
    "ruleset_inconsistent": lambda p: _(
        "The ruleset %(name)s contradicts itself: %(problems)s.") % p,
    "unknown_rule": lambda p: _(
        "%(option)s is no rule option; the options are: %(options)s.") % p,
}
"""How the pages word each coded refusal of ``bohnanza_core``; its parameters are the
error's own (``Worded.params``)."""


def worded(error: BaseException) -> str:
    """``error`` in the reader's language: an engine refusal with a code worded here,
    anything else (a CompetitionError, already translated) as its text."""
    if isinstance(error, Worded) and error.code in _WORDINGS:
        params = {key: value[:200] if isinstance(value, str) else value
                  for key, value in error.params.items()}
        return _WORDINGS[error.code](params)
    return str(error)


__all__ = ["CompetitionError", "worded"]
