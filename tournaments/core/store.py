"""The competitions' store: the ``Tournaments`` application of ``eventsourcing`` (its
events in the tables ``tournaments_*`` beside ``games_*``, on the same database), and
making a competition.

:func:`create` is the one way a competition comes to be, from the web form, the shell
and the demo: it checks the name, the table, the format's options, the schedule, the
live tables' settings and consent (people other than the organiser are invited, never
entered), pairs the first round unless the competition waits (for invitations'
answers, open entries, or a ladder's first tick), lets the organiser's quotas refuse it
(``admit``) and stores it all at once, with its invitations' rows.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any, Final
from uuid import UUID

from django.utils import timezone
from django.utils.translation import gettext as _
from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.utils import get_topic

from bohnanza_core.bots import BOTS
from bohnanza_core.bots.registry import BUILTIN
from bohnanza_core.engine import is_tag_value
from bohnanza_core.formats import FORMATS, format_for
from bohnanza_core.games import TOURNAMENT_NAME_MAX
from bohnanza_core.pairings import MAX_ENTRANTS, PairingError
from bohnanza_core.rulesets import Ruleset
from replays.store import store_env
from tournaments.core import consent
from tournaments.core.competition import CLOCK, Competition, CompetitionError, LivePlay, SignUp
from tournaments.core.entrants import is_person, username_of
from tournaments.core.errors import worded
from tournaments.core.legacy import RENAMED

MAX_NAME: Final = TOURNAMENT_NAME_MAX
MIN_EVERY: Final = 10
MAX_EVERY: Final = 7 * 24 * 3600
"""A ladder's rounds: every 10 seconds to every week."""
MIN_MOVE_SECONDS: Final = 5
MAX_MOVE_SECONDS: Final = 3600
MAX_GAME_SECONDS: Final = 24 * 3600
MAX_FIXTURE_HOURS: Final = 24 * 60
MAX_ABSENCE_SECONDS: Final = 7 * 24 * 3600
"""The longest a live table waits for an absent player before a bot takes the seat
(``play.tables.MAX_ABSENCE_SECONDS``: a week)."""
MAX_SIGN_UP_DAYS: Final = 365
"""The furthest a sign-up's deadline lies ahead."""

_lock = threading.Lock()
_competitions: Competitions | None = None


class CompetitionNotFound(LookupError):
    pass


class Competitions(Application[UUID]):
    """Every competition of the platform, stored as events. Named ``Tournaments``: its
    tables (``tournaments_events``) have held every competition, ladder and league
    since the first."""

    name = "Tournaments"

    def get(self, competition_id: UUID, *, copy: bool = True) -> Competition:
        """The competition as stored now, from a per-process cache brought up to date
        with only the events since (a worker loads it for every batch). A copy unless
        ``copy=False``: the cached object itself, for a single-threaded worker's reads
        that change nothing (no copy of thousands of games per batch)."""
        try:
            found: Any = self.repository.get(competition_id, deepcopy_from_cache=copy)
        except AggregateNotFoundError:
            raise CompetitionNotFound(f"no competition {competition_id}") from None
        if not isinstance(found, Competition):
            raise CompetitionNotFound(f"no competition {competition_id}")
        return found

    def ids(self, limit: int = 200) -> list[UUID]:
        """The newest competitions' ids (of every format, those stored before there was
        one core included), newest first."""
        topics = [get_topic(Competition.Created),
                  *(f"{module}:{old}" for module, old in _old_created())]
        found: list[UUID] = []
        start: int | None = None
        while True:
            batch = self.recorder.select_notifications(start=start, limit=500, topics=topics)
            found += [UUID(str(n.originator_id)) for n in batch]
            if len(batch) < 500:
                break
            start = batch[-1].id + 1
        return found[::-1][:limit]


def _old_created() -> list[tuple[str, str]]:
    modules = {"Tournament": "tournaments.competitions", "Ladder": "tournaments.ladders",
               "League": "tournaments.leagues"}
    return [(modules[old.split(".", 1)[0]], old) for old in RENAMED["Created"]]


def competitions() -> Competitions:
    """The process's competitions application (created on first use)."""
    global _competitions
    with _lock:
        if _competitions is None:
            _competitions = Competitions(env={**store_env(), "AGGREGATE_CACHE_MAXSIZE": "64"})
        return _competitions


