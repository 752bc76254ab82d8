"""The bot protocol: what a bot sees and how it answers (docs/bots.md).

A bot is given only its own seat's view (:class:`~bohnanza_core.views.GameView`, or
a :class:`~bohnanza_core.wire.WireView` when it plays from outside; both are a
:class:`~bohnanza_core.seatview.SeatView`, the protocol the bots are typed against) and the
events redacted for its seat, never the :class:`~bohnanza_core.state.GameState`, so
a bot cannot peek at hands or the draw pile any more than a person at the table can.
It answers with commands; the simulator (or a live table) refuses illegal ones just
as it would a person's.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from typing import ClassVar

from mypy_extensions import mypyc_attr

from bohnanza_core.commands import Command
from bohnanza_core.engine import OfferShape
from bohnanza_core.events import Event
from bohnanza_core.seatview import SeatView
from bohnanza_core.state import Offer


def legal_moves(view: SeatView) -> list[Command | OfferShape]:
    """What the view's seat may do now: the engine's own list, computed for that
    seat only, so nothing hidden from it leaks. Offers come as :class:`OfferShape`
    values, to be filled in with concrete cards and wants."""
    return view.legal_moves()


@mypyc_attr(allow_interpreted_subclasses=True)  # installed bots subclass it
class Bot(ABC):
    """One seat's player. Subclass it, give it a ``name`` and an :meth:`act`.

    ``act`` is called with the seat's view when the game waits for the seat (then a
    command is required) and, at the start of each trading phase, once for every
    player but the active one as a voluntary chance to propose (None: pass). The
    view's ``awaiting`` says which of the two it is.
    """

    name: ClassVar[str]

    def __init__(self, seat: int, seed: str) -> None:
        self.seat = seat
        self.seed = seed
        self._random: random.Random | None = None

    @property
    def random(self) -> random.Random:
        """The bot's own source of chance, seeded with its seed (the game's shuffles
        never use it). Made at the first draw: seeding one costs more than many a
        bot's whole decision, and most bots never draw."""
        if self._random is None:
            self._random = random.Random(self.seed)
        return self._random

    def observe(self, event: Event) -> None:  # noqa: B027 (a no-op hook by design)
        """Every event of the game, redacted for this seat, in order. The simulator
        calls it only for bots that override it, since most bots need only the view."""

    @abstractmethod
    def act(self, view: SeatView) -> object:
        """The seat's next command (a :data:`~bohnanza_core.commands.Command`), or None
        to pass a voluntary chance. Declared ``object``: a bot written elsewhere may
        answer junk, which the simulator counts as refused; compiled, a ``Command |
        None`` here would check an interpreted subclass's answer and raise TypeError
        instead. The built-in bots declare ``Command | None``."""

    def counter(self, view: SeatView, offer: Offer) -> object:
        """Terms to offer back instead of ``offer``, which this bot declines: a
        :class:`~bohnanza_core.commands.MakeOffer` to the offer's proposer, or None (the
        default: no counter-offer). A live table asks it when a bot declines a person's
        offer (play/driver.py); bots playing among themselves never counter."""
        return None

    @classmethod
    def observes(cls) -> bool:
        """Whether this bot wants events: it overrides :meth:`observe`."""
        return cls.observe is not Bot.observe
