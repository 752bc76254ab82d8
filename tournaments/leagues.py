"""A league: seasons of divisions, each division a round robin, with promotion and
relegation at each season's end; an aggregate of its own (:class:`League`) in the
``Tournaments`` application, beside the competitions and the ladders.

- :class:`League.Created`: name, ruleset, table size, divisions, how many move up and
  down between neighbouring divisions, seasons, and the secret the seeds derive from.
- :class:`League.Entered`: one entrant; entry order is the first season's seeding
  (division 1 takes the first entrants).
- :class:`League.SeasonStarted`: the season's divisions (entrant indices) and fixtures.
- :class:`League.SeasonEnded`: every fixture's result, and who went up and down.
- :class:`League.Rated`: every entrant's openskill rating (Plackett-Luce, ``tournaments.
  ratings``) after the season, re-rated from every recorded result in fixture order.
- :class:`League.PlayedLive` (a league with people): the live tables' preset, house
  rules and turn clock, each live fixture's hours before its deadline, and whether
  entries are open (people join and leave until the organiser starts the first
  season); :class:`League.Left`: an entrant who left before the first season.
- Consent (``tournaments.consent``): a person is entered only by themselves (joining,
  or as the organiser) or by accepting an invitation. :class:`League.Invited`: the
  organiser asked a person in; :class:`League.Accepted` (then ``Entered``) and
  :class:`League.Declined` are that person's answer; :class:`League.Expired`: the
  invitations still unanswered when the first season started, dropped. A league that
  invites anyone waits for its organiser to start the first season.

Standings are rebuilt from the results: rank points (one per opponent finished ahead
of, a half per one level), then coins, then the season's seeding. Game ids follow from
the league, the season and the fixture; seeds are HMAC under the league's secret.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final
from uuid import UUID

from django.utils.translation import gettext as _
from eventsourcing.domain import Aggregate

from bohnanza_core.bots import BOTS
from bohnanza_core.bots.registry import BUILTIN
from bohnanza_core.pairings import (
    MAX_ENTRANTS,
    PairingError,
    rank_points,
    round_robin,
    round_robin_games,
)
from bohnanza_core.rulesets import Ruleset
from tournaments.competitions import (
    MAX_NAME,
    CompetitionError,
    GameResult,
    Tournaments,
    tournaments,
)
from tournaments.consent import ACCEPTED, DECLINED, EXPIRED, INVITED, save
from tournaments.entrants import is_person, username_of
from tournaments.ratings import Rating, Ratings

LEAGUE_NAMESPACE: Final = uuid.UUID("9c4e2b7a-1f3d-4a6b-8e5c-7d0f1a2b3c4d")
MAX_DIVISIONS = 8
MAX_SEASONS = 20
MAX_FIXTURES = 2_000
"""Fixtures of one season, every division together."""
MAX_INVITATIONS = 2 * MAX_ENTRANTS
"""Invitations one league sends, answered or not: enough to fill it after refusals,
too few to use a league for sending people messages."""


class LeagueNotFound(LookupError):
    pass


@dataclass(frozen=True)
class Fixture:
    division: int
    seats: tuple[int, ...]
    """Entrant indices (league-wide) in seat order."""


@dataclass(frozen=True)
class DivisionRow:
    entrant: str
    games: int
    points: float
    coins: int
    move: int
    """+1 promoted, -1 relegated, 0 stays (once the season has ended)."""


@dataclass(frozen=True)
class LivePlay:
    """How a league's fixtures with people are played: as live tables of the ``play``
    app, under ``preset`` with the ``overrides`` (house rules), a turn clock of
    ``move_seconds`` a move plus a bank of ``game_seconds`` (so nobody stalls a
    season), and a deadline ``fixture_hours`` after the season starts: a fixture not
    over by then is scored as it stands (``league_live.forfeit_result``)."""

    preset: str
    overrides: dict[str, Any]
    move_seconds: int
    game_seconds: int
    fixture_hours: int
    entries_open: bool


MIN_MOVE_SECONDS = 5
MAX_MOVE_SECONDS = 3600
MAX_GAME_SECONDS = 24 * 3600
MAX_FIXTURE_HOURS = 24 * 60


class League(Aggregate):
    """One league and every season of it."""

    class Created(Aggregate.Created):
        name: str
        ruleset: dict[str, Any]
        table: int
        divisions: int
        moves: int
        seasons: int
        secret: str
        created_by: str | None

    class Entered(Aggregate.Event):
        entrant: str

        def apply(self, aggregate: Any) -> None:
            aggregate.entrants.append(self.entrant)

    class Rated(Aggregate.Event):
        season: int
        ratings: dict[str, list[float]]
        """entrant: [mu, sigma, games]."""

        def apply(self, aggregate: Any) -> None:
            aggregate.ratings = {e: (v[0], v[1], int(v[2])) for e, v in self.ratings.items()}
            aggregate.rating_history.append(dict(aggregate.ratings))

    class Left(Aggregate.Event):
        entrant: str

        def apply(self, aggregate: Any) -> None:
            aggregate.entrants.remove(self.entrant)

    class Invited(Aggregate.Event):
        entrant: str

        def apply(self, aggregate: Any) -> None:
            aggregate.invitations[self.entrant] = INVITED

    class Accepted(Aggregate.Event):
        entrant: str

        def apply(self, aggregate: Any) -> None:
            aggregate.invitations[self.entrant] = ACCEPTED

    class Declined(Aggregate.Event):
        entrant: str

        def apply(self, aggregate: Any) -> None:
            aggregate.invitations[self.entrant] = DECLINED

    class Expired(Aggregate.Event):
        entrants: list[str]

        def apply(self, aggregate: Any) -> None:
            for entrant in self.entrants:
                aggregate.invitations[entrant] = EXPIRED

    class PlayedLive(Aggregate.Event):
        preset: str
        overrides: dict[str, Any]
        move_seconds: int
        game_seconds: int
        fixture_hours: int
        entries_open: bool

        def apply(self, aggregate: Any) -> None:
            aggregate.live = LivePlay(self.preset, dict(self.overrides), self.move_seconds,
                                      self.game_seconds, self.fixture_hours,
                                      self.entries_open)

    class SeasonStarted(Aggregate.Event):
        season: int
        divisions: list[list[int]]
        fixtures: list[list[Any]]
        """[division, [entrant index per seat]] per fixture."""

        def apply(self, aggregate: Any) -> None:
            aggregate.season_divisions.append([list(d) for d in self.divisions])
            aggregate.fixtures.append([Fixture(d, tuple(s)) for d, s in self.fixtures])

    class SeasonEnded(Aggregate.Event):
        season: int
        results: list[list[list[int]]]
        """[ranks, coins, winners] per fixture, in fixture order."""
        promoted: list[int]
        relegated: list[int]

        def apply(self, aggregate: Any) -> None:
            aggregate.results.append([GameResult(tuple(r), tuple(c), tuple(w))
                                      for r, c, w in self.results])
            aggregate.moved.append((list(self.promoted), list(self.relegated)))

    def __init__(self, name: str, ruleset: dict[str, Any], table: int, divisions: int,
                 moves: int, seasons: int, secret: str, created_by: str | None) -> None:
        self.name = name
        self.ruleset_parameters = ruleset
        self.table = table
        self.divisions = divisions
        self.moves = moves
        self.seasons = seasons
        self.secret = secret
        self.created_by = created_by
        self.entrants: list[str] = []
        self.season_divisions: list[list[list[int]]] = []
        self.fixtures: list[list[Fixture]] = []
        self.results: list[list[GameResult]] = []
        self.moved: list[tuple[list[int], list[int]]] = []
        self.live: LivePlay | None = None
        self.invitations: dict[str, str] = {}
        """Each person invited: ``invited`` (no answer yet), ``accepted``, ``declined``
        or ``expired``, in the order they were invited."""
        self.ratings: dict[str, tuple[float, float, int]] = {}
        self.rating_history: list[dict[str, tuple[float, float, int]]] = []
        """The ratings after each ended season."""

    @property
    def entries_open(self) -> bool:
        """People may join and leave: entries were opened and no season has started."""
        return self.live is not None and self.live.entries_open and not self.fixtures

    @property
    def waiting(self) -> bool:
        """No season has started: the league waits for entries, answers to its
        invitations, and its organiser's start."""
        return not self.fixtures

    @property
    def invited(self) -> list[str]:
        """The people invited who have not answered yet."""
        return [e for e, status in self.invitations.items() if status == INVITED]

    def join(self, entrant: str) -> None:
        """``entrant`` (the person asking, never anyone else) enters: an invitation's
        acceptance, an entry while entries are open, or the organiser's own entry
        before the first season."""
        if entrant in self.invited:
            self.accept(entrant)
            return
        if not (self.entries_open or (self.waiting and entrant == self.created_by)):
            raise CompetitionError(_("This league takes no more entries."))
        if entrant in self.entrants:
            raise CompetitionError(_("You have entered already."))
        if len(self.entrants) >= MAX_ENTRANTS:
            raise CompetitionError(_("The league is full."))
        self.trigger_event(League.Entered, entrant=entrant)

    def leave(self, entrant: str) -> None:
        """``entrant`` leaves before the first season; one who had accepted an
        invitation has declined it now."""
        if not self.waiting:
            raise CompetitionError(_("The league has started: too late to leave."))
        if entrant in self.invited:
            self.decline(entrant)
            return
        if entrant not in self.entrants:
            raise CompetitionError(_("You have not entered this league."))
        self.trigger_event(League.Left, entrant=entrant)
        if self.invitations.get(entrant) == ACCEPTED:
            self.trigger_event(League.Declined, entrant=entrant)

    def invite(self, entrant: str) -> None:
        """Ask a person in (the organiser's doing): they are entered only once they
        accept (:meth:`accept`). Refused for someone entered or invited already (a
        person who declined is not asked again), after the first season has started,
        and past :data:`MAX_INVITATIONS`."""
        if not is_person(entrant):
            raise CompetitionError(_("Only people are invited; bots are entered."))
        name = (username_of(entrant) or "")[:150]
        if not self.waiting:
            raise CompetitionError(_("The league has started: it invites nobody now."))
        if entrant in self.entrants or entrant in self.invitations:
            raise CompetitionError(_("%(name)s has been asked already.") % {"name": name})
        if len(self.invitations) >= MAX_INVITATIONS:
            raise CompetitionError(_("A league sends at most %(count)d invitations.")
                                   % {"count": MAX_INVITATIONS})
        if len(self.entrants) + len(self.invited) >= MAX_ENTRANTS:
            raise CompetitionError(_("The league is full."))
        self.trigger_event(League.Invited, entrant=entrant)

    def accept(self, entrant: str) -> None:
        """The invited person says yes: entered from now on (their fixtures get live
        tables like anyone's)."""
        if self.invitations.get(entrant) != INVITED:
            raise CompetitionError(_("You have no open invitation to this league."))
        if not self.waiting:
            raise CompetitionError(_("The league has started: the invitation has expired."))
        if len(self.entrants) >= MAX_ENTRANTS:
            raise CompetitionError(_("The league is full."))
        self.trigger_event(League.Accepted, entrant=entrant)
        self.trigger_event(League.Entered, entrant=entrant)

    def decline(self, entrant: str) -> None:
        """The invited person says no, or takes back a yes before the first season."""
        status = self.invitations.get(entrant)
        if status == ACCEPTED:
            self.leave(entrant)
            return
        if status != INVITED:
            raise CompetitionError(_("You have no open invitation to this league."))
        self.trigger_event(League.Declined, entrant=entrant)

    def start_first_season(self) -> None:
        """Close the entries, drop the invitations nobody answered (``Expired``) and
        start the first season with who has entered; refused (CompetitionError,
        nothing changed) while they do not fill the divisions."""
        if not self.waiting:
            raise CompetitionError(_("This league has started already."))
        check_entrants(self.entrants, self.table, self.divisions, self.moves)
        if self.invited:
            self.trigger_event(League.Expired, entrants=self.invited)
        try:
            self.start_season()
        except PairingError as refused:
            raise CompetitionError(str(refused)) from None

    def live_fixture(self, season: int, fixture: int) -> bool:
        """Whether a person sits at the fixture: played as a live table."""
        return any(is_person(self.entrants[e]) for e in self.fixtures[season][fixture].seats)

    @property
    def ruleset(self) -> Ruleset:
        return Ruleset.from_parameters(self.ruleset_parameters)

    @property
    def open_season(self) -> int | None:
        """The season being played, or None (none started, or all ended)."""
        return len(self.fixtures) - 1 if len(self.results) < len(self.fixtures) else None

    @property
    def finished(self) -> bool:
        return len(self.results) == self.seasons

    def games_done(self) -> int:
        return sum(len(r) for r in self.results)

    def standings(self, season: int, results: Sequence[GameResult | None] | None = None
                  ) -> list[list[DivisionRow]]:
        """Each division of a season, best first: points, then coins, then the season's
        seeding (its place in the division as the season started). ``results``: the
        season's results, fixture by fixture, before they are recorded (to decide the
        moves, or to show a running season: None for a fixture not played yet)."""
        divisions = self.season_divisions[season]
        points = {e: 0.0 for d in divisions for e in d}
        coins = {e: 0 for d in divisions for e in d}
        games = {e: 0 for d in divisions for e in d}
        if results is None:
            results = self.results[season] if season < len(self.results) else []
        for fixture, result in zip(self.fixtures[season], results, strict=False):
            if result is None:
                continue
            for seat, (e, p) in enumerate(zip(fixture.seats, rank_points(result.ranks),
                                              strict=True)):
                points[e] += p
                coins[e] += result.coins[seat]
                games[e] += 1
        promoted, relegated = self.moved[season] if season < len(self.moved) else ([], [])
        table = []
        for division in divisions:
            order = sorted(division, key=lambda e: (-points[e], -coins[e], division.index(e)))
            table.append([DivisionRow(self.entrants[e], games[e], points[e], coins[e],
                                      1 if e in promoted else -1 if e in relegated else 0)
                          for e in order])
        return table

    def _ranked(self, season: int,
                results: Sequence[GameResult] | None = None) -> list[list[int]]:
        return [[self.entrants.index(row.entrant) for row in division]
                for division in self.standings(season, results)]

    def start_season(self) -> bool:
        """Start the next season (False when every season has been played): the first
        by entry order, each later one from the last season's moves."""
        season = len(self.fixtures)
        if self.open_season is not None or season >= self.seasons:
            return False
        if season == 0:
            size = len(self.entrants) // self.divisions
            divisions = [list(range(d * size, (d + 1) * size)) for d in range(self.divisions)]
        else:
            divisions = self._next_divisions(season - 1)
        fixtures: list[list[Any]] = []
        for d, division in enumerate(divisions):
            for round_ in round_robin(len(division), self.table, 1):
                fixtures += [[d, [division[s] for s in p.seats]] for p in round_]
        self.trigger_event(League.SeasonStarted, season=season, divisions=divisions,
                           fixtures=fixtures)
        return True

    def _next_divisions(self, season: int) -> list[list[int]]:
        """The ended season's divisions after its moves, each in its new seeding: those
        who stayed in their order, the promoted below them, the relegated above."""
        ranked = self._ranked(season)
        promoted, relegated = self.moved[season]
        after = []
        for d, division in enumerate(ranked):
            down_from_above = [e for e in ranked[d - 1] if e in relegated] if d else []
            up_from_below = ([e for e in ranked[d + 1] if e in promoted]
                             if d + 1 < len(ranked) else [])
            stay = [e for e in division if e not in promoted and e not in relegated]
            after.append(down_from_above + stay + up_from_below)
        return after

    def end_season(self, results: Sequence[GameResult]) -> None:
        """Record the open season's results and its moves: the top ``moves`` of each
        division below the first go up, the bottom ``moves`` of each above the last
        go down."""
        season = self.open_season
        assert season is not None and len(results) == len(self.fixtures[season])
        encoded = [[list(g.ranks), list(g.coins), list(g.winners)] for g in results]
        ranked = self._ranked(season, results)
        promoted = [e for d in ranked[1:] for e in d[:self.moves]]
        relegated = [e for d in ranked[:-1] for e in d[len(d) - self.moves:]]
        self.trigger_event(League.SeasonEnded, season=season, results=encoded,
                           promoted=promoted, relegated=relegated)
        ratings = self.rerated()
        self.trigger_event(League.Rated, season=season, ratings={
            e: [ratings.of(e).mu, ratings.of(e).sigma, float(ratings.games.get(e, 0))]
            for e in ratings.ratings})

    def rerated(self) -> Ratings:
        """The ratings from every recorded result, fixture by fixture, season by season."""
        ratings = Ratings()
        for fixtures, results in zip(self.fixtures, self.results, strict=False):
            for fixture, result in zip(fixtures, results, strict=True):
                ratings.rate([self.entrants[e] for e in fixture.seats], result.ranks)
        return ratings

    def rating(self, entrant: str, season: int | None = None) -> Rating:
        """An entrant's rating after ``season`` (the latest while it is being played, or
        with no season given)."""
        ratings = (self.rating_history[season]
                   if season is not None and season < len(self.rating_history)
                   else self.ratings)
        mu, sigma, _games = ratings.get(entrant, (Rating().mu, Rating().sigma, 0))
        return Rating(mu, sigma)


