"""The formats of a competition: from who entered and what has been played so far, the
next round's games.

A competition (``tournaments``) stores what its format decides as events, so the
format itself is pure and stateless: :meth:`Format.next_round` reads a
:class:`History` (how many entrants, the table size, the rounds paired and the results
of those ended, the entrants' rating order) and answers with a :class:`Round`, or None
when no round can be paired now. Every kind of competition is one of these, with its
parameters:

========================  ======================  ====================================
format                    parameters              a round is
========================  ======================  ====================================
``round-robin``           ``cycles``              one seat rotation of every group
``swiss``                 ``rounds``              tables by standing, repeats fewest
``knockout``              ``advance``             a match of k games per table; the
                                                  top ``advance`` of each go on
``duplicate``             ``deals``               every group plays the round's one
                                                  deal in every seat rotation
``ladder``                (none: its schedule     a tick: tables of entrants close in
                          says how often)         rating, joining at any time
``league``                ``divisions``,          a season: a round robin in each
                          ``moves``, ``seasons``  division, then promotion and
                                                  relegation
========================  ======================  ====================================

The pairing algorithms themselves are in :mod:`bohnanza_core.pairings`.
"""

from __future__ import annotations

import hashlib
import hmac
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import ClassVar

from bohnanza_core.pairings import (
    MAX_ENTRANTS,
    MAX_ROUNDS,
    Pairing,
    PairingError,
    advancing,
    check_table,
    duplicate,
    duplicate_by_group,
    duplicate_games,
    knockout_round,
    knockout_sizes,
    knockout_tables,
    rank_points,
    round_robin,
    round_robin_games,
    swiss_round,
)

MAX_TICKS = 10_000
"""Rounds of one ladder: bounds its events (at most 32 games a tick)."""
MAX_DIVISIONS = 8
MAX_SEASONS = 20
MAX_FIXTURES = 2_000
"""Games of one league season, every division together."""


@dataclass(frozen=True)
class Result:
    """One game's outcome, seat by seat: ``ranks`` (1 best, equal for a shared place),
    ``coins``, and the seats that won (``winners``)."""

    ranks: tuple[int, ...]
    coins: tuple[int, ...]
    winners: tuple[int, ...]


@dataclass(frozen=True)
class Round:
    """One round's games (each: the entrants by seat and the deal it plays); a league
    season's ``divisions`` (the entrants of each, in the season's seeding order)."""

    games: tuple[Pairing, ...]
    divisions: tuple[tuple[int, ...], ...] = ()

    def division_of(self, game: int) -> int | None:
        """The division a game of a league season is played in (None: no divisions)."""
        first = self.games[game].seats[0]
        return next((d for d, division in enumerate(self.divisions) if first in division),
                    None)


@dataclass(frozen=True)
class Moves:
    """Who went up (``promoted``) and down (``relegated``) at a league season's end."""

    promoted: tuple[int, ...] = ()
    relegated: tuple[int, ...] = ()


@dataclass(frozen=True)
class History:
    """What a format knows of a competition: ``entrants`` (how many), the ``table``
    size, the ``rounds`` paired, the ``results`` of those ended (one list per ended
    round, in pairing order), the ``moves`` of each ended round, the entrants by rating
    (``ranking``, best first), and ``lot``: bytes no entrant can know in advance (from
    the competition's secret and the round), from which a format draws lots."""

    entrants: int
    table: int
    rounds: Sequence[Round] = ()
    results: Sequence[Sequence[Result]] = ()
    moves: Sequence[Moves] = ()
    ranking: Sequence[int] = ()
    lot: bytes = b""


@dataclass(frozen=True)
class Tally:
    """An entrant's games so far: rank points (one per opponent finished ahead of, a
    half per one level), coins, wins (a shared win split) and games."""

    entrant: int
    games: int = 0
    points: float = 0.0
    coins: int = 0
    wins: float = 0.0


