"""The table at one moment: a mutable value rebuilt from events.

``GameState`` is changed only by :func:`bohnanza_core.evolve`, in place: copying the
table on every event would make the engine too slow for simulations of thousands of
games (bench/engine.py). :meth:`GameState.copy` gives an independent snapshot.

Piles are lists whose *end* is the top. Hands are lists whose *start* is the front:
cards are planted from index 0 and drawn cards are appended.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from bohnanza_core.cards import BeanKind, Card, deck_kinds
from bohnanza_core.rulesets import (
    CoinDestination,
    EmptyReshuffle,
    EndTiming,
    LeftoverFaceUp,
    ReceivedCardsPlanted,
    ReshuffleWhen,
    Ruleset,
    TieBreak,
)


class Phase(StrEnum):
    DEALING = "dealing"
    BETWEEN_TURNS = "between turns"
    PLANTING_LEFTOVERS = "planting the opponent's leftovers"
    PLANTING = "planting from the hand"
    TURNING_OVER = "turning over"
    TRADING = "trading"
    PLANTING_RECEIVED = "planting turned-over and traded beans"
    DRAWING = "drawing"
    FINAL_HARVEST = "final harvest"
    GAME_OVER = "game over"


@dataclass(init=False, slots=True)
class Offer:
    """An open trade offer (see :class:`bohnanza_core.events.OfferMade`). Its own
    ``__init__``: compiled, that is one C call, where the dataclass's generated one
    stays interpreted (views copy the open offers on every read)."""

    number: int
    proposer: int
    counterparty: int | None
    gives: tuple[Card, ...]
    wants: tuple[tuple[BeanKind, int], ...]
    declined_by: set[int]

    def __init__(self, number: int, proposer: int, counterparty: int | None,
                 gives: tuple[Card, ...], wants: tuple[tuple[BeanKind, int], ...],
                 declined_by: set[int] | None = None) -> None:
        self.number = number
        self.proposer = proposer
        self.counterparty = counterparty
        self.gives = gives
        self.wants = wants
        self.declined_by = set() if declined_by is None else declined_by

    def __reduce__(self) -> tuple[type[Offer], tuple[object, ...]]:
        """How ``copy`` and ``pickle`` rebuild an offer: through ``__init__`` (a compiled
        class's ``__new__`` runs it, so the default way, ``__new__`` without arguments,
        fails)."""
        return (Offer, (self.number, self.proposer, self.counterparty, self.gives,
                        self.wants, self.declined_by))


@dataclass(slots=True)
class Result:
    coins: tuple[int, ...]
    winners: tuple[int, ...]
    ranks: tuple[int, ...]


class RulesInPlay:
    """The rule parameters the engine reads on every step, copied once per game out of
    the game's :class:`~bohnanza_core.rulesets.Ruleset`. The ruleset stays the one
    source of the rules; this record exists for speed: ``Ruleset`` is a pure frozen
    dataclass, so in the compiled build every read of it is a dictionary lookup, where a
    read of this compiled record is a load from a C struct (docs/performance.md).
    Two-valued choices asked on every step are kept as booleans too (``received_at_once``,
    ``leftover_offered``): the rulesets' enums are pure, so naming one of their members
    in compiled code is an attribute lookup on the enum class."""

    __slots__ = (
        "beans",
        "deck_size",
        "discard_from_hand_after_planting",
        "draw_cards",
        "empty_reshuffle",
        "ends_on_run_out",
        "face_up_cards",
        "harvest_out_of_turn",
        "leftover_face_up",
        "leftover_offered",
        "max_fields",
        "paid_coins_to",
        "planting_from_hand",
        "received_at_once",
        "received_cards_planted",
        "reshuffle_when",
        "run_out_while_drawing",
        "run_out_while_turning_over",
        "take_matching_discards",
        "third_field_cost",
        "tie_break",
        "trading",
    )

    def __init__(self, ruleset: Ruleset) -> None:
        self.beans: tuple[BeanKind, ...] = ruleset.beans
        self.deck_size: int = ruleset.deck_size
        self.max_fields: int = ruleset.max_fields
        self.third_field_cost: int | None = ruleset.third_field_cost
        self.paid_coins_to: CoinDestination = ruleset.paid_coins_to
        self.planting_from_hand: int = ruleset.planting_from_hand
        self.discard_from_hand_after_planting: bool = ruleset.discard_from_hand_after_planting
        self.face_up_cards: int = ruleset.face_up_cards
        self.take_matching_discards: bool = ruleset.take_matching_discards
        self.trading: bool = ruleset.trading
        self.received_cards_planted: ReceivedCardsPlanted = ruleset.received_cards_planted
        self.leftover_face_up: LeftoverFaceUp = ruleset.leftover_face_up
        self.received_at_once: bool = (
            ruleset.received_cards_planted is ReceivedCardsPlanted.AT_ONCE)
        self.leftover_offered: bool = (
            ruleset.leftover_face_up is LeftoverFaceUp.OFFERED_TO_NEXT_PLAYER)
        self.draw_cards: int = ruleset.draw_cards
        self.ends_on_run_out: int = ruleset.ends_on_run_out
        self.run_out_while_turning_over: EndTiming = ruleset.run_out_while_turning_over
        self.run_out_while_drawing: EndTiming = ruleset.run_out_while_drawing
        self.reshuffle_when: ReshuffleWhen = ruleset.reshuffle_when
        self.empty_reshuffle: EmptyReshuffle = ruleset.empty_reshuffle
        self.tie_break: TieBreak = ruleset.tie_break
        self.harvest_out_of_turn: bool = ruleset.harvest_out_of_turn


STATE_FIELDS: tuple[str, ...] = (
    "active",
    "coins",
    "dealt",
    "discard_pile",
    "draw_pile",
    "drawn",
    "ending",
    "events_applied",
    "face_up",
    "fields",
    "hands",
    "kinds",
    "next_offer",
    "offers",
    "out_of_game",
    "phase",
    "planted",
    "planting_done",
    "reshuffle_due",
    "reshuffles",
    "result",
    "ruleset",
    "runs_out",
    "salt",
    "seat_bots",
    "seats",
    "seed",
    "seed_commitment",
    "third_field_bought",
    "trade_areas",
    "turn",
    "turned_over",
)
"""Every attribute of :class:`GameState`, for snapshots (bohnanza_core.games) and tests."""


class GameState:
    """Everything about one game, secret parts included. Never sent anywhere as it
    is: what leaves the engine is a :class:`bohnanza_core.views.GameView`."""

    __slots__ = (*STATE_FIELDS, "rules")  # the pure build's; a compiled class is fixed anyway

    def __init__(self, ruleset: Ruleset, seats: tuple[str, ...], seed: str, salt: str,
                 commitment: str):
        n = len(seats)
        self.ruleset = ruleset
        # Derived from the ruleset, so not in STATE_FIELDS (snapshots rebuild it).
        self.rules = RulesInPlay(ruleset)
        self.seats = seats
        self.seed = seed
        self.salt = salt
        self.seed_commitment = commitment
        self.kinds: tuple[BeanKind, ...] = deck_kinds(ruleset.beans)
        self.draw_pile: list[Card] = []
        self.discard_pile: list[Card] = []
        self.out_of_game: list[Card] = []
        self.hands: list[list[Card]] = [[] for _ in range(n)]
        self.fields: list[list[list[Card]]] = [
            [[] for _ in range(ruleset.starting_fields)] for _ in range(n)
        ]
        self.third_field_bought: list[bool] = [False] * n
        self.coins: list[list[Card]] = [[] for _ in range(n)]
        self.trade_areas: list[list[Card]] = [[] for _ in range(n)]
        self.face_up: list[Card] = []
        self.offers: dict[int, Offer] = {}
        self.next_offer = 1
        self.phase = Phase.DEALING
        self.active = 0
        self.turn = 0
        self.dealt = 0
        self.planted = 0
        self.turned_over = 0
        self.drawn = 0
        self.planting_done = False
        self.runs_out = 0
        self.reshuffles = 0
        self.reshuffle_due = False
        self.ending = False
        self.result: Result | None = None
        self.events_applied = 0
        # The built-in bot that plays each seat its person left ("": the person
        # plays it; events.SeatHandedToBot).
        self.seat_bots: list[str] = [""] * n

    @property
    def players(self) -> int:
        return len(self.seats)

    @property
    def finished(self) -> bool:
        return self.phase is Phase.GAME_OVER

    def field_kind(self, seat: int, field_index: int) -> BeanKind | None:
        beans = self.fields[seat][field_index]
        return self.kinds[beans[0]] if beans else None

    def cards_in_play(self) -> int:
        """Every card somewhere on the table; equals the deck size at all times."""
        return (
            len(self.draw_pile)
            + len(self.discard_pile)
            + len(self.out_of_game)
            + len(self.face_up)
            + sum(len(h) for h in self.hands)
            + sum(len(f) for fs in self.fields for f in fs)
            + sum(len(c) for c in self.coins)
            + sum(len(t) for t in self.trade_areas)
        )

    def copy(self) -> GameState:
        """An independent snapshot (lists copied, immutable parts shared)."""
        other = GameState(self.ruleset, self.seats, self.seed, self.salt, self.seed_commitment)
        other.kinds = self.kinds
        other.draw_pile = self.draw_pile[:]
        other.discard_pile = self.discard_pile[:]
        other.out_of_game = self.out_of_game[:]
        other.hands = [h[:] for h in self.hands]
        other.fields = [[f[:] for f in fs] for fs in self.fields]
        other.third_field_bought = self.third_field_bought[:]
        other.coins = [c[:] for c in self.coins]
        other.trade_areas = [t[:] for t in self.trade_areas]
        other.face_up = self.face_up[:]
        other.seat_bots = self.seat_bots[:]
        other.offers = {
            k: Offer(o.number, o.proposer, o.counterparty, o.gives, o.wants, set(o.declined_by))
            for k, o in self.offers.items()
        }
        other.next_offer = self.next_offer
        other.phase = self.phase
        other.active = self.active
        other.turn = self.turn
        other.dealt = self.dealt
        other.planted = self.planted
        other.turned_over = self.turned_over
        other.drawn = self.drawn
        other.planting_done = self.planting_done
        other.runs_out = self.runs_out
        other.reshuffles = self.reshuffles
        other.reshuffle_due = self.reshuffle_due
        other.ending = self.ending
        other.result = self.result
        other.events_applied = self.events_applied
        return other
