"""A game told in words: one readable English line per event, for logs and replays.

:func:`describe` needs only the event, the ruleset (for the kind of every card) and
the seat names, so it can tell a redacted record as well as a full one: a card a
perspective may not see is "a card". Fields are counted from 1, as players count them
("in field 1" is the first), where events number them from 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from bohnanza_core.cards import BeanKind, Card, deck_kinds
from bohnanza_core.events import (
    BeanPlanted,
    CardDealt,
    CardDiscarded,
    CardDrawn,
    CardSource,
    CardTakenFromDiscard,
    CardTurnedOver,
    DeckShuffled,
    DiscardPileReshuffled,
    DrawPileRanOut,
    Event,
    FieldHarvested,
    GameEnd,
    GameEnded,
    GameStarted,
    OfferAccepted,
    OfferDeclined,
    OfferMade,
    OfferVoided,
    OfferWithdrawn,
    PhaseStarted,
    PlantingEnded,
    ThirdFieldBought,
    TradingEnded,
    TurnEnded,
    TurnStarted,
)
from bohnanza_core.rulesets import Ruleset
from bohnanza_core.state import Phase

_PHASES: dict[Phase, str] = {
    Phase.TRADING: "Trading begins",
    Phase.PLANTING_RECEIVED: "Time to plant the turned-over and traded beans",
    Phase.DRAWING: "Drawing new cards",
    Phase.FINAL_HARVEST: "The final harvest: every field is sold",
}


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def beans(kind: BeanKind, count: int) -> str:
    """ "1 Soy bean", "4 Blue beans". """
    return f"{count} {kind.title}{'' if count == 1 else 's'}"


def a_bean(kind: BeanKind | None) -> str:
    """ "a Chili bean", or "a card" when the kind is hidden. """
    if kind is None:
        return "a card"
    article = "an" if kind.title[0] in "AEIOU" else "a"
    return f"{article} {kind.title}"


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def coins(n: int) -> str:
    return f"{n} coin{'' if n == 1 else 's'}"


class Narrator:
    """Describes the events of one table: its ruleset's cards and its seats."""

    def __init__(self, ruleset: Ruleset, seats: Sequence[str]) -> None:
        self.ruleset = ruleset
        self.seats = tuple(seats)
        self.kinds = deck_kinds(ruleset.beans)

    def kind(self, card: Card | None) -> BeanKind | None:
        return None if card is None else self.kinds[card]

    def cards(self, cards: Iterable[Card]) -> str:
        """Cards grouped by kind in order of first appearance: "2 Soy beans, 1 Red bean"."""
        counts: dict[BeanKind, int] = {}
        for card in cards:
            counts[self.kinds[card]] = counts.get(self.kinds[card], 0) + 1
        return ", ".join(beans(kind, n) for kind, n in counts.items()) or "nothing"

    def describe(self, event: Event) -> str:
        seat = self.seats.__getitem__
        match event:
            case GameStarted():
                return (
                    f"A game of {event.ruleset.name} begins: {', '.join(event.seats)}; "
                    f"seed commitment {event.seed_commitment[:12]}"
                )
            case DeckShuffled():
                return f"The deck of {self.ruleset.deck_size} cards is shuffled"
            case CardDealt():
                return f"{seat(event.seat)} is dealt {a_bean(self.kind(event.card))}"
            case TurnStarted():
                return f"Turn {event.turn}: {seat(event.seat)}'s turn"
            case BeanPlanted():
                source = {
                    CardSource.HAND: "from hand",
                    CardSource.FACE_UP: "face up",
                    CardSource.TRADE_AREA: "received in trade",
                }[event.source]
                return (
                    f"{seat(event.seat)} plants {a_bean(self.kinds[event.card])} "
                    f"in field {event.field + 1} ({source})"
                )
            case PlantingEnded():
                return f"{seat(event.seat)} ends planting"
            case CardTurnedOver():
                return f"{_upper_first(a_bean(self.kinds[event.card]))} is turned over"
            case CardTakenFromDiscard():
                return (
                    f"{_upper_first(a_bean(self.kinds[event.card]))} from the discard pile "
                    "joins the face-up cards"
                )
            case PhaseStarted():
                return _PHASES.get(event.phase, f"Phase: {event.phase.value}")
            case OfferMade():
                to = "everyone" if event.counterparty is None else seat(event.counterparty)
                wants = ", ".join(beans(kind, n) for kind, n in event.wants)
                if not event.wants:
                    what = f"a gift of {self.cards(event.gives)}"
                elif not event.gives:
                    what = f"nothing for {wants}"
                else:
                    what = f"{self.cards(event.gives)} for {wants}"
                return f"{seat(event.proposer)} offers {to}: {what} (offer {event.offer})"
            case OfferAccepted():
                paid = f", giving {self.cards(event.cards)}" if event.cards else ""
                return f"{seat(event.seat)} accepts offer {event.offer}{paid}"
            case OfferDeclined():
                return f"{seat(event.seat)} declines offer {event.offer}"
            case OfferWithdrawn():
                return f"{seat(event.seat)} withdraws offer {event.offer}"
            case OfferVoided():
                return f"Offer {event.offer} is void: its cards have been traded"
            case TradingEnded():
                return f"{seat(event.seat)} ends trading"
            case FieldHarvested():
                prefix = "At the end, " if event.final else ""
                return (
                    f"{prefix}{seat(event.seat)} harvests {beans(event.kind, event.beans)} "
                    f"from field {event.field + 1} for {coins(event.coins)}"
                )
            case ThirdFieldBought():
                return f"{seat(event.seat)} buys a third field for {coins(event.cost)}"
            case CardDiscarded():
                where = "from hand" if event.source is CardSource.HAND else "left face up"
                return (
                    f"{seat(event.seat)} discards {a_bean(self.kinds[event.card])} ({where})"
                )
            case CardDrawn():
                return f"{seat(event.seat)} draws {a_bean(self.kind(event.card))}"
            case DrawPileRanOut():
                then = {
                    GameEnd.NOT_YET: "",
                    GameEnd.AFTER_THIS_TURN: "; the game ends after this turn",
                    GameEnd.NOW: "; the game ends now",
                }[event.game_end]
                return f"The draw pile runs out ({ordinal(event.times)} time){then}"
            case DiscardPileReshuffled():
                return f"The discard pile is reshuffled into {event.cards} cards"
            case TurnEnded():
                return f"{seat(event.seat)}'s turn ends"
            case GameEnded():
                scores = ", ".join(
                    f"{name} {n}" for name, n in zip(self.seats, event.coins, strict=True)
                )
                names = [seat(s) for s in event.winners]
                if len(names) == 1:
                    verdict = f"{names[0]} wins"
                else:
                    verdict = f"{' and '.join(names)} share the win"
                if event.tie_break is not None:
                    verdict += f" (tie broken by: {event.tie_break.value})"
                return f"Game over: {scores}. {verdict}; the seed was {event.seed!r}"
        return type(event).__name__


def describe(event: Event, ruleset: Ruleset, seats: Sequence[str]) -> str:
    """One readable line for ``event`` at a table of ``ruleset`` with ``seats``."""
    return Narrator(ruleset, seats).describe(event)


def narrate(events: Iterable[Event]) -> Iterator[str]:
    """Every event of a game as a line; the first must be its :class:`GameStarted`."""
    narrator: Narrator | None = None
    for event in events:
        if narrator is None:
            if not isinstance(event, GameStarted):
                raise ValueError("a game's story begins with GameStarted")
            narrator = Narrator(event.ruleset, event.seats)
        yield narrator.describe(event)
