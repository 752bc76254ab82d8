"""A ``state`` frame as a bot reads it (docs/protocol.md; its schema is
/protocol/schema/server-frame.json): the table as its seat sees it, its legal moves,
and whether the game waits for it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

BEANOMETER: dict[str, tuple[int | None, int | None, int | None, int | None]] = {
    "coffee": (4, 7, 10, 12),
    "wax": (4, 7, 9, 11),
    "blue": (4, 6, 8, 10),
    "chili": (3, 6, 8, 9),
    "stink": (3, 5, 7, 8),
    "green": (3, 5, 6, 7),
    "soy": (2, 4, 6, 7),
    "black-eyed": (2, 4, 5, 6),
    "red": (2, 3, 4, 5),
    "garden": (None, 2, 3, None),
    "cocoa": (None, 2, 3, 4),
}
"""Beans needed for 1, 2, 3 and 4 coins, per kind (docs/protocol.md, "What the cards
are worth"; None: no such step)."""


def coins_for(kind: str, beans: int) -> int:
    """Coins a field of ``beans`` beans of ``kind`` pays when harvested."""
    coins = 0
    for value, needed in enumerate(BEANOMETER[kind], start=1):
        if needed is not None and beans >= needed:
            coins = value
    return coins


@dataclass(frozen=True)
class Field:
    kind: str | None
    """None: empty."""
    cards: tuple[int, ...]

    @property
    def beans(self) -> int:
        return len(self.cards)


class State:
    """One ``state`` frame. ``frame`` is the frame as sent; the properties read it."""

    def __init__(self, frame: dict[str, Any]) -> None:
        self.frame = frame
        self.table: dict[str, Any] = frame["answer"]["table"]

    # -- the frame --------------------------------------------------------------------

    @property
    def version(self) -> int:
        return int(self.frame["version"])

    @property
    def since(self) -> int:
        return int(self.frame["since"])

    @property
    def whole(self) -> bool:
        """A whole view (on connecting or ``sync``), not a move."""
        return self.since == self.version

    @property
    def seat(self) -> int | None:
        """The seat this connection plays, None for a spectator's."""
        seat = self.frame["seat"]
        return None if seat is None else int(seat)

    @property
    def finished(self) -> bool:
        return bool(self.frame["finished"])

    @property
    def ref(self) -> object:
        """The ``ref`` of this connection's command that this frame reflects, or None."""
        return self.frame.get("ref")

    @property
    def legal(self) -> list[dict[str, Any]]:
        """Every move the seat may make now, whether or not it is awaited."""
        return list(self.frame["legal"])

    @property
    def commands(self) -> list[dict[str, Any]]:
        """The legal moves that are commands (sendable as they are)."""
        return [m for m in self.frame["legal"] if m["kind"] != "offer_shape"]

    @property
    def offer_shape(self) -> dict[str, Any] | None:
        return next((m for m in self.frame["legal"] if m["kind"] == "offer_shape"), None)

    @property
    def facts(self) -> dict[str, Any]:
        return dict(self.frame["facts"])

    @property
    def rules(self) -> dict[str, Any]:
        return dict(self.frame["facts"]["rules"])

    @property
    def log(self) -> list[str]:
        return list(self.frame["log"])

    # -- whose move ---------------------------------------------------------------------

    @property
    def awaiting(self) -> tuple[int, ...]:
        """The seats the game waits for, most urgent first."""
        return tuple(self.table["awaiting"])

    @property
    def awaited(self) -> bool:
        """Whether the game waits for this seat: it owes a move (docs/protocol.md,
        "Whose move it is"); a seat not awaited may still act, never has to."""
        return self.seat is not None and not self.finished and self.seat in self.awaiting

    @property
    def phase(self) -> str:
        return str(self.table["phase"])

    @property
    def active(self) -> int:
        return int(self.table["active"])

    @property
    def turn(self) -> int:
        return int(self.table["turn"])

    # -- the table ------------------------------------------------------------------------

    @property
    def players(self) -> int:
        return len(self.table["seats"])

    def kind(self, card: int) -> str:
        return str(self.table["card_kinds"][card])

    def hand(self) -> tuple[int, ...]:
        """This seat's hand, front first (empty for a spectator)."""
        if self.seat is None:
            return ()
        return tuple(self.table["seats"][self.seat].get("hand", ()))

    def fields(self, seat: int) -> list[Field]:
        return [Field(f["kind"], tuple(f["cards"])) for f in self.table["seats"][seat]["fields"]]

    def may_harvest(self, seat: int, field: int) -> bool:
        return bool(self.frame["facts"]["harvestable"][seat][field])

    def coins(self, seat: int) -> int:
        return int(self.table["seats"][seat]["coins"])

    def trade_area(self, seat: int) -> tuple[int, ...]:
        return tuple(self.table["seats"][seat]["trade_area"])

    def third_field_bought(self, seat: int) -> bool:
        return bool(self.table["seats"][seat]["third_field_bought"])

    @property
    def face_up(self) -> tuple[int, ...]:
        return tuple(self.table["face_up"])

    @property
    def offers(self) -> list[dict[str, Any]]:
        return list(self.table["offers"])

    @property
    def planted(self) -> int:
        """Cards the active player planted from the hand this turn."""
        return int(self.frame["facts"]["planted"])

    @property
    def ending(self) -> bool:
        return bool(self.frame["facts"]["ending"])

    @property
    def draw_pile_size(self) -> int:
        return int(self.table["draw_pile_size"])

    @property
    def discard_pile(self) -> tuple[int, ...]:
        return tuple(self.table["discard_pile"])

    @property
    def runs_out(self) -> int:
        return int(self.table["runs_out"])

    @property
    def result(self) -> dict[str, Any] | None:
        """``{"coins", "winners", "ranks"}`` once the game is over."""
        result = self.table.get("result")
        return None if result is None else dict(result)