def reset_competitions() -> None:
    global _competitions
    with _lock:
        if _competitions is not None:
            _competitions.close()
        _competitions = None


def check_live(live: LivePlay | None, entrants: Sequence[str]) -> None:
    """People play only where live tables are set up, bots beside them only built-in
    ones (a live table seats the bots the ``play`` app knows), clocks within bounds, an
    absent player's seat played by the clock or a built-in bot."""
    if live is None:
        if any(is_person(e) for e in entrants):
            raise CompetitionError(_("A competition with people needs a turn clock for its "
                                     "tables."))
        return
    if not MIN_MOVE_SECONDS <= live.move_seconds <= MAX_MOVE_SECONDS:
        raise CompetitionError(f"a turn clock of {MIN_MOVE_SECONDS} to {MAX_MOVE_SECONDS} "
                               "seconds a move")
    if not 0 <= live.game_seconds <= MAX_GAME_SECONDS:
        raise CompetitionError(f"a bank of 0 to {MAX_GAME_SECONDS} seconds")
    if not 1 <= live.fixture_hours <= MAX_FIXTURE_HOURS:
        raise CompetitionError(f"1 to {MAX_FIXTURE_HOURS} hours to play a game")
    if live.absent != CLOCK and live.absent not in BOTS:
        raise CompetitionError(f"an absent player's seat is played by the clock or a "
                               f"built-in bot ({', '.join(BOTS)}), not {live.absent[:40]!r}")
    if not 0 <= live.absence_seconds <= MAX_ABSENCE_SECONDS or (
            live.absent != CLOCK and not live.absence_seconds):
        raise CompetitionError(f"a bot takes an absent player's seat after 1 to "
                               f"{MAX_ABSENCE_SECONDS} seconds away")
    foreign = [e for e in entrants if not is_person(e)
               and (e.split(" #", 1)[0].partition("@")[2] != BUILTIN
                    or e.partition("@")[0] not in BOTS)]
    if foreign:
        raise CompetitionError(f"only built-in bots play at live tables, not {foreign[0]}")


def check_name(name: str) -> str:
    """A competition's name, stripped; refused (with the reason, in the reader's
    language) unless 1 to :data:`MAX_NAME` printable characters. It is every game's
    ``competition`` tag, so the engine's own tag rule (``is_tag_value``) decides here,
    where it is typed: a name the engine refused later would stall every game."""
    name = name.strip()
    if not 0 < len(name) <= MAX_NAME:
        raise CompetitionError(_("A name is 1 to %(most)d characters.") % {"most": MAX_NAME})
    if not is_tag_value(name):
        raise CompetitionError(_("A name holds printable characters only: no tab, line "
                                 "break, zero-width joiner or direction mark."))
    return name


def check_sign_up(sign_up: SignUp | None, live: LivePlay | None, entrants: Sequence[str],
                  table: int, now: datetime) -> None:
    """A sign-up belongs to a competition open for entries, its deadline ahead (within
    :data:`MAX_SIGN_UP_DAYS`), its cap at least a table and at most
    :data:`MAX_ENTRANTS`, and no lower than the entrants it starts with."""
    if sign_up is None:
        return
    if live is None or not live.entries_open:
        raise CompetitionError(_("A sign-up needs the competition open for entries."))
    deadline = sign_up.deadline
    if deadline is not None and (deadline.tzinfo is None or not (
            now < deadline <= now + timedelta(days=MAX_SIGN_UP_DAYS))):
        raise CompetitionError(_("The sign-up's deadline must lie ahead, within %(days)d "
                                 "days.") % {"days": MAX_SIGN_UP_DAYS})
    if not max(table, len(entrants)) <= sign_up.cap <= MAX_ENTRANTS:
        raise CompetitionError(_("The cap is %(low)d to %(high)d entrants.")
                               % {"low": max(table, len(entrants)), "high": MAX_ENTRANTS})