def tally(entrants: int, rounds: Sequence[Round],
          results: Sequence[Sequence[Result | None]]) -> list[Tally]:
    """Every entrant's :class:`Tally` over the results given (None: a game not played
    yet), in entry order."""
    points = [0.0] * entrants
    coins = [0] * entrants
    wins = [0.0] * entrants
    games = [0] * entrants
    for paired, ended in zip(rounds, results, strict=False):
        for pairing, result in zip(paired.games, ended, strict=False):
            if result is None:
                continue
            share = 1.0 / len(result.winners) if result.winners else 0.0
            for seat, (entrant, p) in enumerate(
                    zip(pairing.seats, rank_points(result.ranks), strict=True)):
                points[entrant] += p
                coins[entrant] += result.coins[seat]
                games[entrant] += 1
                if seat in result.winners:
                    wins[entrant] += share
    return [Tally(e, games[e], points[e], coins[e], wins[e]) for e in range(entrants)]


def standing(tallies: Sequence[Tally]) -> list[int]:
    """Entrants by points, then coins, then entry order."""
    return [t.entrant for t in sorted(tallies, key=lambda t: (-t.points, -t.coins, t.entrant))]


@dataclass(frozen=True)
class Podium:
    """The competition's places, best first, as its format's own rule ranks them
    (``rule``: ``points`` for a round robin's or a duplicate's standings, ``swiss`` for
    points with the Swiss tie-breaks, ``final`` for a knockout's final table, ``division``
    for a league's first division in its last season, ``rating`` for a ladder)."""

    places: tuple[int, ...]
    rule: str


@dataclass(frozen=True)
class MatchRow:
    """One entrant of a knockout table's match: its points and coins over the match's
    games, and whether it went through (the final's first: the winner)."""

    entrant: int
    points: float
    coins: int
    through: bool


@dataclass(frozen=True)
class Match:
    """One table of a knockout round: its entrants, in the match's order once every
    game of it has been played (``played``), in seeding order before."""

    rows: tuple[MatchRow, ...]
    played: bool


def buchholz(entrants: int, rounds: Sequence[Round],
             results: Sequence[Sequence[Result]], tallies: Sequence[Tally]) -> list[float]:
    """Each entrant's Buchholz score: the points of every opponent it sat with, once per
    game (the Swiss tie-break: who met the stronger field ranks higher)."""
    score = [0.0] * entrants
    for paired, ended in zip(rounds, results, strict=False):
        for pairing, _result in zip(paired.games, ended, strict=False):
            for e in pairing.seats:
                score[e] += sum(tallies[o].points for o in pairing.seats if o != e)
    return score


def lot(secret: str, label: str, round_number: int) -> bytes:
    """The bytes a format draws lots from for a round: HMAC-SHA-256 under the
    competition's secret, so nobody can tell the draw before the round is paired."""
    return hmac.new(secret.encode(), f"{label}:{round_number}".encode(),
                    hashlib.sha256).digest()


class Format:
    """A competition's format: its name, its parameters, and the rounds it pairs."""

    name: ClassVar[str]
    parameters: ClassVar[tuple[str, ...]] = ()
    continuous: ClassVar[bool] = False
    """Entrants may join while it runs and rounds are paired on a schedule (a ladder)."""
    shares_deals: ClassVar[bool] = False
    """Several tables play one deal at once (a true duplicate round): its seed must
    stay secret until all have ended, so only bots play it."""
    offered: ClassVar[bool] = True
    """New competitions may be made with it (False: kept to read stored ones)."""

    def __init__(self, options: Mapping[str, int]) -> None:
        if set(options) != set(self.parameters):
            wanted = ", ".join(self.parameters) or "none"
            raise PairingError(f"a {self.name} takes the options: {wanted}")
        self.options = dict(options)

    def check(self, entrants: int, table: int) -> None:
        """Refuse (PairingError) entrants and table size this format cannot pair."""
        check_table(entrants, table)

    def games_total(self, entrants: int, table: int) -> int | None:
        """Every game the competition will have, or None (a ladder's never end)."""
        return None

    def rounds_total(self, entrants: int, table: int) -> int | None:
        """Every round the competition will have, or None when not known in advance."""
        return None

    def next_round(self, history: History) -> Round | None:
        """The next round's games, or None when none can be paired (the competition is
        over, or a ladder waits for entrants)."""
        raise NotImplementedError  # every format pairs its own way: each overrides this

    def over(self, history: History) -> bool:
        """Whether the competition has played its last round: none is open, and no
        next one can be paired."""
        return len(history.results) == len(history.rounds) and self.next_round(history) is None

    def moves(self, history: History, results: Sequence[Result]) -> Moves:
        """Who moves up and down as the open round ends with ``results`` (a league)."""
        return Moves()

    def placings(self, history: History) -> list[int]:
        """Every entrant, best first, by this format's own rule (its podium's): here
        points, then coins, then entry order, over every ended round."""
        return standing(tally(history.entrants, history.rounds, history.results))

    podium_rule: ClassVar[str] = "points"

    def podium(self, history: History) -> Podium:
        """The first three of :meth:`placings` (fewer where fewer entrants), named by
        the format's rule."""
        return Podium(tuple(self.placings(history)[:3]), self.podium_rule)


