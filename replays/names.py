"""Who and what the read models name, and how long each name may be.

A read model must take every value the platform stores: a column narrower than its
value stops the projection at that event (issue 26: a 150-character username, the
longest Django's accounts take, made a 155-character player that the game list's
150-character column refused on PostgreSQL, and every later game went unlisted). So
every text column is sized from the bound of where its value comes in. Those bounds
are named where the values come in (the engine's seat and bot names, the bots'
registry, the record format, Django's accounts); here they are only combined into the
longest text a read model holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from django.contrib.auth.models import AbstractUser

from bohnanza_core.bots.registry import ENTRANT_MAX
from bohnanza_core.engine import SEAT_NAME_MAX
from bohnanza_core.export import RECORD_TEXT_MAX
from bohnanza_core.rulesets import MAX_PLAYERS

PERSON: Final = "user:"
"""A person's seat is played by ``user:<username>``."""
BOT: Final = "bot:"
"""A bot's seat by ``bot:<name>`` at a live table, ``bot:<entrant id>`` in a competition
(``heuristic@builtin #2``)."""
IMPORTED: Final = "imported:"
"""A seat of an imported game by ``imported:<the file's actor>``, or ``imported:<seat
name>`` where the file names no actor for it (replays.views.transfer)."""


def _username_max() -> int:
    length = AbstractUser._meta.get_field("username").max_length
    assert length is not None
    return length


USERNAME_MAX: Final = _username_max()
"""The longest username: Django's accounts (150)."""

PLAYER_MAX: Final = max(len(PERSON) + USERNAME_MAX,
                        len(BOT) + ENTRANT_MAX,
                        len(IMPORTED) + max(RECORD_TEXT_MAX, SEAT_NAME_MAX))
"""The longest player of a seat, and the longest actor who starts a game (a table's
creator, an importer: ``user:<username>``; a league: ``league``)."""


def winners_text(names: Sequence[str]) -> str:
    """The winners as the game list reads them: "Ann", "Ann and Bob", "Ann, Bob and Cy"."""
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


WINNERS_MAX: Final = len(winners_text(["W" * SEAT_NAME_MAX] * MAX_PLAYERS))
"""The longest winners' text: every seat of the largest table winning together (a shared
win), each with the longest seat name (295 characters)."""


__all__ = ["BOT", "IMPORTED", "PERSON", "PLAYER_MAX", "USERNAME_MAX", "WINNERS_MAX",
           "winners_text"]
