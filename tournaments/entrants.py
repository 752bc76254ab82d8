"""Who an entrant is, in words: an entrant's id names a bot version
(``heuristic@builtin``, ``cautious@0.1.0``, a second copy ``heuristic@builtin #2``) or
a person (``user:<username>``). Pages and the shell show :func:`display_name` (a
bot's name and version, a person's username) and keep the id where an author needs it
(a title attribute, a column of its own)."""

from __future__ import annotations

from dataclasses import dataclass

from bohnanza_core.bots.registry import BUILTIN

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


def display_name(entrant: str) -> str:
    """What the shell shows: ``heuristic #2 (built in)``, ``cautious (0.1.0)``, ``alice``."""
    named = entrant_name(entrant)
    if named.person:
        return named.name
    return f"{named.name} ({'built in' if named.builtin else named.version})"


__all__ = ["PERSON", "EntrantName", "display_name", "entrant_name", "is_person",
           "person_entrant", "username_of"]