class _Fixed(Format):
    """A format whose every round is known from the start."""

    def all_rounds(self, entrants: int, table: int) -> list[list[Pairing]]:
        """Every round's pairings, known before the first is played."""
        raise NotImplementedError  # each fixed format (round robin, duplicate) overrides it

    def next_round(self, history: History) -> Round | None:
        fixed = self.all_rounds(history.entrants, history.table)
        r = len(history.rounds)
        return Round(tuple(fixed[r])) if r < len(fixed) else None

    def games_total(self, entrants: int, table: int) -> int:
        return sum(len(games) for games in self.all_rounds(entrants, table))

    def rounds_total(self, entrants: int, table: int) -> int:
        return len(self.all_rounds(entrants, table))


class RoundRobin(_Fixed):
    """Every group of k entrants plays once in each seat rotation, ``cycles`` times."""

    name = "round-robin"
    parameters = ("cycles",)

    def check(self, entrants: int, table: int) -> None:
        round_robin(entrants, table, self.options["cycles"])

    def all_rounds(self, entrants: int, table: int) -> list[list[Pairing]]:
        return round_robin(entrants, table, self.options["cycles"])

    def games_total(self, entrants: int, table: int) -> int:
        return round_robin_games(entrants, table, self.options["cycles"])


class Duplicate(_Fixed):
    """Round d plays deal d at every table: every group of k entrants plays it in every
    seat rotation, so the luck of the deal cancels across the whole field. A round's
    games share one seed, kept secret until all of them have ended: bots only, the
    round's games played and stored together."""

    name = "duplicate"
    parameters = ("deals",)
    shares_deals = True

    def check(self, entrants: int, table: int) -> None:
        duplicate(entrants, table, self.options["deals"])

    def all_rounds(self, entrants: int, table: int) -> list[list[Pairing]]:
        return duplicate(entrants, table, self.options["deals"])

    def games_total(self, entrants: int, table: int) -> int:
        return duplicate_games(entrants, table, self.options["deals"])


class DuplicateByGroup(Duplicate):
    """The duplicate format as it was before its rounds shared one deal: each group of
    k entrants its own deal. Competitions stored with the old format read as this one
    (``tournaments.core.competition``, ``Created`` version 3), so a running one plays
    on as it began; no new competition is made with it."""

    name = "duplicate-by-group"
    offered = False

    def check(self, entrants: int, table: int) -> None:
        duplicate_by_group(entrants, table, self.options["deals"])

    def all_rounds(self, entrants: int, table: int) -> list[list[Pairing]]:
        return duplicate_by_group(entrants, table, self.options["deals"])


