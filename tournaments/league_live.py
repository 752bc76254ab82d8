"""A league's fixtures with people at them, played as live tables of the ``play`` app.

- :func:`open_tables`: when a season starts, each fixture with at least one person at
  it gets a table (the fixture's seats in order: the people seated, the league's
  built-in bots for its bot entrants), started at once under the league's preset and
  house rules and turn clock, with the fixture's own game id and seed (as a bot fixture
  has). Table, game and :class:`~tournaments.models.LeagueTable` row are made in one
  transaction, once per fixture: doing it again stores nothing.
- :func:`collect`: a live fixture whose game has ended goes in as a
  :class:`~tournaments.models.LeagueGame` row, like a bot fixture's; one past its
  deadline goes in as it stands (:func:`forfeit_result`). The row's unique keys make
  it count once, whichever process notices first (the beat's task, a page view); then
  the league moves on (``league_runner.advance``) exactly as after a bot fixture.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from uuid import UUID

from django.contrib.auth import get_user_model
from django.db import IntegrityError as DjangoIntegrityError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django_celery_beat.models import IntervalSchedule, PeriodicTask
from eventsourcing.persistence import IntegrityError

from bohnanza_core.games import Game
from bohnanza_core.rulesets import customize, ruleset_for
from play.live import LOBBY_GROUP, lobby_changed, tell
from play.models import Seat, Table
from replays.projections import catch_up_deferred
from replays.store import games
from tournaments.competitions import GameResult
from tournaments.entrants import username_of
from tournaments.leagues import League, fixture_seed, get_league, league_game_id
from tournaments.models import LeagueGame, LeagueTable
from tournaments.runner import bot_name

log = logging.getLogger(__name__)

Dispatch = Callable[[UUID, int, Sequence[int]], None]
ACTOR = "league"
"""Who starts a league's live tables, as the record names it."""
LEAGUE_COLLECT_TASK = "tournaments.league_collect"
COLLECT_SECONDS = 60
"""How often the beat looks at a live league's tables."""


def schedule(league: League) -> PeriodicTask:
    """The live league's periodic look at its tables (django-celery-beat; made once)."""
    every, _ = IntervalSchedule.objects.get_or_create(every=COLLECT_SECONDS,
                                                      period=IntervalSchedule.SECONDS)
    task, _ = PeriodicTask.objects.get_or_create(
        name=f"league {league.id}",
        defaults={"task": LEAGUE_COLLECT_TASK, "interval": every,
                  "args": json.dumps([str(league.id)])})
    return task


def unschedule(league_id: UUID) -> None:
    PeriodicTask.objects.filter(name=f"league {league_id}").delete()


def live_fixtures(league: League, season: int) -> list[int]:
    return [f for f in range(len(league.fixtures[season])) if league.live_fixture(season, f)]


def bot_fixtures(league: League, season: int, fixtures: Sequence[int]) -> list[int]:
    return [f for f in fixtures if not league.live_fixture(season, f)]


def open_tables(league: League, season: int) -> int:
    """Make and start the live tables of a season's fixtures with people (those not
    made yet); returns how many were made now."""
    live = league.live
    made = 0
    if live is None:
        return 0
    done = set(LeagueTable.objects.filter(league_id=league.id, season=season)
               .values_list("fixture", flat=True))
    users = get_user_model()
    deadline = timezone.now() + timedelta(hours=live.fixture_hours)
    ruleset = (customize(live.preset, league.table, live.overrides) if live.overrides
               else ruleset_for(live.preset, league.table))
    for fixture in live_fixtures(league, season):
        if fixture in done:
            continue
        entrants = [league.entrants[e] for e in league.fixtures[season][fixture].seats]
        people = {e: users.objects.filter(username=username_of(e)).first()
                  for e in entrants if username_of(e) is not None}
        first = next((u for u in people.values() if u is not None), None)
        if first is None:  # every person at it has deleted their account
            log.warning("fixture %s of %s: nobody left to seat", fixture, league.id)
            continue
        try:
            with catch_up_deferred(), transaction.atomic():
                table = Table.objects.create(
                    created_by=first, preset=live.preset, players=league.table,
                    overrides=live.overrides, public=True, move_seconds=live.move_seconds,
                    game_seconds=live.game_seconds)
                seats = [Seat(table=table, number=n,
                              bot="" if e in people else bot_name(e).split(" #", 1)[0],
                              user=people.get(e))
                         for n, e in enumerate(entrants)]
                Seat.objects.bulk_create(seats)
                for seat in seats:
                    seat.user = people.get(entrants[seat.number])
                game = games().start(
                    ruleset, [_seat_name(s, entrants[s.number]) for s in seats],
                    fixture_seed(league.secret, season, fixture),
                    players=[s.player() if s.user is not None or s.bot
                             else entrants[s.number] for s in seats],
                    tournament=league.name, actor=ACTOR,
                    game_id=league_game_id(league.id, season, fixture))
                table.game_id = game.id
                table.status = Table.Status.RUNNING
                table.save(update_fields=["game_id", "status"])
                LeagueTable.objects.create(league_id=league.id, season=season,
                                           fixture=fixture, table=table, deadline=deadline)
        except (IntegrityError, DjangoIntegrityError):
            log.info("fixture %s of season %s of %s: its table was made elsewhere",
                     fixture, season, league.id)
            continue
        made += 1
    if made:
        _lobby_changed()
    return made


