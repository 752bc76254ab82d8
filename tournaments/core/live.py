"""A competition's games with people at them, played as live tables of the ``play``
app (``play.tables.open_table``): ``tournaments`` uses ``play``, never the reverse.

- :func:`open_tables`: when a round is paired, each game with at least one account at
  it (a person, or a bot account playing through the API) gets a table (its seats in
  order: the accounts, the competition's built-in bots for its bot entrants), started
  at once under the competition's live settings (preset, house rules, clock, what
  plays an absent player's seat), with the game's own id and seed (as a bots' game
  has; a deal shared with another game of the round gets a seed of its own:
  ``Competition.table_seed``), for every format alike. Table,
  game and :class:`~tournaments.models.CompetitionTable` row are made in one
  transaction, once per game: doing it again stores nothing.
- :func:`collect`: a live game that has ended goes in as a
  :class:`~tournaments.models.CompetitionGame` row, like a bots' game; one past its
  deadline is stopped by the platform (``play.tables.stop_game``: the event
  ``GameStopped``, reason ``deadline``, scored by the coins banked) and goes in as the
  game records it. The row's unique keys make it count once, whichever process notices
  first: ``play``'s ``table_finished`` signal as the game ends, the beat's periodic
  look (for deadlines), a page view; then the competition moves on
  (``tournaments.core.rounds``) exactly as after a bots' game.
- :func:`close_tables`: a stopped competition's open round's tables still being
  played are ended by the platform as an abandoned table is (``GameStopped``, reason
  ``abandoned``, actor ``competition``); they go in nowhere.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from django.contrib.auth import get_user_model
from django.db import IntegrityError as DjangoIntegrityError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django_celery_beat.models import PeriodicTask
from eventsourcing.persistence import IntegrityError

from bohnanza_core.events import StopReason
from bohnanza_core.formats import Result
from play.live import LOBBY_GROUP, lobby_changed, tell
from play.models import Table
from play.tables import TableError, open_table, stop_game
from replays.projections import catch_up_deferred
from replays.store import games
from tournaments.core import beat
from tournaments.core.competition import CLOCK, Competition, LivePlay
from tournaments.core.entrants import username_of
from tournaments.core.games import bot_name
from tournaments.core.store import competitions
from tournaments.models import CompetitionGame, CompetitionTable

log = logging.getLogger(__name__)

ACTOR = "competition"
"""Who starts a competition's live tables, as the record names it."""
COLLECT_TASK = "tournaments.collect"
COLLECT_SECONDS = 60
"""How often the beat looks at a competition's live tables (for their deadlines)."""


def schedule(competition: Competition) -> PeriodicTask:
    """The periodic look at a competition's live tables (django-celery-beat; made once)."""
    return beat.periodic(competition.id, "collect", COLLECT_TASK, COLLECT_SECONDS)


def unschedule(competition_id: UUID) -> None:
    beat.stop(competition_id, "collect")


def live_games(competition: Competition, r: int) -> list[int]:
    """The places of a round's games with people at them."""
    return [i for i in range(len(competition.rounds[r].games)) if competition.live_game(r, i)]


def _player(entrant: str, user: Any, bot: str) -> str:
    """A live table's seat as its game's record names it: ``user:<name>``, ``bot:<name>``,
    or the entrant (a person whose account is gone)."""
    if user is not None:
        return f"user:{user.get_username()}"
    return f"bot:{bot}" if bot else entrant


def _absence(live: LivePlay) -> dict[str, Any]:
    """The table's absence rule from the competition's: by the clock, no absence limit
    (the clock plays each of the absent player's moves); else the bot named takes the
    seat after ``absence_seconds`` away."""
    if live.absent == CLOCK:
        return {"absence_seconds": 0}
    return {"absence_seconds": live.absence_seconds, "replacement_bot": live.absent}


