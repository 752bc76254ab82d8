"""Who plays whom, in which seat: the pairings of every competition format.

Entrants are numbered 0..n-1 in seeding order (the organiser's order, or the ladder's
rating order); a :class:`Pairing` is one game: the entrants in seat order and the
deal it plays. Games that share a ``deal`` within a round share a seed: that is a
duplicate set. The functions are pure: a competition stores their answers as events
(``tournaments``), so a format's pairings never change once made.

- :func:`round_robin`: every k entrants meet at a table once per seat rotation, so
  every pair meets equally often and every entrant sits in every seat equally often.
- :func:`swiss_round`: tables formed by standing, repeat meetings minimised, each
  table's seats given to whoever sat there least.
- :func:`knockout_round` and :func:`knockout_sizes`: tables of k seeded apart
  (snake order); each table plays a match of k games, one per seat rotation, and
  its top ``advance`` go on.
- :func:`duplicate`: every k entrants play each deal k times, the seats rotated, so
  each entrant plays each seat of each deal: the luck of the deal cancels out.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bohnanza_core.errors import Worded

MIN_TABLE = 2
MAX_TABLE = 7
MAX_ENTRANTS = 64
"""Entrants of one competition: a 64-entrant Swiss round is 16 tables of 4."""
MAX_GAMES = 20_000
"""Games of one competition, whatever its format: bounds every loop and every task list."""
MAX_ROUNDS = 50


class PairingError(Worded, ValueError):
    """A format that cannot be paired as asked (too many games, entrants that do not
    fill tables); the message says what would."""


@dataclass(frozen=True)
class Pairing:
    """One game of a round: ``seats[i]`` is the entrant in seat i; games of a round
    with the same ``deal`` play the same deal (the same seed)."""

    seats: tuple[int, ...]
    deal: int


def check_table(entrants: int, table: int) -> None:
    """Refuse a table size outside 2-7 or fewer entrants than one table seats."""
    if not MIN_TABLE <= table <= MAX_TABLE:
        raise PairingError(f"tables seat {MIN_TABLE} to {MAX_TABLE} players, not {table}")
    if not table <= entrants <= MAX_ENTRANTS:
        raise PairingError(f"a competition with tables of {table} needs {table} to "
                           f"{MAX_ENTRANTS} entrants, not {entrants}", "entrant_count",
                           table=table, most=MAX_ENTRANTS, entrants=entrants)


def rotations(group: Sequence[int]) -> list[tuple[int, ...]]:
    """The group seated k ways, each entrant one seat further round each time: every
    entrant takes every seat once."""
    k = len(group)
    return [tuple(group[(seat + shift) % k] for seat in range(k)) for shift in range(k)]


def _checked_games(games: int) -> None:
    if games > MAX_GAMES:
        raise PairingError(f"that makes {games:,} games; a competition has at most "
                           f"{MAX_GAMES:,}: fewer entrants, cycles or deals",
                           "too_many_games", games=games, most=MAX_GAMES)


def round_robin_games(entrants: int, table: int, cycles: int = 1) -> int:
    return math.comb(entrants, table) * table * cycles


def round_robin(entrants: int, table: int, cycles: int = 1) -> list[list[Pairing]]:
    """Every group of ``table`` entrants plays once in each seat rotation: round r of
    a cycle seats every group rotated r places. Each pair meets
    C(n-2, k-2) x k times a cycle, each entrant sits C(n-1, k-1) times in each seat.
    Every game deals anew."""
    check_table(entrants, table)
    if not 1 <= cycles <= MAX_ROUNDS:
        raise PairingError(f"cycles: 1 to {MAX_ROUNDS}, not {cycles}")
    _checked_games(round_robin_games(entrants, table, cycles))
    groups = list(itertools.combinations(range(entrants), table))
    rounds = []
    for _ in range(cycles):
        for shift in range(table):
            rounds.append([Pairing(rotations(group)[shift], deal=i)
                           for i, group in enumerate(groups)])
    return rounds


def duplicate_games(entrants: int, table: int, deals: int) -> int:
    return math.comb(entrants, table) * table * deals


MAX_DEAL_GAMES = 500
"""Games of one shared deal (a true duplicate round): they are played and stored
together, so that none is seen ended (its seed revealed) before all have ended; held
in one worker's memory until then (about 0.5 MB a game of four, measured)."""


