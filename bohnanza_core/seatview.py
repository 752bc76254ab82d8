"""What a bot reads from its seat's view: the one base class both views share.

A bot sees its seat through a :class:`~bohnanza_core.views.GameView` when it plays
in-process, and through a :class:`~bohnanza_core.wire.WireView` when a program plays a
seat from outside (``examples/remote_bot.py``) on what the server sent. The bots are
compiled with mypyc, which checks an argument's class at the door: typed against
``GameView`` they would refuse a ``WireView``. So both derive from :class:`SeatView`,
an abstract class compiled with them: ``GameView`` natively (a bot's ``view.kind(card)``
is then a C call through the class's method table, where a ``typing.Protocol``, which
mypyc reads as ``object``, made it a generic Python method call), ``WireView`` in Python
(``allow_interpreted_subclasses``: its overrides are found by name).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

from mypy_extensions import mypyc_attr

from bohnanza_core.cards import BeanKind, Card
from bohnanza_core.commands import Command
from bohnanza_core.rulesets import Ruleset
from bohnanza_core.state import Offer, Phase, RulesInPlay

if TYPE_CHECKING:
    from bohnanza_core.engine import OfferShape


@mypyc_attr(allow_interpreted_subclasses=True)  # wire.WireView subclasses it in Python
class SeatView(ABC):
    """Everything a built-in bot reads about the table: only what its seat may see."""

    __slots__ = ()

    @property
    @abstractmethod
    def ruleset(self) -> Ruleset:
        """Every rule parameter of the game (docs/rulesets.md)."""

    @property
    @abstractmethod
    def rules(self) -> RulesInPlay:
        """The rule parameters the bots read on every decision, as the engine's
        compiled record (``ruleset`` is a pure dataclass: slower to read)."""

    @property
    @abstractmethod
    def seats(self) -> tuple[str, ...]: ...

    @property
    @abstractmethod
    def phase(self) -> Phase: ...

    @property
    @abstractmethod
    def active(self) -> int: ...

    @property
    @abstractmethod
    def turn(self) -> int: ...

    @property
    @abstractmethod
    def planted_this_turn(self) -> int: ...

    @property
    @abstractmethod
    def face_up(self) -> tuple[Card, ...]: ...

    @property
    @abstractmethod
    def offers(self) -> tuple[Offer, ...]: ...

    @property
    @abstractmethod
    def draw_pile_size(self) -> int: ...

    @property
    @abstractmethod
    def discard_pile(self) -> tuple[Card, ...]: ...

    @property
    @abstractmethod
    def runs_out(self) -> int: ...

    @property
    @abstractmethod
    def ending(self) -> bool: ...

    @property
    @abstractmethod
    def awaiting(self) -> tuple[int, ...]: ...

    @abstractmethod
    def kind(self, card: Card) -> BeanKind: ...

    @abstractmethod
    def hand(self) -> tuple[Card, ...]: ...

    @abstractmethod
    def hand_size(self, seat: int) -> int: ...

    @abstractmethod
    def fields(self, seat: int) -> tuple[tuple[Card, ...], ...]:
        """Every field of ``seat``, each its cards (fields are face up)."""

    @property
    @abstractmethod
    def out_of_game(self) -> tuple[Card, ...]:
        """Coins paid for third fields under rules that take them out of the game."""

    @abstractmethod
    def field_summary(self, seat: int) -> list[tuple[BeanKind | None, int]]: ...

    @abstractmethod
    def field_count(self, seat: int) -> int: ...

    @abstractmethod
    def may_harvest(self, seat: int, field: int) -> bool: ...

    @abstractmethod
    def coins(self, seat: int) -> int: ...

    @abstractmethod
    def third_field_bought(self, seat: int) -> bool: ...

    @abstractmethod
    def trade_area(self, seat: int) -> tuple[Card, ...]: ...

    @abstractmethod
    def legal_moves(self) -> list[Command | OfferShape]: ...
