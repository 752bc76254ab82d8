"""What happened: one immutable, past-tense event per action (docs/events.md).

Events are small: cards are ids, kinds are looked up in the ruleset's deck. A field
that some perspectives may not see is listed in ``SECRET``; it is visible to the seat
named by the ``OWNER`` field (if any) and to the "everything" perspective, and
``None`` in the redacted copy everyone else gets (see :func:`bohnanza_core.redact`).

The shape is the compiler's (mypyc compiles this module, docs/performance.md): a game
builds some 500 events, and a compiled class with its own ``__init__`` builds one in
a direct call (about 25 times faster than a frozen dataclass's generated ``__init__``,
which stays interpreted). So every event is a dataclass (for equality, hashing, repr,
``dataclasses.replace`` and ``fields``) that writes its fields in its own ``__init__``;
the fields are ``Final``: mypy refuses any later assignment, and in the compiled build
they are read-only attributes. ``SECRET`` and ``OWNER`` are set on the class after it
(mypyc would turn an assignment in a dataclass body into a field), and the fields'
precise types, which compiled classes do not keep, are read from this source by
:mod:`bohnanza_core.eventfields`.
"""

from __future__ import annotations

from dataclasses import Field, dataclass
from enum import StrEnum
from typing import Any, ClassVar, Final

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


class StopReason(StrEnum):
    """Why the platform ended a game before its end by the rules: a competition's
    fixture passed its deadline, every person left the table, or an arbiter ruled."""

    DEADLINE = "deadline"
    ABANDONED = "abandoned"
    RULING = "ruling"


class GameEnd(StrEnum):
    """What a run-out of the draw pile means for the game."""

    NOT_YET = "the game goes on"
    AFTER_THIS_TURN = "the game ends after phases 2 and 3"
    NOW = "the game ends now"


class Event:
    """Any event. ``SECRET``: the fields some perspectives may not see; ``OWNER``: the
    field naming the seat that may see them (None: only "everything")."""

    __slots__ = ()
    SECRET: ClassVar[tuple[str, ...]] = ()
    OWNER: ClassVar[str | None] = None
    OPTIONAL: ClassVar[tuple[str, ...]] = ()
    """Fields written (in an export, in the chain) only when not empty: added after
    records were stored without them, whose bytes and hashes stay as they were."""
    # Every event class is a dataclass (this base is not: mypyc would turn the class
    # variables above into fields); the declaration tells mypy so, for
    # dataclasses.fields and dataclasses.replace.
    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]


@dataclass(init=False, unsafe_hash=True, slots=True)
class GameStarted(Event):
    """The table is set: the full ruleset, the seats in clockwise order from the
    starting player, the salted commitment to the seed, and the two secrets that
    only the server's record holds until :class:`GameEnded` reveals them: the seed
    (every shuffle follows from it) and the game's salt (every hidden value enters
    the hash chain salted by it: bohnanza_core.commitments). ``tags``: what the game
    belongs to, as tag pairs (PGN's for chess): a competition's game names the
    competition, its round and table, and each seat's entrant; empty for any other
    game, and then not written at all (docs/events.md)."""

    ruleset: Final[Ruleset]
    seats: Final[tuple[str, ...]]
    seed_commitment: Final[str]
    seed: Final[str | None]
    salt: Final[str | None]
    tags: Final[tuple[tuple[str, str], ...]]

    def __init__(
        self,
        ruleset: Ruleset,
        seats: tuple[str, ...],
        seed_commitment: str,
        seed: str | None,
        salt: str | None,
        tags: tuple[tuple[str, str], ...] = (),
    ) -> None:
        self.ruleset = ruleset
        self.seats = seats
        self.seed_commitment = seed_commitment
        self.seed = seed
        self.salt = salt
        self.tags = tags

    def tag(self, key: str) -> str | None:
        """The value of tag ``key``, or None."""
        for name, value in self.tags:
            if name == key:
                return value
        return None


GameStarted.SECRET = ("seed", "salt")
GameStarted.OPTIONAL = ("tags",)


@dataclass(init=False, unsafe_hash=True, slots=True)
class DeckShuffled(Event):
    """The deck was shuffled; ``order`` is the draw pile from top to bottom."""

    order: Final[tuple[Card, ...] | None]

    def __init__(self, order: tuple[Card, ...] | None) -> None:
        self.order = order


DeckShuffled.SECRET = ("order",)


@dataclass(init=False, unsafe_hash=True, slots=True)
class CardDealt(Event):
    """The top card of the draw pile went to the back of ``seat``'s hand."""

    seat: Final[int]
    card: Final[Card | None]

    def __init__(self, seat: int, card: Card | None) -> None:
        self.seat = seat
        self.card = card


CardDealt.SECRET = ("card",)
CardDealt.OWNER = "seat"


@dataclass(init=False, unsafe_hash=True, slots=True)
class TurnStarted(Event):
    seat: Final[int]
    turn: Final[int]

    def __init__(self, seat: int, turn: int) -> None:
        self.seat = seat
        self.turn = turn