def duplicate(entrants: int, table: int, deals: int = 1) -> list[list[Pairing]]:
    """Round d plays deal d at every table: every group of ``table`` entrants plays it
    once in each seat rotation, so every entrant plays every seat of the same cards
    against every group, and the luck of the deal cancels across the whole field."""
    groups = _duplicate_groups(entrants, table, deals)
    if len(groups) * table > MAX_DEAL_GAMES:
        raise PairingError(f"a round of {len(groups) * table:,} games on one deal; a deal "
                           f"is played by at most {MAX_DEAL_GAMES:,} games (they are "
                           "stored together): fewer entrants")
    return [[Pairing(seats, deal=0) for group in groups for seats in rotations(group)]
            for _ in range(deals)]


def duplicate_by_group(entrants: int, table: int, deals: int = 1) -> list[list[Pairing]]:
    """The duplicate format before every table shared its round's deal: each group its
    own deal, in each seat rotation (the luck cancels within a group only). Read for
    competitions stored with it (``duplicate-by-group``), never offered."""
    groups = _duplicate_groups(entrants, table, deals)
    return [[Pairing(seats, deal=i) for i, group in enumerate(groups)
             for seats in rotations(group)] for _ in range(deals)]


def _duplicate_groups(entrants: int, table: int, deals: int) -> list[tuple[int, ...]]:
    check_table(entrants, table)
    if not 1 <= deals <= MAX_ROUNDS:
        raise PairingError(f"deals: 1 to {MAX_ROUNDS}, not {deals}")
    _checked_games(duplicate_games(entrants, table, deals))
    return list(itertools.combinations(range(entrants), table))


# -- Swiss -----------------------------------------------------------------------------


def meetings(rounds: Sequence[Sequence[Pairing]]) -> dict[tuple[int, int], int]:
    """How often each pair (lower number first) has shared a table."""
    met: dict[tuple[int, int], int] = {}
    for games in rounds:
        for pairing in games:
            for a, b in itertools.combinations(sorted(pairing.seats), 2):
                met[(a, b)] = met.get((a, b), 0) + 1
    return met


def seat_counts(rounds: Sequence[Sequence[Pairing]], entrants: int,
                table: int) -> list[list[int]]:
    """``counts[e][s]``: the games entrant e has played in seat s."""
    counts = [[0] * table for _ in range(entrants)]
    for games in rounds:
        for pairing in games:
            for seat, entrant in enumerate(pairing.seats):
                counts[entrant][seat] += 1
    return counts


def seating_cost(order: Sequence[int], counts: Sequence[Sequence[int]]) -> int:
    """How unevenly ``order`` shares out the seats: the sum over its entrants of
    (games already played in the seat given)^2."""
    return sum(counts[e][seat] ** 2 for seat, e in enumerate(order))


def best_seating(group: Sequence[int], counts: Sequence[Sequence[int]]) -> tuple[int, ...]:
    """The group seated so that seats are shared out most evenly: the order of least
    :func:`seating_cost`, ties to the first found (seeding order). At most 7! = 5,040
    orders."""
    best: tuple[int, ...] = tuple(group)
    best_cost = -1
    for order in itertools.permutations(group):
        cost = seating_cost(order, counts)
        if best_cost < 0 or cost < best_cost:
            best, best_cost = order, cost
    return best


def swiss_round(
    standing: Sequence[int],
    table: int,
    played: Sequence[Sequence[Pairing]],
) -> list[Pairing]:
    """The next Swiss round: ``standing`` lists every entrant, best first. The best
    unseated entrant opens a table; each next seat goes to the one, among those left,
    who has met the table's entrants least, the nearest in standing on a tie; but the
    table's last member, among those tied, is the one with whom the table can be
    seated most evenly (:func:`seating_cost`), and only then the nearest. Then the
    table is seated by :func:`best_seating`. The number of entrants must fill every
    table.

    Why the last seat looks at the seats: two entrants who both sat first in each of
    their games so far cannot both sit first again, and one of them falls a seat
    further behind. Without it, 4.4% of random 3-round Swiss events of 8 entrants at
    tables of 2 left someone 3 games apart between two seats; with it, none of 2,000
    (nor of any table size, tables and rounds the tests draw)."""
    n = len(standing)
    check_table(n, table)
    if sorted(standing) != list(range(n)):
        raise PairingError("a standing lists every entrant once")
    if n % table:
        raise PairingError(f"{n} entrants do not fill tables of {table}: a Swiss round "
                           f"needs a multiple of {table}", "swiss_tables", entrants=n,
                           table=table)
    met = meetings(played)
    counts = seat_counts(played, n, table)
    left = list(standing)
    games: list[Pairing] = []
    while left:
        members = [left.pop(0)]
        while len(members) < table:
            repeats = [sum(met.get((min(m, c), max(m, c)), 0) for m in members)
                       for c in left]
            fewest = min(repeats)
            tied = [i for i, r in enumerate(repeats) if r == fewest]  # nearest first
            pick = tied[0]
            if len(members) == table - 1 and len(tied) > 1:
                costs = [seating_cost(best_seating([*members, left[i]], counts), counts)
                         for i in tied]
                pick = tied[costs.index(min(costs))]
            members.append(left.pop(pick))
        games.append(Pairing(best_seating(members, counts), deal=len(games)))
    return games


