"""A ladder: a continuous competition, event-sourced like the competitions and stored
in the same ``Tournaments`` application (its own aggregate type, :class:`Ladder`).

- :class:`Ladder.Created`: name, ruleset (house rules included), table size, the tick
  interval, and a secret of 256 bits the matches' seeds derive from (never shown).
- :class:`Ladder.Joined`: one entrant, at any time; it plays from the next tick.
- :class:`Ladder.TickPaired`: a tick's matches (entrant indices by seat), numbered on
  from the last tick's: entrants close in conservative rating share a table.
- :class:`Ladder.TickEnded`: every match's result, once all are stored.
- :class:`Ladder.Rated`: every entrant's rating after the tick: the rating history.

A match's game id is ``uuid5(namespace, "{ladder}:{match}")`` and its seed HMAC-SHA-256
under the ladder's secret of the match number, so a redelivered task stores nothing
twice. Ratings are re-rated from every result in match order, so rating the stored
games again gives the same numbers (``tournaments.ladder_runner.stored_ladder_results``).
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
import uuid
from collections.abc import Callable, Mapping, Sequence
from itertools import combinations
from typing import Any, Final
from uuid import UUID

from eventsourcing.domain import Aggregate

from bohnanza_core.pairings import MAX_ENTRANTS, PairingError, check_table
from bohnanza_core.rulesets import Ruleset
from tournaments.competitions import (
    MAX_NAME,
    CompetitionError,
    GameResult,
    Tournaments,
    tournaments,
)
from tournaments.entrants import is_person
from tournaments.ratings import Rating, Ratings

LADDER_NAMESPACE: Final = uuid.UUID("3e0f6a1c-5b7d-4c2e-9a8f-1d2c3b4a5e6f")
"""The uuid5 namespace of ladder games' ids."""
MIN_INTERVAL = 10
MAX_INTERVAL = 7 * 24 * 3600
MAX_TICKS = 10_000
"""Ticks of one ladder: bounds its events (at most 32 games a tick)."""


class LadderNotFound(LookupError):
    pass