def league_game_id(league_id: UUID, season: int, fixture: int) -> UUID:
    """The id of a season's fixture: the same for every attempt to play it."""
    return uuid.uuid5(LEAGUE_NAMESPACE, f"{league_id}:{season}:{fixture}")


def fixture_seed(secret: str, season: int, fixture: int) -> str:
    """A fixture's seed: 128 bits of HMAC-SHA-256 under the league's secret."""
    return hmac.new(secret.encode(), f"bohnanza-league-v1:{season}:{fixture}".encode(),
                    hashlib.sha256).hexdigest()[:32]


def check_entrants(entrants: Sequence[str], table: int, divisions: int, moves: int) -> None:
    """Refuse (CompetitionError) entrants that do not divide into divisions of at least
    one table each, or whose season would have more than :data:`MAX_FIXTURES` games
    (counted before any is paired: a league open for entries can fill up)."""
    n = len(entrants)
    if n > MAX_ENTRANTS or n % divisions or len(set(entrants)) != n:
        raise CompetitionError(f"distinct entrants, at most {MAX_ENTRANTS}, the same number "
                               "in every division")
    size = n // divisions
    if not (size >= table and moves >= 0 and 2 * moves <= size and (moves or divisions == 1)):
        raise CompetitionError("a division seats at least one table and moves at most half "
                               "of it up or down (at least one when there are several)")
    if divisions * round_robin_games(size, table) > MAX_FIXTURES:
        raise CompetitionError(f"at most {MAX_FIXTURES} games a season")


