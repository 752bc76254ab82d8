"""What a player can decide: one immutable value per decision (RULES.md).

Every command names the ``seat`` that issues it (0 is the starting player, seats
follow clockwise). Cards are named by id; fields by index (0, 1, then 2 for a
third field). The comment beside each field says what it should hold (``Card`` and
``BeanKind`` from :mod:`bohnanza_core.cards`, ``Handover`` from
:mod:`bohnanza_core.events`).

The shape is the compiler's, as for the events (mypyc compiles this module,
docs/performance.md): every ``legal_moves`` list and every bot answer builds commands,
and a compiled class with its own ``__init__`` builds one in a direct call, where a
frozen dataclass's generated ``__init__`` stays interpreted. So every command is a
dataclass (equality, hashing, repr, ``dataclasses.fields``) that writes its ``Final``
fields in its own ``__init__``.

The fields are typed ``object``: commands come from outside (websocket frames,
uploads, other people's bots, property tests), and a compiled class with an ``int``
field would raise TypeError for ``"1"`` or ``None`` when the command is *built*,
where the engine must answer IllegalMove with its reason when it is *played*. The
engine checks every field (its ``_check_*`` functions: a bool is no seat, ``1.0`` no
card) before it relies on its type, in either build.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from bohnanza_core.errors import IllegalMove


@dataclass(init=False, unsafe_hash=True, slots=True)
class PlantFromHand:
    """Plant the front card of the hand (phase 1; duel step 2) into ``field``."""

    seat: Final[object]  # int
    field: Final[object]  # int

    def __init__(self, seat: object, field: object) -> None:
        self.seat = seat
        self.field = field


@dataclass(init=False, unsafe_hash=True, slots=True)
class PlantCard:
    """Plant a card from one's trade area or, for the active player, a face-up card
    (phase 3; the duel's steps 1 and 3; at once under the Finnish rules)."""

    seat: Final[object]  # int
    card: Final[object]  # Card
    field: Final[object]  # int

    def __init__(self, seat: object, card: object, field: object) -> None:
        self.seat = seat
        self.card = card
        self.field = field


@dataclass(init=False, unsafe_hash=True, slots=True)
class EndPlanting:
    """Stop planting: after the first hand card in phase 1, or (duel step 3) leave the
    remaining face-up cards to the opponent."""

    seat: Final[object]  # int

    def __init__(self, seat: object) -> None:
        self.seat = seat


@dataclass(init=False, unsafe_hash=True, slots=True)
class DiscardCard:
    """Duel: discard an opponent's leftover face-up card (step 1), or one hand card
    from any position after planting (step 2)."""

    seat: Final[object]  # int
    card: Final[object]  # Card

    def __init__(self, seat: object, card: object) -> None:
        self.seat = seat
        self.card = card


@dataclass(init=False, unsafe_hash=True, slots=True)
class MakeOffer:
    """Offer ``gives`` (hand or, for the active player, face-up cards) for ``wants``
    (bean kinds with counts; empty: a gift) to seat ``to``, or to every player who may
    trade with the proposer when ``to`` is None."""

    seat: Final[object]  # int
    gives: Final[object]  # tuple[Card, ...]
    wants: Final[object]  # tuple[tuple[BeanKind, int], ...]
    to: Final[object]  # int | None

    def __init__(
        self,
        seat: object,
        gives: object,
        wants: object,
        to: object = None,
    ) -> None:
        self.seat = seat
        self.gives = gives
        self.wants = wants
        self.to = to


@dataclass(init=False, unsafe_hash=True, slots=True)
class AcceptOffer:
    """Accept offer ``offer`` by naming one's own ``cards`` that satisfy its wants."""

    seat: Final[object]  # int
    offer: Final[object]  # int
    cards: Final[object]  # tuple[Card, ...]

    def __init__(self, seat: object, offer: object, cards: object = ()) -> None:
        self.seat = seat
        self.offer = offer
        self.cards = cards


@dataclass(init=False, unsafe_hash=True, slots=True)
class DeclineOffer:
    seat: Final[object]  # int
    offer: Final[object]  # int

    def __init__(self, seat: object, offer: object) -> None:
        self.seat = seat
        self.offer = offer


@dataclass(init=False, unsafe_hash=True, slots=True)
class WithdrawOffer:
    seat: Final[object]  # int
    offer: Final[object]  # int

    def __init__(self, seat: object, offer: object) -> None:
        self.seat = seat
        self.offer = offer


@dataclass(init=False, unsafe_hash=True, slots=True)
class EndTrading:
    """The active player ends phase 2; open offers lapse."""

    seat: Final[object]  # int

    def __init__(self, seat: object) -> None:
        self.seat = seat


@dataclass(init=False, unsafe_hash=True, slots=True)
class Harvest:
    """Harvest (sell) every bean of ``field``."""

    seat: Final[object]  # int
    field: Final[object]  # int

    def __init__(self, seat: object, field: object) -> None:
        self.seat = seat
        self.field = field


@dataclass(init=False, unsafe_hash=True, slots=True)
class BuyThirdField:
    seat: Final[object]  # int

    def __init__(self, seat: object) -> None:
        self.seat = seat


@dataclass(init=False, unsafe_hash=True, slots=True)
class HandSeatToBot:
    """The platform's, never a player's: from now on the built-in bot ``bot`` plays
    ``seat``, whose person left or stayed away (``reason``). No client may send it
    (bohnanza_core.wire has no kind for it); the live tables issue it
    (play.tables.hand_to_bot)."""

    seat: Final[object]  # int
    bot: Final[object]  # str
    reason: Final[object]  # Handover

    def __init__(self, seat: object, bot: object, reason: object) -> None:
        self.seat = seat
        self.bot = bot
        self.reason = reason


@dataclass(init=False, unsafe_hash=True, slots=True)
class StopGame:
    """The platform's, never a player's: end the game now (``reason``, a
    :class:`~bohnanza_core.events.StopReason`). The result is the game as it stands
    (each seat ranked by its banked coins), or, for an arbiter's ruling only, the
    ``ranks`` ruled (one per seat, 1 best, equal for a shared place). No client may
    send it (bohnanza_core.wire has no kind for it)."""

    reason: Final[object]  # StopReason
    ranks: Final[object]  # tuple[int, ...] | None

    def __init__(self, reason: object, ranks: object = None) -> None:
        self.reason = reason
        self.ranks = ranks


Command = (
    PlantFromHand
    | PlantCard
    | EndPlanting
    | DiscardCard
    | MakeOffer
    | AcceptOffer
    | DeclineOffer
    | WithdrawOffer
    | EndTrading
    | Harvest
    | BuyThirdField
    | HandSeatToBot
    | StopGame
)

COMMAND_TYPES: tuple[type, ...] = (
    PlantFromHand,
    PlantCard,
    EndPlanting,
    DiscardCard,
    MakeOffer,
    AcceptOffer,
    DeclineOffer,
    WithdrawOffer,
    EndTrading,
    Harvest,
    BuyThirdField,
)
"""What a player can decide (the platform's :class:`HandSeatToBot` and :class:`StopGame`
are not among them)."""


def as_command(value: object) -> Command:
    """``value`` itself if it is a command, else IllegalMove as the engine answers it:
    for whoever takes a command from a bot or a caller and passes it on typed (the
    compiled classes check their arguments' types)."""
    if isinstance(value, (PlantFromHand, PlantCard, EndPlanting, DiscardCard, MakeOffer,
                          AcceptOffer, DeclineOffer, WithdrawOffer, EndTrading, Harvest,
                          BuyThirdField, HandSeatToBot, StopGame)):
        return value
    raise IllegalMove(f"{type(value).__name__} is not a command of this game")


def seat_of(command: Command) -> int:
    """The seat ``command`` names, for whoever reads it before the engine checks the
    command (to credit it to a player): IllegalMove, as the engine would answer, when it
    names no seat number (a field is typed ``object``, see above; the platform's
    :class:`StopGame` names none)."""
    if isinstance(command, StopGame):
        raise IllegalMove("stopping the game is the platform's, not a seat's")
    seat = command.seat
    if not isinstance(seat, int) or isinstance(seat, bool):
        raise IllegalMove(f"there is no seat {seat!r} at this table")
    return seat