# -- knockout --------------------------------------------------------------------------


def knockout_sizes(entrants: int, table: int, advance: int) -> list[int]:
    """Entrants in each round, down to the final table: each round's tables of
    ``table`` send their top ``advance`` on, until exactly ``table`` are left."""
    check_table(entrants, table)
    if not 1 <= advance < table:
        most = "1" if table == 2 else f"1 to {table - 1}"
        raise PairingError(f"{most} of each table of {table} may go through, not {advance}",
                           "advance", table=table, most=table - 1, advance=advance)
    sizes = [entrants]
    while sizes[-1] > table:
        if sizes[-1] % table:
            fitting = ", ".join(str(s) for s in _fitting(table, advance))
            raise PairingError(
                f"{sizes[-1]} entrants do not fill tables of {table}: a knockout of tables "
                f"of {table} sending {advance} on needs {table} x ({table}/{advance})^r "
                f"entrants (e.g. {fitting})", "knockout_tables", entrants=sizes[-1],
                table=table, advance=advance, fitting=fitting)
        sizes.append(sizes[-1] // table * advance)
    if sizes[-1] != table:
        fitting = ", ".join(str(s) for s in _fitting(table, advance))
        raise PairingError(f"the final table would seat {sizes[-1]}, not {table}: "
                           f"choose {fitting}", "knockout_final", seats=sizes[-1],
                           table=table, fitting=fitting)
    return sizes


def _fitting(table: int, advance: int) -> list[int]:
    """Entrant counts a knockout of this shape takes (up to MAX_ENTRANTS)."""
    fitting = [table]
    while True:
        size = fitting[-1] // advance * table
        if fitting[-1] % advance or size > MAX_ENTRANTS or size <= fitting[-1]:
            return fitting
        fitting.append(size)


def knockout_round(seeded: Sequence[int], table: int) -> list[Pairing]:
    """Tables of ``table`` in snake order of the seeding (1 8 9 16 / 2 7 10 15 / ...),
    so the strongest seeds meet late; each table plays a match of ``table`` games, one
    per seat rotation, all of one deal: a duplicate set, so no one goes out on the
    luck of a deal."""
    n = len(seeded)
    if n % table:
        raise PairingError(f"{n} entrants do not fill tables of {table}")
    tables = n // table
    groups: list[list[int]] = [[] for _ in range(tables)]
    for i, entrant in enumerate(seeded):
        lap, at = divmod(i, tables)
        groups[at if lap % 2 == 0 else tables - 1 - at].append(entrant)
    return [Pairing(seats, deal=t) for t, group in enumerate(groups)
            for seats in rotations(group)]


def knockout_tables(games: Sequence[Pairing], table: int) -> list[tuple[int, ...]]:
    """The tables of a knockout round: its games in matches of ``table``."""
    return [tuple(sorted(games[i].seats)) for i in range(0, len(games), table)]


def advancing(
    group: Sequence[int], points: Mapping[int, float], coins: Mapping[int, int],
    seeding: Sequence[int], advance: int,
) -> list[int]:
    """The top ``advance`` of one table's match: most points, then most coins, then
    the better seed."""
    order = sorted(group, key=lambda e: (-points.get(e, 0.0), -coins.get(e, 0),
                                         seeding.index(e)))
    return order[:advance]


def rank_points(ranks: Sequence[int]) -> list[float]:
    """Each seat's points from one game's ranks (1 best, equal for a shared place):
    one for each opponent ranked below, a half for each ranked equal, the multiplayer
    form of chess's 1-half-0."""
    return [sum(1.0 if r < other else 0.5 if r == other else 0.0
                for j, other in enumerate(ranks) if j != i)
            for i, r in enumerate(ranks)]


__all__ = [
    "MAX_DEAL_GAMES",
    "MAX_ENTRANTS",
    "MAX_GAMES",
    "MAX_ROUNDS",
    "MAX_TABLE",
    "MIN_TABLE",
    "Pairing",
    "PairingError",
    "advancing",
    "best_seating",
    "check_table",
    "duplicate",
    "duplicate_by_group",
    "duplicate_games",
    "knockout_round",
    "knockout_sizes",
    "knockout_tables",
    "meetings",
    "rank_points",
    "rotations",
    "round_robin",
    "round_robin_games",
    "seat_counts",
    "seating_cost",
    "swiss_round",
]
