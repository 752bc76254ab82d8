"""Bean kinds, how many cards of each exist, and the beanometer (RULES.md, "Cards").

A card is an ``int`` id, unique within a game's deck; its kind is looked up in the
deck's kind table (:func:`deck_kinds`). Ids are assigned kind by kind in the order
the ruleset lists its beans, so the same ruleset always gives the same ids.
"""

from __future__ import annotations

from enum import StrEnum
from functools import cache
from typing import Final

Card = int


class BeanKind(StrEnum):
    COFFEE = "coffee"
    WAX = "wax"
    BLUE = "blue"
    CHILI = "chili"
    STINK = "stink"
    GREEN = "green"
    SOY = "soy"
    BLACK_EYED = "black-eyed"
    RED = "red"
    GARDEN = "garden"
    COCOA = "cocoa"

    @property
    def title(self) -> str:  # type: ignore[override]
        """The name printed on the card, e.g. "Black-eyed bean"."""
        return f"{self.value.capitalize()} bean"


DECK_COUNTS: dict[BeanKind, int] = {
    BeanKind.COFFEE: 24,
    BeanKind.WAX: 22,
    BeanKind.BLUE: 20,
    BeanKind.CHILI: 18,
    BeanKind.STINK: 16,
    BeanKind.GREEN: 14,
    BeanKind.SOY: 12,
    BeanKind.BLACK_EYED: 10,
    BeanKind.RED: 8,
    BeanKind.GARDEN: 6,
    BeanKind.COCOA: 4,
}

# Cards needed in one field for 1, 2, 3 and 4 coins; None where the step does not exist.
BEANOMETER: dict[BeanKind, tuple[int | None, int | None, int | None, int | None]] = {
    BeanKind.COFFEE: (4, 7, 10, 12),
    BeanKind.WAX: (4, 7, 9, 11),
    BeanKind.BLUE: (4, 6, 8, 10),
    BeanKind.CHILI: (3, 6, 8, 9),
    BeanKind.STINK: (3, 5, 7, 8),
    BeanKind.GREEN: (3, 5, 6, 7),
    BeanKind.SOY: (2, 4, 6, 7),
    BeanKind.BLACK_EYED: (2, 4, 5, 6),
    BeanKind.RED: (2, 3, 4, 5),
    BeanKind.GARDEN: (None, 2, 3, None),
    BeanKind.COCOA: (None, 2, 3, 4),
}

ORIGINAL_EIGHT: tuple[BeanKind, ...] = (
    BeanKind.BLUE,
    BeanKind.CHILI,
    BeanKind.STINK,
    BeanKind.GREEN,
    BeanKind.SOY,
    BeanKind.BLACK_EYED,
    BeanKind.RED,
    BeanKind.GARDEN,
)
ALL_ELEVEN: tuple[BeanKind, ...] = tuple(BeanKind)


def _payout_table(kind: BeanKind) -> tuple[int, ...]:
    steps = BEANOMETER[kind]
    top = max(s for s in steps if s is not None)
    table = []
    for count in range(top + 1):
        coins = 0
        for value, needed in enumerate(steps, start=1):
            if needed is not None and count >= needed:
                coins = value
        table.append(coins)
    return tuple(table)


# Precomputed so that a harvest is one tuple lookup (the engine harvests often); Final,
# so that compiled code reads it from a C static instead of the module's dictionary.
_PAYOUT: Final[dict[BeanKind, tuple[int, ...]]] = {kind: _payout_table(kind) for kind in BeanKind}


def coins_for(kind: BeanKind, beans: int) -> int:
    """Coins paid for harvesting ``beans`` cards of ``kind``; more than the last step
    still pays the last step."""
    table = _PAYOUT[kind]
    return table[beans] if beans < len(table) else table[-1]


@cache
def deck_kinds(beans: tuple[BeanKind, ...]) -> tuple[BeanKind, ...]:
    """The kind of every card id of a deck made of ``beans`` (full counts of each)."""
    kinds: list[BeanKind] = []
    for kind in beans:
        kinds.extend([kind] * DECK_COUNTS[kind])
    return tuple(kinds)
