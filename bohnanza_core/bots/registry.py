"""Every bot that can take a seat: the built-in ones and those installed as packages.

A package offers bots through the entry point group ``bohnanza.bots`` (docs/bots.md,
"Packaging a bot"): each entry point names a :class:`~bohnanza_core.bots.Bot`
subclass. An entrant is one bot *version*: ``heuristic@builtin``, ``cautious@1.2.0``
(the installed distribution's version), so a new release of a bot is a new entrant
and its rating starts afresh. The simulator and the command line seat bots by name.

A package whose entry point fails to load, or names no ``Bot`` subclass, is left out
with a warning: one broken bot must not stop the others' competitions.
"""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass
from importlib.metadata import entry_points

from bohnanza_core.bots.base import Bot
from bohnanza_core.bots.heuristic import HeuristicBot
from bohnanza_core.bots.nontrading import NonTradingBot
from bohnanza_core.bots.random_bot import RandomBot
from bohnanza_core.bots.search import DeepSearchBot, SearchBot
from bohnanza_core.engine import SEAT_NAME_MAX
from bohnanza_core.pairings import MAX_ENTRANTS
from bohnanza_core.rulesets import MAX_PLAYERS

GROUP = "bohnanza.bots"
BUILTIN = "builtin"
"""The version of the bots that come with the platform."""
MAX_NAME = SEAT_NAME_MAX - len(f" {MAX_PLAYERS}")
"""The longest name of a bot: a bot's seat is named after it and its seat number
(``heuristic 3``, ``simulator.seat_names``), and that must still be a seat name the
engine takes (``SEAT_NAME_MAX``): a 40-character bot was registered once, and then
refused by every game it was seated in."""
MAX_VERSION = 40
"""The most characters of a bot's version kept (an installed distribution's version is
cut to it)."""
ENTRANT_MAX = len(f"{'n' * MAX_NAME}@{'v' * MAX_VERSION} #{MAX_ENTRANTS}")
"""The longest entrant id of a bot: ``name@version``, and `` #n`` after it for the
n-th copy of one bot version in a competition of at most ``MAX_ENTRANTS``
(``tournaments.core.entrants.entrants_for``). Games record it as their player, ``bot:<id>``."""

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RegisteredBot:
    name: str
    version: str
    cls: type[Bot]
    source: str
    """Where it comes from: "built in" or the distribution's name."""

    @property
    def entrant(self) -> str:
        """The bot version as an entrant: ``name@version``."""
        return f"{self.name}@{self.version}"


BUILTIN_BOTS: tuple[type[Bot], ...] = (RandomBot, NonTradingBot, HeuristicBot, SearchBot,
                                       DeepSearchBot)


@functools.cache
def registry() -> dict[str, RegisteredBot]:
    """Every bot by name: the built-in ones first, then the installed ones (a package
    cannot take a built-in bot's name). Cached; :func:`refresh` after installing one."""
    bots = {cls.name: RegisteredBot(cls.name, BUILTIN, cls, "built in") for cls in BUILTIN_BOTS}
    for point in sorted(entry_points(group=GROUP), key=lambda p: p.name):
        dist = point.dist
        source = dist.name if dist is not None else "?"
        try:
            cls = point.load()
        except Exception:
            log.warning("bot %r from %s does not load; left out", point.name, source,
                        exc_info=True)
            continue
        if not (isinstance(cls, type) and issubclass(cls, Bot)):
            log.warning("entry point %r of %s is not a Bot subclass; left out",
                        point.name, source)
            continue
        name = getattr(cls, "name", point.name)
        if not isinstance(name, str) or not 0 < len(name) <= MAX_NAME or "@" in name:
            log.warning("bot of %s has no usable name; left out", source)
            continue
        if name in bots:
            log.warning("bot %r of %s takes a name already in use; left out", name, source)
            continue
        version = dist.version if dist is not None else "0"
        bots[name] = RegisteredBot(name, str(version)[:MAX_VERSION], cls, source)
    return bots


def refresh() -> None:
    """Forget the cached registry: look for installed bots again."""
    registry.cache_clear()


def by_entrant(entrant: str) -> RegisteredBot | None:
    """The registered bot an entrant names (``name@version``), if that version is installed."""
    name, _, version = entrant.partition("@")
    bot = registry().get(name)
    return bot if bot is not None and bot.version == version else None


__all__ = ["BUILTIN", "ENTRANT_MAX", "GROUP", "MAX_NAME", "MAX_VERSION", "RegisteredBot",
           "by_entrant", "refresh", "registry"]
