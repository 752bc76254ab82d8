"""The ``nontrading`` bot: a careful farmer who never trades. A baseline.

It declines every offer and ends trading at once, plants the front hand card where
it fits (its own kind, else an empty field, else after harvesting the field that
pays most), plants the second card only when it fits without a harvest, and plants
turned-over and received cards the same way. It never buys a field. Every choice is
cheap: it is the bot the engine benchmark runs at full speed.
"""

from __future__ import annotations

from typing import ClassVar

from mypy_extensions import mypyc_attr

from bohnanza_core.bots.base import Bot
from bohnanza_core.bots.fields import (
    Field,
    farm,
    field_for,
    matching_field,
    richest_harvest,
)
from bohnanza_core.cards import BeanKind, Card
from bohnanza_core.commands import (
    Command,
    DeclineOffer,
    DiscardCard,
    EndPlanting,
    EndTrading,
    Harvest,
    PlantCard,
    PlantFromHand,
)
from bohnanza_core.seatview import SeatView
from bohnanza_core.state import Phase


@mypyc_attr(allow_interpreted_subclasses=True)  # tests and installed bots subclass it
class NonTradingBot(Bot):
    name: ClassVar[str] = "nontrading"

    def act(self, view: SeatView) -> Command | None:
        seat = self.seat
        phase = view.phase
        if phase is Phase.PLANTING:
            return self._plant_from_hand(view)
        if phase is Phase.TRADING:
            area = view.trade_area(seat)
            if area and view.rules.received_at_once:
                return self._plant(view, area, optional=False)
            if seat == view.active:
                return EndTrading(seat=seat)
            for offer in view.offers:
                if offer.proposer != seat and offer.counterparty in (seat, None) and (
                    seat not in offer.declined_by
                ):
                    return DeclineOffer(seat=seat, offer=offer.number)
            return None
        if phase is Phase.PLANTING_RECEIVED:
            cards = view.trade_area(seat)
            if cards:
                return self._plant(view, cards, optional=False)
            if seat == view.active and view.face_up:
                optional = view.rules.leftover_offered
                return self._plant(view, view.face_up, optional=optional)
            return None
        if phase is Phase.PLANTING_LEFTOVERS:
            fields = farm(view, seat)
            face_up = view.face_up
            for card in face_up:
                index = field_for(fields, view.kind(card))
                if index is not None:
                    return PlantCard(seat=seat, card=card, field=index)
            return DiscardCard(seat=seat, card=face_up[0])
        return None

    def _plant_from_hand(self, view: SeatView) -> Command:
        seat = self.seat
        planted = view.planted_this_turn
        if planted >= view.rules.planting_from_hand:
            return EndPlanting(seat=seat)
        fields = farm(view, seat)
        index = field_for(fields, view.kind(view.hand()[0]))
        if index is not None:
            return PlantFromHand(seat=seat, field=index)
        if planted:
            return EndPlanting(seat=seat)
        return self._harvest(view, fields)

    def _plant(self, view: SeatView, cards: tuple[Card, ...], optional: bool) -> Command:
        """One of ``cards`` into its own kind's field, else into an empty field (the
        kind with most cards first), else harvest to make room (unless optional)."""
        seat = self.seat
        fields = farm(view, seat)
        kinds = [view.kind(card) for card in cards]
        for position, kind in enumerate(kinds):
            index = matching_field(fields, kind)
            if index is not None:
                return PlantCard(seat=seat, card=cards[position], field=index)
        if any(kind is None for kind, _ in fields):
            position = _most_common(kinds)
            index = field_for(fields, kinds[position])
            assert index is not None
            return PlantCard(seat=seat, card=cards[position], field=index)
        if optional:
            return EndPlanting(seat=seat)
        return self._harvest(view, fields)

    def _harvest(self, view: SeatView, fields: list[Field]) -> Command:
        index = richest_harvest(view, self.seat, fields)
        return Harvest(seat=self.seat, field=index if index is not None else 0)


def _most_common(kinds: list[BeanKind]) -> int:
    """The position of the first card whose kind is the most common among ``kinds``
    (a loop rather than ``max`` with a key: no call per card in the compiled build)."""
    best, best_count = 0, 0
    for position, kind in enumerate(kinds):
        count = kinds.count(kind)
        if count > best_count:
            best, best_count = position, count
    return best
