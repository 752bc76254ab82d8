"""A competition as an event-sourced aggregate: creation, entries, pairings, results and
ratings are its events, in the ``Tournaments`` application (tables ``tournaments_*``
beside ``games_*`` in the same store); standings are rebuilt from them.

- :class:`Tournament.Created`: name, format, ruleset (its parameters, house rules
  included), table size, the format's options, and a secret of 256 bits from which
  every deal's seed is derived (:func:`deal_seed`). The secret never leaves the server:
  no page, export or answer shows the aggregate's events, only what is built from them.
- :class:`Tournament.Entered`: one entrant (a bot version, ``heuristic@builtin``).
- :class:`Tournament.RoundPaired`: a round's games, each (entrant per seat, deal).
- :class:`Tournament.RoundEnded`: each game's result (ranks, coins, winners), in the
  order of the pairings, once all of them are stored.
- :class:`Tournament.Rated`: every entrant's rating after the round (openskill).
- :class:`Tournament.Finished`: the competition is over.

A round's games are stored as the platform's games (:func:`game_id` follows from the
tournament, the round and the pairing, so a game played twice is stored once); the
``tournaments.tasks`` play them, and :func:`advance` moves the competition on.
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import secrets
import threading
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeVar
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.domain import Aggregate
from eventsourcing.utils import get_topic

from bohnanza_core.games import TOURNAMENT_NAME_MAX
from bohnanza_core.pairings import (
    Pairing,
    PairingError,
    advancing,
    check_table,
    duplicate,
    knockout_round,
    knockout_sizes,
    knockout_tables,
    rank_points,
    round_robin,
    swiss_round,
)
from bohnanza_core.rulesets import Ruleset
from replays.store import store_env
from tournaments.entrants import is_person
from tournaments.ratings import Rating, Ratings

A = TypeVar("A")
"""An aggregate kind of the Tournaments application (competition, ladder, league)."""

ROUND_ROBIN: Final = "round-robin"
SWISS: Final = "swiss"
KNOCKOUT: Final = "knockout"
DUPLICATE: Final = "duplicate"
FORMATS: Final = (ROUND_ROBIN, SWISS, KNOCKOUT, DUPLICATE)
MAX_NAME = TOURNAMENT_NAME_MAX
"""The longest name of a competition (a ladder's, a league's): its games carry it."""
GAME_NAMESPACE = uuid.UUID("7b0a3c52-9a55-4a4e-8f0e-2f6f3b6c9d11")
"""The uuid5 namespace of tournament games' ids."""

_lock = threading.Lock()
_tournaments: Tournaments | None = None


class CompetitionError(ValueError):
    """A competition that cannot be made as asked; nothing stored."""


class TournamentNotFound(LookupError):
    pass


@dataclass(frozen=True)
class GameResult:
    ranks: tuple[int, ...]
    coins: tuple[int, ...]
    winners: tuple[int, ...]


@dataclass(frozen=True)
class Standing:
    entrant: str
    games: int
    points: float
    coins: int
    wins: float

    @property
    def average_coins(self) -> float:
        return self.coins / self.games if self.games else 0.0


