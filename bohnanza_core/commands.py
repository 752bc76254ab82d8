"""What a player can decide: one frozen value per decision (RULES.md).

Every command names the ``seat`` that issues it (0 is the starting player, seats
follow clockwise). Cards are named by id; fields by index (0, 1, then 2 for a
third field).
"""

from __future__ import annotations

from dataclasses import dataclass

from bohnanza_core.cards import BeanKind, Card
from bohnanza_core.events import Handover


@dataclass(frozen=True, slots=True)
class PlantFromHand:
    """Plant the front card of the hand (phase 1; duel step 2) into ``field``."""

    seat: int
    field: int


@dataclass(frozen=True, slots=True)
class PlantCard:
    """Plant a card from one's trade area or, for the active player, a face-up card
    (phase 3; the duel's steps 1 and 3; at once under the Finnish rules)."""

    seat: int
    card: Card
    field: int


@dataclass(frozen=True, slots=True)
class EndPlanting:
    """Stop planting: after the first hand card in phase 1, or (duel step 3) leave the
    remaining face-up cards to the opponent."""

    seat: int


@dataclass(frozen=True, slots=True)
class DiscardCard:
    """Duel: discard an opponent's leftover face-up card (step 1), or one hand card
    from any position after planting (step 2)."""

    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class MakeOffer:
    """Offer ``gives`` (hand or, for the active player, face-up cards) for ``wants``
    (bean kinds with counts; empty: a gift) to seat ``to``, or to every player who may
    trade with the proposer when ``to`` is None."""

    seat: int
    gives: tuple[Card, ...]
    wants: tuple[tuple[BeanKind, int], ...]
    to: int | None = None


@dataclass(frozen=True, slots=True)
class AcceptOffer:
    """Accept offer ``offer`` by naming one's own ``cards`` that satisfy its wants."""

    seat: int
    offer: int
    cards: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class DeclineOffer:
    seat: int
    offer: int


@dataclass(frozen=True, slots=True)
class WithdrawOffer:
    seat: int
    offer: int


@dataclass(frozen=True, slots=True)
class EndTrading:
    """The active player ends phase 2; open offers lapse."""

    seat: int


@dataclass(frozen=True, slots=True)
class Harvest:
    """Harvest (sell) every bean of ``field``."""

    seat: int
    field: int


@dataclass(frozen=True, slots=True)
class BuyThirdField:
    seat: int


@dataclass(frozen=True, slots=True)
class HandSeatToBot:
    """The platform's, never a player's: from now on the built-in bot ``bot`` plays
    ``seat``, whose person left or stayed away (``reason``). No client may send it
    (bohnanza_core.wire has no kind for it); the live tables issue it
    (play.tables.hand_to_bot)."""

    seat: int
    bot: str
    reason: Handover


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
"""What a player can decide (the platform's :class:`HandSeatToBot` is not among them)."""
