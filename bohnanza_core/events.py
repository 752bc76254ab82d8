"""What happened: one immutable, past-tense event per action (docs/events.md).

Events are small: cards are ids, kinds are looked up in the ruleset's deck. A field
that some perspectives may not see is listed in ``SECRET``; it is visible to the seat
named by the ``OWNER`` field (if any) and to the "everything" perspective, and
``None`` in the redacted copy everyone else gets (see :func:`bohnanza_core.redact`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar

from bohnanza_core.cards import BeanKind, Card
from bohnanza_core.rulesets import Ruleset, TieBreak
from bohnanza_core.state import Phase


class CardSource(StrEnum):
    HAND = "hand"
    FACE_UP = "face-up"
    TRADE_AREA = "trade area"


class Handover(StrEnum):
    """Why a seat's person no longer plays it: they left the running game, or every
    connection of theirs stayed closed past the table's limit."""

    LEFT = "left"
    ABSENT = "absent"


class GameEnd(StrEnum):
    """What a run-out of the draw pile means for the game."""

    NOT_YET = "the game goes on"
    AFTER_THIS_TURN = "the game ends after phases 2 and 3"
    NOW = "the game ends now"


@dataclass(frozen=True, slots=True)
class Event:
    SECRET: ClassVar[tuple[str, ...]] = ()
    OWNER: ClassVar[str | None] = None


@dataclass(frozen=True, slots=True)
class GameStarted(Event):
    """The table is set: the full ruleset, the seats in clockwise order from the
    starting player, the salted commitment to the seed, and the two secrets that
    only the server's record holds until :class:`GameEnded` reveals them: the seed
    (every shuffle follows from it) and the game's salt (every hidden value enters
    the hash chain salted by it: bohnanza_core.commitments)."""

    SECRET = ("seed", "salt")
    ruleset: Ruleset
    seats: tuple[str, ...]
    seed_commitment: str
    seed: str | None
    salt: str | None


@dataclass(frozen=True, slots=True)
class DeckShuffled(Event):
    """The deck was shuffled; ``order`` is the draw pile from top to bottom."""

    SECRET = ("order",)
    order: tuple[Card, ...] | None


@dataclass(frozen=True, slots=True)
class CardDealt(Event):
    """The top card of the draw pile went to the back of ``seat``'s hand."""

    SECRET = ("card",)
    OWNER = "seat"
    seat: int
    card: Card | None


@dataclass(frozen=True, slots=True)
class TurnStarted(Event):
    seat: int
    turn: int


@dataclass(frozen=True, slots=True)
class BeanPlanted(Event):
    """``card`` went from ``source`` onto ``field`` of ``seat``."""

    seat: int
    card: Card
    field: int
    source: CardSource


@dataclass(frozen=True, slots=True)
class PlantingEnded(Event):
    """The active player stopped planting (phase 1, or the duel's step 3, where the
    face-up cards left stay for the opponent)."""

    seat: int


@dataclass(frozen=True, slots=True)
class CardTurnedOver(Event):
    """The top card of the draw pile was turned face up for the active player."""

    card: Card


@dataclass(frozen=True, slots=True)
class CardTakenFromDiscard(Event):
    """Duel: the top discard matched a face-up kind and joined the face-up cards."""

    card: Card


@dataclass(frozen=True, slots=True)
class PhaseStarted(Event):
    """The turn moved on to ``phase`` by itself (trading, planting what was turned
    over and traded, drawing, the final harvest)."""

    phase: Phase


@dataclass(frozen=True, slots=True)
class OfferMade(Event):
    """Offer number ``offer``: ``proposer`` gives ``gives`` for ``wants`` (empty: a
    gift) to ``counterparty``, or to every player who may trade with it (None)."""

    offer: int
    proposer: int
    counterparty: int | None
    gives: tuple[Card, ...]
    wants: tuple[tuple[BeanKind, int], ...]