def create(name: str, format: str, options: dict[str, int], ruleset: Ruleset, table: int,
           entrants: Sequence[str], *, organiser: str | None = None, every: int = 0,
           live: LivePlay | None = None, invited: Sequence[str] = (),
           sign_up: SignUp | None = None, now: datetime | None = None,
           consented: bool = False, admit: Callable[[Competition], None] | None = None,
           app: Competitions | None = None) -> Competition:
    """Make a competition: enter ``entrants``, invite ``invited``, pair its first round
    (unless it waits: invitations to answer, entries open, or a ladder's first tick)
    and store it; refused (CompetitionError, nothing stored) when it cannot be played
    as asked. ``every``: seconds between a ladder's rounds (its schedule; a ladder must
    have one, and only a ladder may). ``sign_up``: a deadline and a cap on people's
    entries (``now``: when it is made, the time its deadline must lie after).

    Consent: the only person ``entrants`` may hold is the organiser; everyone else is
    ``invited`` and enters by accepting. ``consented`` lifts that for the command line,
    whose operator states the people agreed elsewhere. ``admit`` (the organiser's
    quotas) sees the competition built and may refuse it before anything is stored."""
    name = check_name(name)
    if format not in FORMATS:
        raise CompetitionError(f"format is one of {', '.join(FORMATS)}, not {format[:40]!r}")
    try:
        rules = format_for(format, options)
    except PairingError as refused:
        raise CompetitionError(worded(refused)) from None
    if table not in ruleset.players:
        raise CompetitionError(f"{ruleset.name} is for {ruleset.players_label} players, "
                               f"not tables of {table}")
    if rules.continuous != bool(every) or (every and not MIN_EVERY <= every <= MAX_EVERY):
        raise CompetitionError(f"a ladder plays a round every {MIN_EVERY} to {MAX_EVERY} "
                               "seconds; other formats play the next round when one ends")
    if not consented:
        unasked = [e for e in entrants if is_person(e) and e != organiser]
        if unasked:
            raise CompetitionError(_("%(name)s enters only by accepting an invitation.")
                                   % {"name": (username_of(unasked[0]) or "")[:150]})
    everyone = [*entrants, *invited]
    check_live(live, everyone)
    if rules.shares_deals and (live is not None or any(is_person(e) for e in everyone)):
        raise CompetitionError(_("A duplicate competition is for bots: every table of a "
                                 "round plays one deal, kept secret until all its games "
                                 "have ended."))
    check_sign_up(sign_up, live, entrants, table,
                  now or timezone.now())
    if len(set(everyone)) != len(everyone):
        raise CompetitionError(_("Each entrant enters once."))
    if len(everyone) > MAX_ENTRANTS:
        raise CompetitionError(_("A competition has at most %(most)d entrants, people "
                                 "invited included, not %(count)d.")
                               % {"most": MAX_ENTRANTS, "count": len(everyone)})
    competition = Competition(name=name, format=format, options=dict(options),
                              ruleset=ruleset.parameters(), table=table, every=every,
                              organiser=organiser, secret=secrets.token_hex(32),
                              scheme="round")
    if live is not None:
        competition.trigger_event(Competition.PlayedLive, preset=live.preset,
                                  overrides=dict(live.overrides),
                                  move_seconds=live.move_seconds,
                                  game_seconds=live.game_seconds,
                                  fixture_hours=live.fixture_hours,
                                  entries_open=live.entries_open, absent=live.absent,
                                  absence_seconds=live.absence_seconds)
    if sign_up is not None:
        competition.trigger_event(Competition.SignUpSet, cap=sign_up.cap, deadline=(
            sign_up.deadline.isoformat() if sign_up.deadline is not None else ""))
    for entrant in entrants:
        competition.enter(entrant)
    for entrant in invited:
        competition.invite(entrant)
    waits = bool(invited) or (live is not None and live.entries_open)
    if rules.continuous:
        competition.check_entrants()
    elif not waits:
        competition.check_entrants()
        competition.pair_next()
    if admit is not None:
        admit(competition)
    consent.save(app or competitions(), competition)
    return competition


def get(competition_id: UUID, app: Competitions | None = None) -> Competition:
    return (app or competitions()).get(competition_id)


__all__ = ["MAX_ABSENCE_SECONDS", "MAX_EVERY", "MAX_FIXTURE_HOURS", "MAX_GAME_SECONDS",
           "MAX_MOVE_SECONDS", "MAX_NAME", "MAX_SIGN_UP_DAYS", "MIN_EVERY", "MIN_MOVE_SECONDS",
           "CompetitionNotFound", "Competitions", "check_live", "check_name", "check_sign_up",
           "competitions", "create", "get", "reset_competitions"]
