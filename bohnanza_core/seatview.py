"""What a bot reads from its seat's view: the one shape both views have.

A bot sees its seat through a :class:`~bohnanza_core.views.TableView` when it plays
in-process, and through a :class:`~bohnanza_core.wire.WireView` when a program plays a
seat from outside (``examples/remote_bot.py``) on what the server sent. The bots are
compiled with mypyc, which checks an argument's class at the door: typed against
``TableView`` they would refuse a ``WireView``. Typed against this protocol (which
mypyc reads as ``object``) they take either, and mypy checks that both views offer
everything listed here (the ``_conforms`` checks at the end).

This module stays pure Python: it holds only the protocol.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from bohnanza_core.cards import BeanKind, Card
from bohnanza_core.commands import Command
from bohnanza_core.rulesets import Ruleset
from bohnanza_core.state import Offer, Phase

if TYPE_CHECKING:
    from bohnanza_core.engine import OfferShape
    from bohnanza_core.views import TableView
    from bohnanza_core.wire import WireView


class SeatView(Protocol):
    """Everything a built-in bot reads about the table: only what its seat may see."""

    @property
    def ruleset(self) -> Ruleset: ...

    @property
    def seats(self) -> tuple[str, ...]: ...

    @property
    def phase(self) -> Phase: ...

    @property
    def active(self) -> int: ...

    @property
    def turn(self) -> int: ...

    @property
    def planted_this_turn(self) -> int: ...

    @property
    def face_up(self) -> tuple[Card, ...]: ...

    @property
    def offers(self) -> tuple[Offer, ...]: ...

    @property
    def draw_pile_size(self) -> int: ...

    @property
    def discard_pile(self) -> tuple[Card, ...]: ...

    @property
    def runs_out(self) -> int: ...

    @property
    def ending(self) -> bool: ...

    @property
    def awaiting(self) -> tuple[int, ...]: ...

    def kind(self, card: Card) -> BeanKind: ...

    def hand(self) -> tuple[Card, ...]: ...

    def field_summary(self, seat: int) -> list[tuple[BeanKind | None, int]]: ...

    def field_count(self, seat: int) -> int: ...

    def may_harvest(self, seat: int, field: int) -> bool: ...

    def coins(self, seat: int) -> int: ...

    def third_field_bought(self, seat: int) -> bool: ...

    def trade_area(self, seat: int) -> tuple[Card, ...]: ...

    def legal_moves(self) -> list[Command | OfferShape]: ...


if TYPE_CHECKING:

    def _conforms(table: TableView, wire: WireView) -> tuple[SeatView, SeatView]:
        """mypy's check that both views are seat views (never called)."""
        return table, wire