def check_live(live: LivePlay | None, entrants: Sequence[str]) -> None:
    """People play only where live play is set up, bots beside them only built-in ones
    (a live table seats the bots the ``play`` app knows), clocks within bounds."""
    if live is None:
        if any(is_person(e) for e in entrants):
            raise CompetitionError("a league with people needs a turn clock for its tables")
        return
    if not MIN_MOVE_SECONDS <= live.move_seconds <= MAX_MOVE_SECONDS:
        raise CompetitionError(f"a turn clock of {MIN_MOVE_SECONDS} to {MAX_MOVE_SECONDS} "
                               "seconds a move")
    if not 0 <= live.game_seconds <= MAX_GAME_SECONDS:
        raise CompetitionError(f"a bank of 0 to {MAX_GAME_SECONDS} seconds")
    if not 1 <= live.fixture_hours <= MAX_FIXTURE_HOURS:
        raise CompetitionError(f"1 to {MAX_FIXTURE_HOURS} hours to play a fixture")
    foreign = [e for e in entrants if not is_person(e)
               and (e.split(" #", 1)[0].partition("@")[2] != BUILTIN
                    or e.partition("@")[0] not in BOTS)]
    if foreign:
        raise CompetitionError(f"only built-in bots play at live tables, not {foreign[0]}")