class Tournament(Aggregate):
    """One competition and everything that happened in it."""

    class Created(Aggregate.Created):
        name: str
        format: str
        ruleset: dict[str, Any]
        table: int
        options: dict[str, int]
        secret: str
        created_by: str | None

    class Entered(Aggregate.Event):
        entrant: str

        def apply(self, aggregate: Any) -> None:
            aggregate.entrants.append(self.entrant)

    class RoundPaired(Aggregate.Event):
        round: int
        games: list[list[Any]]
        """[[entrant index per seat...], deal] per game."""

        def apply(self, aggregate: Any) -> None:
            aggregate.rounds.append([Pairing(tuple(seats), deal) for seats, deal in self.games])

    class RoundEnded(Aggregate.Event):
        round: int
        results: list[list[list[int]]]
        """[ranks, coins, winners] per game, in pairing order."""

        def apply(self, aggregate: Any) -> None:
            aggregate.results.append([GameResult(tuple(r), tuple(c), tuple(w))
                                      for r, c, w in self.results])

    class Rated(Aggregate.Event):
        ratings: dict[str, list[float]]
        """entrant: [mu, sigma, games]."""

        def apply(self, aggregate: Any) -> None:
            aggregate.ratings = {e: (v[0], v[1], int(v[2])) for e, v in self.ratings.items()}

    class Finished(Aggregate.Event):
        def apply(self, aggregate: Any) -> None:
            aggregate.finished = True

    def __init__(self, name: str, format: str, ruleset: dict[str, Any], table: int,
                 options: dict[str, int], secret: str, created_by: str | None) -> None:
        self.name = name
        self.format = format
        self.ruleset_parameters = ruleset
        self.table = table
        self.options = options
        self.secret = secret
        self.created_by = created_by
        self.entrants: list[str] = []
        self.rounds: list[list[Pairing]] = []
        self.results: list[list[GameResult]] = []
        self.ratings: dict[str, tuple[float, float, int]] = {}
        self.finished = False

    def __deepcopy__(self, memo: dict[int, Any]) -> Tournament:
        """A copy with new containers that shares the frozen pairings and results. The
        repository hands out deep copies of its cached aggregate (a round's end changes
        one), and copying every Pairing and GameResult made each round's end cost in
        proportion to the games played so far: 0.3 ms a game over a 280-game
        competition, 2.4 ms over 2,800 (bench/tournament.py, "round end")."""
        clone = object.__new__(type(self))
        memo[id(self)] = clone
        for name, value in self.__dict__.items():
            if name in ("rounds", "results"):
                value = [list(games) for games in value]
            else:
                value = copy.deepcopy(value, memo)
            clone.__dict__[name] = value
        return clone

    # -- reading --------------------------------------------------------------------

    @property
    def ruleset(self) -> Ruleset:
        return Ruleset.from_parameters(self.ruleset_parameters)

    @property
    def started(self) -> bool:
        return bool(self.rounds)

    @property
    def current_round(self) -> int | None:
        """The round being played, or None (not started, or finished)."""
        if self.finished or not self.rounds or len(self.results) == len(self.rounds):
            return None
        return len(self.rounds) - 1

    def games_total(self) -> int:
        """Every game of the competition: known in advance except for Swiss and
        knockout, whose later rounds count as the format says they will be."""
        n, k = len(self.entrants), self.table
        if self.format == SWISS:
            return self.options["rounds"] * (n // k)
        if self.format == KNOCKOUT:
            return sum(knockout_sizes(n, k, self.options["advance"]))
        return sum(len(games) for games in self._fixed_rounds())

    def games_done(self) -> int:
        return sum(len(results) for results in self.results)

    def standings(self) -> list[Standing]:
        """Every entrant by points (rank points: one per opponent finished ahead of, a
        half per one level), then coins, then entry order."""
        points = [0.0] * len(self.entrants)
        coins = [0] * len(self.entrants)
        wins = [0.0] * len(self.entrants)
        games = [0] * len(self.entrants)
        for pairings, results in zip(self.rounds, self.results, strict=False):
            for pairing, result in zip(pairings, results, strict=True):
                share = 1.0 / len(result.winners) if result.winners else 0.0
                for seat, (entrant, p) in enumerate(
                        zip(pairing.seats, rank_points(result.ranks), strict=True)):
                    points[entrant] += p
                    coins[entrant] += result.coins[seat]
                    games[entrant] += 1
                    if seat in result.winners:
                        wins[entrant] += share
        order = sorted(range(len(self.entrants)), key=lambda e: (-points[e], -coins[e], e))
        return [Standing(self.entrants[e], games[e], points[e], coins[e], wins[e])
                for e in order]

    # -- moving on ------------------------------------------------------------------

    def enter(self, entrant: str) -> None:
        if is_person(entrant):  # nobody enters a person but themselves: tournaments.consent
            raise CompetitionError("a competition takes bots; people play in leagues")
        if self.started:
            raise CompetitionError("entries closed when the first round was paired")
        if entrant in self.entrants:
            raise CompetitionError(f"{entrant} has already entered")
        self.trigger_event(Tournament.Entered, entrant=entrant)

    def _fixed_rounds(self) -> list[list[Pairing]]:
        n, k = len(self.entrants), self.table
        if self.format == ROUND_ROBIN:
            return round_robin(n, k, self.options["cycles"])
        return duplicate(n, k, self.options["deals"])

    def next_pairings(self) -> list[Pairing] | None:
        """The next round's games, or None when the competition is over."""
        r = len(self.rounds)
        k = self.table
        if self.format in (ROUND_ROBIN, DUPLICATE):
            fixed = self._fixed_rounds()
            return fixed[r] if r < len(fixed) else None
        if self.format == SWISS:
            if r >= self.options["rounds"]:
                return None
            standing = [self.entrants.index(s.entrant) for s in self.standings()]
            return swiss_round(standing, k, self.rounds)
        # knockout: the seeding is the entry order, then who went through
        if r == 0:
            return knockout_round(list(range(len(self.entrants))), k)
        last = self.rounds[-1]
        if len(last) == k:  # the final table has played
            return None
        seeding = list(range(len(self.entrants)))
        through: list[int] = []
        results = self.results[-1]
        for t, group in enumerate(knockout_tables(last, k)):
            points: dict[int, float] = {}
            coins: dict[int, int] = {}
            for pairing, result in zip(last[t * k:(t + 1) * k], results[t * k:(t + 1) * k],
                                       strict=True):
                for seat, (e, p) in enumerate(zip(pairing.seats, rank_points(result.ranks),
                                                  strict=True)):
                    points[e] = points.get(e, 0.0) + p
                    coins[e] = coins.get(e, 0) + result.coins[seat]
            through += advancing(group, points, coins, seeding, self.options["advance"])
        return knockout_round(sorted(through), k)

    def pair_next(self) -> bool:
        """Pair the next round (True) or finish the competition (False)."""
        pairings = self.next_pairings()
        if pairings is None:
            self.trigger_event(Tournament.Finished)
            return False
        self.trigger_event(Tournament.RoundPaired, round=len(self.rounds),
                           games=[[list(p.seats), p.deal] for p in pairings])
        return True

    def end_round(self, results: Sequence[GameResult]) -> None:
        """Record the current round's results, rate them, and pair the next round."""
        r = self.current_round
        assert r is not None and len(results) == len(self.rounds[r])
        self.trigger_event(Tournament.RoundEnded, round=r, results=[
            [list(g.ranks), list(g.coins), list(g.winners)] for g in results])
        # On from the ratings after the last round, not from the first game again (that
        # made each round's end cost in proportion to the games so far): the same
        # numbers, since each game's rating starts from exactly the floats stored.
        ratings = Ratings({e: Rating(mu, sigma) for e, (mu, sigma, games) in
                           self.ratings.items() if games},
                          {e: games for e, (_, _, games) in self.ratings.items() if games})
        for pairing, result in zip(self.rounds[r], self.results[r], strict=True):
            ratings.rate([self.entrants[e] for e in pairing.seats], result.ranks)
        self.trigger_event(Tournament.Rated, ratings={
            e: [ratings.of(e).mu, ratings.of(e).sigma, float(ratings.games.get(e, 0))]
            for e in self.entrants})
        self.pair_next()

    def rerated(self) -> Ratings:
        """The ratings from every result so far, game by game in pairing order."""
        ratings = Ratings()
        for pairings, results in zip(self.rounds, self.results, strict=False):
            for pairing, result in zip(pairings, results, strict=True):
                ratings.rate([self.entrants[e] for e in pairing.seats], result.ranks)
        return ratings


def game_id(tournament_id: UUID, round_number: int, index: int) -> UUID:
    """The id of game ``index`` of a round: the same for every attempt to play it."""
    return uuid.uuid5(GAME_NAMESPACE, f"{tournament_id}:{round_number}:{index}")


def deal_seed(secret: str, round_number: int, deal: int) -> str:
    """The seed of a round's deal: 128 bits of HMAC-SHA-256 under the tournament's secret,
    so nobody who knows the ids can compute it; the games sharing a deal share it."""
    return hmac.new(secret.encode(), f"bohnanza-deal-v1:{round_number}:{deal}".encode(),
                    hashlib.sha256).hexdigest()[:32]


class Tournaments(Application[UUID]):
    """Every competition of the platform, stored as events."""

    name = "Tournaments"

    def create(self, name: str, format: str, ruleset: Ruleset, table: int,
               options: dict[str, int], entrants: Sequence[str],
               created_by: str | None = None,
               admit: Callable[[Tournament], None] | None = None) -> Tournament:
        """Create, enter everyone, pair the first round, and store it all at once.
        Refused (CompetitionError, nothing stored) when the format cannot be paired, or
        by ``admit`` (the organiser's quotas, ``tournaments.quotas``), which sees it
        built before anything is stored."""
        name = name.strip()
        if not 0 < len(name) <= MAX_NAME:
            raise CompetitionError(f"a name of 1 to {MAX_NAME} characters")
        if format not in FORMATS:
            raise CompetitionError(f"format is one of {', '.join(FORMATS)}, not {format!r}")
        if table not in ruleset.players:
            raise CompetitionError(f"{ruleset.name} is for {ruleset.players_label} players, "
                                   f"not tables of {table}")
        wanted = {ROUND_ROBIN: "cycles", SWISS: "rounds", KNOCKOUT: "advance",
                  DUPLICATE: "deals"}[format]
        if set(options) != {wanted}:
            raise CompetitionError(f"a {format} competition takes one option: {wanted}")
        tournament = Tournament(name=name, format=format, ruleset=ruleset.parameters(),
                                table=table, options=dict(options),
                                secret=secrets.token_hex(32), created_by=created_by)
        try:
            check_table(len(entrants), table)
            for entrant in entrants:
                tournament.enter(entrant)
            tournament.games_total()  # a knockout that cannot run down is refused here
            tournament.pair_next()
        except PairingError as refused:
            raise CompetitionError(str(refused)) from None
        if admit is not None:
            admit(tournament)
        self.save(tournament)
        return tournament

    def get_tournament(self, tournament_id: UUID, *, copy: bool = True) -> Tournament:
        """The competition as stored now, from a per-process cache brought up to date
        with only the events since (a worker loads it for every deal). A copy unless
        ``copy=False``: the cached object itself, for a single-threaded worker's reads
        that change nothing (no copy of thousands of pairings per deal)."""
        try:
            tournament: Any = self.repository.get(tournament_id, deepcopy_from_cache=copy)
        except AggregateNotFoundError:
            raise TournamentNotFound(f"no tournament {tournament_id}") from None
        if not isinstance(tournament, Tournament):  # a ladder's id
            raise TournamentNotFound(f"no tournament {tournament_id}")
        return tournament

    def ids(self, limit: int = 200) -> list[UUID]:
        """The newest competitions' ids, newest first."""
        return self.created_ids(Tournament.Created, limit)

    def created_ids(self, created: type, limit: int = 200) -> list[UUID]:
        """The ids of the newest aggregates whose first event is ``created`` (a
        competition's, a ladder's or a league's), newest first."""
        topic = get_topic(created)
        found: list[UUID] = []
        start: int | None = None
        while True:
            batch = self.recorder.select_notifications(start=start, limit=500, topics=[topic])
            found += [n.originator_id for n in batch]
            if len(batch) < 500:
                break
            start = batch[-1].id + 1
        return found[::-1][:limit]

    def get_of(self, aggregate_id: UUID, kind: type[A], missing: type[Exception]) -> A:
        """The stored aggregate of ``kind`` with that id; ``missing`` if there is none,
        or if the id is another kind's (a ladder's id asked for as a league)."""
        try:
            found: Any = self.repository.get(aggregate_id)
        except AggregateNotFoundError:
            raise missing(f"no {kind.__name__.lower()} {aggregate_id}") from None
        if not isinstance(found, kind):
            raise missing(f"no {kind.__name__.lower()} {aggregate_id}")
        return found


def tournaments() -> Tournaments:
    """The process's Tournaments application (created on first use)."""
    global _tournaments
    with _lock:
        if _tournaments is None:
            _tournaments = Tournaments(env={**store_env(), "AGGREGATE_CACHE_MAXSIZE": "64"})
        return _tournaments


def reset_tournaments() -> None:
    global _tournaments
    with _lock:
        if _tournaments is not None:
            _tournaments.close()
        _tournaments = None


__all__ = ["DUPLICATE", "FORMATS", "KNOCKOUT", "ROUND_ROBIN", "SWISS", "CompetitionError",
           "GameResult", "Standing", "Tournament", "TournamentNotFound", "Tournaments",
           "deal_seed", "game_id", "reset_tournaments", "tournaments"]