class Ladder(Aggregate):
    """One ladder and everything that happened on it."""

    class Created(Aggregate.Created):
        name: str
        ruleset: dict[str, Any]
        table: int
        interval: int
        secret: str
        created_by: str | None

    class Joined(Aggregate.Event):
        entrant: str

        def apply(self, aggregate: Any) -> None:
            aggregate.entrants.append(self.entrant)

    class TickPaired(Aggregate.Event):
        tick: int
        matches: list[list[int]]
        """Entrant indices by seat, one list a match."""

        def apply(self, aggregate: Any) -> None:
            aggregate.ticks.append([tuple(m) for m in self.matches])

    class TickEnded(Aggregate.Event):
        tick: int
        results: list[list[list[int]]]
        """[ranks, coins, winners] per match, in match order."""

        def apply(self, aggregate: Any) -> None:
            aggregate.results.append([GameResult(tuple(r), tuple(c), tuple(w))
                                      for r, c, w in self.results])

    class Rated(Aggregate.Event):
        tick: int
        ratings: dict[str, list[float]]
        """entrant: [mu, sigma, games]."""

        def apply(self, aggregate: Any) -> None:
            aggregate.ratings = {e: (v[0], v[1], int(v[2])) for e, v in self.ratings.items()}
            aggregate.history.append(dict(aggregate.ratings))

    def __init__(self, name: str, ruleset: dict[str, Any], table: int, interval: int,
                 secret: str, created_by: str | None) -> None:
        self.name = name
        self.ruleset_parameters = ruleset
        self.table = table
        self.interval = interval
        self.secret = secret
        self.created_by = created_by
        self.entrants: list[str] = []
        self.ticks: list[list[tuple[int, ...]]] = []
        self.results: list[list[GameResult]] = []
        self.ratings: dict[str, tuple[float, float, int]] = {}
        self.history: list[dict[str, tuple[float, float, int]]] = []

    @property
    def ruleset(self) -> Ruleset:
        return Ruleset.from_parameters(self.ruleset_parameters)

    @property
    def open_tick(self) -> int | None:
        """The tick being played, or None (none paired, or all ended)."""
        return len(self.ticks) - 1 if len(self.results) < len(self.ticks) else None

    def first_match(self, tick: int) -> int:
        """The number of a tick's first match: matches are numbered across ticks."""
        return sum(len(matches) for matches in self.ticks[:tick])

    def games_done(self) -> int:
        return sum(len(results) for results in self.results)

    def rating(self, entrant: str) -> Rating:
        mu, sigma, _games = self.ratings.get(entrant, (Rating().mu, Rating().sigma, 0))
        return Rating(mu, sigma)

    def ranking(self) -> list[int]:
        """Entrant indices by conservative rating (mu - 3 sigma), best first; entry order
        on a tie (every newcomer is at 0)."""
        return sorted(range(len(self.entrants)),
                      key=lambda e: (-self.rating(self.entrants[e]).conservative, e))

    def join(self, entrant: str) -> None:
        if is_person(entrant):  # nobody enters a person but themselves: tournaments.consent
            raise CompetitionError("a ladder takes bots; people play in leagues")
        if entrant in self.entrants:
            raise CompetitionError(f"{entrant} is on the ladder already")
        if len(self.entrants) >= MAX_ENTRANTS:
            raise CompetitionError(f"a ladder has at most {MAX_ENTRANTS} entrants")
        self.trigger_event(Ladder.Joined, entrant=entrant)

    def next_matches(self) -> list[tuple[int, ...]]:
        """The next tick's tables. With r entrants over whole tables, the ranking's cut
        starts r' places down (r' = tick mod r+1), so who sits out (r' at the top, the
        rest at the bottom) changes tick by tick. Tables of two: neighbours in the
        ranking. Larger tables: :func:`vary_groups` (close in rating, but not the same
        groups tick after tick). Each table's seats turn one place a tick."""
        k, n, tick = self.table, len(self.entrants), len(self.ticks)
        if n < k:
            return []
        start = tick % (n % k + 1)
        ranking = self.ranking()
        order = ranking[start:start + (n // k) * k]
        turn = tick % k
        if k == 2:
            groups = [order[i:i + k] for i in range(0, len(order), k)]
        else:
            rng = random.Random(hmac.new(self.secret.encode(),
                                         f"bohnanza-ladder-groups-v1:{tick}".encode(),
                                         hashlib.sha256).digest())
            groups = [sorted(g, key=ranking.index) for g in vary_groups(
                order if tick % 2 == 0 else order[::-1], k, last_meetings(self.ticks),
                {frozenset(m) for m in self.ticks[-1]} if self.ticks else set(), rng)]
        return [tuple(group[turn:] + group[:turn]) for group in groups]

    def pair_tick(self) -> bool:
        """Pair the next tick (False: an open tick, too few entrants, or the last)."""
        if self.open_tick is not None or len(self.ticks) >= MAX_TICKS:
            return False
        matches = self.next_matches()
        if not matches:
            return False
        self.trigger_event(Ladder.TickPaired, tick=len(self.ticks),
                           matches=[list(m) for m in matches])
        return True

    def end_tick(self, results: Sequence[GameResult]) -> None:
        """Record the open tick's results and everyone's ratings after them."""
        tick = self.open_tick
        assert tick is not None and len(results) == len(self.ticks[tick])
        self.trigger_event(Ladder.TickEnded, tick=tick, results=[
            [list(g.ranks), list(g.coins), list(g.winners)] for g in results])
        ratings = self.rerated()
        self.trigger_event(Ladder.Rated, tick=tick, ratings={
            e: [ratings.of(e).mu, ratings.of(e).sigma, float(ratings.games.get(e, 0))]
            for e in self.entrants})

    def rerated(self) -> Ratings:
        """The ratings from every recorded result, match by match."""
        ratings = Ratings()
        for matches, results in zip(self.ticks, self.results, strict=False):
            for seats, result in zip(matches, results, strict=True):
                ratings.rate([self.entrants[e] for e in seats], result.ranks)
        return ratings


def last_meetings(ticks: Sequence[Sequence[Sequence[int]]]) -> dict[frozenset[int], int]:
    """For every pair of entrants that has shared a table: the last tick it did."""
    met: dict[frozenset[int], int] = {}
    for tick, matches in enumerate(ticks):
        for seats in matches:
            for pair in combinations(seats, 2):
                met[frozenset(pair)] = tick
    return met


def vary_groups(order: Sequence[int], k: int, last_met: Mapping[frozenset[int], int],
                last_groups: set[frozenset[int]], rng: random.Random) -> list[list[int]]:
    """Cut ``order`` (entrants by rating; whole tables of ``k``) into tables of entrants
    close in rating that vary from tick to tick: the first entrant not seated yet takes
    a table with k-1 of the next 2k-2 (those close in rating), choosing the group that
    is not one of the last tick's tables, then whose pairs met longest ago (never is
    best), then the closest in order, then by lot (``rng``). Walking the ranking from
    the top one tick and from the bottom the next keeps the last table, which takes who
    is left, from always being the same. Over a few ticks every pair close in rating
    shares a table (tests/tournaments/test_ladders.py, hypothesis)."""
    left = list(order)
    groups: list[list[int]] = []
    while left:
        if len(left) <= k:
            groups.append(left)
            break
        anchor, window = left[0], left[1:2 * k - 1]
        place = {e: i for i, e in enumerate(left)}
        best: tuple[tuple[bool, int, int, float], tuple[int, ...]] | None = None
        for others in combinations(window, k - 1):
            group = (anchor, *others)
            key = (frozenset(group) in last_groups,
                   sum(last_met.get(frozenset(pair), -1) for pair in combinations(group, 2)),
                   sum(place[e] for e in others), rng.random())
            if best is None or key < best[0]:
                best = (key, group)
        assert best is not None
        chosen = set(best[1])
        groups.append(list(best[1]))
        left = [e for e in left if e not in chosen]
    return groups


def ladder_game_id(ladder_id: UUID, match: int) -> UUID:
    """The id of a ladder's match ``match``: the same for every attempt to play it."""
    return uuid.uuid5(LADDER_NAMESPACE, f"{ladder_id}:{match}")


def match_seed(secret: str, match: int) -> str:
    """A match's seed: 128 bits of HMAC-SHA-256 under the ladder's secret."""
    return hmac.new(secret.encode(), f"bohnanza-ladder-v1:{match}".encode(),
                    hashlib.sha256).hexdigest()[:32]


def create_ladder(name: str, ruleset: Ruleset, table: int, interval: int,
                  entrants: Sequence[str], created_by: str | None = None,
                  app: Tournaments | None = None,
                  admit: Callable[[Ladder], None] | None = None) -> Ladder:
    """Create a ladder with its first entrants and store it; refused (CompetitionError,
    nothing stored) when the name, table, interval or entrants do not fit, or by
    ``admit`` (the organiser's quotas, ``tournaments.quotas``), which sees it built
    before anything is stored."""
    name = name.strip()
    if not 0 < len(name) <= MAX_NAME:
        raise CompetitionError(f"a name of 1 to {MAX_NAME} characters")
    if table not in ruleset.players:
        raise CompetitionError(f"{ruleset.name} is for {ruleset.players_label} players, "
                               f"not tables of {table}")
    if not MIN_INTERVAL <= interval <= MAX_INTERVAL:
        raise CompetitionError(f"a tick every {MIN_INTERVAL} to {MAX_INTERVAL} seconds")
    ladder = Ladder(name=name, ruleset=ruleset.parameters(), table=table,
                    interval=interval, secret=secrets.token_hex(32), created_by=created_by)
    try:
        check_table(max(len(entrants), table), table)
    except PairingError as refused:
        raise CompetitionError(str(refused)) from None
    for entrant in entrants:
        ladder.join(entrant)
    if admit is not None:
        admit(ladder)
    (app or tournaments()).save(ladder)
    return ladder


def get_ladder(ladder_id: UUID, app: Tournaments | None = None) -> Ladder:
    return (app or tournaments()).get_of(ladder_id, Ladder, LadderNotFound)


def ladder_ids(limit: int = 200, app: Tournaments | None = None) -> list[UUID]:
    """The newest ladders' ids, newest first."""
    return (app or tournaments()).created_ids(Ladder.Created, limit)


__all__ = ["Ladder", "LadderNotFound", "create_ladder", "get_ladder", "ladder_game_id",
           "ladder_ids", "last_meetings", "match_seed", "vary_groups"]
