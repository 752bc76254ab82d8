"""The ``heuristic`` bot: plants, harvests, trades, gives and buys with some sense.

Its one yardstick is :func:`~bohnanza_core.bots.fields.potential`: the coins a
field is on its way to. A bean is worth what it adds to a field's potential; a bean
that fits no field costs a harvest (the progress thrown away) and a tempo. With
that it

- harvests a field as soon as it reaches the beanometer's top step, and when forced
  harvests the field that throws away least (keeping kinds it is about to plant),
  before planting what fits if a bean that fits nowhere is coming (so that no lone
  bean falls under bean protection and leaves only a good field to sell);
- plants the optional second hand card when it fits without a harvest;
- as the active player offers turned-over cards and awkward front hand cards it
  cannot use to players growing those kinds, for a bean of a kind it grows, then as
  a gift rather than harvest a good field; ends trading when nothing is left to try;
- as another player asks the active player for turned-over beans it grows, paying
  with awkward hand cards, and accepts any offer that leaves it better off;
- buys the third field when it can pay and enough turns are left to use it;
- in the duel, discards an awkward hand card, plants or discards the leftovers it
  is handed, and leaves face-up cards it cannot use to the opponent.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import ClassVar, Final

from mypy_extensions import mypyc_attr

from bohnanza_core.bots.base import Bot
from bohnanza_core.bots.fields import (
    Field,
    at_top,
    farm,
    field_for,
    group_size,
    growth,
    harvest_loss,
    harvestable,
    matching_field,
    misfits,
    potential,
)
from bohnanza_core.cards import BeanKind, Card, coins_for
from bohnanza_core.commands import (
    AcceptOffer,
    BuyThirdField,
    Command,
    DeclineOffer,
    DiscardCard,
    EndPlanting,
    EndTrading,
    Harvest,
    MakeOffer,
    PlantCard,
    PlantFromHand,
)
from bohnanza_core.seatview import SeatView
from bohnanza_core.state import Offer, Phase

MISFIT_PENALTY = 0.6
"""Beyond the progress it throws away, what a forced harvest costs: a tempo."""
NEW_FIELD_COST = 0.15
"""Taking an empty field for a new kind uses up room the next beans may need."""
ACCEPT_MARGIN = 0.05
"""A trade must leave the bot at least this much better off."""
GIFT_MARGIN = 0.4
"""Giving beans away for nothing only to spare at least this much."""
KEEP_WEIGHT = 0.6
"""Harvesting a field of a kind about to be planted counts this much worse."""
COIN_WEIGHT = 0.05
"""Among harvests throwing away as much, prefer the one paying more by this much a coin."""
OFFERS_PER_TURN = 4
BUY_TURNS_LEFT = 4
"""Buy the third field only with at least this many of one's own turns to come."""
BUY_PAYBACK = 2.0
"""... and only if, earning as so far, those turns bring this many times its price."""
LEAVE_HARVEST_LOSS = 0.35
"""Duel: harvest to plant a face-up bean the opponent grows if it throws away no more."""

_Terms = tuple[tuple[Card, ...], tuple[tuple[BeanKind, int], ...], int | None]
"""What an offer says: the cards given, the beans wanted, to whom (None: anyone)."""


def load_value(fields: list[Field], kinds: list[BeanKind]) -> float:
    """What planting ``kinds`` (all of them, as phase 3 demands) adds to ``fields``:
    growth of fields of their kind, new fields in empty ones (largest groups first),
    and forced harvests for the rest."""
    if not kinds:
        return 0.0
    plot = list(fields)
    value = 0.0
    rest: list[tuple[int, BeanKind]] = []
    # Each kind once, in the order it first comes (the order the value is summed in).
    for first in range(len(kinds)):
        count = group_size(kinds, first)
        if not count:
            continue
        kind = kinds[first]
        index = matching_field(plot, kind)
        if index is None:
            rest.append((count, kind))
            continue
        beans = plot[index][1]
        value += growth(kind, beans, count)
        plot[index] = (kind, beans + count)
    if len(rest) > 1:
        rest.sort(reverse=True)
    for count, kind in rest:
        target = _empty_field(plot)
        if target is not None:
            value += potential(kind, count) - NEW_FIELD_COST
        else:
            target, loss = _cheapest_harvest(plot)
            value += potential(kind, count) - loss - MISFIT_PENALTY
        plot[target] = (kind, count)
    return value


