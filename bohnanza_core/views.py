"""What one perspective may see: a seat, a spectator, or everything.

Hands, the draw pile's order and the seed are secret during a game. Everything that
leaves the engine for a person or a bot is built here: :func:`view` for the table,
:func:`redact` for events. The platform offers the "everything" perspective only for
finished games (and to the server itself).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Final

from bohnanza_core.cards import BeanKind, Card
from bohnanza_core.commands import Command
from bohnanza_core.engine import OfferShape, awaiting, harvest_refusal, legal_commands
from bohnanza_core.events import Event
from bohnanza_core.rulesets import Ruleset, display_name
from bohnanza_core.seatview import SeatView
from bohnanza_core.state import GameState, Offer, Phase, RulesInPlay

Perspective = int
"""A seat number (0, 1, ...), :data:`SPECTATOR` or :data:`EVERYTHING`."""
SPECTATOR: Final[Perspective] = -1
EVERYTHING: Final[Perspective] = -2


def may_see(event: Event, perspective: Perspective) -> bool:
    """True when ``perspective`` may see every field of ``event``."""
    if not event.SECRET or perspective == EVERYTHING:
        return True
    owner = event.OWNER
    return owner is not None and getattr(event, owner) == perspective


def redact(event: Event, perspective: Perspective) -> Event:
    """``event`` as ``perspective`` may see it: secret fields set to None."""
    if may_see(event, perspective):
        return event
    return dataclasses.replace(event, **dict.fromkeys(event.SECRET))


class GameView(SeatView):
    """The table as one perspective sees it: a read-only window onto a live game.

    It reads the game as it is now (valid until the next event); nothing secret is
    reachable through its public API. In-process bots receive one of these; remote
    clients receive :meth:`as_dict`.
    """

    __slots__ = ("__state", "perspective")

    def __init__(self, state: GameState, perspective: Perspective) -> None:
        if perspective not in (SPECTATOR, EVERYTHING) and not 0 <= perspective < state.players:
            raise ValueError(f"no seat {perspective} at this table")
        self.__state = state
        self.perspective = perspective

    # -- the table -----------------------------------------------------------------

    @property
    def ruleset(self) -> Ruleset:
        return self.__state.ruleset

    @property
    def rules(self) -> RulesInPlay:
        return self.__state.rules

    @property
    def seats(self) -> tuple[str, ...]:
        return self.__state.seats

    @property
    def seat(self) -> int | None:
        """The seat this view belongs to, None for a spectator or everything."""
        return self.perspective if self.perspective >= 0 else None

    def bot_of(self, seat: int) -> str | None:
        """The built-in bot that plays ``seat`` since its person left or stayed away
        (events.SeatHandedToBot), or None while its person plays it."""
        return self.__state.seat_bots[seat] or None

    @property
    def phase(self) -> Phase:
        return self.__state.phase

    @property
    def active(self) -> int:
        return self.__state.active

    @property
    def turn(self) -> int:
        return self.__state.turn

    @property
    def planted_this_turn(self) -> int:
        """Cards the active player has planted from the hand this turn."""
        return self.__state.planted

    def kind(self, card: Card) -> BeanKind:
        """Any card's kind (ids are public; which card is where may not be)."""
        return self.__state.kinds[card]

    def hand(self) -> tuple[Card, ...]:
        """This seat's hand, front first."""
        if self.seat is None:
            raise PermissionError("a spectator has no hand")
        return tuple(self.__state.hands[self.seat])

    def hand_of(self, seat: int) -> tuple[Card, ...] | None:
        """A seat's hand if this perspective may see it, else None."""
        if self.perspective in (seat, EVERYTHING):
            return tuple(self.__state.hands[seat])
        return None

    def hand_size(self, seat: int) -> int:
        return len(self.__state.hands[seat])

    def fields(self, seat: int) -> tuple[tuple[Card, ...], ...]:
        return tuple(tuple(f) for f in self.__state.fields[seat])

    def field_kind(self, seat: int, field: int) -> BeanKind | None:
        return self.__state.field_kind(seat, field)

    def field_size(self, seat: int, field: int) -> int:
        return len(self.__state.fields[seat][field])

    def field_summary(self, seat: int) -> list[tuple[BeanKind | None, int]]:
        """Every field of ``seat`` as (kind or None if empty, beans): what a bot
        weighs on nearly every decision, read in one call."""
        kinds = self.__state.kinds
        return [(kinds[f[0]] if f else None, len(f)) for f in self.__state.fields[seat]]

    def field_count(self, seat: int) -> int:
        return len(self.__state.fields[seat])

    def may_harvest(self, seat: int, field: int) -> bool:
        return harvest_refusal(self.__state, seat, field) is None

    def coins(self, seat: int) -> int:
        return len(self.__state.coins[seat])

    def third_field_bought(self, seat: int) -> bool:
        return self.__state.third_field_bought[seat]

    def trade_area(self, seat: int) -> tuple[Card, ...]:
        return tuple(self.__state.trade_areas[seat])

    @property
    def face_up(self) -> tuple[Card, ...]:
        return tuple(self.__state.face_up)

    @property
    def offers(self) -> tuple[Offer, ...]:
        """The open offers, as copies: changing one changes nothing at the table."""
        return tuple(
            Offer(o.number, o.proposer, o.counterparty, o.gives, o.wants, set(o.declined_by))
            for o in self.__state.offers.values()
        )

    @property
    def draw_pile_size(self) -> int:
        return len(self.__state.draw_pile)

    @property
    def discard_pile(self) -> tuple[Card, ...]:
        """Bottom to top; the discard pile is face up."""
        return tuple(self.__state.discard_pile)

    @property
    def out_of_game(self) -> tuple[Card, ...]:
        return tuple(self.__state.out_of_game)

    @property
    def runs_out(self) -> int:
        """How often the draw pile has run out so far."""
        return self.__state.runs_out

    @property
    def ending(self) -> bool:
        """The pile ran out for the last time; the game ends after this turn."""
        return self.__state.ending

    @property
    def awaiting(self) -> tuple[int, ...]:
        return awaiting(self.__state)

    def legal_moves(self) -> list[Command | OfferShape]:
        """What this seat may do now (empty for a spectator or everything). Safe to
        expose: a seat's legal moves depend only on what that seat may see."""
        if self.seat is None:
            return []
        return legal_commands(self.__state, self.seat)

    @property
    def seed_commitment(self) -> str:
        return self.__state.seed_commitment

    @property
    def finished(self) -> bool:
        return self.__state.finished

    # -- for the wire --------------------------------------------------------------

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON for this perspective; secret parts are absent, not masked."""
        s = self.__state
        seats_out = []
        for seat, name in enumerate(s.seats):
            entry: dict[str, Any] = {
                "name": name,
                "hand_size": len(s.hands[seat]),
                "fields": [
                    {"kind": s.field_kind(seat, i), "cards": list(f)}
                    for i, f in enumerate(s.fields[seat])
                ],
                "coins": len(s.coins[seat]),
                "third_field_bought": s.third_field_bought[seat],
                "trade_area": list(s.trade_areas[seat]),
                "bot": s.seat_bots[seat] or None,
            }
            hand = self.hand_of(seat)
            if hand is not None:
                entry["hand"] = list(hand)
            seats_out.append(entry)
        out: dict[str, Any] = {
            "perspective": self.perspective,
            "ruleset": display_name(s.ruleset),
            "phase": s.phase.value,
            "turn": s.turn,
            "active": s.active,
            "awaiting": list(awaiting(s)),
            "seats": seats_out,
            "face_up": list(s.face_up),
            "offers": [
                {
                    "offer": o.number,
                    "proposer": o.proposer,
                    "counterparty": o.counterparty,
                    "gives": list(o.gives),
                    "wants": [[k.value, n] for k, n in o.wants],
                    "declined_by": sorted(o.declined_by),
                }
                for o in s.offers.values()
            ],
            "draw_pile_size": len(s.draw_pile),
            "discard_pile": list(s.discard_pile),
            "out_of_game": list(s.out_of_game),
            "runs_out": s.runs_out,
            "seed_commitment": s.seed_commitment,
            "card_kinds": [k.value for k in s.kinds],
        }
        if s.result is not None:
            out["result"] = {
                "coins": list(s.result.coins),
                "winners": list(s.result.winners),
                "ranks": list(s.result.ranks),
            }
        if self.perspective == EVERYTHING:
            out["draw_pile"] = list(reversed(s.draw_pile))
            out["seed"] = s.seed
        return out


def view(state: GameState, perspective: Perspective) -> GameView:
    """The table as ``perspective`` sees it."""
    return GameView(state, perspective)
