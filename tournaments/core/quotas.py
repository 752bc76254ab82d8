"""Quotas: how much of the workers' time one account may ask for.

A competition of 20,000 games, or a ladder of 64 bots ticking every 10 seconds (some
276,000 games a day), costs every other organiser their workers; so each account's
competitions, ladders and leagues are bounded, from ``settings.TOURNAMENT_QUOTAS``
(:data:`DEFAULTS` for what it leaves out):

- ``games_per_day``: the games an account may ask for in any 24 hours: a new
  competition's every game (Swiss and knockout as their format says they will be), a
  league's every game when its first season starts (each season has as many fixtures
  as the first), and for every ladder still running the games its ticks play a day
  (its tables a tick times its ticks a day: a ladder runs day after day);
- ``running_competitions``, ``running_ladders``, ``running_leagues``: how many of each
  an account may have running at once (a league waiting for its first season runs; a
  ladder runs until its last tick, ``Competition.ticks_total``); a stopped one no
  longer runs, and a stopped ladder's games a day no longer count;
- ``shortest_tick_seconds``: the shortest interval an account's ladder ticks at.

A bot test (``tournaments.core.bottests``) counts as a competition: every game it may
play when it is created, what it did not play given back once it is decided.
Staff are exempt, and so is the command line (``manage.py tournament
create``: its operator runs the workers). A running ladder's games a day grow with its
entrants: every entry over the web passes :func:`entries_changed`, which charges the
ladder's maker again and refuses the entry that would take them over their
``games_per_day``. Every creation for an account over the web
passes :func:`creating`, in the transaction that stores it: the check and the
:class:`~tournaments.models.QuotaUse` row it writes commit or roll back with the
competition, and the account's row is locked for the transaction (PostgreSQL; SQLite
serialises writers from ``BEGIN IMMEDIATE``), so two creations at once cannot both
take the last place. A refusal is a :class:`QuotaExceeded` (a ``CompetitionError``)
whose message, translated, says which bound and how far.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any, Final

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Sum
from django.utils import timezone
from django.utils.translation import ngettext

from tournaments.core import bottests
from tournaments.core.bottests import BotTest
from tournaments.core.competition import Competition, CompetitionError
from tournaments.core.store import CompetitionNotFound, competitions
from tournaments.models import QuotaUse

DEFAULTS: Final[dict[str, int]] = {
    "games_per_day": 5_000,
    "running_competitions": 3,
    "running_ladders": 2,
    "running_leagues": 3,
    "shortest_tick_seconds": 60,
}
DAY: Final = 24 * 3600

Kind = QuotaUse.Kind
Admit = Callable[[Any], None]
"""Called by a create function with the competition built, before it is stored."""


class QuotaExceeded(CompetitionError):
    """A creation over one of the account's quotas; nothing stored."""


def limits() -> dict[str, int]:
    """The quotas in force: the settings' over :data:`DEFAULTS`."""
    return {**DEFAULTS, **getattr(settings, "TOURNAMENT_QUOTAS", {})}


def exempt(user: Any) -> bool:
    """Staff run the platform: no quota bounds them."""
    return bool(user.is_staff or user.is_superuser)


def kind_of(competition: Competition) -> Kind:
    """What the competition counts as: a ladder, a league, or (any other format) a
    competition."""
    kinds: dict[str, Kind] = {"ladder": Kind.LADDER, "league": Kind.LEAGUE}
    return kinds.get(competition.format, Kind.COMPETITION)


def games_asked(competition: Competition) -> int:
    """The games a competition asks for: all of its games once its first round is
    paired (none while it waits for entries); a ladder's in a day."""
    if competition.continuous:
        return (len(competition.entrants) // competition.table) * math.ceil(
            DAY / competition.every)
    if competition.waiting:
        return 0
    return competition.games_total() or 0


def _ended(row: QuotaUse) -> bool:
    """Whether the competition (or bot test) of ``row`` has ended (or is gone from the
    store)."""
    try:
        competition = competitions().get(row.competition_id)
    except CompetitionNotFound:
        try:
            return bottests.get(row.competition_id).decided
        except LookupError:
            return True
    ticks = competition.ticks_total
    return competition.ended or (ticks is not None and competition.open_round is None
                                 and len(competition.rounds) >= ticks)