def create_league(name: str, ruleset: Ruleset, table: int, divisions: int, moves: int,
                  seasons: int, entrants: Sequence[str], created_by: str | None = None,
                  app: Tournaments | None = None, live: LivePlay | None = None, *,
                  invited: Sequence[str] = (), consented: bool = False,
                  admit: Callable[[League], None] | None = None) -> League:
    """Create a league, enter ``entrants``, invite ``invited``, start its first season
    and store it; refused (CompetitionError, nothing stored) when it cannot be played
    as asked. ``live``: its fixtures with people are live tables; with
    ``live.entries_open``, or anyone invited, the first season waits for
    :meth:`League.start_first_season` (people join and answer until then).

    Consent: the only person ``entrants`` may hold is the organiser (``created_by``);
    everyone else is ``invited`` and enters by accepting. ``consented`` lifts that
    for the command line, whose operator states the people agreed elsewhere.
    ``admit`` (the organiser's quotas, ``tournaments.quotas``) sees the league built
    and may refuse it before anything is stored."""
    name = name.strip()
    if not 0 < len(name) <= MAX_NAME:
        raise CompetitionError(f"a name of 1 to {MAX_NAME} characters")
    if table not in ruleset.players:
        raise CompetitionError(f"{ruleset.name} is for {ruleset.players_label} players, "
                               f"not tables of {table}")
    if not 1 <= divisions <= MAX_DIVISIONS or not 1 <= seasons <= MAX_SEASONS:
        raise CompetitionError(f"1 to {MAX_DIVISIONS} divisions, 1 to {MAX_SEASONS} seasons")
    if not consented:
        unasked = [e for e in entrants if is_person(e) and e != created_by]
        if unasked:
            raise CompetitionError(_("%(name)s enters only by accepting an invitation.")
                                   % {"name": username_of(unasked[0])})
    everyone = [*entrants, *invited]
    check_live(live, everyone)
    waiting = bool(invited) or (live is not None and live.entries_open)
    if waiting:
        if len(everyone) > MAX_ENTRANTS or len(set(everyone)) != len(everyone):
            raise CompetitionError(f"distinct entrants, at most {MAX_ENTRANTS}")
        if moves < 0 or (divisions > 1 and not moves):
            raise CompetitionError("at least one up and down when there are several "
                                   "divisions")
    else:
        check_entrants(entrants, table, divisions, moves)
    league = League(name=name, ruleset=ruleset.parameters(), table=table,
                    divisions=divisions, moves=moves if divisions > 1 else 0,
                    seasons=seasons, secret=secrets.token_hex(32), created_by=created_by)
    if live is not None:
        league.trigger_event(League.PlayedLive, preset=live.preset,
                             overrides=dict(live.overrides), move_seconds=live.move_seconds,
                             game_seconds=live.game_seconds,
                             fixture_hours=live.fixture_hours, entries_open=live.entries_open)
    for entrant in entrants:
        league.trigger_event(League.Entered, entrant=entrant)
    for entrant in invited:
        league.invite(entrant)
    if not waiting:
        try:
            league.start_season()
        except PairingError as refused:
            raise CompetitionError(str(refused)) from None
    if admit is not None:
        admit(league)
    save(app or tournaments(), league)
    return league


def get_league(league_id: UUID, app: Tournaments | None = None) -> League:
    return (app or tournaments()).get_of(league_id, League, LeagueNotFound)


def league_ids(limit: int = 200, app: Tournaments | None = None) -> list[UUID]:
    """The newest leagues' ids, newest first."""
    return (app or tournaments()).created_ids(League.Created, limit)


__all__ = ["DivisionRow", "Fixture", "League", "LeagueNotFound", "LivePlay", "check_entrants",
           "check_live", "create_league",
           "fixture_seed", "get_league", "league_game_id", "league_ids"]
