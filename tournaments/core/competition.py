"""A competition: one event-sourced aggregate for every kind (round robin, Swiss,
knockout, duplicate, ladder, league); what differs is its format
(:mod:`bohnanza_core.formats`), its options and its schedule, all data.

Its events say what happened in the organiser's words:

- :class:`Competition.Created`: name, format and its options, ruleset (house rules
  included), table size, schedule (``every``: seconds between a ladder's rounds; 0: the
  next round as soon as one ends), organiser, and a secret of 256 bits from which every
  game's seed is derived (:meth:`Competition.seed`). The secret never leaves the
  server: no page, export or answer shows the aggregate's events, only what is built
  from them.
- :class:`Competition.PlayedLive`: how its games with people are played (live tables:
  preset, house rules, clock, hours to play a game, whether people may join, and what
  becomes of an absent player's seat: the clock plays it, or a built-in bot).
- :class:`Competition.SignUpSet`: people's sign-up: a deadline and a cap; those who
  sign up when it is full go on a waiting list (:class:`Competition.WaitListed`) and
  are entered (``Entered``) in turn as others withdraw.
- :class:`Competition.Entered`, :class:`Competition.Left`: an entrant (a bot version,
  ``heuristic@builtin``; an account, ``user:ann``) in or out (of the entrants or the
  waiting list) before the first round;
  :class:`Competition.Invited`, :class:`Competition.Accepted`,
  :class:`Competition.Declined`, :class:`Competition.Expired`: a person asked in, and
  their answer (``tournaments.core.consent``).
- :class:`Competition.RoundPaired`: a round's games, each the entrants by seat and the
  deal it plays (a league season's divisions too).
- :class:`Competition.RoundEnded`: each game's result (ranks, coins, winners) in
  pairing order, once all are stored; who went up and down (a league).
- :class:`Competition.Rated`: every entrant's rating after the round (openskill,
  rated on from the last round: :mod:`tournaments.core.ratings`).
- :class:`Competition.Finished`: the format has played its last round.
- :class:`Competition.Stalled`: the platform saw the open round's bots' games stop
  coming in while some were missing (no game stored for a while: a worker lost with
  its messages) and sent those deals again (``tournaments.core.rounds.watch``); one
  each time it sends them, the first one opening the stall. :class:`Competition.Resumed`:
  games came in again after it.
- :class:`Competition.Stopped`: its organiser (or the platform's staff or operator)
  stopped it before its format's end, with a reason: no round is paired after it, and
  its standings are those of the games it had then (the open round's stored games
  included, rated on: ``Rated``); games sent before it that end later change nothing.

Competitions, ladders and leagues stored before there was one aggregate are read as
competitions (``tournaments.core.legacy``: their events' old topics and shapes are
upcast as they are read).
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final
from uuid import UUID

from django.utils.translation import gettext as _
from eventsourcing.domain import Aggregate

from bohnanza_core.engine import SEAT_NAME_MAX, TAG_VALUE_MAX
from bohnanza_core.formats import (
    MAX_TICKS,
    Format,
    History,
    Knockout,
    Match,
    MatchRow,
    Moves,
    Podium,
    Result,
    Round,
    Tally,
    buchholz,
    division_standings,
    format_for,
    lot,
    tally,
)
from bohnanza_core.pairings import MAX_ENTRANTS, Pairing, PairingError
from bohnanza_core.rulesets import Ruleset
from tournaments.core import legacy
from tournaments.core.entrants import check_entrant, entrant_name, is_person, username_of
from tournaments.core.errors import CompetitionError, worded
from tournaments.core.ratings import Rating, Ratings

INVITED: Final = "invited"
ACCEPTED: Final = "accepted"
DECLINED: Final = "declined"
EXPIRED: Final = "expired"
MAX_INVITATIONS = 2 * MAX_ENTRANTS
"""Invitations one competition sends, answered or not: enough to fill it after
refusals, too few to use a competition for sending people messages."""
MAX_WAITING = 2 * MAX_ENTRANTS
"""The longest waiting list: enough to fill a full competition again, bounded."""
CLOCK: Final = "clock"
"""An absent player's seat is played by the clock (its default moves, one a turn clock):
they forfeit their game in all but name."""


@dataclass(frozen=True)
class Stall:
    """A round that stopped moving: since when (its last game stored, or its pairing),
    when its missing deals were last sent again (ISO 8601 times), and how many of its
    games were stored then."""

    round: int
    since: str
    resent_at: str
    stored: int
    """The round's games stored when it was last found stalled."""


MAX_STOP_REASON: Final = 500
"""The longest reason an organiser gives for stopping a competition."""
OPERATOR: Final = "operator"
"""Who stops a competition from the command line (``Stopped.by``): the platform's
operator, who runs the workers."""


@dataclass(frozen=True)
class Stop:
    """A competition stopped before its end: ``by`` whom (``user:<name>``, or
    :data:`OPERATOR`), why, when, and the open round then (None: none was open) with
    its games stored by then, in pairing order (None: not in), which count."""

    by: str
    reason: str
    at: datetime
    round: int | None
    played: tuple[Result | None, ...]


