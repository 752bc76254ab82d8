"""A game told in words: one readable line per event, for logs and replays, in English
or in any language a :class:`Language` speaks (the platform passes Django's translation
functions, so the move log is narrated in the reader's language).

:func:`describe` needs only the event, the ruleset (for the kind of every card) and
the seat names, so it can tell a redacted record as well as a full one: a card a
perspective may not see is "a card". Fields are counted from 1, as players count them
("in field 1" is the first), where events number them from 0.

Every sentence is one whole message with named placeholders, so that a translation
can order the words as its language needs (Hungarian and Finnish put the verb and the
bean where English would not). Bean names come whole from the catalogue, in two forms:
after "1" and after other numbers (English "beans", Finnish partitive "papua",
Hungarian keeps the singular after a number).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Protocol

from bohnanza_core.cards import BeanKind, Card, deck_kinds
from bohnanza_core.commands import seat_of
from bohnanza_core.engine import command_for
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
    GameStopped,
    Handover,
    OfferAccepted,
    OfferDeclined,
    OfferMade,
    OfferVoided,
    OfferWithdrawn,
    PhaseStarted,
    PlantingEnded,
    SeatHandedToBot,
    StopReason,
    ThirdFieldBought,
    TradingEnded,
    TurnEnded,
    TurnStarted,
)
from bohnanza_core.rulesets import Ruleset, TieBreak
from bohnanza_core.state import Phase

CLOCK = "clock"
"""The record's actor of a move the clock played at its deadline (``play.driver``)."""

ABSENCE = "absence"
"""The record's actor of a move the absence rule played (a seat handed to its bot)."""

MACHINE_ACTORS = frozenset({CLOCK, ABSENCE})
"""Actors that play a seat's move for it: their moves are told as theirs."""


def command_seat(event: Event) -> int | None:
    """The seat whose command ``event`` opens, if it opens one."""
    if isinstance(event, SeatHandedToBot):
        return event.seat
    command = command_for(event)
    return None if command is None else seat_of(command)


class Language(Protocol):
    """The four gettext functions a narration needs; Django's
    ``django.utils.translation`` module is one, :data:`ENGLISH` another."""

    def gettext(self, message: str, /) -> str: ...

    def ngettext(self, singular: str, plural: str, number: int, /) -> str: ...

    def pgettext(self, context: str, message: str, /) -> str: ...

    def npgettext(self, context: str, singular: str, plural: str, number: int, /) -> str: ...


class _English:
    """The messages as written: the engine's own language, without any catalogue."""

    def gettext(self, message: str, /) -> str:
        return message

    def ngettext(self, singular: str, plural: str, number: int, /) -> str:
        return singular if number == 1 else plural

    def pgettext(self, context: str, message: str, /) -> str:
        return message

    def npgettext(self, context: str, singular: str, plural: str, number: int, /) -> str:
        return singular if number == 1 else plural


ENGLISH: Language = _English()


def bean_name(kind: BeanKind, count: int = 1, lang: Language = ENGLISH) -> str:
    """The kind's name as printed on the card ("Chili bean"), in the form that follows
    ``count`` ("Chili beans" after 2). One literal call per kind, so the message
    extractor finds every name (context "bean")."""
    match kind:
        case BeanKind.COFFEE:
            return lang.npgettext("bean", "Coffee bean", "Coffee beans", count)
        case BeanKind.WAX:
            return lang.npgettext("bean", "Wax bean", "Wax beans", count)
        case BeanKind.BLUE:
            return lang.npgettext("bean", "Blue bean", "Blue beans", count)
        case BeanKind.CHILI:
            return lang.npgettext("bean", "Chili bean", "Chili beans", count)
        case BeanKind.STINK:
            return lang.npgettext("bean", "Stink bean", "Stink beans", count)
        case BeanKind.GREEN:
            return lang.npgettext("bean", "Green bean", "Green beans", count)
        case BeanKind.SOY:
            return lang.npgettext("bean", "Soy bean", "Soy beans", count)
        case BeanKind.BLACK_EYED:
            return lang.npgettext("bean", "Black-eyed bean", "Black-eyed beans", count)
        case BeanKind.RED:
            return lang.npgettext("bean", "Red bean", "Red beans", count)
        case BeanKind.GARDEN:
            return lang.npgettext("bean", "Garden bean", "Garden beans", count)
        case BeanKind.COCOA:
            return lang.npgettext("bean", "Cocoa bean", "Cocoa beans", count)


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def beans(kind: BeanKind, count: int, lang: Language = ENGLISH) -> str:
    """ "1 Soy bean", "4 Blue beans"; Hungarian "4 kékbab", Finnish "4 sinipapua"."""
    return lang.gettext("{count} {beans}").format(count=count,
                                                   beans=bean_name(kind, count, lang))