@dataclass(frozen=True, slots=True)
class OfferAccepted(Event):
    """``seat`` accepted, giving ``cards``; both sides' cards went to the receivers'
    trade areas."""

    offer: int
    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class OfferDeclined(Event):
    offer: int
    seat: int


@dataclass(frozen=True, slots=True)
class OfferWithdrawn(Event):
    offer: int
    seat: int


@dataclass(frozen=True, slots=True)
class OfferVoided(Event):
    """A trade moved a card this offer named, so it can no longer be accepted."""

    offer: int


@dataclass(frozen=True, slots=True)
class TradingEnded(Event):
    """The active player ended phase 2; every open offer lapsed."""

    seat: int


@dataclass(frozen=True, slots=True)
class FieldHarvested(Event):
    """``seat`` sold the ``beans`` cards of ``field`` for ``coins`` coins (those cards
    turned into coins, the rest to the discard pile). ``final``: the harvest at the
    end of the game, where bean protection does not apply."""

    seat: int
    field: int
    kind: BeanKind
    beans: int
    coins: int
    final: bool = False


@dataclass(frozen=True, slots=True)
class ThirdFieldBought(Event):
    """``seat`` paid ``cost`` coins (to the discard pile or out of the game, by the
    ruleset) for a third field."""

    seat: int
    cost: int


@dataclass(frozen=True, slots=True)
class CardDiscarded(Event):
    """Duel: ``card`` went face up from ``source`` to the discard pile."""

    seat: int
    card: Card
    source: CardSource


@dataclass(frozen=True, slots=True)
class CardDrawn(Event):
    """Phase 4: the top card of the draw pile went to the back of ``seat``'s hand."""

    SECRET = ("card",)
    OWNER = "seat"
    seat: int
    card: Card | None


@dataclass(frozen=True, slots=True)
class DrawPileRanOut(Event):
    """A card was needed (or, by the ruleset, the last one was drawn) and the draw
    pile was empty for the ``times``-th time."""

    times: int
    game_end: GameEnd


@dataclass(frozen=True, slots=True)
class DiscardPileReshuffled(Event):
    """The discard pile was shuffled into a new draw pile; ``order`` from top to
    bottom (secret), ``cards`` how many."""

    SECRET = ("order",)
    cards: int
    order: tuple[Card, ...] | None


@dataclass(frozen=True, slots=True)
class TurnEnded(Event):
    seat: int


@dataclass(frozen=True, slots=True)
class SeatHandedToBot(Event):
    """The platform handed ``seat`` to the built-in bot ``bot`` for the rest of the
    game, because its person left or stayed away (``reason``). No card moves: from
    now on the bot decides for the seat, which keeps its name and its cards."""

    seat: int
    bot: str
    reason: Handover


@dataclass(frozen=True, slots=True)
class GameEnded(Event):
    """Coins per seat, the winners, the tie-break used (None without a tie), each
    seat's rank (1 is best, equal for a shared place), the hand sizes the tie-break
    may read, and the seed and the game's salt revealed, so anyone can recompute
    every shuffle and open every commitment of the record."""

    coins: tuple[int, ...]
    winners: tuple[int, ...]
    ranks: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    tie_break: TieBreak | None
    seed: str
    salt: str


EVENT_TYPES: tuple[type[Event], ...] = (
    GameStarted,
    DeckShuffled,
    CardDealt,
    TurnStarted,
    BeanPlanted,
    PlantingEnded,
    CardTurnedOver,
    CardTakenFromDiscard,
    PhaseStarted,
    OfferMade,
    OfferAccepted,
    OfferDeclined,
    OfferWithdrawn,
    OfferVoided,
    TradingEnded,
    FieldHarvested,
    ThirdFieldBought,
    CardDiscarded,
    CardDrawn,
    DrawPileRanOut,
    DiscardPileReshuffled,
    TurnEnded,
    SeatHandedToBot,
    GameEnded,
)