@dataclass(frozen=True)
class LivePlay:
    """How a competition's games with people are played: as live tables of the
    ``play`` app, under ``preset`` with the ``overrides`` (house rules), a turn clock of
    ``move_seconds`` a move plus a bank of ``game_seconds`` (so nobody stalls a round),
    and a deadline ``fixture_hours`` after the round is paired: a game not over by then
    is scored as it stands (``tournaments.core.live``). ``entries_open``: people join
    on the competition's page until its organiser starts it (or its sign-up's
    deadline). ``absent``: what plays the seat of a player who is not at their table:
    :data:`CLOCK` (each move by the turn clock's default), or a built-in bot's name, which
    takes the seat once its player has been away ``absence_seconds`` (the table's
    absence limit, ``play.presence``)."""

    preset: str
    overrides: dict[str, Any]
    move_seconds: int
    game_seconds: int
    fixture_hours: int
    entries_open: bool
    absent: str = CLOCK
    absence_seconds: int = 0


@dataclass(frozen=True)
class SignUp:
    """People's sign-up to a competition open for entries: until ``deadline`` (None:
    until its organiser starts it), at most ``cap`` entrants (bots included); who signs
    up when it is full goes on the waiting list."""

    deadline: datetime | None
    cap: int


@dataclass(frozen=True)
class IdScheme:
    """How a competition's games' ids and seeds follow from it: ``uuid5(namespace,
    "<competition>:<round>:<index>")`` and 128 bits of HMAC-SHA-256 under its secret of
    ``"<label>:<round>:<deal>"``; or, numbered across rounds (``across``), of
    ``"<competition>:<n>"`` and ``"<label>:<n>"``, n counting the games of every round
    before. Every competition made now has the ``round`` scheme; the ``ladder`` and
    ``league`` schemes are those of the ladders and leagues stored before there was one
    competitions core, so their games keep their ids."""

    namespace: UUID
    label: str
    across: bool = False


SCHEMES: Final[dict[str, IdScheme]] = {
    "round": IdScheme(uuid.UUID("7b0a3c52-9a55-4a4e-8f0e-2f6f3b6c9d11"), "bohnanza-deal-v1"),
    "ladder": IdScheme(uuid.UUID("3e0f6a1c-5b7d-4c2e-9a8f-1d2c3b4a5e6f"),
                       "bohnanza-ladder-v1", across=True),
    "league": IdScheme(uuid.UUID("9c4e2b7a-1f3d-4a6b-8e5c-7d0f1a2b3c4d"), "bohnanza-league-v1"),
}
LADDER_DAYS: Final = 365
"""A ladder runs at most a year's ticks (and at most ``MAX_TICKS``, 10,000): every 60 s
it runs about 7 days, every 300 s about 35, every hour or more about a year. So even a
ladder ticking once a week holds its organiser's ladder slot for a year, not for
centuries (:attr:`Competition.ticks_total`)."""
LADDER_LOTS = "bohnanza-ladder-groups-v1"
"""The label of a ladder's draws (:func:`bohnanza_core.formats.lot`)."""


