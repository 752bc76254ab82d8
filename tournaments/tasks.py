"""Celery tasks of the competitions: one task per few deals (a deal is a game, or a
duplicate set), stored together.

``acks_late`` with ``reject_on_worker_lost``: a task whose worker dies mid-game is
delivered again, and plays its deal again from the start (nothing of the lost attempt
was stored: a deal is stored in one transaction). A redelivered task whose deal was
stored already stores nothing (:func:`tournaments.runner.play_deal`), then still
tries to move the competition on, so a worker lost between storing the last game of
a round and pairing the next does not stall it. A database that goes away is retried.
"""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from celery import shared_task
from django.conf import settings
from django.db import DatabaseError
from eventsourcing.persistence import PersistenceError

from tournaments import ladder_runner, league_live, league_runner, runner
from tournaments.competitions import tournaments
from tournaments.league_live import LEAGUE_COLLECT_TASK

RETRIED = (DatabaseError, PersistenceError)
MAX_BATCH = 64
"""The most deals one task takes (a message is outside input too)."""


def batch_size() -> int:
    """Deals a task plays and stores together (``TOURNAMENT_BATCH``; 1: a task a deal)."""
    return max(1, int(getattr(settings, "TOURNAMENT_BATCH", 4)))


def dispatch(tournament_id: UUID, round_number: int, deals: Sequence[int]) -> None:
    """Send a round's deals to the workers, a few to a task (:func:`batch_size`): a
    batch is stored in one transaction, and the look at what is stored, the commit,
    the task's round trip through the broker and the look at whether the round is
    over are paid once per batch (bench/tournament.py). Small batches, so that the
    workers still share a round's last games."""
    size = batch_size()
    deals = list(deals)
    for start in range(0, len(deals), size):
        chunk = deals[start:start + size]
        if len(chunk) == 1:
            play_deal.delay(str(tournament_id), round_number, chunk[0])
        else:
            play_deals.delay(str(tournament_id), round_number, chunk)


@shared_task(name="tournaments.play_deal", acks_late=True, reject_on_worker_lost=True,
             autoretry_for=RETRIED, retry_backoff=1, retry_backoff_max=30, max_retries=10)
def play_deal(tournament_id: str, round_number: int, deal: int) -> int:
    """Play one deal of a round (if not stored yet), then move the competition on."""
    tid = UUID(tournament_id)
    stored = runner.play_deal(tid, round_number, deal)
    runner.advance(tid, dispatch)
    return stored


@shared_task(name="tournaments.play_deals", acks_late=True, reject_on_worker_lost=True,
             autoretry_for=RETRIED, retry_backoff=1, retry_backoff_max=30, max_retries=10)
def play_deals(tournament_id: str, round_number: int, deals: list[int]) -> int:
    """Play a few deals of a round (those not stored yet) and store them together,
    then move the competition on."""
    tid = UUID(tournament_id)
    stored = runner.play_deals(tid, round_number, [int(d) for d in deals[:MAX_BATCH]])
    runner.advance(tid, dispatch)
    return stored


@shared_task(name="tournaments.resume", acks_late=True, autoretry_for=RETRIED,
             retry_backoff=1, max_retries=10)
def resume(tournament_id: str) -> int:
    """Send the current round's missing deals again (after a lost dispatch), and move on
    a round whose games are all stored; returns how many deals were sent."""
    tid = UUID(tournament_id)
    runner.advance(tid, dispatch)
    tournament = tournaments().get_tournament(tid)
    missing = runner.missing_deals(tournament)
    r = tournament.current_round
    if r is not None and missing:
        dispatch(tid, r, missing)
    return len(missing)


def start(tournament_id: UUID) -> None:
    """Send the first round of a competition just created."""
    tournament = tournaments().get_tournament(tournament_id)
    r = tournament.current_round
    if r is not None:
        dispatch(tournament_id, r, runner.deals_of(tournament, r))


def dispatch_matches(ladder_id: UUID, matches: Sequence[int]) -> None:
    """Send each of a ladder's matches to the workers."""
    for match in matches:
        play_match.delay(str(ladder_id), match)


@shared_task(name="tournaments.play_match", acks_late=True, reject_on_worker_lost=True,
             autoretry_for=RETRIED, retry_backoff=1, retry_backoff_max=30, max_retries=10)
def play_match(ladder_id: str, match: int) -> int:
    """Play one ladder match (if not stored yet), then end its tick if it was the last."""
    lid = UUID(ladder_id)
    stored = ladder_runner.play_match(lid, match)
    ladder_runner.end_if_done(lid)
    return stored


@shared_task(name=ladder_runner.TICK_TASK, acks_late=True, autoretry_for=RETRIED,
             retry_backoff=1, max_retries=5)
def ladder_tick(ladder_id: str) -> str:
    """The beat's periodic task of one ladder: pair its next tick (or resend the open
    tick's missing matches)."""
    return ladder_runner.tick(UUID(ladder_id), dispatch_matches)


def dispatch_fixtures(league_id: UUID, season: int, fixtures: Sequence[int]) -> None:
    """Send each of a season's fixtures to the workers."""
    for fixture in fixtures:
        play_fixture.delay(str(league_id), season, fixture)


@shared_task(name="tournaments.play_fixture", acks_late=True, reject_on_worker_lost=True,
             autoretry_for=RETRIED, retry_backoff=1, retry_backoff_max=30, max_retries=10)
def play_fixture(league_id: str, season: int, fixture: int) -> int:
    """Play one league fixture (if not stored yet), then move the league on."""
    lid = UUID(league_id)
    stored = league_runner.play_fixture(lid, season, fixture)
    league_runner.advance(lid, dispatch_fixtures)
    return stored


@shared_task(name=LEAGUE_COLLECT_TASK, acks_late=True, autoretry_for=RETRIED, retry_backoff=1,
             retry_backoff_max=30, max_retries=10)
def league_collect(league_id: str) -> int:
    """The beat's look at a league's live tables: ended or overdue fixtures go in."""
    return league_live.collect(UUID(league_id), dispatch_fixtures)