def a_bean(kind: BeanKind | None, lang: Language = ENGLISH) -> str:
    """ "a Chili bean", or "a card" when the kind is hidden. """
    if kind is None:
        return lang.gettext("a card")
    return lang.gettext("a {bean}").format(bean=bean_name(kind, 1, lang))


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def coins(n: int, lang: Language = ENGLISH) -> str:
    return lang.ngettext("{n} coin", "{n} coins", n).format(n=n)


def tie_break_text(tie_break: TieBreak, lang: Language = ENGLISH) -> str:
    """How a tie was broken, in words."""
    match tie_break:
        case TieBreak.MOST_CARDS_IN_HAND:
            return lang.gettext("more cards in hand")
        case TieBreak.FURTHEST_CLOCKWISE:
            return lang.gettext("seated furthest clockwise from the starting player")
        case TieBreak.SHARED:
            return lang.gettext("shared win")


def stop_reason_text(reason: StopReason, lang: Language = ENGLISH) -> str:
    """Why the platform stopped a game, in words."""
    match reason:
        case StopReason.DEADLINE:
            return lang.gettext("the fixture's deadline passed")
        case StopReason.ABANDONED:
            return lang.gettext("every player left the table")
        case StopReason.RULING:
            return lang.gettext("an arbiter's ruling")


def phase_name(phase: Phase, lang: Language = ENGLISH) -> str:
    """The phase as the table's status line names it."""
    match phase:
        case Phase.DEALING:
            return lang.pgettext("phase", "dealing")
        case Phase.BETWEEN_TURNS:
            return lang.pgettext("phase", "between turns")
        case Phase.PLANTING_LEFTOVERS:
            return lang.pgettext("phase", "planting the opponent's leftovers")
        case Phase.PLANTING:
            return lang.pgettext("phase", "planting from the hand")
        case Phase.TURNING_OVER:
            return lang.pgettext("phase", "turning over")
        case Phase.TRADING:
            return lang.pgettext("phase", "trading")
        case Phase.PLANTING_RECEIVED:
            return lang.pgettext("phase", "planting turned-over and traded beans")
        case Phase.DRAWING:
            return lang.pgettext("phase", "drawing")
        case Phase.FINAL_HARVEST:
            return lang.pgettext("phase", "final harvest")
        case Phase.GAME_OVER:
            return lang.pgettext("phase", "game over")