def _lobby_changed() -> None:
    """Tell the lobby's sockets that tables opened (their lists, a league's "Your
    fixtures"): with a shared channel layer (Redis) every web process hears it; the
    embedded default's in-memory layer reaches no other process, whose sweep
    (``play.driver.sweep``) finds the new tables and tells them instead."""
    tell(LOBBY_GROUP, lobby_changed())


def _seat_name(seat: Seat, entrant: str) -> str:
    if seat.bot:
        return f"{seat.bot} {seat.number + 1}"
    username = username_of(entrant) or entrant
    return username[:40]


def coins_of(game: Game) -> list[int]:
    """Each seat's coins so far (public: the coin piles are face down but counted)."""
    return [len(pile) for pile in game.table.coins]


def forfeit_result(game: Game) -> GameResult:
    """A fixture not over by its deadline, scored as it stands: each seat ranked by the
    coins it has banked so far (equal coins share a place), the best sharing the win.
    The clock keeps a table moving, so only a table nobody drove gets here."""
    coins = coins_of(game)
    ranks = [1 + sum(1 for other in coins if other > mine) for mine in coins]
    return GameResult(tuple(ranks), tuple(coins),
                      tuple(s for s, r in enumerate(ranks) if r == 1))


def collect(league_id: UUID, dispatch: Dispatch, now: datetime | None = None, *,
            marked_only: bool = False) -> int:
    """Put the open season's ended (or overdue) live fixtures in, once each, then move
    the league on; returns how many went in now. ``marked_only`` (a page view, which
    must stay cheap): look only at tables the driver has marked finished and those past
    their deadline, without reading the games still being played."""
    from tournaments.league_runner import advance

    league = get_league(league_id)
    season = league.open_season
    if season is None:
        return 0
    now = now or timezone.now()
    stored = set(LeagueGame.objects.filter(league_id=league_id, season=season)
                 .values_list("fixture", flat=True))
    added = 0
    rows = LeagueTable.objects.filter(league_id=league_id, season=season)
    if marked_only:
        rows = rows.filter(Q(table__status=Table.Status.FINISHED) | Q(deadline__lte=now))
    for row in rows.select_related("table"):
        if row.fixture in stored or row.table.game_id is None:
            continue
        game = games().game(row.table.game_id)
        if game.table.finished:
            final = game.table.result
            assert final is not None
            result = GameResult(tuple(final.ranks), tuple(final.coins), tuple(final.winners))
        elif now >= row.deadline:
            result = forfeit_result(game)
            Table.objects.filter(pk=row.table.pk).update(status=Table.Status.FINISHED,
                                                        clock_deadline=None)
        else:
            continue
        try:
            with transaction.atomic():
                LeagueGame.objects.create(game_id=row.table.game_id, league_id=league_id,
                                          season=season, fixture=row.fixture,
                                          ranks=list(result.ranks), coins=list(result.coins),
                                          winners=list(result.winners))
        except DjangoIntegrityError:
            continue  # another process put it in first
        added += 1
    if added:
        advance(league_id, dispatch)
        if get_league(league_id).finished:
            unschedule(league_id)
    return added


__all__ = ["LEAGUE_COLLECT_TASK", "collect", "forfeit_result", "live_fixtures", "open_tables",
           "schedule", "unschedule"]
