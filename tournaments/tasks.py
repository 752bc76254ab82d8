"""Celery tasks of the competitions, the same for every format: one task per few deals
of a round (a deal is a game, or a duplicate set), stored together; a scheduled
competition's beat (a ladder's next round); the look at live tables.

``acks_late`` with ``reject_on_worker_lost``: a task whose worker dies mid-game is
delivered again, and plays its deals again from the start (nothing of the lost attempt
was stored: a batch is stored in one transaction). A redelivered task whose deals were
stored already stores nothing (``tournaments.core.games.play_deals``), then still tries
to move the competition on, so a worker lost between storing the last game of a round
and pairing the next does not stall it. A database that goes away is retried. A
message lost with its worker (the embedded default's file transport keeps no copy of a
message a worker has taken) is sent again by the beat's :func:`watch` once the round has
stood still for ``TOURNAMENT_STALL_SECONDS``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any
from uuid import UUID

from celery import shared_task
from django.conf import settings
from django.db import DatabaseError
from django_celery_beat.models import PeriodicTask
from eventsourcing.persistence import PersistenceError

from tournaments.core import beat, bottests, games, live, rounds, workers
from tournaments.core.competition import Competition
from tournaments.core.store import CompetitionNotFound, competitions
from tournaments.models import CompetitionTable

RETRIED = (DatabaseError, PersistenceError)
WATCH_TASK = "tournaments.watch"
MAX_BATCH = 64
"""The most deals one task takes (a message is outside input too)."""
TICK_TASK = "tournaments.tick"


def batch_size() -> int:
    """Deals a task plays and stores together (``TOURNAMENT_BATCH``; 1: a task a deal)."""
    return max(1, int(getattr(settings, "TOURNAMENT_BATCH", 4)))


def send_deals(competition_id: UUID, r: int, deals: Sequence[int]) -> None:
    """Send a round's deals to the workers, a few to a task (:func:`batch_size`): a
    batch is stored in one transaction, and the look at what is stored, the commit,
    the task's round trip through the broker and the look at whether the round is
    over are paid once per batch (bench/tournament.py). Small batches, so that the
    workers still share a round's last games."""
    size = batch_size()
    deals = list(deals)
    for start in range(0, len(deals), size):
        play_deals.delay(str(competition_id), r, deals[start:start + size])


@shared_task(name="tournaments.play_deals", acks_late=True, reject_on_worker_lost=True,
             autoretry_for=RETRIED, retry_backoff=1, retry_backoff_max=30, max_retries=10,
             bind=True)
def play_deals(self: Any, competition_id: str, r: int, deals: list[int]) -> int:
    """Play a few deals of a round (those not stored yet) and store them together,
    then move the competition on.

    Delivered again (the broker says so: a worker died holding the message), it also
    sends the open round's missing deals again (``rounds.resume``): the dead worker may
    have ended the round and died before it sent the next round's deals, which no other
    message would send (tests/services/test_tournament_workers.py saw the competition
    stand still at 20 of 60 games so). A deal sent twice is stored once."""
    cid = UUID(competition_id)
    stored = games.play_deals(cid, r, [int(d) for d in deals[:MAX_BATCH]])
    if (self.request.delivery_info or {}).get("redelivered"):
        rounds.resume(cid, send_deals)
    else:
        rounds.advance(cid, send_deals)
    return stored


@shared_task(name="tournaments.resume", acks_late=True, autoretry_for=RETRIED,
             retry_backoff=1, max_retries=10)
def resume(competition_id: str) -> int:
    """Send the open round's missing deals again (after a lost message), and move on a
    round whose games are all stored; returns how many deals were sent."""
    return rounds.resume(UUID(competition_id), send_deals)


@shared_task(name=TICK_TASK, acks_late=True, autoretry_for=RETRIED, retry_backoff=1,
             max_retries=5)
def tick(competition_id: str) -> str:
    """The beat's periodic task of a competition on a schedule (a ladder): pair its next
    round (or send the open round's missing games again); unscheduled once the ladder
    has played its last tick or been stopped (or its events are gone)."""
    cid = UUID(competition_id)
    try:
        said = rounds.tick(cid, send_deals)
        ended = said == "idle" and competitions().get(cid).ended
    except CompetitionNotFound:
        said, ended = "idle", True
    if ended:
        beat.stop(cid, "tick")
        return "ended"
    return said


