"""An example bot package: the entry point ``bohnanza.bots`` -> ``cautious`` names
:class:`CautiousBot`; installed next to the platform, it can take a seat anywhere."""

from __future__ import annotations

from bohnanza_core.bots import Bot, legal_moves
from bohnanza_core.commands import Command
from bohnanza_core.engine import OfferShape
from bohnanza_core.seatview import SeatView


class CautiousBot(Bot):
    """Answers only when the game waits for it, with the first legal move that is not
    an offer; passes every voluntary chance."""

    name = "cautious"

    def act(self, view: SeatView) -> Command | None:
        if self.seat not in view.awaiting:
            return None
        moves = [m for m in legal_moves(view) if not isinstance(m, OfferShape)]
        return moves[0] if moves else None