def running(user: Any, kind: str) -> int:
    """How many of ``kind`` the account runs now; rows of those that have ended are
    marked so on the way (each is read once more at most)."""
    count = 0
    for row in QuotaUse.objects.filter(user=user, kind=kind, running=True):
        if _ended(row):
            QuotaUse.objects.filter(pk=row.pk).update(running=False)
        else:
            count += 1
    return count


def games_used(user: Any, leaving_out: Any = None) -> int:
    """The games the account has asked for in the last 24 hours: its competitions'
    and leagues' since then, and a day of each running ladder's (those that have
    ended marked so first)."""
    running(user, Kind.LADDER)
    rows = QuotaUse.objects.filter(user=user).exclude(competition_id=leaving_out)
    since = timezone.now() - timedelta(seconds=DAY)
    once = rows.exclude(kind=Kind.LADDER).filter(games_at__gte=since)
    daily = rows.filter(kind=Kind.LADDER, running=True)
    return sum(query.aggregate(total=Sum("games"))["total"] or 0 for query in (once, daily))


def games_left(user: Any) -> int | None:
    """The games the account may still ask for in the next 24 hours (None: exempt), so
    a form can offer what fits instead of a default refused at once."""
    if exempt(user):
        return None
    return max(0, limits()["games_per_day"] - games_used(user))


def _check_games(user: Any, competition: Competition | BotTest, games: int) -> None:
    limit = limits()["games_per_day"]
    used = games_used(user, leaving_out=competition.id)
    if used + games > limit:
        if isinstance(competition, Competition) and competition.continuous:
            asked = ngettext("This ladder plays %(games)s game a day",
                             "This ladder plays %(games)s games a day", games)
        else:
            asked = ngettext("This asks for %(games)s game", "This asks for %(games)s games",
                             games)
        raise QuotaExceeded(
            asked % {"games": games} + "; " + ngettext(
                "your account may ask for %(limit)s game a day and has asked for "
                "%(used)s in the last 24 hours (a running ladder's games count every day).",
                "your account may ask for %(limit)s games a day and has asked for "
                "%(used)s in the last 24 hours (a running ladder's games count every day).",
                limit) % {"limit": limit, "used": used})


RUNNING_KEY: Final = {Kind.COMPETITION: "running_competitions", Kind.LADDER: "running_ladders",
                      Kind.LEAGUE: "running_leagues"}


def _check_running(user: Any, kind: Kind) -> None:
    limit = limits()[RUNNING_KEY[kind]]
    if running(user, kind) < limit:
        return
    if kind == Kind.COMPETITION:
        text = ngettext("An account runs at most %(limit)d competition at a time: wait "
                        "until yours has ended.",
                        "An account runs at most %(limit)d competitions at a time: wait "
                        "until one of yours has ended.", limit)
    elif kind == Kind.LADDER:
        text = ngettext("An account runs at most %(limit)d ladder.",
                        "An account runs at most %(limit)d ladders.", limit)
    else:
        text = ngettext("An account runs at most %(limit)d league at a time: wait "
                        "until yours has ended.",
                        "An account runs at most %(limit)d leagues at a time: wait "
                        "until one of yours has ended.", limit)
    raise QuotaExceeded(text % {"limit": limit})


def _check_tick(ladder: Competition) -> None:
    shortest = limits()["shortest_tick_seconds"]
    if ladder.every < shortest:
        raise QuotaExceeded(ngettext(
            "Your ladders tick at most once every %(seconds)d second.",
            "Your ladders tick at most once every %(seconds)d seconds.",
            shortest) % {"seconds": shortest})


def _admit(user: Any) -> Admit:
    def admit(competition: Any) -> None:
        kind = kind_of(competition)
        if competition.continuous:
            _check_tick(competition)
        _check_running(user, kind)
        games = games_asked(competition)
        _check_games(user, competition, games)
        QuotaUse.objects.create(competition_id=competition.id, kind=kind, user=user,
                                games=games, games_at=timezone.now() if games else None)
    return admit