@shared_task(name=live.COLLECT_TASK, acks_late=True, autoretry_for=RETRIED, retry_backoff=1,
             retry_backoff_max=30, max_retries=10)
def collect(competition_id: str) -> int:
    """The beat's look at a competition's live tables: ended or overdue games go in."""
    return rounds.collect(UUID(competition_id), send_deals)


@shared_task(name=WATCH_TASK, acks_late=True, autoretry_for=RETRIED, retry_backoff=1,
             max_retries=5)
def watch(competition_id: str) -> str:
    """The beat's look at a competition's bots' games (``rounds.watch``): a stalled
    round's missing deals sent again; the look unscheduled once the competition has
    finished (or its events are gone)."""
    cid = UUID(competition_id)
    try:
        said = rounds.watch(cid, send_deals)
    except CompetitionNotFound:
        said = "finished"
    if said == "finished":
        unschedule_watch(cid)
    return said


@shared_task(name=workers.HEARTBEAT_TASK, ignore_result=True)
def workers_seen() -> None:
    """The beat's heartbeat, run by whichever worker takes it (``workers.seen``): that
    the beat, the broker and a worker all work, for ``/health/`` and the pages."""
    workers.seen()


JOB_SECONDS = 30.0
"""How long one bot test job plays before it hands on to a new one (so that other jobs
get the workers in turn)."""


@shared_task(name="tournaments.bot_test", acks_late=True, reject_on_worker_lost=True,
             autoretry_for=RETRIED, retry_backoff=1, retry_backoff_max=30, max_retries=10)
def bot_test(test_id: str) -> str:
    """Play a bot test's sets batch after batch, each batch recorded (the page's chart
    moves), until a hypothesis is accepted or the most sets are played; after
    :data:`JOB_SECONDS` the rest goes on in a new job. A job delivered twice records
    each set once (``bottests.play_batch``)."""
    tid = UUID(test_id)
    started = time.monotonic()
    while time.monotonic() - started < JOB_SECONDS:
        bottests.play_batch(tid)
        if bottests.get(tid).decided:
            return "decided"
    bot_test.delay(test_id)
    return "continued"


def watch_seconds() -> int:
    """How often the beat looks at each running competition's games
    (``TOURNAMENT_WATCH_SECONDS``)."""
    return max(1, int(getattr(settings, "TOURNAMENT_WATCH_SECONDS", 10)))


def schedule_watch(competition: Competition) -> PeriodicTask:
    """The beat's periodic look at a competition's games (made once): a round that
    stalls is noticed and its missing games sent again with nobody to ask for it."""
    return beat.periodic(competition.id, "watch", WATCH_TASK, watch_seconds())


def unschedule_watch(competition_id: UUID) -> None:
    beat.stop(competition_id, "watch")


def schedule_ticks(competition: Competition) -> PeriodicTask:
    """A scheduled competition's periodic round in django-celery-beat's tables (made
    once): every ``competition.every`` seconds."""
    return beat.periodic(competition.id, "tick", TICK_TASK, competition.every)


def start(competition: Competition) -> None:
    """Set a competition just made (or just started by its organiser) going: its first
    round's games, its schedule's beat (a ladder), the look at its live tables."""
    if competition.continuous:
        schedule_ticks(competition)  # its tick sends an open round's missing games again
    elif not competition.finished:
        schedule_watch(competition)
    if competition.live is not None and not competition.finished:
        live.schedule(competition)
    rounds.start_round(competition, send_deals)


def table_finished(sender: Any, table_id: UUID, game_id: UUID, **kwargs: Any) -> None:
    """``play.signals.table_finished`` (connected in ``tournaments.apps``): if the table
    was a competition's game, its result goes in now and the competition moves on."""
    row = CompetitionTable.objects.filter(table_id=table_id).first()
    if row is None:
        return
    try:
        rounds.collect(row.competition_id, send_deals)
    except CompetitionNotFound:  # its competition's events are gone (a wiped store)
        return


__all__ = ["JOB_SECONDS", "WATCH_TASK", "batch_size", "bot_test", "collect", "play_deals",
           "resume", "schedule_ticks", "schedule_watch", "send_deals", "start",
           "table_finished", "tick", "unschedule_watch", "watch", "watch_seconds",
           "workers_seen"]
