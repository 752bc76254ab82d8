"""Bean sense shared by the bots: what a field is worth and where a bean goes.

Everything here reads a :class:`~bohnanza_core.seatview.SeatView` or plain values,
so a bot never needs more than it may see.
"""

from __future__ import annotations

from typing import Final

from bohnanza_core.cards import BEANOMETER, BeanKind, coins_for
from bohnanza_core.seatview import SeatView

Field = tuple[BeanKind | None, int]
"""A field as a bot weighs it: its kind (None: empty) and how many beans it holds.
A player's fields come as a ``list[Field]`` (:func:`farm`), and the helpers below take
that list: compiled, a list is indexed in C, where a ``Sequence`` goes through a
generic item lookup with a boxed index for every field."""


def farm(view: SeatView, seat: int) -> list[Field]:
    """Every field of ``seat``, as (kind, beans)."""
    return view.field_summary(seat)


def _potentials(kind: BeanKind) -> tuple[float, ...]:
    steps = [(needed, coins) for coins, needed in enumerate(BEANOMETER[kind], start=1) if needed]
    table = [0.0]
    top = steps[-1][0]
    for beans in range(1, top + 1):
        low_needed, low_coins = 0, 0
        for needed, coins in steps:
            if needed > beans:
                table.append(low_coins + (coins - low_coins) * (beans - low_needed)
                             / (needed - low_needed))
                break
            low_needed, low_coins = needed, coins
        else:
            table.append(float(low_coins))
    return tuple(table)


# Precomputed: bots read these on every decision. ``Final``: compiled, a module-level
# name that may be rebound is looked up in the module's dictionary at every read.
_POTENTIAL: Final[dict[BeanKind, tuple[float, ...]]] = {
    kind: _potentials(kind) for kind in BeanKind
}
_LOSS: Final[dict[BeanKind, tuple[float, ...]]] = {
    kind: tuple(p - coins_for(kind, beans) for beans, p in enumerate(table))
    for kind, table in _POTENTIAL.items()
}


def potential(kind: BeanKind, beans: int) -> float:
    """Coins ``beans`` beans are on their way to: the beanometer read between its
    steps (5 Blue beans, halfway from 1 coin at 4 to 2 coins at 6, are worth 1.5).
    Beyond the top step more beans add nothing."""
    table = _POTENTIAL[kind]
    return table[beans] if beans < len(table) else table[-1]


def growth(kind: BeanKind, beans: int, more: int) -> float:
    """What ``more`` beans add to a field of ``beans`` beans of ``kind``:
    ``potential(kind, beans + more) - potential(kind, beans)``, with one table lookup."""
    table = _POTENTIAL[kind]
    top = len(table) - 1
    before = table[beans] if beans < top else table[top]
    after = table[beans + more] if beans + more < top else table[top]
    return after - before


def harvest_loss(kind: BeanKind, beans: int) -> float:
    """What harvesting now throws away: the progress toward the next step."""
    table = _LOSS[kind]
    return table[beans] if beans < len(table) else 0.0


_TOP: Final[dict[BeanKind, int]] = {kind: len(table) - 1 for kind, table in _POTENTIAL.items()}


def at_top(kind: BeanKind, beans: int) -> bool:
    """No further bean of this field would pay anything more."""
    return beans >= _TOP[kind]


def field_for(fields: list[Field], kind: BeanKind) -> int | None:
    """Where a bean of ``kind`` goes without harvesting: the fullest field of its
    kind, else an empty field, else None."""
    best = empty = -1
    best_beans = -1
    for index in range(len(fields)):  # not enumerate: no tuple per field when compiled
        field_kind, beans = fields[index]
        if field_kind is kind and beans > best_beans:
            best, best_beans = index, beans
        elif field_kind is None and empty < 0:
            empty = index
    if best >= 0:
        return best
    return empty if empty >= 0 else None


def matching_field(fields: list[Field], kind: BeanKind) -> int | None:
    """The fullest field already growing ``kind`` (the first among equals), or None."""
    best, best_beans = -1, -1
    for index in range(len(fields)):
        field_kind, beans = fields[index]
        if field_kind is kind and beans > best_beans:
            best, best_beans = index, beans
    return best if best >= 0 else None


def group_size(kinds: list[BeanKind], position: int) -> int:
    """How many of ``kinds`` are of the kind at ``position`` if that is where the kind
    first comes, else 0: walking the positions with it meets each kind once, in the
    order it first comes, with its count (compiled, a dictionary or lists of groups
    made on every call cost more than rescanning the handful of beans of a trade)."""
    kind = kinds[position]
    count = 0
    for index in range(len(kinds)):
        if kinds[index] is kind:
            if index < position:
                return 0
            count += 1
    return count


def misfits(fields: list[Field], kinds: list[BeanKind]) -> int:
    """How many of these beans could not be planted without harvesting: beans of a
    kind already growing fit; other kinds take the empty fields, largest groups first."""
    empty = 0
    for field_kind, _ in fields:
        if field_kind is None:
            empty += 1
    # The beans of each kind not growing yet, a count a kind.
    counts: list[int] = []
    for first in range(len(kinds)):
        count = group_size(kinds, first)
        if count and matching_field(fields, kinds[first]) is None:
            counts.append(count)
    if len(counts) > 1:
        counts.sort(reverse=True)
    left = 0
    for count in counts:
        if empty:
            empty -= 1
        else:
            left += count
    return left


def harvestable(view: SeatView, seat: int, fields: list[Field]) -> list[int]:
    """The fields ``seat`` may harvest now (bean protection included)."""
    return [index for index, (kind, _) in enumerate(fields)
            if kind is not None and view.may_harvest(seat, index)]


def richest_harvest(view: SeatView, seat: int, fields: list[Field]) -> int | None:
    """The field paying most now, the smallest among equals (a plain rule)."""
    best: int | None = None
    best_coins, best_beans = -1, 0
    for index in harvestable(view, seat, fields):
        kind, beans = fields[index]
        assert kind is not None
        coins = coins_for(kind, beans)
        # Most coins, then fewest beans, as two int tests (a tuple compares generically).
        if coins > best_coins or (coins == best_coins and beans < best_beans):
            best, best_coins, best_beans = index, coins, beans
    return best