class Swiss(Format):
    """``rounds`` rounds of tables by standing, repeat meetings fewest."""

    name = "swiss"
    parameters = ("rounds",)

    def check(self, entrants: int, table: int) -> None:
        check_table(entrants, table)
        if not 1 <= self.options["rounds"] <= MAX_ROUNDS:
            raise PairingError(f"rounds: 1 to {MAX_ROUNDS}, not {self.options['rounds']}")
        if entrants % table:
            raise PairingError(f"{entrants} entrants do not fill tables of {table}: a Swiss "
                               f"round needs a multiple of {table}", "swiss_tables",
                               entrants=entrants, table=table)

    def games_total(self, entrants: int, table: int) -> int:
        return self.options["rounds"] * (entrants // table)

    def rounds_total(self, entrants: int, table: int) -> int:
        return self.options["rounds"]

    def next_round(self, history: History) -> Round | None:
        if len(history.rounds) >= self.options["rounds"]:
            return None
        order = standing(tally(history.entrants, history.rounds, history.results))
        return Round(tuple(swiss_round(order, history.table,
                                       [r.games for r in history.rounds])))

    podium_rule = "swiss"

    def placings(self, history: History) -> list[int]:
        """Points, then Buchholz (the points of everyone met), then coins, then entry
        order: the Swiss's tie-breaks."""
        tallies = tally(history.entrants, history.rounds, history.results)
        extra = buchholz(history.entrants, history.rounds, history.results, tallies)
        return sorted(range(history.entrants),
                      key=lambda e: (-tallies[e].points, -extra[e], -tallies[e].coins, e))


class Knockout(Format):
    """Tables seeded apart play a match of k games; the top ``advance`` of each go on,
    down to one final table."""

    name = "knockout"
    parameters = ("advance",)

    def check(self, entrants: int, table: int) -> None:
        knockout_sizes(entrants, table, self.options["advance"])

    def games_total(self, entrants: int, table: int) -> int:
        return sum(knockout_sizes(entrants, table, self.options["advance"]))

    def rounds_total(self, entrants: int, table: int) -> int:
        return len(knockout_sizes(entrants, table, self.options["advance"]))

    def next_round(self, history: History) -> Round | None:
        k = history.table
        if not history.rounds:
            return Round(tuple(knockout_round(list(range(history.entrants)), k)))
        last = history.rounds[-1].games
        if len(last) == k or len(history.results) < len(history.rounds):
            return None  # the final table has played, or the round is still on
        through = [row.entrant for match in self.matches(history, len(history.rounds) - 1)
                   for row in match.rows if row.through]
        return Round(tuple(knockout_round(sorted(through), k)))

    def matches(self, history: History, r: int,
                results: Sequence[Result | None] | None = None) -> list[Match]:
        """Round ``r``'s tables (``results``: the round's so far, None for a game not
        played yet; its recorded ones by default): each table's entrants by the match's
        points, then coins, then seed, the top ``advance`` through (the final's first
        alone: the winner), once every game of its match has been played."""
        k = history.table
        games = history.rounds[r].games
        if results is None:
            results = history.results[r] if r < len(history.results) else []
        final = len(games) == k
        seeding = list(range(history.entrants))
        shown = []
        for t, group in enumerate(knockout_tables(games, k)):
            points: dict[int, float] = {}
            coins: dict[int, int] = {}
            played = 0
            for i in range(t * k, (t + 1) * k):
                result = results[i] if i < len(results) else None
                if result is None:
                    continue
                played += 1
                for seat, (e, p) in enumerate(zip(games[i].seats, rank_points(result.ranks),
                                                  strict=True)):
                    points[e] = points.get(e, 0.0) + p
                    coins[e] = coins.get(e, 0) + result.coins[seat]
            done = played == k
            order = (advancing(group, points, coins, seeding, len(group)) if done
                     else sorted(group))
            going = 1 if final else self.options["advance"]
            shown.append(Match(tuple(MatchRow(e, points.get(e, 0.0), coins.get(e, 0),
                                              done and place < going)
                                     for place, e in enumerate(order)), done))
        return shown

    podium_rule = "final"

    def placings(self, history: History) -> list[int]:
        """The final table in the final's order, then those out in each round before,
        the later rounds first, each round's by their match (points, coins, seed); an
        entrant still in (a running knockout) ranks by the round it has reached."""
        order: list[int] = []
        for r in range(min(len(history.results), len(history.rounds)) - 1, -1, -1):
            out = [(row.points, row.coins, row.entrant)
                   for match in self.matches(history, r) for row in match.rows
                   if not row.through and row.entrant not in order]
            if r == len(history.rounds) - 1 and len(history.rounds[r].games) == history.table:
                order += [row.entrant for row in self.matches(history, r)[0].rows]
                continue
            order += [e for _p, _c, e in sorted(out, key=lambda x: (-x[0], -x[1], x[2]))]
        rest = [e for e in range(history.entrants) if e not in order]
        return rest + order if len(history.results) < len(history.rounds) else order + rest

    def last_matches(self, history: History) -> list[tuple[int, MatchRow | None]]:
        """Each entrant, in entry order: the last round it is paired in (from 0; -1
        before the first) and its row of the last match it has finished (points and
        coins over that match; None before its first): what :meth:`placings` orders
        by, so a standings table can show it."""
        reached = [-1] * history.entrants
        for r, paired in enumerate(history.rounds):
            for pairing in paired.games:
                for e in pairing.seats:
                    reached[e] = r
        rows: list[MatchRow | None] = [None] * history.entrants
        for r in range(min(len(history.results), len(history.rounds))):
            for match in self.matches(history, r):
                for row in match.rows:
                    rows[row.entrant] = row
        return list(zip(reached, rows, strict=True))


class Ladder(Format):
    """A tick: tables of entrants close in rating, which vary from tick to tick; entrants
    join at any time and play from the next tick."""

    name = "ladder"
    continuous = True

    def check(self, entrants: int, table: int) -> None:
        check_table(max(entrants, table), table)

    def over(self, history: History) -> bool:
        return len(history.rounds) >= MAX_TICKS

    podium_rule = "rating"

    def placings(self, history: History) -> list[int]:
        """By rating (conservative, mu - 3 sigma), best first."""
        return list(history.ranking)

    def next_round(self, history: History) -> Round | None:
        """With r entrants over whole tables, the ranking's cut starts r' places down
        (r' = tick mod r+1), so who sits out (r' at the top, the rest at the bottom)
        changes tick by tick. Tables of two: neighbours in the ranking. Larger tables:
        :func:`vary_groups` (close in rating, but not the same groups tick after tick).
        Each table's seats turn one place a tick."""
        k, n, tick = history.table, history.entrants, len(history.rounds)
        if n < k or tick >= MAX_TICKS:
            return None
        start = tick % (n % k + 1)
        ranking = list(history.ranking)
        order = ranking[start:start + (n // k) * k]
        turn = tick % k
        if k == 2:
            groups = [order[i:i + k] for i in range(0, len(order), k)]
        else:
            ticks = [[p.seats for p in r.games] for r in history.rounds]
            groups = [sorted(g, key=ranking.index) for g in vary_groups(
                order if tick % 2 == 0 else order[::-1], k, last_meetings(ticks),
                {frozenset(m) for m in ticks[-1]} if ticks else set(),
                random.Random(history.lot))]
        return Round(tuple(Pairing(tuple(group[turn:] + group[:turn]), deal=i)
                           for i, group in enumerate(groups)))


class League(Format):
    """Seasons of divisions, each a round robin, with ``moves`` up and down between
    neighbouring divisions at each season's end; ``seasons`` of them."""

    name = "league"
    parameters = ("divisions", "moves", "seasons")

    def check(self, entrants: int, table: int) -> None:
        divisions, moves = self.options["divisions"], self.options["moves"]
        if not 1 <= divisions <= MAX_DIVISIONS or not 1 <= self.options["seasons"] <= MAX_SEASONS:
            raise PairingError(f"1 to {MAX_DIVISIONS} divisions, 1 to {MAX_SEASONS} seasons")
        if entrants > MAX_ENTRANTS:
            raise PairingError(f"at most {MAX_ENTRANTS} entrants, not {entrants}",
                               "entrant_limit", most=MAX_ENTRANTS, entrants=entrants)
        if entrants % divisions:
            raise PairingError(f"{entrants} entrants do not share out evenly into "
                               f"{divisions} divisions: the same number in every division",
                               "divisions_uneven", entrants=entrants, divisions=divisions)
        size = entrants // divisions
        if not (size >= table and moves >= 0 and 2 * moves <= size
                and (moves or divisions == 1)):
            raise PairingError("a division seats at least one table and moves at most half "
                               "of it up or down (at least one when there are several)",
                               "division_size")
        if divisions * round_robin_games(size, table) > MAX_FIXTURES:
            raise PairingError(f"at most {MAX_FIXTURES} games a season")

    def games_total(self, entrants: int, table: int) -> int:
        size = entrants // self.options["divisions"]
        return (self.options["divisions"] * round_robin_games(size, table)
                * self.options["seasons"])

    def rounds_total(self, entrants: int, table: int) -> int:
        return self.options["seasons"]

    def next_round(self, history: History) -> Round | None:
        season = len(history.rounds)
        if season >= self.options["seasons"] or len(history.results) < season:
            return None
        if season == 0:
            size = history.entrants // self.options["divisions"]
            divisions = [list(range(d * size, (d + 1) * size))
                         for d in range(self.options["divisions"])]
        else:
            divisions = self._after_moves(history, season - 1)
        games: list[Pairing] = []
        for division in divisions:
            for paired in round_robin(len(division), history.table, 1):
                games += [Pairing(tuple(division[s] for s in p.seats), deal=len(games))
                          for p in paired]
        return Round(tuple(games), tuple(tuple(d) for d in divisions))

    podium_rule = "division"

    def placings(self, history: History) -> list[int]:
        """The last ended season's divisions, the first division's first at the top."""
        if not history.results:
            return list(range(history.entrants))
        season = len(history.results) - 1
        ranked = division_standings(history.rounds[season], history.results[season])
        return [e for division in ranked for e in division]

    def moves(self, history: History, results: Sequence[Result]) -> Moves:
        """The top ``moves`` of each division below the first go up, the bottom
        ``moves`` of each above the last go down; nobody moves at the end of the last
        season (there is no next one to move to)."""
        if len(history.rounds) >= self.options["seasons"]:
            return Moves()
        ranked = division_standings(history.rounds[-1], results)
        m = self.options["moves"]
        return Moves(tuple(e for d in ranked[1:] for e in d[:m]),
                     tuple(e for d in ranked[:-1] for e in d[len(d) - m:]))

    @staticmethod
    def _after_moves(history: History, season: int) -> list[list[int]]:
        """The ended season's divisions after its moves, each in its new seeding: those
        who stayed in their order, the promoted below them, the relegated above."""
        ranked = division_standings(history.rounds[season], history.results[season])
        moved = history.moves[season]
        after = []
        for d, division in enumerate(ranked):
            down_from_above = ([e for e in ranked[d - 1] if e in moved.relegated]
                               if d else [])
            up_from_below = ([e for e in ranked[d + 1] if e in moved.promoted]
                             if d + 1 < len(ranked) else [])
            stay = [e for e in division if e not in moved.promoted and e not in moved.relegated]
            after.append(down_from_above + stay + up_from_below)
        return after


def division_standings(season: Round, results: Sequence[Result | None]) -> list[list[int]]:
    """Each division of a season, best first: points, then coins, then the season's
    seeding (its place in the division as the season started)."""
    entrants = 1 + max((e for d in season.divisions for e in d), default=-1)
    tallies = tally(entrants, [season], [results])
    return [sorted(division, key=lambda e: (-tallies[e].points, -tallies[e].coins,
                                            division.index(e)))
            for division in season.divisions]


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


ALL_FORMATS: dict[str, type[Format]] = {
    f.name: f for f in (RoundRobin, Swiss, Knockout, Duplicate, Ladder, League,
                        DuplicateByGroup)}
"""Every format by name, those kept only to read stored competitions included."""
FORMATS: dict[str, type[Format]] = {name: f for name, f in ALL_FORMATS.items() if f.offered}
"""The formats a new competition is made with, by name."""


def format_for(name: str, options: Mapping[str, int]) -> Format:
    """The format ``name`` with its options (PairingError if there is none such, or its
    options are not the format's)."""
    try:
        kind = ALL_FORMATS[name]
    except KeyError:
        raise PairingError(f"format is one of {', '.join(FORMATS)}, not {name[:40]!r}"
                           ) from None
    return kind(options)


def games_of(rounds: Sequence[Round]) -> int:
    return sum(len(r.games) for r in rounds)


__all__ = [
    "ALL_FORMATS",
    "FORMATS",
    "MAX_DIVISIONS",
    "MAX_FIXTURES",
    "MAX_SEASONS",
    "MAX_TICKS",
    "Duplicate",
    "DuplicateByGroup",
    "Format",
    "History",
    "Knockout",
    "Ladder",
    "League",
    "Match",
    "MatchRow",
    "Moves",
    "Podium",
    "Result",
    "Round",
    "RoundRobin",
    "Swiss",
    "Tally",
    "buchholz",
    "division_standings",
    "format_for",
    "games_of",
    "last_meetings",
    "lot",
    "standing",
    "tally",
    "vary_groups",
]
