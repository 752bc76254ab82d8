"""Who an entrant is, in words: an entrant's id names a bot version
(``heuristic@builtin``, ``cautious@0.1.0``, a second copy ``heuristic@builtin #2``) or
a person (``user:<username>``). Pages and the shell show :func:`display_name` (a
bot's name and version, a person's username) and keep the id where an author needs it
(a title attribute, a column of its own)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.translation import gettext as _

from bohnanza_core.bots.registry import BUILTIN, registry
from bohnanza_core.engine import is_tag_value
from tournaments.core.errors import CompetitionError

PERSON = "user:"
"""The prefix of a person's entrant id (as the game record names a seated person)."""


@dataclass(frozen=True)
class EntrantName:
    id: str
    name: str
    """A bot's name with its copy number (``heuristic #2``), or a person's username."""
    version: str
    """A bot's version (``builtin`` for the bots that come with the platform); "" for a
    person."""

    @property
    def copy(self) -> int:
        """Which copy of its bot version in a competition (1 for the first, 2 for
        ``heuristic@builtin #2``; a person is 1)."""
        _, mark, number = self.id.rpartition(" #")
        return int(number) if mark and not self.person and number.isdigit() else 1

    @property
    def person(self) -> bool:
        return self.id.startswith(PERSON)

    @property
    def builtin(self) -> bool:
        return self.version == BUILTIN


def person_entrant(username: str) -> str:
    return f"{PERSON}{username}"


def username_of(entrant: str) -> str | None:
    """The username of a person's entrant id, or None for a bot."""
    return entrant[len(PERSON):] if entrant.startswith(PERSON) else None


def is_person(entrant: str) -> bool:
    return entrant.startswith(PERSON)


def entrant_name(entrant: str) -> EntrantName:
    username = username_of(entrant)
    if username is not None:
        return EntrantName(entrant, username, "")
    bot, _, rest = entrant.partition("@")
    version, _, copy = rest.partition(" ")
    return EntrantName(entrant, f"{bot} {copy}".strip(), version)


def check_entrant(entrant: str) -> None:
    """Refuse an entrant whose id or display name could not be a game's tag (the
    engine's ``is_tag_value``: a tab, a zero-width joiner, a direction mark), so that it
    is refused on entering, not in the worker when its first game starts."""
    named = entrant_name(entrant)
    if not all(is_tag_value(text) for text in (entrant, named.name, named.version)):
        raise CompetitionError(_("%(name)s cannot enter: a name of printable characters "
                                 "only (no tab, line break, zero-width joiner or "
                                 "direction mark).") % {"name": repr(entrant)[:80]})


def display_name(entrant: str) -> str:
    """What the shell shows: ``heuristic #2 (built in)``, ``cautious (0.1.0)``, ``alice``."""
    named = entrant_name(entrant)
    if named.person:
        return named.name
    return f"{named.name} ({'built in' if named.builtin else named.version})"


def entrants_for(bot_names: Sequence[str], entered: Sequence[str] = ()) -> list[str]:
    """Entrants for registered bots, by name: each its installed version
    (``heuristic@builtin``); a bot named again, or already among the ``entered`` (a
    ladder's more bots), is another entrant of the same version, numbered with the
    first number free (``heuristic@builtin #2``). Unknown names are refused."""
    known = registry()
    unknown = sorted({n for n in bot_names if n not in known})
    if unknown:
        raise CompetitionError(_("Unknown bots: %(unknown)s; the bots are: %(known)s.") % {
            "unknown": ", ".join(u[:40] for u in unknown[:5]), "known": ", ".join(known)})
    taken = set(entered)
    entrants: list[str] = []
    for name in bot_names:
        entrant = known[name].entrant
        copy = 1
        while (entrant if copy == 1 else f"{entrant} #{copy}") in taken:
            copy += 1
        numbered = entrant if copy == 1 else f"{entrant} #{copy}"
        taken.add(numbered)
        entrants.append(numbered)
    return entrants


__all__ = ["PERSON", "EntrantName", "check_entrant", "display_name", "entrant_name",
           "entrants_for", "is_person", "person_entrant", "username_of"]