class Narrator:
    """Describes the events of one table: its ruleset's cards and its seats."""

    def __init__(self, ruleset: Ruleset, seats: Sequence[str],
                 lang: Language = ENGLISH) -> None:
        self.ruleset = ruleset
        self.seats = tuple(seats)
        self.kinds = deck_kinds(ruleset.beans)
        self.lang = lang

    def kind(self, card: Card | None) -> BeanKind | None:
        return None if card is None else self.kinds[card]

    def cards(self, cards: Iterable[Card]) -> str:
        """Cards grouped by kind in order of first appearance: "2 Soy beans, 1 Red bean"."""
        counts: dict[BeanKind, int] = {}
        for card in cards:
            counts[self.kinds[card]] = counts.get(self.kinds[card], 0) + 1
        listed = ", ".join(beans(kind, n, self.lang) for kind, n in counts.items())
        return listed or self.lang.gettext("nothing")

    def describe_all(self, events: Sequence[Event],
                     actors: Sequence[str | None] = ()) -> list[tuple[str, bool]]:
        """A line for each of ``events`` and whether a log folds it away: the deal is
        told in one line per seat. In a run of :class:`CardDealt` (the deal goes round
        the table a card at a time), a seat's last card tells "ann is dealt 5 cards:
        ..." and its other cards are folded (logs keep a line per event, to number and
        step by, and hide the folded ones). ``actors``: each event's actor in the
        record, where known (:meth:`describe`)."""
        lines = [(self.describe(event, actors[at] if at < len(actors) else None), False)
                 for at, event in enumerate(events)]
        start = 0
        while start < len(events):
            if not isinstance(events[start], CardDealt):
                start += 1
                continue
            end = start
            while end < len(events) and isinstance(events[end], CardDealt):
                end += 1
            dealt: dict[int, list[int]] = {}
            for at in range(start, end):
                event = events[at]
                assert isinstance(event, CardDealt)
                dealt.setdefault(event.seat, []).append(at)
            for seat, places in dealt.items():
                for at in places[:-1]:
                    lines[at] = (lines[at][0], True)
                lines[places[-1]] = (self._dealt(seat, [events[at] for at in places]), False)
            start = end
        return lines

    def _dealt(self, seat: int, events: Sequence[Event]) -> str:
        cards = [event.card for event in events if isinstance(event, CardDealt)]
        n, name = len(cards), self.seats[seat]
        if any(card is None for card in cards):
            return self.lang.ngettext("{seat} is dealt {n} card", "{seat} is dealt {n} cards",
                                      n).format(seat=name, n=n)
        kinds = ", ".join(bean_name(self.kinds[card], 1, self.lang) for card in cards
                          if card is not None)
        return self.lang.ngettext("{seat} is dealt {n} card: {cards}",
                                  "{seat} is dealt {n} cards: {cards}", n
                                  ).format(seat=name, n=n, cards=kinds)

    def _phase(self, phase: Phase) -> str:
        _ = self.lang.gettext
        match phase:
            case Phase.TRADING:
                return _("Trading begins")
            case Phase.PLANTING_RECEIVED:
                return _("Time to plant the turned-over and traded beans")
            case Phase.DRAWING:
                return _("Drawing new cards")
            case Phase.FINAL_HARVEST:
                return _("The final harvest: every field is sold")
        return _("Phase: {phase}").format(phase=phase_name(phase, self.lang))

    def describe(self, event: Event, actor: str | None = None) -> str:
        """One line for ``event``; ``actor``, the record's actor of the entry (set on the
        event that opens a command): a move the clock or the absence rule played is
        told as theirs, not as the seat's own."""
        line = self._describe(event)
        if actor not in MACHINE_ACTORS:
            return line
        mover = command_seat(event)
        if mover is None or not 0 <= mover < len(self.seats):
            return line
        if actor == CLOCK:
            return self.lang.gettext("The clock plays for {seat}: {move}").format(
                seat=self.seats[mover], move=line)
        if isinstance(event, SeatHandedToBot):  # told as the absence rule's already
            return line
        return self.lang.gettext("The absence rule plays for {seat}: {move}").format(
            seat=self.seats[mover], move=line)

    def _describe(self, event: Event) -> str:
        seat = self.seats.__getitem__
        lang = self.lang
        _ = lang.gettext
        match event:
            case GameStarted():
                return _("A game of {ruleset} begins: {seats}; seed commitment {commitment}"
                         ).format(ruleset=event.ruleset.name, seats=", ".join(event.seats),
                                  commitment=event.seed_commitment[:12])
            case DeckShuffled():
                return _("The deck of {cards} cards is shuffled").format(
                    cards=self.ruleset.deck_size)
            case CardDealt():
                kind = self.kind(event.card)
                if kind is None:
                    return _("{seat} is dealt a card").format(seat=seat(event.seat))
                return _("{seat} is dealt {bean}").format(seat=seat(event.seat),
                                                          bean=a_bean(kind, lang))
            case TurnStarted():
                return _("Turn {turn}: {seat}'s turn").format(turn=event.turn,
                                                              seat=seat(event.seat))
            case BeanPlanted():
                source = {
                    CardSource.HAND: _("from hand"),
                    CardSource.FACE_UP: _("face up"),
                    CardSource.TRADE_AREA: _("received in trade"),
                }[event.source]
                return _("{seat} plants {bean} in field {field} ({source})").format(
                    seat=seat(event.seat), bean=a_bean(self.kinds[event.card], lang),
                    field=event.field + 1, source=source)
            case PlantingEnded():
                return _("{seat} ends planting").format(seat=seat(event.seat))
            case CardTurnedOver():
                return _upper_first(_("{bean} is turned over").format(
                    bean=a_bean(self.kinds[event.card], lang)))
            case CardTakenFromDiscard():
                return _upper_first(_("{bean} from the discard pile joins the face-up cards"
                                      ).format(bean=a_bean(self.kinds[event.card], lang)))
            case PhaseStarted():
                return self._phase(event.phase)
            case OfferMade():
                to = (_("everyone") if event.counterparty is None
                      else seat(event.counterparty))
                wants = ", ".join(beans(kind, n, lang) for kind, n in event.wants)
                if not event.wants:
                    what = _("a gift of {cards}").format(cards=self.cards(event.gives))
                elif not event.gives:
                    what = _("nothing for {wants}").format(wants=wants)
                else:
                    what = _("{gives} for {wants}").format(gives=self.cards(event.gives),
                                                           wants=wants)
                return _("{seat} offers {to}: {what} (offer {offer})").format(
                    seat=seat(event.proposer), to=to, what=what, offer=event.offer)
            case OfferAccepted():
                if event.cards:
                    return _("{seat} accepts offer {offer}, giving {cards}").format(
                        seat=seat(event.seat), offer=event.offer,
                        cards=self.cards(event.cards))
                return _("{seat} accepts offer {offer}").format(seat=seat(event.seat),
                                                                offer=event.offer)
            case OfferDeclined():
                return _("{seat} declines offer {offer}").format(seat=seat(event.seat),
                                                                 offer=event.offer)
            case OfferWithdrawn():
                return _("{seat} withdraws offer {offer}").format(seat=seat(event.seat),
                                                                  offer=event.offer)
            case OfferVoided():
                return _("Offer {offer} is void: its cards have been traded").format(
                    offer=event.offer)
            case TradingEnded():
                return _("{seat} ends trading").format(seat=seat(event.seat))
            case FieldHarvested():
                message = (_("At the end, {seat} harvests {beans} from field {field} for "
                             "{coins}") if event.final else
                           _("{seat} harvests {beans} from field {field} for {coins}"))
                return message.format(seat=seat(event.seat),
                                      beans=beans(event.kind, event.beans, lang),
                                      field=event.field + 1, coins=coins(event.coins, lang))
            case ThirdFieldBought():
                return _("{seat} buys a third field for {coins}").format(
                    seat=seat(event.seat), coins=coins(event.cost, lang))
            case CardDiscarded():
                message = (_("{seat} discards {bean} (from hand)")
                           if event.source is CardSource.HAND
                           else _("{seat} discards {bean} (left face up)"))
                return message.format(seat=seat(event.seat),
                                      bean=a_bean(self.kinds[event.card], lang))
            case CardDrawn():
                kind = self.kind(event.card)
                if kind is None:
                    return _("{seat} draws a card").format(seat=seat(event.seat))
                return _("{seat} draws {bean}").format(seat=seat(event.seat),
                                                       bean=a_bean(kind, lang))
            case DrawPileRanOut():
                # {ordinal} is English's "2nd"; other languages may write {times} ("2."),
                # so the catalogue's format check is off for these three.
                message = {
                    # xgettext:no-python-brace-format
                    GameEnd.NOT_YET: _("The draw pile runs out ({ordinal} time)"),
                    # xgettext:no-python-brace-format
                    GameEnd.AFTER_THIS_TURN: _("The draw pile runs out ({ordinal} time); "
                                               "the game ends after this turn"),
                    # xgettext:no-python-brace-format
                    GameEnd.NOW: _("The draw pile runs out ({ordinal} time); the game ends "
                                   "now"),
                }[event.game_end]
                return message.format(ordinal=ordinal(event.times), times=event.times)
            case DiscardPileReshuffled():
                return _("The discard pile is reshuffled into {cards} cards").format(
                    cards=event.cards)
            case TurnEnded():
                return _("{seat}'s turn ends").format(seat=seat(event.seat))
            case SeatHandedToBot():
                message = (_("{seat} left; the {bot} bot plays the seat")
                           if event.reason is Handover.LEFT else
                           _("{seat} stayed away too long; the {bot} bot plays the seat"))
                return message.format(seat=seat(event.seat), bot=event.bot)
            case GameEnded():
                scores = ", ".join(
                    f"{name} {n}" for name, n in zip(self.seats, event.coins, strict=True)
                )
                names = [seat(s) for s in event.winners]
                if len(names) == 1:
                    verdict = _("{name} wins").format(name=names[0])
                else:
                    verdict = _("{names} share the win").format(
                        names=_(" and ").join(names))
                if event.tie_break is TieBreak.SHARED and len(names) > 1:
                    verdict = _("{verdict} (the tie stands)").format(verdict=verdict)
                elif event.tie_break is not None and len(names) > 1:
                    verdict = _("{verdict} (the tie stands: {tie_break} did not separate "
                                "them)").format(
                        verdict=verdict, tie_break=tie_break_text(event.tie_break, lang))
                elif event.tie_break is not None:
                    verdict = _("{verdict} (tie broken by: {tie_break})").format(
                        verdict=verdict, tie_break=tie_break_text(event.tie_break, lang))
                return _("Game over: {scores}. {verdict}; the seed was {seed}").format(
                    scores=scores, verdict=verdict, seed=repr(event.seed))
            case GameStopped():
                scores = ", ".join(
                    f"{name} {n}" for name, n in zip(self.seats, event.coins, strict=True)
                )
                names = [seat(s) for s in event.winners]
                verdict = (_("{name} wins").format(name=names[0]) if len(names) == 1 else
                           _("{names} share the win").format(names=_(" and ").join(names)))
                return _("The platform stops the game ({reason}): {scores}. {verdict}; "
                         "the seed was {seed}").format(
                    reason=stop_reason_text(event.reason, lang), scores=scores,
                    verdict=verdict, seed=repr(event.seed))
        return type(event).__name__


def describe(event: Event, ruleset: Ruleset, seats: Sequence[str],
             lang: Language = ENGLISH, actor: str | None = None) -> str:
    """One readable line for ``event`` at a table of ``ruleset`` with ``seats``."""
    return Narrator(ruleset, seats, lang).describe(event, actor)


def narrate(events: Iterable[Event], lang: Language = ENGLISH,
            actors: Iterable[str | None] | None = None) -> Iterator[str]:
    """Every event of a game as a line; the first must be its :class:`GameStarted`.
    ``actors``: each event's actor from the record (an export's entries), so that the
    clock's moves are told as the clock's."""
    narrator: Narrator | None = None
    who = iter(actors) if actors is not None else None
    for event in events:
        actor = next(who, None) if who is not None else None
        if narrator is None:
            if not isinstance(event, GameStarted):
                raise ValueError("a game's story begins with GameStarted")
            narrator = Narrator(event.ruleset, event.seats, lang)
        yield narrator.describe(event, actor)
