"""Commands and legal moves as JSON: how a seat's decisions travel over a websocket
(docs/protocol.md).

A command on the wire is an object with a ``kind`` (``plant_from_hand``,
``make_offer``...) and the command's own fields, without ``seat``: the seat is the
connection's, never the frame's, so a client cannot act for another seat by writing
one. :func:`command_from_json` reads it strictly and within bounds (a frame is outside
input): anything malformed raises :class:`CommandFormatError` with a reason a player
can read, before the engine is asked. Whether the command is legal is the engine's
business (``IllegalMove``).
"""

from __future__ import annotations

import json
from typing import Any

from bohnanza_core.cards import BeanKind, Card
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
    WithdrawOffer,
)
from bohnanza_core.engine import OfferShape
from bohnanza_core.rulesets import Ruleset
from bohnanza_core.seatview import SeatView
from bohnanza_core.state import Offer, Phase, RulesInPlay

MAX_CARDS = 40
"""Cards one command may name (a hand is never near this)."""

MAX_WANTS = 11
"""Kinds one offer may want: there are eleven."""

MAX_NUMBER = 10_000
"""The largest card id, field, offer number or count a command may hold."""

KINDS: dict[str, type] = {
    "plant_from_hand": PlantFromHand,
    "plant_card": PlantCard,
    "end_planting": EndPlanting,
    "discard_card": DiscardCard,
    "make_offer": MakeOffer,
    "accept_offer": AcceptOffer,
    "decline_offer": DeclineOffer,
    "withdraw_offer": WithdrawOffer,
    "end_trading": EndTrading,
    "harvest": Harvest,
    "buy_third_field": BuyThirdField,
}
_NAMES: dict[type, str] = {cls: name for name, cls in KINDS.items()}

# The fields each kind carries besides the seat, and what each holds.
_FIELDS: dict[str, tuple[str, ...]] = {
    "plant_from_hand": ("field",),
    "plant_card": ("card", "field"),
    "end_planting": (),
    "discard_card": ("card",),
    "make_offer": ("gives", "wants", "to"),
    "accept_offer": ("offer", "cards"),
    "decline_offer": ("offer",),
    "withdraw_offer": ("offer",),
    "end_trading": (),
    "harvest": ("field",),
    "buy_third_field": (),
}


_NOTES: dict[str, tuple[str, ...]] = {"accept_offer": ("any_cards",)}
"""What a legal move's entry says beside its command (:func:`legal_to_json`), taken and
ignored in a command: an entry may be sent back as it is."""


class CommandFormatError(ValueError):
    """A command frame that is not a command: the message says what is wrong."""