@dataclass(init=False, unsafe_hash=True, slots=True)
class BeanPlanted(Event):
    """``card`` went from ``source`` onto ``field`` of ``seat``."""

    seat: Final[int]
    card: Final[Card]
    field: Final[int]
    source: Final[CardSource]

    def __init__(self, seat: int, card: Card, field: int, source: CardSource) -> None:
        self.seat = seat
        self.card = card
        self.field = field
        self.source = source


@dataclass(init=False, unsafe_hash=True, slots=True)
class PlantingEnded(Event):
    """The active player stopped planting (phase 1, or the duel's step 3, where the
    face-up cards left stay for the opponent)."""

    seat: Final[int]

    def __init__(self, seat: int) -> None:
        self.seat = seat


@dataclass(init=False, unsafe_hash=True, slots=True)
class CardTurnedOver(Event):
    """The top card of the draw pile was turned face up for the active player."""

    card: Final[Card]

    def __init__(self, card: Card) -> None:
        self.card = card


@dataclass(init=False, unsafe_hash=True, slots=True)
class CardTakenFromDiscard(Event):
    """Duel: the top discard matched a face-up kind and joined the face-up cards."""

    card: Final[Card]

    def __init__(self, card: Card) -> None:
        self.card = card


@dataclass(init=False, unsafe_hash=True, slots=True)
class PhaseStarted(Event):
    """The turn moved on to ``phase`` by itself (trading, planting what was turned
    over and traded, drawing, the final harvest)."""

    phase: Final[Phase]

    def __init__(self, phase: Phase) -> None:
        self.phase = phase


@dataclass(init=False, unsafe_hash=True, slots=True)
class OfferMade(Event):
    """Offer number ``offer``: ``proposer`` gives ``gives`` for ``wants`` (empty: a
    gift) to ``counterparty``, or to every player who may trade with it (None)."""

    offer: Final[int]
    proposer: Final[int]
    counterparty: Final[int | None]
    gives: Final[tuple[Card, ...]]
    wants: Final[tuple[tuple[BeanKind, int], ...]]

    def __init__(
        self,
        offer: int,
        proposer: int,
        counterparty: int | None,
        gives: tuple[Card, ...],
        wants: tuple[tuple[BeanKind, int], ...],
    ) -> None:
        self.offer = offer
        self.proposer = proposer
        self.counterparty = counterparty
        self.gives = gives
        self.wants = wants


@dataclass(init=False, unsafe_hash=True, slots=True)
class OfferAccepted(Event):
    """``seat`` accepted, giving ``cards``; both sides' cards went to the receivers'
    trade areas."""

    offer: Final[int]
    seat: Final[int]
    cards: Final[tuple[Card, ...]]

    def __init__(self, offer: int, seat: int, cards: tuple[Card, ...]) -> None:
        self.offer = offer
        self.seat = seat
        self.cards = cards


@dataclass(init=False, unsafe_hash=True, slots=True)
class OfferDeclined(Event):
    offer: Final[int]
    seat: Final[int]

    def __init__(self, offer: int, seat: int) -> None:
        self.offer = offer
        self.seat = seat


@dataclass(init=False, unsafe_hash=True, slots=True)
class OfferWithdrawn(Event):
    offer: Final[int]
    seat: Final[int]

    def __init__(self, offer: int, seat: int) -> None:
        self.offer = offer
        self.seat = seat


@dataclass(init=False, unsafe_hash=True, slots=True)
class OfferVoided(Event):
    """A trade moved a card this offer named, so it can no longer be accepted."""

    offer: Final[int]

    def __init__(self, offer: int) -> None:
        self.offer = offer


@dataclass(init=False, unsafe_hash=True, slots=True)
class TradingEnded(Event):
    """The active player ended phase 2; every open offer lapsed."""

    seat: Final[int]

    def __init__(self, seat: int) -> None:
        self.seat = seat


@dataclass(init=False, unsafe_hash=True, slots=True)
class FieldHarvested(Event):
    """``seat`` sold the ``beans`` cards of ``field`` for ``coins`` coins (those cards
    turned into coins, the rest to the discard pile). ``final``: the harvest at the
    end of the game, where bean protection does not apply."""

    seat: Final[int]
    field: Final[int]
    kind: Final[BeanKind]
    beans: Final[int]
    coins: Final[int]
    final: Final[bool]

    def __init__(
        self,
        seat: int,
        field: int,
        kind: BeanKind,
        beans: int,
        coins: int,
        final: bool = False,
    ) -> None:
        self.seat = seat
        self.field = field
        self.kind = kind
        self.beans = beans
        self.coins = coins
        self.final = final


@dataclass(init=False, unsafe_hash=True, slots=True)
class ThirdFieldBought(Event):
    """``seat`` paid ``cost`` coins (to the discard pile or out of the game, by the
    ruleset) for a third field."""

    seat: Final[int]
    cost: Final[int]

    def __init__(self, seat: int, cost: int) -> None:
        self.seat = seat
        self.cost = cost