class Competition(Aggregate):
    """One competition and everything that happened in it."""

    class Created(Aggregate.Created):
        name: str
        format: str
        options: dict[str, int]
        ruleset: dict[str, Any]
        table: int
        every: int
        organiser: str | None
        secret: str
        scheme: str
        class_version = 3
        upcast_v1_v2 = staticmethod(legacy.created)

        @staticmethod
        def upcast_v2_v3(state: dict[str, Any]) -> None:
            """A duplicate competition stored before its rounds shared one deal plays on
            as it began: each group its own deal (``duplicate-by-group``)."""
            if state.get("format") == "duplicate":
                state["format"] = "duplicate-by-group"

    class PlayedLive(Aggregate.Event):
        preset: str
        overrides: dict[str, Any]
        move_seconds: int
        game_seconds: int
        fixture_hours: int
        entries_open: bool
        absent: str
        absence_seconds: int
        class_version = 2

        @staticmethod
        def upcast_v1_v2(state: dict[str, Any]) -> None:
            """Before there was a choice, the clock played an absent player's seat."""
            state.setdefault("absent", CLOCK)
            state.setdefault("absence_seconds", 0)

        def apply(self, aggregate: Any) -> None:
            aggregate.live = LivePlay(self.preset, dict(self.overrides), self.move_seconds,
                                      self.game_seconds, self.fixture_hours,
                                      self.entries_open, self.absent, self.absence_seconds)

    class SignUpSet(Aggregate.Event):
        deadline: str
        """ISO 8601 with its offset, or "" (none: until the organiser starts it)."""
        cap: int

        def apply(self, aggregate: Any) -> None:
            aggregate.sign_up = SignUp(
                datetime.fromisoformat(self.deadline) if self.deadline else None, self.cap)

    class Entered(Aggregate.Event):
        entrant: str

        def apply(self, aggregate: Any) -> None:
            if self.entrant in aggregate.waiting_list:  # their turn came
                aggregate.waiting_list.remove(self.entrant)
            aggregate.entrants.append(self.entrant)

    class WaitListed(Aggregate.Event):
        entrant: str

        def apply(self, aggregate: Any) -> None:
            aggregate.waiting_list.append(self.entrant)

    class Left(Aggregate.Event):
        entrant: str

        def apply(self, aggregate: Any) -> None:
            if self.entrant in aggregate.waiting_list:
                aggregate.waiting_list.remove(self.entrant)
            else:
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

    class RoundPaired(Aggregate.Event):
        round: int
        games: list[list[Any]]
        """[[entrant index per seat...], deal] per game."""
        divisions: list[list[int]]
        class_version = 2
        upcast_v1_v2 = staticmethod(legacy.round_paired)

        def apply(self, aggregate: Any) -> None:
            aggregate.rounds.append(Round(
                tuple(Pairing(tuple(seats), deal) for seats, deal in self.games),
                tuple(tuple(d) for d in self.divisions)))
            aggregate.paired_at.append(self.timestamp)

    class RoundEnded(Aggregate.Event):
        round: int
        results: list[list[list[int]]]
        """[ranks, coins, winners] per game, in pairing order."""
        promoted: list[int]
        relegated: list[int]
        class_version = 2
        upcast_v1_v2 = staticmethod(legacy.round_ended)

        def apply(self, aggregate: Any) -> None:
            aggregate.results.append([Result(tuple(r), tuple(c), tuple(w))
                                      for r, c, w in self.results])
            aggregate.moves.append(Moves(tuple(self.promoted), tuple(self.relegated)))

    class Rated(Aggregate.Event):
        ratings: dict[str, list[float]]
        """entrant: [mu, sigma, games]."""
        class_version = 2
        upcast_v1_v2 = staticmethod(legacy.rated)

        def apply(self, aggregate: Any) -> None:
            aggregate.ratings = {e: (v[0], v[1], int(v[2])) for e, v in self.ratings.items()}
            aggregate.rating_history.append(dict(aggregate.ratings))

    class Finished(Aggregate.Event):
        def apply(self, aggregate: Any) -> None:
            aggregate.finished_recorded = True
            aggregate.finished_at = self.timestamp

    class Stalled(Aggregate.Event):
        round: int
        since: str
        """When the round last moved (ISO 8601): its last game stored, or its pairing."""
        at: str
        """When the platform noticed it and sent the deals again (ISO 8601)."""
        deals: list[int]
        """The deals sent again: those with games missing."""
        stored: int
        """How many of the round's games were stored then: one more is the round moving."""

        def apply(self, aggregate: Any) -> None:
            open_stall = aggregate.stall
            since = (open_stall.since if open_stall is not None
                     and open_stall.round == self.round else self.since)
            aggregate.stall = Stall(self.round, since, self.at, self.stored)

    class Resumed(Aggregate.Event):
        round: int
        at: str
        """When the first game after the stall was stored (ISO 8601)."""

        def apply(self, aggregate: Any) -> None:
            aggregate.stall = None

    class Stopped(Aggregate.Event):
        by: str
        """``user:<name>`` (its organiser or a member of staff), or ``operator``."""
        reason: str
        round: int
        """The round open when it stopped, or -1 (none was)."""
        played: list[list[Any]]
        """[index, ranks, coins, winners] of each of that round's games stored by then."""

        def apply(self, aggregate: Any) -> None:
            played: list[Result | None] = []
            if self.round >= 0:
                played = [None] * len(aggregate.rounds[self.round].games)
                for index, ranks, coins, winners in self.played:
                    played[index] = Result(tuple(ranks), tuple(coins), tuple(winners))
            aggregate.stopped = Stop(self.by, self.reason, self.timestamp,
                                  self.round if self.round >= 0 else None, tuple(played))

    def __init__(self, name: str, format: str, options: dict[str, int],
                 ruleset: dict[str, Any], table: int, every: int, organiser: str | None,
                 secret: str, scheme: str) -> None:
        self.name = name
        self.format = format
        self.options = dict(options)
        self.ruleset_parameters = ruleset
        self.table = table
        self.every = every
        self.organiser = organiser
        self.secret = secret
        self.scheme = scheme
        self.live: LivePlay | None = None
        self.sign_up: SignUp | None = None
        self.entrants: list[str] = []
        self.waiting_list: list[str] = []
        """Who signed up when it was full, first come first entered."""
        self.invitations: dict[str, str] = {}
        """Each person invited: ``invited`` (no answer yet), ``accepted``, ``declined``
        or ``expired``, in the order they were invited."""
        self.rounds: list[Round] = []
        self.results: list[list[Result]] = []
        self.moves: list[Moves] = []
        self.ratings: dict[str, tuple[float, float, int]] = {}
        self.rating_history: list[dict[str, tuple[float, float, int]]] = []
        """The ratings after each ended round."""
        self.paired_at: list[datetime] = []
        """When each round was paired (its event's time): the progress's rate."""
        self.finished_at: datetime | None = None
        self.stall: Stall | None = None
        """The open stall (:class:`Competition.Stalled`), until games come in again."""
        self.stopped: Stop | None = None
        """Who stopped it, when and why (:class:`Competition.Stopped`), if anyone did."""
        self.finished_recorded = False
        """``Finished`` was recorded. What is finished is :attr:`finished`, which
        says so of a league stored before there was one core too (it had no such
        event); this alone decides whether ``Finished`` is still to be recorded."""

    def __deepcopy__(self, memo: dict[int, Any]) -> Competition:
        """A copy with new containers that shares the frozen rounds and results. The
        repository hands out deep copies of its cached aggregate (a round's end changes
        one), and copying every game of every round made each round's end cost in
        proportion to the games played so far: 0.3 ms a game over a 280-game
        competition, 2.4 ms over 2,800 (bench/tournament.py, "round end")."""
        clone = object.__new__(type(self))
        memo[id(self)] = clone
        for name, value in self.__dict__.items():
            if name in ("rounds", "moves", "rating_history", "paired_at"):
                value = list(value)
            elif name == "results":
                value = [list(games) for games in value]
            else:
                value = copy.deepcopy(value, memo)
            clone.__dict__[name] = value
        return clone

    # -- reading --------------------------------------------------------------------

    @property
    def finished(self) -> bool:
        """The format has played its last round: ``Finished`` says so, and so does a
        league stored before there was one core (it had no such event) whose every
        season has ended."""
        if self.finished_recorded:
            return True
        if self.continuous or not self.rounds or self.open_round is not None:
            return False
        return len(self.results) == self.rules.rounds_total(len(self.entrants), self.table)

    @property
    def rules(self) -> Format:
        """The competition's format with its options."""
        return format_for(self.format, self.options)

    @property
    def ruleset(self) -> Ruleset:
        return Ruleset.from_parameters(self.ruleset_parameters)

    @property
    def started(self) -> bool:
        return bool(self.rounds)

    @property
    def open_round(self) -> int | None:
        """The round being played, or None (none paired, every one ended, or the
        competition stopped: nothing of its round is played on or collected)."""
        if self.stopped is not None:
            return None
        return len(self.rounds) - 1 if len(self.results) < len(self.rounds) else None

    @property
    def ended(self) -> bool:
        """It runs no more: its format's end (:attr:`finished`), or stopped."""
        return self.stopped is not None or self.finished

    @property
    def continuous(self) -> bool:
        """Entrants join while it runs, and a schedule pairs its rounds (a ladder)."""
        return self.rules.continuous

    @property
    def ticks_total(self) -> int | None:
        """A ladder's ticks in all (None: not a ladder): :data:`MAX_TICKS`, or fewer,
        a year's of them (:data:`LADDER_DAYS`), for one that ticks less often than
        every ``LADDER_DAYS * 86400 / MAX_TICKS`` seconds (about an hour)."""
        if not self.continuous:
            return None
        return max(1, min(MAX_TICKS, LADDER_DAYS * 24 * 3600 // max(1, self.every)))

    @property
    def entries_open(self) -> bool:
        """People may join and leave: entries were opened and no round has started."""
        return (self.live is not None and self.live.entries_open and not self.rounds
                and self.stopped is None)

    @property
    def cap(self) -> int:
        """The most entrants it takes (its sign-up's cap, or :data:`MAX_ENTRANTS`)."""
        return self.sign_up.cap if self.sign_up is not None else MAX_ENTRANTS

    @property
    def full(self) -> bool:
        return len(self.entrants) >= self.cap

    def signing_up(self, now: datetime) -> bool:
        """People may sign up at ``now``: entries are open and the deadline (if any)
        has not passed."""
        return self.entries_open and not self.sign_up_closed(now)

    def sign_up_closed(self, now: datetime) -> bool:
        """The sign-up's deadline has passed at ``now`` (never, without one)."""
        return (self.sign_up is not None and self.sign_up.deadline is not None
                and now >= self.sign_up.deadline)

    def due_to_start(self, now: datetime) -> bool:
        """It waits for its first round and its sign-up's deadline has passed: the
        first round starts now with who has entered (``tournaments.core.rounds``)."""
        return self.waiting and not self.continuous and self.entries_open and (
            self.sign_up_closed(now))

    @property
    def waiting(self) -> bool:
        """No round has been paired: the competition waits for entries, answers to its
        invitations and its organiser's start (or, a ladder, for enough entrants)."""
        return not self.rounds

    @property
    def invited(self) -> list[str]:
        """The people invited who have not answered yet."""
        return [e for e, status in self.invitations.items() if status == INVITED]

    def history(self) -> History:
        """What the format reads to pair the next round."""
        return History(len(self.entrants), self.table, self.rounds, self.results,
                       self.moves, self.ranking(),
                       lot(self.secret, LADDER_LOTS, len(self.rounds)))

    def games_total(self) -> int | None:
        """Every game the competition will have (Swiss and knockout: as their format
        says they will be), or None for a ladder."""
        return self.rules.games_total(len(self.entrants), self.table)

    def games_paired(self) -> int:
        return sum(len(r.games) for r in self.rounds)

    def games_done(self) -> int:
        """Games of the rounds that have ended."""
        return sum(len(results) for results in self.results)

    def tallies(self, r: int | None = None,
                results: Sequence[Result | None] | None = None) -> list[Tally]:
        """Every entrant's games, points, coins and wins over every ended round, or over
        round ``r`` alone (a league season's table) with its ``results`` (a running
        round's so far, None for a game not played yet; its recorded ones by default).
        A stopped competition's round open then counts its games stored by then."""
        if r is None:
            return tally(len(self.entrants), self.rounds, [*self.results, *self._stopped()])
        if results is None:
            results = self.results[r] if r < len(self.results) else self.so_far(r)
        return tally(len(self.entrants), [self.rounds[r]], [results])

    def _stopped(self) -> list[Sequence[Result | None]]:
        stop = self.stopped
        return [stop.played] if stop is not None and stop.round is not None else []

    def so_far(self, r: int) -> Sequence[Result | None]:
        """The results of round ``r`` as the competition counts them: its recorded ones
        once it has ended; for the round open when it was stopped, its games stored by
        then; else none (a running round's come from the store)."""
        if r < len(self.results):
            return self.results[r]
        stop = self.stopped
        if stop is not None and stop.round == r:
            return stop.played
        return [None] * len(self.rounds[r].games)

    def moved(self, r: int, entrant: int) -> int:
        """Where an entrant went as round ``r`` ended: 1 up, -1 down, 0 stayed (or the
        round has not ended, or it was the last: there is no next season to move to,
        whatever a league stored before said so recorded)."""
        total = self.rules.rounds_total(len(self.entrants), self.table)
        if r >= len(self.moves) or (total is not None and r + 1 >= total):
            return 0
        moves = self.moves[r]
        return 1 if entrant in moves.promoted else -1 if entrant in moves.relegated else 0

    def standings(self) -> list[Tally]:
        """Every entrant's tally (rank points: one per opponent finished ahead of, a
        half per one level), in the order of :meth:`placings`: the format's own rule,
        so that a standings table's first three are the podium (a Swiss's Buchholz and
        a knockout's rounds order it, not points alone)."""
        tallies = self.tallies()
        return [tallies[e] for e in self.placings()]

    def buchholz(self) -> list[float]:
        """Every entrant's Buchholz score over the ended rounds, in entry order: the
        points of everyone it sat with, once a game (a Swiss's first tie-break)."""
        return buchholz(len(self.entrants), self.rounds, self.results, self.tallies())

    def last_matches(self) -> list[tuple[int, MatchRow | None]]:
        """A knockout's entrants, in entry order: the last round each is paired in
        (from 0) and its row of the last match it has finished (None before its first),
        which order its placings; [] for any other format."""
        rules = self.rules
        if not isinstance(rules, Knockout):
            return []
        return rules.last_matches(self.history())

    def placings(self) -> list[int]:
        """Every entrant, best first, by the format's own rule (its podium's)."""
        return self.rules.placings(self.history())

    def podium(self) -> Podium | None:
        """The podium by the format's own rule once the competition has finished (a
        ladder, which runs on: its leaders by rating once a round has ended)."""
        if not (self.finished or (self.continuous and self.results)):
            return None
        return self.rules.podium(self.history())

    def bracket(self, results: Sequence[Sequence[Result | None]] | None = None
                ) -> list[list[Match]]:
        """A knockout's rounds as tables, each with who went through (``results``: each
        round's results so far, None for a game not in yet; the recorded ones by
        default); [] for any other format."""
        rules = self.rules
        if not isinstance(rules, Knockout):
            return []
        history = self.history()
        return [rules.matches(history, r, results[r] if results is not None else None)
                for r in range(len(self.rounds))]

    def rating(self, entrant: str, after: int | None = None) -> Rating:
        """An entrant's rating after round ``after`` (the latest with none given)."""
        ratings = (self.rating_history[after]
                   if after is not None and after < len(self.rating_history) else self.ratings)
        mu, sigma, _games = ratings.get(entrant, (Rating().mu, Rating().sigma, 0))
        return Rating(mu, sigma)

    def ranking(self) -> list[int]:
        """Entrant indices by conservative rating (mu - 3 sigma), best first; entry order
        on a tie (every newcomer is at 0)."""
        return sorted(range(len(self.entrants)),
                      key=lambda e: (-self.rating(self.entrants[e]).conservative, e))

    def divisions(self, r: int, results: Sequence[Result | None] | None = None
                  ) -> list[list[int]]:
        """A league season's divisions, each best first (``results``: the season's so
        far, None for a game not played yet; its recorded ones by default)."""
        if results is None:
            results = self.results[r] if r < len(self.results) else []
        return division_standings(self.rounds[r], results)

    def live_game(self, r: int, index: int) -> bool:
        """Whether a person sits at a game: played as a live table."""
        return any(is_person(self.entrants[e]) for e in self.rounds[r].games[index].seats)

    def game_id(self, r: int, index: int) -> UUID:
        """The id of game ``index`` of round ``r``: the same for every attempt to play
        it (a game played twice is stored once)."""
        scheme = SCHEMES[self.scheme]
        if scheme.across:
            return uuid.uuid5(scheme.namespace, f"{self.id}:{self._before(r) + index}")
        return uuid.uuid5(scheme.namespace, f"{self.id}:{r}:{index}")

    def seed(self, r: int, deal: int) -> str:
        """The seed of a round's deal: 128 bits of HMAC-SHA-256 under the competition's
        secret, so nobody who knows the ids can compute it; the games sharing a deal
        share it (a duplicate set)."""
        scheme = SCHEMES[self.scheme]
        message = (f"{scheme.label}:{self._before(r) + deal}" if scheme.across
                   else f"{scheme.label}:{r}:{deal}")
        return hmac.new(self.secret.encode(), message.encode(),
                        hashlib.sha256).hexdigest()[:32]

    def table_seed(self, r: int, index: int) -> str:
        """The seed of game ``index`` of round ``r`` at a live table: its deal's, unless
        another game of the round shares that deal (a knockout's match), when it has one
        of its own (HMAC of ``"<label>:<round>:<deal>:<index>"``). A shared deal's seed is
        revealed as the first of its games ends, while the same people may still be
        playing the others; bots' games of a set are stored together, so theirs is
        not."""
        deal = self.rounds[r].games[index].deal
        if sum(1 for p in self.rounds[r].games if p.deal == deal) == 1:
            return self.seed(r, deal)
        scheme = SCHEMES[self.scheme]
        message = f"{scheme.label}:{r}:{deal}:{index}"
        return hmac.new(self.secret.encode(), message.encode(),
                        hashlib.sha256).hexdigest()[:32]

    def entrants_at(self, r: int, index: int) -> list[str]:
        """The entrants of game ``index`` of round ``r``, seat by seat."""
        return [self.entrants[e] for e in self.rounds[r].games[index].seats]

    def seat_names(self, r: int, index: int) -> list[str]:
        """A game's seat names: each entrant's display name (``heuristic #2``,
        ``alice``), never a seat number, cut to what the engine takes."""
        return [entrant_name(e).name[:SEAT_NAME_MAX] for e in self.entrants_at(r, index)]

    def tags(self, r: int, index: int) -> tuple[tuple[str, str], ...]:
        """What game ``index`` of round ``r`` belongs to, as its ``GameStarted`` records
        it (PGN's tag pairs; docs/events.md, "Tags"): the competition (name, id,
        format), the round, table and deal (counted from 1), and each seat's entrant
        (id, display name, version, copy)."""
        tags = [("competition", self.name[:TAG_VALUE_MAX]),
                ("competition_id", str(self.id)), ("format", self.format),
                ("round", str(r + 1)), ("table", str(index + 1)),
                ("deal", str(self.rounds[r].games[index].deal + 1))]
        for seat, entrant in enumerate(self.entrants_at(r, index)):
            named = entrant_name(entrant)
            tags += [(f"seat_{seat}_entrant", entrant[:TAG_VALUE_MAX]),
                     (f"seat_{seat}_name", named.name[:TAG_VALUE_MAX]),
                     (f"seat_{seat}_version", named.version[:TAG_VALUE_MAX]),
                     (f"seat_{seat}_copy", str(named.copy))]
        return tuple(tags)

    def _before(self, r: int) -> int:
        return sum(len(paired.games) for paired in self.rounds[:r])

    # -- entries --------------------------------------------------------------------

    def enter(self, entrant: str) -> None:
        """Enter a bot (the organiser's doing), or a person who asked (by joining or
        accepting: :meth:`join`)."""
        self._not_stopped()
        if entrant in self.entrants:
            raise CompetitionError(_("%(name)s has entered already.") % {"name": entrant[:150]})
        if self.started and not self.continuous:
            raise CompetitionError(_("Entries closed when the first round was paired."))
        if len(self.entrants) >= MAX_ENTRANTS:
            raise CompetitionError(_("The competition is full: a competition has at most "
                                     "%(most)d entrants.") % {"most": MAX_ENTRANTS})
        check_entrant(entrant)
        self.trigger_event(Competition.Entered, entrant=entrant)

    def join(self, entrant: str, now: datetime | None = None) -> None:
        """``entrant`` (the account asking, never anyone else) enters: an invitation's
        acceptance, a sign-up while entries are open (on the waiting list when it is
        full), or the organiser's own entry before the first round. ``now``: when it is
        asked (a sign-up after its deadline is refused)."""
        self._not_stopped()
        if entrant in self.invited:
            self.accept(entrant)
            return
        if entrant in self.entrants:
            raise CompetitionError(_("You have entered already."))
        if entrant in self.waiting_list:
            if not self.waiting:
                raise CompetitionError(_("The competition has started: nobody enters from "
                                         "the waiting list now."))
            raise CompetitionError(_("You are on the waiting list already."))
        organiser = self.waiting and entrant == self.organiser
        if not organiser:
            if not self.entries_open:
                raise CompetitionError(_("This competition takes no more entries."))
            if now is not None and self.sign_up_closed(now):
                raise CompetitionError(_("The sign-up closed at its deadline."))
        self._admit(entrant)

    def _admit(self, entrant: str) -> None:
        """In if there is room, on the waiting list if not."""
        if not self.full:
            self.enter(entrant)
            return
        if len(self.waiting_list) >= MAX_WAITING:
            raise CompetitionError(_("The competition and its waiting list are full."))
        self.trigger_event(Competition.WaitListed, entrant=entrant)

    def leave(self, entrant: str) -> None:
        """``entrant`` withdraws (from the entrants or the waiting list) before the
        first round; one who had accepted an invitation has declined it now. A place
        freed goes to the first on the waiting list."""
        if not self.waiting:
            raise CompetitionError(_("The competition has started: too late to leave."))
        if entrant in self.invited:
            self.decline(entrant)
            return
        if entrant in self.waiting_list:
            self.trigger_event(Competition.Left, entrant=entrant)
        elif entrant in self.entrants:
            self.trigger_event(Competition.Left, entrant=entrant)
            if self.waiting_list and not self.full:
                self.enter(self.waiting_list[0])
        else:
            raise CompetitionError(_("You have not entered this competition."))
        if self.invitations.get(entrant) == ACCEPTED:
            self.trigger_event(Competition.Declined, entrant=entrant)

    def invite(self, entrant: str) -> None:
        """Ask a person in (the organiser's doing): entered only once they accept.
        Refused for someone entered or asked already (a person who declined is not asked
        again), after the first round, and past :data:`MAX_INVITATIONS`."""
        if not is_person(entrant):
            raise CompetitionError(_("Only people are invited; bots are entered."))
        check_entrant(entrant)
        name = (username_of(entrant) or "")[:150]
        self._not_stopped()
        if not self.waiting:
            raise CompetitionError(_("The competition has started: it invites nobody now."))
        if (entrant in self.entrants or entrant in self.invitations
                or entrant in self.waiting_list):
            raise CompetitionError(_("%(name)s has been asked already.") % {"name": name})
        if len(self.invitations) >= MAX_INVITATIONS:
            raise CompetitionError(_("A competition sends at most %(count)d invitations.")
                                   % {"count": MAX_INVITATIONS})
        if len(self.entrants) + len(self.invited) >= MAX_ENTRANTS:
            raise CompetitionError(_("The competition is full."))
        self.trigger_event(Competition.Invited, entrant=entrant)

    def accept(self, entrant: str) -> None:
        """The invited person says yes: entered from now on."""
        if self.invitations.get(entrant) != INVITED:
            raise CompetitionError(_("You have no open invitation to this competition."))
        self._not_stopped()
        if not self.waiting:
            raise CompetitionError(_("The competition has started: the invitation has "
                                     "expired."))
        if self.full and len(self.waiting_list) >= MAX_WAITING:
            raise CompetitionError(_("The competition and its waiting list are full."))
        self.trigger_event(Competition.Accepted, entrant=entrant)
        self._admit(entrant)

    def decline(self, entrant: str) -> None:
        """The invited person says no, or takes back a yes before the first round."""
        status = self.invitations.get(entrant)
        if status == ACCEPTED:
            self.leave(entrant)
            return
        if status != INVITED:
            raise CompetitionError(_("You have no open invitation to this competition."))
        self.trigger_event(Competition.Declined, entrant=entrant)

    def check_entrants(self) -> None:
        """Refuse (CompetitionError) entrants the format cannot pair."""
        if len(set(self.entrants)) != len(self.entrants):
            raise CompetitionError(_("Each entrant enters once."))
        try:
            self.rules.check(len(self.entrants), self.table)
        except PairingError as refused:
            raise CompetitionError(worded(refused)) from None

    def start(self) -> None:
        """Close the entries, drop the invitations nobody answered (``Expired``) and pair
        the first round with who has entered; refused (CompetitionError, nothing
        changed) while they cannot be paired."""
        self._not_stopped()
        if not self.waiting:
            raise CompetitionError(_("This competition has started already."))
        self.check_entrants()
        if self.invited:
            self.trigger_event(Competition.Expired, entrants=self.invited)
        self.pair_next()

    # -- rounds ---------------------------------------------------------------------

    def pair_next(self) -> bool:
        """Pair the next round (True), or finish the competition when its format has
        played its last (False; a ladder with too few entrants just waits). Looks at
        ``ended``, not :attr:`finished`: that one is true as soon as the last round
        has ended, and the ``Finished`` event would never be stored."""
        if self.open_round is not None or self.finished_recorded or self.stopped is not None:
            return False
        history = self.history()
        ticks = self.ticks_total
        if ticks is not None and len(self.rounds) >= ticks:
            self.trigger_event(Competition.Finished)  # its last tick has been played
            return False
        try:
            paired = self.rules.next_round(history)
        except PairingError as refused:
            raise CompetitionError(worded(refused)) from None
        if paired is None:
            if self.rules.over(history):
                self.trigger_event(Competition.Finished)
            return False
        self.trigger_event(Competition.RoundPaired, round=len(self.rounds),
                           games=[[list(p.seats), p.deal] for p in paired.games],
                           divisions=[list(d) for d in paired.divisions])
        return True

    def end_round(self, results: Sequence[Result]) -> None:
        """Record the open round's results, its moves (a league) and everyone's ratings
        after it; then pair the next round, unless a schedule pairs them (a ladder)."""
        r = self.open_round
        assert r is not None and len(results) == len(self.rounds[r].games)
        moved = self.rules.moves(self.history(), results)
        self.trigger_event(Competition.RoundEnded, round=r, results=[
            [list(g.ranks), list(g.coins), list(g.winners)] for g in results],
            promoted=list(moved.promoted), relegated=list(moved.relegated))
        # On from the ratings after the last round, not from the first game again (that
        # made each round's end cost in proportion to the games so far): the same
        # floats, since each game's rating starts from exactly the floats stored.
        ratings = Ratings.from_stored(self.ratings)
        for pairing, result in zip(self.rounds[r].games, self.results[r], strict=True):
            ratings.rate([self.entrants[e] for e in pairing.seats], result.ranks)
        self.trigger_event(Competition.Rated, ratings=ratings.stored(self.entrants))
        if not self.every:
            self.pair_next()

    def stalled(self, since: str, at: str, deals: Sequence[int], stored: int) -> None:
        """Record that the open round stopped moving at ``since``, with ``stored`` of its
        games stored, and that its ``deals`` were sent again at ``at``."""
        r = self.open_round
        assert r is not None
        self.trigger_event(Competition.Stalled, round=r, since=since, at=at,
                           deals=list(deals), stored=stored)

    def resumed(self, at: str) -> None:
        """Record that the open round's games come in again after its stall."""
        assert self.stall is not None
        self.trigger_event(Competition.Resumed, round=self.stall.round, at=at)

    def open_stall(self) -> Stall | None:
        """The stall of the open round, if one is open (one of an ended round is over)."""
        stall = self.stall
        return stall if stall is not None and stall.round == self.open_round else None

    def rerated(self) -> Ratings:
        """The ratings from every result so far, game by game in pairing order: what
        the recorded ratings are, rated round after round (and the games a stopped
        competition's open round had then)."""
        ratings = Ratings()
        for paired, results in zip(self.rounds, [*self.results, *self._stopped()],
                                   strict=False):
            for pairing, result in zip(paired.games, results, strict=True):
                if result is not None:
                    ratings.rate([self.entrants[e] for e in pairing.seats], result.ranks)
        return ratings

    # -- stopping -------------------------------------------------------------------

    def _not_stopped(self) -> None:
        if self.stopped is not None:
            raise CompetitionError(_("This competition has been stopped."))

    def stop(self, by: str, reason: str, played: Sequence[Result | None] = (), *,
                 staff: bool = False) -> None:
        """Stop a running (or waiting) competition before its format's end: ``by`` its
        organiser, or a member of ``staff`` (the command line's :data:`OPERATOR` is
        one), for ``reason`` (may be empty). ``played``: the open round's games stored
        by now, in pairing order (None: not in); they count, and are rated on, so its
        final standings are those of the games it had. Refused (nothing recorded) for
        anyone else, and once it has finished or been stopped."""
        if not staff and (self.organiser is None or by != self.organiser):
            raise CompetitionError(_("Only its organiser or the platform's staff stop a "
                                     "competition."))
        self._not_stopped()
        if self.finished:
            raise CompetitionError(_("This competition has finished: there is nothing to "
                                     "stop."))
        reason = reason.strip()
        if len(reason) > MAX_STOP_REASON:
            raise CompetitionError(_("A reason of at most %(count)d characters.")
                                   % {"count": MAX_STOP_REASON})
        r = self.open_round
        kept = ([[i, list(g.ranks), list(g.coins), list(g.winners)]
                 for i, g in enumerate(played) if g is not None] if r is not None else [])
        assert r is None or len(played) in (0, len(self.rounds[r].games))
        self.trigger_event(Competition.Stopped, by=by, reason=reason,
                           round=-1 if r is None else r, played=kept)
        if kept:
            assert r is not None
            ratings = Ratings.from_stored(self.ratings)
            for pairing, result in zip(self.rounds[r].games, played, strict=True):
                if result is not None:
                    ratings.rate([self.entrants[e] for e in pairing.seats], result.ranks)
            self.trigger_event(Competition.Rated, ratings=ratings.stored(self.entrants))


legacy.register(Competition)


__all__ = ["ACCEPTED", "CLOCK", "DECLINED", "EXPIRED", "INVITED", "LADDER_DAYS",
           "MAX_INVITATIONS",
           "MAX_STOP_REASON", "MAX_WAITING", "OPERATOR", "SCHEMES", "Competition",
           "CompetitionError", "IdScheme", "LivePlay", "SignUp", "Stall", "Stop"]
