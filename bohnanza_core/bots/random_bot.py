"""The ``random`` bot: any legal move, chosen uniformly, so a game still ends.

It is the floor every other bot should beat, and a fuzzer for the engine: it tries
moves no sensible player would. Two limits keep its games finite and short: at most
two offers of its own per turn, and an even chance to end trading whenever it may.
"""

from __future__ import annotations

from typing import ClassVar

from mypy_extensions import mypyc_attr

from bohnanza_core.bots.base import Bot, legal_moves
from bohnanza_core.cards import BeanKind, Card
from bohnanza_core.commands import Command, EndTrading, MakeOffer
from bohnanza_core.engine import OfferShape
from bohnanza_core.seatview import SeatView

OFFERS_PER_TURN = 2
END_TRADING_CHANCE = 0.5
PASS_CHANCE = 0.5


@mypyc_attr(allow_interpreted_subclasses=True)  # tests and installed bots subclass it
class RandomBot(Bot):
    name: ClassVar[str] = "random"

    def __init__(self, seat: int, seed: str) -> None:
        super().__init__(seat, seed)
        self._turn = -1
        self._offers = 0

    def act(self, view: SeatView) -> Command | None:
        if view.turn != self._turn:
            self._turn, self._offers = view.turn, 0
        rng = self.random
        required = self.seat in view.awaiting
        if not required and rng.random() < PASS_CHANCE:
            return None
        moves = legal_moves(view)
        if any(isinstance(move, EndTrading) for move in moves) and (
            rng.random() < END_TRADING_CHANCE
        ):
            return EndTrading(seat=self.seat)
        choices = [
            move for move in moves
            if not isinstance(move, OfferShape) or self._offers < OFFERS_PER_TURN
        ]
        if not choices:
            return None
        choice = rng.choice(choices)
        if isinstance(choice, OfferShape):
            self._offers += 1
            return self._offer(choice)
        return choice

    def _offer(self, shape: OfferShape) -> MakeOffer:
        """A concrete offer of the shape: up to two cards for up to two beans of one
        kind, or a gift, or a plain request."""
        rng = self.random
        givable: list[Card] = list(shape.givable)
        gives = tuple(rng.sample(givable, rng.randint(0, min(2, len(givable)))))
        wants: tuple[tuple[BeanKind, int], ...] = ()
        if not gives or rng.random() < 0.5:
            wants = ((rng.choice(shape.wantable), rng.randint(1, 2)),)
        return MakeOffer(seat=self.seat, gives=gives, wants=wants, to=rng.choice(shape.to))