def _cut(value: object, limit: int = 30) -> str:
    """``value`` as the client wrote it (JSON: ``true``, ``"1"``, not Python's ``True``,
    ``'1'``), cut to ``limit`` characters."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):  # not from JSON: a command built in Python
        text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def _number(obj: dict[str, Any], key: str) -> int:
    value = obj.get(key)
    # bool is an int to Python, not to a player
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_NUMBER:
        raise CommandFormatError(f"{key} must be a whole number from 0 to {MAX_NUMBER}, "
                                 f"not {_cut(value)}")
    return value


def _cards(obj: dict[str, Any], key: str) -> tuple[int, ...]:
    value = obj.get(key, [])
    if not isinstance(value, list) or len(value) > MAX_CARDS:
        raise CommandFormatError(f"{key} must be a list of at most {MAX_CARDS} card ids")
    return tuple(_number({key: card}, key) for card in value)


def _wants(obj: dict[str, Any]) -> tuple[tuple[BeanKind, int], ...]:
    value = obj.get("wants", [])
    if not isinstance(value, list) or len(value) > MAX_WANTS:
        raise CommandFormatError(f"wants must be a list of at most {MAX_WANTS} "
                                 "[kind, count] pairs")
    wants: list[tuple[BeanKind, int]] = []
    for pair in value:
        if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str)):
            raise CommandFormatError(f"each of wants is a [kind, count] pair, not {_cut(pair)}")
        try:
            kind = BeanKind(pair[0])
        except ValueError:
            raise CommandFormatError(f"no bean kind {_cut(pair[0])}") from None
        count = _number({"count": pair[1]}, "count")
        wants.append((kind, count))
    return tuple(wants)


def command_from_json(obj: object, seat: int) -> Command:
    """The command ``obj`` describes, issued by ``seat`` (the connection's). Raises
    :class:`CommandFormatError` for anything that is not exactly a command."""
    if not isinstance(obj, dict):
        raise CommandFormatError("a command is an object with a kind")
    kind = obj.get("kind")
    if not isinstance(kind, str) or kind not in KINDS:
        raise CommandFormatError(f"unknown command kind {_cut(kind)}; kinds: "
                                 + ", ".join(KINDS))
    allowed = {"kind", "seat", *_FIELDS[kind], *_NOTES.get(kind, ())}
    stray = [key for key in obj if key not in allowed]
    if stray:
        raise CommandFormatError(f"{kind} has no field {_cut(stray[0])}")
    for note in _NOTES.get(kind, ()):
        if note in obj and not isinstance(obj[note], bool):
            raise CommandFormatError(f"{note} is true or false, not {_cut(obj[note])}")
    if "seat" in obj and (isinstance(obj["seat"], bool) or not isinstance(obj["seat"], int)
                          or obj["seat"] != seat):
        # true is 1 and 1.0 is 1 to Python, not to the schema: a seat is a whole number.
        raise CommandFormatError(f"this connection plays seat {seat}, not {_cut(obj['seat'])}")
    match kind:
        case "plant_from_hand":
            return PlantFromHand(seat=seat, field=_number(obj, "field"))
        case "plant_card":
            return PlantCard(seat=seat, card=_number(obj, "card"), field=_number(obj, "field"))
        case "end_planting":
            return EndPlanting(seat=seat)
        case "discard_card":
            return DiscardCard(seat=seat, card=_number(obj, "card"))
        case "make_offer":
            to = obj.get("to")
            return MakeOffer(seat=seat, gives=_cards(obj, "gives"), wants=_wants(obj),
                             to=None if to is None else _number(obj, "to"))
        case "accept_offer":
            return AcceptOffer(seat=seat, offer=_number(obj, "offer"),
                               cards=_cards(obj, "cards"))
        case "decline_offer":
            return DeclineOffer(seat=seat, offer=_number(obj, "offer"))
        case "withdraw_offer":
            return WithdrawOffer(seat=seat, offer=_number(obj, "offer"))
        case "end_trading":
            return EndTrading(seat=seat)
        case "harvest":
            return Harvest(seat=seat, field=_number(obj, "field"))
        case _:
            return BuyThirdField(seat=seat)


def command_to_json(command: Command) -> dict[str, Any]:
    """The wire form of ``command`` (without its seat)."""
    kind = _NAMES[type(command)]
    out: dict[str, Any] = {"kind": kind}
    for name in _FIELDS[kind]:
        value = getattr(command, name)
        if name == "wants":
            value = [[k.value, n] for k, n in value]
        elif isinstance(value, tuple):
            value = list(value)
        out[name] = value
    return out


def move_to_json(move: Command | OfferShape) -> dict[str, Any]:
    """A legal move on the wire: a command, or the shape of the offers one may make
    (``kind`` ``offer_shape``: to whom, which cards may be given, which kinds wanted)."""
    if isinstance(move, OfferShape):
        return {"kind": "offer_shape", "to": list(move.to), "givable": list(move.givable),
                "wantable": [k.value for k in move.wantable]}
    return command_to_json(move)


def legal_to_json(moves: list[Command | OfferShape]) -> list[dict[str, Any]]:
    """A seat's legal moves on the wire (a ``state`` frame's ``legal``): each as
    :func:`move_to_json`, and each ``accept_offer`` with ``any_cards``: whether the
    offer may be paid with other cards than this entry's (the seat holds more cards of a
    wanted kind than it wants, so several entries name the offer; at most 24 are
    listed). Any cards of the wanted kinds and counts that the seat holds then do."""
    ways: dict[object, int] = {}  # by offer number
    for move in moves:
        if isinstance(move, AcceptOffer):
            ways[move.offer] = ways.get(move.offer, 0) + 1
    out = []
    for move in moves:
        entry = move_to_json(move)
        if isinstance(move, AcceptOffer):
            entry["any_cards"] = ways[move.offer] > 1
        out.append(entry)
    return out


def move_from_json(obj: dict[str, Any], seat: int) -> Command | OfferShape:
    """A legal move as the server sent it (:func:`move_to_json`), for ``seat``."""
    if obj.get("kind") == "offer_shape":
        return OfferShape(seat=seat, to=tuple(obj["to"]), givable=tuple(obj["givable"]),
                          wantable=tuple(BeanKind(k) for k in obj["wantable"]))
    return command_from_json(obj, seat)


class WireView(SeatView):
    """A seat's view rebuilt from the server's ``state`` frame (docs/protocol.md): the
    part of :class:`~bohnanza_core.views.GameView` the bots read, so that a program
    playing a seat from outside runs a built-in bot's logic on exactly what a person in
    that seat is sent, and nothing more."""

    def __init__(self, frame: dict[str, Any]) -> None:
        self._table: dict[str, Any] = frame["answer"]["table"]
        facts: dict[str, Any] = frame["facts"]
        self.perspective: int = frame["seat"]
        self._ruleset = Ruleset.from_parameters(facts["rules"])
        self._rules = RulesInPlay(self._ruleset)
        self._planted: int = facts["planted"]
        self._ending: bool = facts["ending"]
        self._harvestable: list[list[bool]] = facts["harvestable"]
        self._kinds = [BeanKind(k) for k in self._table["card_kinds"]]
        self._legal = [move_from_json(m, self.perspective) for m in frame["legal"]]

    @property
    def ruleset(self) -> Ruleset:
        return self._ruleset

    @property
    def rules(self) -> RulesInPlay:
        return self._rules

    @property
    def planted_this_turn(self) -> int:
        return self._planted

    @property
    def ending(self) -> bool:
        return self._ending

    @property
    def seats(self) -> tuple[str, ...]:
        return tuple(s["name"] for s in self._table["seats"])

    @property
    def seat(self) -> int:
        return self.perspective

    @property
    def phase(self) -> Phase:
        return Phase(self._table["phase"])

    @property
    def active(self) -> int:
        return int(self._table["active"])

    @property
    def turn(self) -> int:
        return int(self._table["turn"])

    def kind(self, card: Card) -> BeanKind:
        return self._kinds[card]

    def hand(self) -> tuple[Card, ...]:
        return tuple(self._table["seats"][self.perspective]["hand"])

    def hand_of(self, seat: int) -> tuple[Card, ...] | None:
        hand = self._table["seats"][seat].get("hand")
        return None if hand is None else tuple(hand)

    def hand_size(self, seat: int) -> int:
        return int(self._table["seats"][seat]["hand_size"])

    def fields(self, seat: int) -> tuple[tuple[Card, ...], ...]:
        return tuple(tuple(f["cards"]) for f in self._table["seats"][seat]["fields"])

    def field_kind(self, seat: int, field: int) -> BeanKind | None:
        kind = self._table["seats"][seat]["fields"][field]["kind"]
        return None if kind is None else BeanKind(kind)

    def field_size(self, seat: int, field: int) -> int:
        return len(self._table["seats"][seat]["fields"][field]["cards"])

    def field_summary(self, seat: int) -> list[tuple[BeanKind | None, int]]:
        return [(None if f["kind"] is None else BeanKind(f["kind"]), len(f["cards"]))
                for f in self._table["seats"][seat]["fields"]]

    def field_count(self, seat: int) -> int:
        return len(self._table["seats"][seat]["fields"])

    def may_harvest(self, seat: int, field: int) -> bool:
        return bool(self._harvestable[seat][field])

    def coins(self, seat: int) -> int:
        return int(self._table["seats"][seat]["coins"])

    def third_field_bought(self, seat: int) -> bool:
        return bool(self._table["seats"][seat]["third_field_bought"])

    def trade_area(self, seat: int) -> tuple[Card, ...]:
        return tuple(self._table["seats"][seat]["trade_area"])

    @property
    def face_up(self) -> tuple[Card, ...]:
        return tuple(self._table["face_up"])

    @property
    def offers(self) -> tuple[Offer, ...]:
        return tuple(Offer(o["offer"], o["proposer"], o["counterparty"], tuple(o["gives"]),
                           tuple((BeanKind(k), n) for k, n in o["wants"]),
                           set(o["declined_by"]))
                     for o in self._table["offers"])

    @property
    def draw_pile_size(self) -> int:
        return int(self._table["draw_pile_size"])

    @property
    def discard_pile(self) -> tuple[Card, ...]:
        return tuple(self._table["discard_pile"])

    @property
    def out_of_game(self) -> tuple[Card, ...]:
        return tuple(self._table.get("out_of_game", ()))

    @property
    def runs_out(self) -> int:
        return int(self._table["runs_out"])

    @property
    def awaiting(self) -> tuple[int, ...]:
        return tuple(self._table["awaiting"])

    def legal_moves(self) -> list[Command | OfferShape]:
        return list(self._legal)

    @property
    def finished(self) -> bool:
        return "result" in self._table


__all__ = ["KINDS", "MAX_CARDS", "CommandFormatError", "WireView", "command_from_json",
           "command_to_json", "legal_to_json", "move_from_json", "move_to_json"]