@contextmanager
def creating(user: Any) -> Iterator[Admit]:
    """A transaction in which ``user`` creates a competition, ladder or league: pass
    what it yields as the create function's ``admit``. Staff get an ``admit`` that
    checks nothing."""
    if exempt(user):
        yield lambda competition: None
        return
    with transaction.atomic():
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        yield _admit(user)


@contextmanager
def creating_bot_test(user: Any) -> Iterator[Callable[[BotTest], None]]:
    """A transaction in which ``user`` creates a bot test (``bottests.create``'s
    ``admit``): it is charged every game it may play (``BotTest.games_asked``) and
    counts as a running competition. Staff get an ``admit`` that checks nothing."""
    if exempt(user):
        yield lambda test: None
        return

    def admit(test: BotTest) -> None:
        _check_running(user, Kind.COMPETITION)
        games = test.games_asked
        _check_games(user, test, games)
        QuotaUse.objects.create(competition_id=test.id, kind=Kind.COMPETITION, user=user,
                                games=games, games_at=timezone.now())

    with transaction.atomic():
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        yield admit


def entries_changed(competition: Competition, *, operator: bool = False) -> None:
    """A running ladder's entrants changed (an entry, a leave): its games a day, which
    grow with its tables a tick, count again against the account that made it, in the
    caller's transaction (the one that stores the change). An entry that would take
    that account over its ``games_per_day`` is refused (:class:`QuotaExceeded`,
    translated), unless its maker is staff or ``operator`` (the command line) enters it.
    A competition of another format takes no entries once paired (its games are
    charged when it starts): nothing to do; nor for a ladder made by staff or on the
    command line (no row)."""
    if not competition.continuous:
        return
    row = (QuotaUse.objects.select_for_update().select_related("user")
           .filter(competition_id=competition.id).first())
    if row is None:
        return
    games = games_asked(competition)
    if games == row.games:
        return
    if games > row.games and not (operator or exempt(row.user)):
        get_user_model().objects.select_for_update().filter(pk=row.user_id).first()
        limit = limits()["games_per_day"]
        used = games_used(row.user, leaving_out=competition.id)
        if used + games > limit:
            raise QuotaExceeded(ngettext(
                "This ladder takes no more entrants: with one more it would play %(games)s "
                "games a day, and its organiser may ask for %(limit)s game a day in all.",
                "This ladder takes no more entrants: with one more it would play %(games)s "
                "games a day, and its organiser may ask for %(limit)s games a day in all.",
                limit) % {"games": games, "limit": limit})
    row.games = games
    row.games_at = timezone.now() if games else None
    row.save(update_fields=["games", "games_at"])


def stopped(competition: Competition) -> None:
    """A competition was stopped (in the caller's transaction, the one that stores
    it): it runs no more, so it leaves its account's running ones; a ladder's games a
    day count no more from now, and another format's count only the games it had
    paired (those the workers were asked for). Nothing for one made by staff or on the
    command line (no row)."""
    row = QuotaUse.objects.select_for_update().filter(competition_id=competition.id).first()
    if row is None:
        return
    row.running = False
    if not competition.continuous:
        row.games = min(row.games, competition.games_paired())
    row.save(update_fields=["running", "games"])


def admit_start(user: Any, league: Competition) -> None:
    """The organiser starts a competition that waited for entries: its games count
    from now. Checked and written inside the caller's transaction (the one that stores
    the start); staff, and a league made from the command line, count nothing."""
    if exempt(user):
        return
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()
    row = QuotaUse.objects.select_for_update().filter(competition_id=league.id).first()
    if row is None:
        return
    games = games_asked(league)
    _check_games(user, league, games)
    row.games = games
    row.games_at = timezone.now()
    row.save(update_fields=["games", "games_at"])


__all__ = ["DEFAULTS", "QuotaExceeded", "admit_start", "creating", "creating_bot_test",
           "entries_changed", "exempt", "games_asked",
           "games_used", "limits", "running", "stopped"]