@dataclass(init=False, unsafe_hash=True, slots=True)
class CardDiscarded(Event):
    """Duel: ``card`` went face up from ``source`` to the discard pile."""

    seat: Final[int]
    card: Final[Card]
    source: Final[CardSource]

    def __init__(self, seat: int, card: Card, source: CardSource) -> None:
        self.seat = seat
        self.card = card
        self.source = source


@dataclass(init=False, unsafe_hash=True, slots=True)
class CardDrawn(Event):
    """Phase 4: the top card of the draw pile went to the back of ``seat``'s hand."""

    seat: Final[int]
    card: Final[Card | None]

    def __init__(self, seat: int, card: Card | None) -> None:
        self.seat = seat
        self.card = card


CardDrawn.SECRET = ("card",)
CardDrawn.OWNER = "seat"


@dataclass(init=False, unsafe_hash=True, slots=True)
class DrawPileRanOut(Event):
    """A card was needed (or, by the ruleset, the last one was drawn) and the draw
    pile was empty for the ``times``-th time."""

    times: Final[int]
    game_end: Final[GameEnd]

    def __init__(self, times: int, game_end: GameEnd) -> None:
        self.times = times
        self.game_end = game_end


@dataclass(init=False, unsafe_hash=True, slots=True)
class DiscardPileReshuffled(Event):
    """The discard pile was shuffled into a new draw pile; ``order`` from top to
    bottom (secret), ``cards`` how many."""

    cards: Final[int]
    order: Final[tuple[Card, ...] | None]

    def __init__(self, cards: int, order: tuple[Card, ...] | None) -> None:
        self.cards = cards
        self.order = order


DiscardPileReshuffled.SECRET = ("order",)


@dataclass(init=False, unsafe_hash=True, slots=True)
class TurnEnded(Event):
    seat: Final[int]

    def __init__(self, seat: int) -> None:
        self.seat = seat


@dataclass(init=False, unsafe_hash=True, slots=True)
class SeatHandedToBot(Event):
    """The platform handed ``seat`` to the built-in bot ``bot`` for the rest of the
    game, because its person left or stayed away (``reason``). No card moves: from
    now on the bot decides for the seat, which keeps its name and its cards."""

    seat: Final[int]
    bot: Final[str]
    reason: Final[Handover]

    def __init__(self, seat: int, bot: str, reason: Handover) -> None:
        self.seat = seat
        self.bot = bot
        self.reason = reason


@dataclass(init=False, unsafe_hash=True, slots=True)
class GameEnded(Event):
    """Coins per seat, the winners, the tie-break used (None without a tie), each
    seat's rank (1 is best, equal for a shared place), the hand sizes the tie-break
    may read, and the seed and the game's salt revealed, so anyone can recompute
    every shuffle and open every commitment of the record."""

    coins: Final[tuple[int, ...]]
    winners: Final[tuple[int, ...]]
    ranks: Final[tuple[int, ...]]
    hand_sizes: Final[tuple[int, ...]]
    tie_break: Final[TieBreak | None]
    seed: Final[str]
    salt: Final[str]

    def __init__(
        self,
        coins: tuple[int, ...],
        winners: tuple[int, ...],
        ranks: tuple[int, ...],
        hand_sizes: tuple[int, ...],
        tie_break: TieBreak | None,
        seed: str,
        salt: str,
    ) -> None:
        self.coins = coins
        self.winners = winners
        self.ranks = ranks
        self.hand_sizes = hand_sizes
        self.tie_break = tie_break
        self.seed = seed
        self.salt = salt


@dataclass(init=False, unsafe_hash=True, slots=True)
class GameStopped(Event):
    """The platform ended the game before its end by the rules (``reason``): the result
    as scored (each seat's banked coins; the ranks by those coins, equal coins sharing
    a place, or as an arbiter ruled), and the seed and the game's salt revealed, as
    :class:`GameEnded` reveals them. Nothing happens after it."""

    reason: Final[StopReason]
    coins: Final[tuple[int, ...]]
    winners: Final[tuple[int, ...]]
    ranks: Final[tuple[int, ...]]
    seed: Final[str]
    salt: Final[str]

    def __init__(
        self,
        reason: StopReason,
        coins: tuple[int, ...],
        winners: tuple[int, ...],
        ranks: tuple[int, ...],
        seed: str,
        salt: str,
    ) -> None:
        self.reason = reason
        self.coins = coins
        self.winners = winners
        self.ranks = ranks
        self.seed = seed
        self.salt = salt


GAME_OVER_TYPES: tuple[type[GameEnded], type[GameStopped]] = (GameEnded, GameStopped)
"""The events after which nothing happens: the game's end by the rules, or the
platform's stop. Both reveal the seed and the salt and carry the result."""


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
    GameStopped,
)