def open_tables(competition: Competition, r: int) -> int:
    """Make and start the live tables of a round's games with people (those not made
    yet); returns how many were made now."""
    live = competition.live
    if live is None:
        return 0
    wanted = live_games(competition, r)
    if not wanted:
        return 0
    done = set(CompetitionTable.objects.filter(competition_id=competition.id, round=r)
               .values_list("index", flat=True))
    users = get_user_model()
    organiser_name = username_of(competition.organiser or "")
    # The tables are the organiser's (their lobby line's host), not a seated bot's:
    # one made on the command line has none, and is its first person's.
    organiser = (users.objects.filter(username=organiser_name).first()
                 if organiser_name is not None else None)
    deadline = timezone.now() + timedelta(hours=live.fixture_hours)
    made = 0
    for index in wanted:
        if index in done:
            continue
        entrants = [competition.entrants[e] for e in competition.rounds[r].games[index].seats]
        people = {e: users.objects.filter(username=username_of(e)).first()
                  for e in entrants if username_of(e) is not None}
        first = next((u for u in people.values() if u is not None), None)
        if first is None:  # every person at it has deleted their account
            log.warning("game %s of round %s of %s: nobody left to seat", index, r,
                        competition.id)
            continue
        seats = [(people.get(e), "" if e in people else bot_name(e).split(" #", 1)[0])
                 for e in entrants]
        try:
            with catch_up_deferred(), transaction.atomic():
                table = open_table(
                    organiser or first, live.preset, live.overrides, seats,
                    game_id=competition.game_id(r, index),
                    seed=competition.table_seed(r, index),
                    players=[_player(e, user, bot) for e, (user, bot) in zip(entrants, seats,
                                                                             strict=True)],
                    tournament=competition.name, actor=ACTOR,
                    tags=competition.tags(r, index), names=competition.seat_names(r, index),
                    move_seconds=live.move_seconds, game_seconds=live.game_seconds,
                    **_absence(live))
                CompetitionTable.objects.create(competition_id=competition.id, round=r,
                                                index=index, table=table, deadline=deadline)
        except (IntegrityError, DjangoIntegrityError):
            log.info("game %s of round %s of %s: its table was made elsewhere", index, r,
                     competition.id)
            continue
        made += 1
    if made:
        # The lobby's lists and "Your games": with a shared channel layer (Redis) every
        # web process hears it; the embedded default's in-memory layer reaches no other
        # process, whose sweep (play.driver.sweep) finds the new tables and tells them.
        tell(LOBBY_GROUP, lobby_changed())
    return made


def collect(competition_id: UUID, now: datetime | None = None, *,
            marked_only: bool = False) -> int:
    """Put the open round's ended (or overdue) live games in, once each; returns how
    many went in now (``tournaments.core.rounds.collect`` moves the competition on).
    ``marked_only`` (a page view, which must stay cheap): look only at tables ``play``
    has marked finished and those past their deadline, without reading the games still
    being played."""
    competition = competitions().get(competition_id)
    r = competition.open_round
    if r is None:
        return 0
    now = now or timezone.now()
    stored = set(CompetitionGame.objects.filter(competition_id=competition_id, round=r)
                 .values_list("index", flat=True))
    added = 0
    rows = CompetitionTable.objects.filter(competition_id=competition_id, round=r)
    if marked_only:
        rows = rows.filter(Q(table__status=Table.Status.FINISHED) | Q(deadline__lte=now))
    for row in rows.select_related("table"):
        if row.index in stored or row.table.game_id is None:
            continue
        game = games().game(row.table.game_id)
        final = game.state.result
        if final is None and now >= row.deadline:
            try:  # the game records its end; this competition puts the row in below
                game = stop_game(row.table.pk, StopReason.DEADLINE, ACTOR,
                                 announce=False).game
            except TableError as refused:  # it ended meanwhile: read it as stored
                log.info("game %s: not stopped at its deadline: %s", row.table.game_id,
                         refused)
                game = games().game(row.table.game_id)
            final = game.state.result
        if final is None:
            continue
        result = Result(tuple(final.ranks), tuple(final.coins), tuple(final.winners))
        try:
            with transaction.atomic():
                CompetitionGame.objects.create(
                    game_id=row.table.game_id, competition_id=competition_id, round=r,
                    index=row.index, ranks=list(result.ranks), coins=list(result.coins),
                    winners=list(result.winners))
        except DjangoIntegrityError:
            continue  # another process put it in first
        added += 1
    return added


def close_tables(competition: Competition, r: int) -> int:
    """End the games still being played at round ``r``'s live tables of a stopped
    competition, as the platform ends an abandoned table's (``play.tables.stop_game``:
    ``GameStopped``, reason ``abandoned``, scored by the coins banked; every seat is
    told, and nothing can be played there afterwards); returns how many. The
    competition collects nothing more, so none of them counts."""
    closed = 0
    rows = CompetitionTable.objects.filter(competition_id=competition.id, round=r,
                                           table__status=Table.Status.RUNNING)
    for row in rows.select_related("table"):
        try:
            stop_game(row.table.pk, StopReason.ABANDONED, ACTOR, announce=False)
        except TableError as refused:  # it ended meanwhile
            log.info("table %s of stopped %s not closed: %s", row.table.pk, competition.id,
                     refused)
            continue
        closed += 1
    return closed


__all__ = ["ACTOR", "COLLECT_TASK", "close_tables", "collect", "live_games", "open_tables",
           "schedule", "unschedule"]