def _empty_field(plot: list[Field]) -> int | None:
    """The first empty field, or None."""
    for index in range(len(plot)):
        if plot[index][0] is None:
            return index
    return None


_NO_HARVEST: Final = float("inf")
"""Worse than any harvest (a constant: compiled, ``float("inf")`` parses the string
at every call)."""


def _cheapest_harvest(plot: list[Field]) -> tuple[int, float]:
    best, best_loss = 0, _NO_HARVEST
    for index in range(len(plot)):
        kind, beans = plot[index]
        if kind is not None:
            loss = harvest_loss(kind, beans)
            if loss < best_loss:
                best, best_loss = index, loss
    return best, best_loss


def _without(kinds: list[BeanKind], kind: BeanKind) -> list[BeanKind]:
    """``kinds`` less one bean of ``kind``."""
    rest = list(kinds)
    rest.remove(kind)
    return rest


@mypyc_attr(allow_interpreted_subclasses=True)  # tests and installed bots subclass it
class HeuristicBot(Bot):
    name: ClassVar[str] = "heuristic"

    def __init__(self, seat: int, seed: str) -> None:
        super().__init__(seat, seed)
        self._turn = -1
        # The offers made this turn, by what they say (a tuple hashes in C; the
        # command's dataclass hash and equality are interpreted Python).
        self._tried: set[_Terms] = set()
        self._proposed = False
        self._holdings: _Holdings | None = None
        self._countered: set[int] = set()  # the offers countered this turn, by number

    # -- dispatch ------------------------------------------------------------------

    def act(self, view: SeatView) -> Command | None:
        seat = self.seat
        self._new_turn(view)
        fields = farm(view, seat)
        for index, (kind, beans) in enumerate(fields):
            if kind is not None and at_top(kind, beans) and view.may_harvest(seat, index):
                return Harvest(seat=seat, field=index)
        if self._should_buy(view):
            return BuyThirdField(seat=seat)
        phase = view.phase
        if phase is Phase.PLANTING:
            return self._plant_from_hand(view, fields)
        if phase is Phase.TRADING:
            return self._trade(view, fields)
        if phase is Phase.PLANTING_RECEIVED:
            cards = view.trade_area(seat)
            if cards:
                return self._plant(view, fields, cards, optional=False)
            if seat == view.active and view.face_up:
                optional = view.rules.leftover_offered
                return self._plant(view, fields, view.face_up, optional=optional)
            return None
        if phase is Phase.PLANTING_LEFTOVERS:
            return self._plant_leftovers(view, fields)
        return None

    def _new_turn(self, view: SeatView) -> None:
        """Forget the last turn's offers, proposal, counter-offers and holdings."""
        if view.turn != self._turn:
            self._turn = view.turn
            self._tried = set()
            self._proposed = False
            self._holdings = None
            self._countered = set()

    def counter(self, view: SeatView, offer: Offer) -> MakeOffer | None:
        """Terms this player would trade on instead of ``offer``, one it declines,
        offered back to its proposer: the beans offered for fewer of the beans wanted
        (the cheapest cut that leaves it better off), else for all of them with one more
        bean of the kind it most wants. Once per offer; None when no such terms leave it
        better off, or the offer is not one for it to answer."""
        self._new_turn(view)
        seat = self.seat
        if (view.phase is not Phase.TRADING or offer.number in self._countered
                or not self._may_answer(view, offer) or view.trade_area(seat)):
            return None
        self._countered.add(offer.number)
        fields = farm(view, seat)
        mine = self._holdings_now(view, fields)
        get = [view.kind(card) for card in offer.gives]
        best: tuple[float, tuple[Card, ...]] | None = None
        for fewer in _fewer(offer.wants):
            cards = mine.payment(fewer)
            if cards is None or not (cards or get):
                continue
            gain = mine.gain(cards, get)
            if gain > ACCEPT_MARGIN and (best is None or gain > best[0]):
                best = (gain, cards)
        if best is not None:
            return self._new_terms(view, (best[1], _counted(get), offer.proposer))
        wanted = _best_wanted(fields)
        cards = mine.payment(offer.wants)
        if wanted is not None and cards is not None and mine.gain(
                cards, [*get, wanted]) > ACCEPT_MARGIN:
            return self._new_terms(view, (cards, _counted([*get, wanted]), offer.proposer))
        return None

    def _new_terms(self, view: SeatView, terms: _Terms) -> MakeOffer | None:
        """An offer of ``terms``, unless this player made the same this turn or has it
        open (a counter-offer that repeats one's own open offer says nothing new)."""
        gives, wants, to = terms
        seat = self.seat
        if terms in self._tried or self._still_open(view, gives, wants, to):
            return None
        self._tried.add(terms)
        return MakeOffer(seat=seat, gives=gives, wants=wants, to=to)

    # -- fields and harvests -------------------------------------------------------

    def _turns_left(self, view: SeatView) -> float:
        """A rough count of this player's own turns still to come."""
        r = view.rules
        if view.ending:
            return 0.0
        piles_to_come = max(0, r.ends_on_run_out - view.runs_out - 1)
        pile = max(len(view.discard_pile), r.deck_size // 3)
        cards = view.draw_pile_size + piles_to_come * pile
        return cards / (r.face_up_cards + r.draw_cards) / len(view.seats)

    def _should_buy(self, view: SeatView) -> bool:
        seat, r = self.seat, view.rules
        cost = r.third_field_cost
        if cost is None or view.coins(seat) < cost:  # the usual answer, found fast
            return False
        return (
            not view.third_field_bought(seat)
            and view.field_count(seat) < r.max_fields
            and view.phase is not Phase.FINAL_HARVEST
            and self._turns_left(view) >= BUY_TURNS_LEFT
            and self._turns_left(view) * self._earnings(view) >= BUY_PAYBACK * cost
        )

    def _earnings(self, view: SeatView) -> float:
        """Coins this player has earned per own turn so far."""
        own_turns = max(1.0, view.turn / len(view.seats))
        return view.coins(self.seat) / own_turns

    def _harvest(self, view: SeatView, fields: list[Field], keep: set[BeanKind],
                 among: list[int] | None = None) -> Command:
        """Harvest the field (of ``among``, default: any allowed) that throws away
        least, sparing kinds about to be planted."""
        best, best_score = 0, _NO_HARVEST
        for index in harvestable(view, self.seat, fields) if among is None else among:
            kind, beans = fields[index]
            assert kind is not None
            score = harvest_loss(kind, beans) - COIN_WEIGHT * coins_for(kind, beans)
            if kind in keep:
                score += KEEP_WEIGHT
            if score < best_score:
                best, best_score = index, score
        return Harvest(seat=self.seat, field=best)

    # -- phase 1 ---------------------------------------------------------------------

    def _plant_from_hand(self, view: SeatView, fields: list[Field]) -> Command:
        seat, r = self.seat, view.rules
        hand = view.hand()
        planted = view.planted_this_turn
        if planted >= r.planting_from_hand or not hand:
            return self._discard_or_end(view, fields, hand)
        front = view.kind(hand[0])
        if planted == 0:
            index = field_for(fields, front)
            if index is None:
                return self._harvest(view, fields, {view.kind(c) for c in hand[1:3]})
            return PlantFromHand(seat=seat, field=index)
        index = field_for(fields, front)
        if index is not None:
            return PlantFromHand(seat=seat, field=index)
        return self._discard_or_end(view, fields, hand)

    def _discard_or_end(self, view: SeatView, fields: list[Field],
                        hand: Sequence[Card]) -> Command:
        """Duel: discard the most awkward hand card if one is awkward at all."""
        seat = self.seat
        if view.rules.discard_from_hand_after_planting and hand:
            kinds = [view.kind(card) for card in hand]
            values = [hand_value(fields, kinds, p) for p in range(len(hand))]
            worst = min(range(len(hand)), key=values.__getitem__)
            if values[worst] < 0:
                return DiscardCard(seat=seat, card=hand[worst])
        return EndPlanting(seat=seat)

    # -- phase 3 and the duel's leftovers ---------------------------------------------

    def _plant(self, view: SeatView, fields: list[Field], cards: Sequence[Card],
               optional: bool) -> Command:
        """Plant one of ``cards``: into a field of its kind first, then the largest
        group into an empty field, then harvest to make room, or (when planting is
        optional) leave the rest."""
        seat = self.seat
        kinds = [view.kind(card) for card in cards]
        if not optional and misfits(fields, kinds):
            # Harvest before planting what fits: planting first may put a lone bean
            # under bean protection and leave only a good field to sell.
            keep = set(kinds) | self._next_kinds(view)
            options = [i for i in harvestable(view, seat, fields) if fields[i][0] not in keep]
            if options:
                return self._harvest(view, fields, keep, options)
        for position, kind in enumerate(kinds):
            index = matching_field(fields, kind)
            if index is not None:
                return PlantCard(seat=seat, card=cards[position], field=index)
        empty = _empty_field(fields)
        if empty is not None:
            card = _most_common(cards, kinds)
            if not optional or self._worth_a_field(view, fields, view.kind(card), kinds):
                return PlantCard(seat=seat, card=card, field=empty)
        if optional:
            if empty is None and self._spite_harvest(view, fields, kinds):
                return self._harvest(view, fields, set())
            return EndPlanting(seat=seat)
        return self._harvest(view, fields, set(kinds) | self._next_kinds(view))

    def _spite_harvest(self, view: SeatView, fields: list[Field],
                       kinds: list[BeanKind]) -> bool:
        """Duel: harvest to plant a face-up bean rather than leave it to an opponent
        who grows its kind, when that harvest throws away little."""
        seat = self.seat
        opponent_grows = any(
            matching_field(farm(view, other), kind) is not None
            for other in range(len(view.seats)) if other != seat for kind in kinds
        )
        if not opponent_grows:
            return False
        losses = []
        for index in harvestable(view, seat, fields):
            kind, beans = fields[index]
            if kind is not None:
                losses.append(harvest_loss(kind, beans))
        return bool(losses) and min(losses) <= LEAVE_HARVEST_LOSS

    def _next_kinds(self, view: SeatView) -> set[BeanKind]:
        """The kinds of the two front hand cards: the next ones to plant."""
        return {view.kind(card) for card in view.hand()[:2]}

    def _worth_a_field(self, view: SeatView, fields: list[Field], kind: BeanKind,
                       kinds: list[BeanKind]) -> bool:
        """Duel: fill an empty field with ``kind`` unless the front hand card needs it."""
        hand = view.hand()
        if not hand:
            return True
        front = view.kind(hand[0])
        return front is kind or matching_field(fields, front) is not None or kinds.count(kind) > 1

    def _plant_leftovers(self, view: SeatView, fields: list[Field]) -> Command:
        """Duel step 1: plant the opponent's leftovers that fit, discard the rest."""
        seat = self.seat
        face_up = view.face_up
        kinds = [view.kind(card) for card in face_up]
        for position, kind in enumerate(kinds):
            index = matching_field(fields, kind)
            if index is not None:
                return PlantCard(seat=seat, card=face_up[position], field=index)
        empty = _empty_field(fields)
        if empty is not None:
            card = _most_common(face_up, kinds)
            if self._worth_a_field(view, fields, view.kind(card), kinds):
                return PlantCard(seat=seat, card=card, field=empty)
        return DiscardCard(seat=seat, card=face_up[0])

    # -- phase 2: trading --------------------------------------------------------------

    def _trade(self, view: SeatView, fields: list[Field]) -> Command | None:
        seat = self.seat
        area = view.trade_area(seat)
        if area and view.rules.received_at_once:
            return self._plant(view, fields, area, optional=False)
        mine = [o for o in view.offers if self._may_answer(view, o)]
        if mine:
            return self._answer(self._holdings_now(view, fields), mine)
        if seat == view.active:
            if len(self._tried) < OFFERS_PER_TURN:
                for said in self._offers(self._holdings_now(view, fields)):
                    if said not in self._tried and not self._still_open(view, *said):
                        self._tried.add(said)
                        gives, wants, to = said
                        return MakeOffer(seat=seat, gives=gives, wants=wants, to=to)
            return EndTrading(seat=seat)
        if not self._proposed and seat not in view.awaiting:
            self._proposed = True
            return self._proposal(self._holdings_now(view, fields))
        return None

    def _still_open(self, view: SeatView, gives: tuple[Card, ...],
                    wants: tuple[tuple[BeanKind, int], ...], to: int | None) -> bool:
        """Whether an offer of this player's that says the same is still open: to the
        same player (or to all), the same kinds given (which cards of a kind does not
        matter to a reader), the same beans wanted. Making it again says nothing new."""
        seat = self.seat
        kinds = sorted(view.kind(card).value for card in gives)
        for o in view.offers:
            if (o.proposer == seat and o.counterparty == to and tuple(o.wants) == wants
                    and sorted(view.kind(card).value for card in o.gives) == kinds):
                return True
        return False

    def _holdings_now(self, view: SeatView, fields: list[Field]) -> _Holdings:
        """This player's side of a trade now: the last decision's holdings again while
        nothing they are made of has changed this turn (fields, hand, trade area, the
        turned-over cards), since a trading phase asks a player many times (every offer
        to answer, every offer to make) and most asks find them as they were."""
        seat = self.seat
        hand = view.hand()
        face_up = view.face_up if seat == view.active else ()
        area = view.trade_area(seat)
        last = self._holdings
        if (last is not None and last.hand == hand and last.face_up == face_up
                and last.area == area and last.fields == fields):
            last.view = view
            return last
        self._holdings = _Holdings(view, fields, hand, face_up, area)
        return self._holdings

    def _may_answer(self, view: SeatView, offer: Offer) -> bool:
        seat = self.seat
        if offer.proposer == seat or seat in offer.declined_by:
            return False
        if offer.counterparty is None:
            return seat != view.active
        return offer.counterparty == seat

    def _answer(self, mine: _Holdings, offers: list[Offer]) -> Command:
        """Accept the offer that leaves this player best off, if any does; else
        decline one (the others come up again)."""
        best: tuple[float, AcceptOffer] | None = None
        for offer in offers:
            cards = mine.payment(offer.wants)
            if cards is None:
                continue
            gain = mine.gain(cards, [mine.view.kind(c) for c in offer.gives])
            if gain > ACCEPT_MARGIN and (best is None or gain > best[0]):
                best = (gain, AcceptOffer(seat=self.seat, offer=offer.number, cards=cards))
        if best is not None:
            return best[1]
        return DeclineOffer(seat=self.seat, offer=offers[0].number)

    def _offers(self, mine: _Holdings) -> Iterator[_Terms]:
        """The active player's offers, most promising first: unwanted cards to a
        player growing them for a bean it grows, then as a gift, then open gifts.
        Their terms only: the one command made is for the first offer not yet tried."""
        seat, view, fields = self.seat, mine.view, mine.fields
        shed: list[tuple[float, Card]] = []
        for card in mine.face_up:
            gain = mine.shed_gain(view.kind(card))
            if gain > ACCEPT_MARGIN:
                shed.append((gain, card))
        awkward = [mine.hand[p] for p in mine.awkward()]
        unwanted = [card for _, card in shed] + awkward
        if not unwanted:
            return
        giftable = {card for gain, card in shed if gain >= GIFT_MARGIN}
        wanted = _best_wanted(fields)
        players = len(view.seats)
        for step in range(1, players):
            other = (seat + step) % players
            theirs = farm(view, other)
            useful = tuple(c for c in unwanted if field_for(theirs, view.kind(c)) is not None)
            if not useful:
                continue
            if wanted is not None:
                yield useful, ((wanted, 1),), other
            gift = tuple(c for c in useful if c in giftable)
            if gift:
                yield gift, (), other
        if giftable:
            yield tuple(sorted(giftable)), (), None

    def _proposal(self, mine: _Holdings) -> MakeOffer | None:
        """Another player's one proposal per turn: ask for turned-over beans it
        grows, paying with awkward hand cards the active player can use."""
        seat, view, fields = self.seat, mine.view, mine.fields
        active = view.active
        grown: list[BeanKind] = []  # the turned-over beans of kinds it grows, in order
        for card in view.face_up:
            kind = view.kind(card)
            if matching_field(fields, kind) is not None:
                grown.append(kind)
        awkward = mine.awkward()
        if not grown and not awkward:
            return None
        theirs = farm(view, active)
        gives = tuple(
            mine.hand[p] for p in awkward if field_for(theirs, mine.hand_kinds[p]) is not None
        )
        best: tuple[float, tuple[tuple[BeanKind, int], ...]] | None = None
        for first in range(len(grown)):
            count = group_size(grown, first)
            if not count:
                continue
            kind = grown[first]
            gain = mine.gain(gives, [kind] * count)
            if gain > ACCEPT_MARGIN and (best is None or gain > best[0]):
                best = (gain, ((kind, count),))
        if best is not None:
            if self._still_open(view, gives, best[1], active):
                return None
            return MakeOffer(seat=seat, gives=gives, wants=best[1], to=active)
        if (gives and mine.gain(gives, []) > ACCEPT_MARGIN
                and not self._still_open(view, gives, (), active)):
            return MakeOffer(seat=seat, gives=gives, wants=(), to=active)
        return None


def _fewer(wants: Sequence[tuple[BeanKind, int]]
           ) -> Iterator[tuple[tuple[BeanKind, int], ...]]:
    """``wants`` with one bean fewer of one kind, then without one kind, each once."""
    seen: set[tuple[tuple[BeanKind, int], ...]] = set()
    for cut in (1, 0):
        for position, (kind, count) in enumerate(wants):
            left = count - 1 if cut else 0
            fewer = tuple(wants[:position]) + (((kind, left),) if left > 0 else ()) + tuple(
                wants[position + 1:])
            if fewer not in seen:
                seen.add(fewer)
                yield fewer


def _counted(kinds: list[BeanKind]) -> tuple[tuple[BeanKind, int], ...]:
    """``kinds`` as wants: each kind once with its count, in order of first mention."""
    counts: dict[BeanKind, int] = {}
    for kind in kinds:
        counts[kind] = counts.get(kind, 0) + 1
    return tuple(counts.items())


def _most_common(cards: Sequence[Card], kinds: list[BeanKind]) -> Card:
    """The card of the kind most common among ``cards`` (``kinds``, theirs in order),
    the lowest id among equals (a loop rather than ``max`` with a key: no call per card
    in the compiled build)."""
    best, best_count = cards[0], 0
    for position, card in enumerate(cards):
        count = kinds.count(kinds[position])
        if count > best_count or (count == best_count and card < best):
            best, best_count = card, count
    return best


def _best_wanted(fields: list[Field]) -> BeanKind | None:
    """The kind one more bean of which would add most to these fields."""
    best: BeanKind | None = None
    best_gain = 0.0
    for kind, beans in fields:
        if kind is not None:
            gain = growth(kind, beans, 1)
            if gain > best_gain:
                best, best_gain = kind, gain
    return best


def hand_value(fields: list[Field], hand_kinds: list[BeanKind], position: int) -> float:
    """What keeping one hand card is worth: a bean for a field it grows (less the
    further back it sits), a pair in the making, or a nuisance near the front that
    will force a harvest when its turn to be planted comes."""
    kind = hand_kinds[position]
    index = matching_field(fields, kind)
    if index is not None:
        beans = fields[index][1]
        gain = growth(kind, beans, 1)
        weight = 1.0 - 0.1 * position
        return gain * (weight if weight > 0.3 else 0.3)
    # Plain loops (no slice, no generator): compiled, each would be an object a call.
    alike = 0
    for near in range(min(position + 3, len(hand_kinds))):
        if hand_kinds[near] is kind:
            alike += 1
    if alike > 1:
        return 0.3
    if position <= 1:
        for field_kind, _ in fields:
            if field_kind is None:
                return 0.05
        return -0.4
    return 0.05


class _Holdings:
    """One player's side of a trade: its fields, hand, the turned-over cards if it is
    the active player, its trade area, and so what it must plant in phase 3.

    A decision weighs several candidate trades against the same holdings, so what
    does not depend on the candidate is worked out once, when first needed, and
    kept: the value of the load as it stands, each hand card's value, what shedding
    one turned-over bean of a kind spares. All of it follows from the holdings alone,
    so the next decision of the turn keeps it too while they are unchanged
    (:meth:`HeuristicBot._holdings_now`)."""

    __slots__ = ("_base", "_hand_values", "_shed_gains", "area", "face_up", "fields",
                 "hand", "hand_kinds", "load", "view")

    def __init__(self, view: SeatView, fields: list[Field], hand: tuple[Card, ...],
                 face_up: tuple[Card, ...], area: tuple[Card, ...]) -> None:
        self.view = view
        self.fields = fields
        self.hand = hand
        self.hand_kinds = [view.kind(card) for card in hand]
        self.face_up = face_up
        self.area = area
        self.load = [view.kind(card) for card in area + face_up]
        self._base: float | None = None
        self._hand_values: list[float | None] = [None] * len(self.hand)
        self._shed_gains: dict[BeanKind, float] = {}

    @property
    def base(self) -> float:
        """What planting the load as it stands adds to the fields."""
        if self._base is None:
            self._base = load_value(self.fields, self.load)
        return self._base

    def hand_value(self, position: int) -> float:
        """:func:`hand_value` of the hand card at ``position``."""
        value = self._hand_values[position]
        if value is None:
            value = hand_value(self.fields, self.hand_kinds, position)
            self._hand_values[position] = value
        return value

    def awkward(self) -> list[int]:
        """Positions of front hand cards this player would rather be rid of."""
        return [p for p in range(min(2, len(self.hand))) if self.hand_value(p) < 0]

    def shed_gain(self, kind: BeanKind) -> float:
        """What giving away one turned-over bean of ``kind`` spares."""
        gain = self._shed_gains.get(kind)
        if gain is None:
            gain = load_value(self.fields, _without(self.load, kind)) - self.base
            self._shed_gains[kind] = gain
        return gain

    def gain(self, give: Sequence[Card], get: list[BeanKind]) -> float:
        """How much better off giving ``give`` for ``get`` leaves this player."""
        face_up, view = self.face_up, self.view
        load = list(self.load)
        for card in give:
            if card in face_up:
                load.remove(view.kind(card))
        load += get
        gain = load_value(self.fields, load) - self.base
        for card in give:
            if card not in face_up:
                gain -= self.hand_value(self.hand.index(card))
        return gain

    def payment(self, wants: Sequence[tuple[BeanKind, int]]) -> tuple[Card, ...] | None:
        """The cheapest cards that satisfy ``wants``, or None if this player lacks them."""
        view = self.view
        chosen: list[Card] = []
        for kind, count in wants:
            costs: list[tuple[float, Card]] = []
            for card in self.face_up:
                if view.kind(card) is kind:
                    costs.append((-self.shed_gain(kind), card))
            for position in range(len(self.hand)):
                if self.hand_kinds[position] is kind:
                    costs.append((self.hand_value(position), self.hand[position]))
            if len(costs) < count:
                return None
            costs.sort()
            for _, card in costs[:count]:
                chosen.append(card)
        return tuple(chosen)

