"""Moving a competition on, round after round, the same for every format: what the
Celery tasks (``tournaments.tasks``), the shell and the pages run.

- :func:`start_round`: the open round's games set going: the live tables of those with
  people at them (``tournaments.core.live``), the workers for the bots' deals.
- :func:`advance`: once every game of the open round is stored, end it (results, moves,
  ratings) and pair the next, unless a schedule pairs them (a ladder: :func:`tick`).
  Two workers finishing a round's last games at once both try: the store takes one,
  and the other finds the round already ended.
- :func:`tick`: a ladder's beat: the next round paired if none is open.
- :func:`collect`: a competition's live games that ended (or are past their deadline)
  in, then :func:`advance`; run when ``play`` says a table finished
  (``tournaments.tasks.table_finished``), by the beat (deadlines), and by a page view
  (cheaply).
- :func:`start_due`: a competition whose sign-up's deadline has passed starts its
  first round with who has entered, as its organiser's *Start* would; run by the beat's
  look and by a page view.
- :func:`watch`: the beat's look at a competition's bots' games: a round whose games
  stopped coming in while some are missing (a worker killed with its messages: the
  embedded default's file transport loses them) is recorded as stalled and its missing
  deals are sent again, with nobody to type ``manage.py tournament resume``;
  :func:`stalled_since` says so until games come in again.
- :func:`stop`: its organiser (or staff, or the operator) stops it: ``Stopped``
  recorded with the open round's games stored by then, its quota slot freed, its
  beat's entries removed and its open round's live tables closed by the platform.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from eventsourcing.persistence import IntegrityError

from tournaments.core import beat, consent, live, quotas
from tournaments.core.competition import Competition, CompetitionError
from tournaments.core.entrants import username_of
from tournaments.core.games import (
    bot_deals,
    missing_games,
    play_deals,
    results_so_far,
    round_results,
)
from tournaments.core.store import competitions
from tournaments.models import CompetitionGame

log = logging.getLogger(__name__)

ATTEMPTS = 20
Send = Callable[[UUID, int, Sequence[int]], None]
"""Sends a round's deals (bots only) to be played: to the workers, or to a queue here."""


def start_round(competition: Competition, send: Send) -> None:
    """Set the open round's games going: the live tables of those with people at them
    (``tournaments.core.live``), the workers (``send``) for the others not stored yet."""
    r = competition.open_round
    if r is None:
        return
    live.open_tables(competition, r)
    deals = bot_deals(competition, r, missing_games(competition))
    if deals:
        send(competition.id, r, deals)


def advance(competition_id: UUID, send: Send) -> bool:
    """If the open round's games are all stored, end it and pair the next (whose games
    are set going: :func:`start_round`); returns whether this call moved the
    competition on."""
    app = competitions()
    for _ in range(ATTEMPTS):
        competition = app.get(competition_id, copy=False)
        r = competition.open_round
        if r is None:
            return False
        results = round_results(competition, r)
        if results is None:
            return False
        competition = app.get(competition_id)
        if competition.open_round != r:
            continue
        competition.end_round(results)
        try:
            app.save(competition)
        except IntegrityError:
            continue  # another worker moved it on first: look again
        start_round(competition, send)
        return True
    return False


def tick(competition_id: UUID, send: Send) -> str:
    """One beat of a competition on a schedule (a ladder): end the open round when its
    games are stored, then pair the next; an open round's missing games are sent
    (again). Says what it did: ``"paired"``, ``"waiting"`` or ``"idle"`` (too few
    entrants, or finished)."""
    app = competitions()
    for _ in range(ATTEMPTS):
        competition = app.get(competition_id)
        missing = missing_games(competition)
        if missing:
            r = competition.open_round
            assert r is not None
            send(competition_id, r, bot_deals(competition, r, missing))
            return "waiting"
        ended = competition.open_round is not None
        if ended:
            r = competition.open_round
            assert r is not None
            results = round_results(competition, r)
            assert results is not None
            competition.end_round(results)
        paired = competition.pair_next()
        if not paired and not ended and not competition.finished:
            return "idle"
        try:
            app.save(competition)
        except IntegrityError:
            continue  # another beat moved it on first: look again
        if not paired:
            return "idle"
        start_round(competition, send)
        return "paired"
    return "waiting"


def resume(competition_id: UUID, send: Send) -> int:
    """Send the open round's missing bot games again (after a lost message), and move
    on a round whose games are all stored; returns how many deals were sent."""
    advance(competition_id, send)
    competition = competitions().get(competition_id)
    r = competition.open_round
    if r is None:
        return 0
    deals = bot_deals(competition, r, missing_games(competition))
    if deals:
        send(competition_id, r, deals)
    return len(deals)


def start_due(competition: Competition, send: Send, now: datetime | None = None) -> bool:
    """Start the first round of a competition whose sign-up's deadline has passed at
    ``now``, with who has entered (invitations not answered expire; the games count
    against its organiser's quota from now, as at their own start); returns whether it
    started. Refused (the entrants cannot be paired, the quota is spent): it keeps
    waiting, its page says why, and its organiser may invite more people and start it.
    Two processes at once: the store takes one start."""
    now = now or timezone.now()
    if not competition.due_to_start(now):
        return False
    app = competitions()
    name = username_of(competition.organiser or "")
    organiser = (get_user_model().objects.filter(username=name).first()
                 if name is not None else None)
    for _ in range(ATTEMPTS):
        competition = app.get(competition.id)
        if not competition.due_to_start(now):
            return False
        try:
            with transaction.atomic():
                competition.start()
                if organiser is not None:
                    quotas.admit_start(organiser, competition)
                consent.save(app, competition)
        except CompetitionError as refused:
            log.info("competition %s not started at its deadline: %s", competition.id,
                     refused)
            return False
        except IntegrityError:
            continue  # changed meanwhile (a late withdrawal, another process's start)
        start_round(competition, send)
        return True
    return False


def collect(competition_id: UUID, send: Send, now: datetime | None = None, *,
            marked_only: bool = False) -> int:
    """Start a competition due to (:func:`start_due`); put the open round's ended (or
    overdue) live games in (``live.collect``), then move the competition on; returns
    how many went in now."""
    start_due(competitions().get(competition_id), send, now)
    added = live.collect(competition_id, now, marked_only=marked_only)
    if added:
        advance(competition_id, send)
        if competitions().get(competition_id).finished:
            live.unschedule(competition_id)
    return added


def stall_seconds() -> float:
    """How long a round's bots' games may stop coming in, while some are missing, before
    the round is taken to have stalled (``TOURNAMENT_STALL_SECONDS``)."""
    return float(getattr(settings, "TOURNAMENT_STALL_SECONDS", 60))


def last_stored(competition: Competition, r: int) -> datetime | None:
    """When the last game of round ``r`` went in (None: none yet)."""
    found: datetime | None = CompetitionGame.objects.filter(
        competition_id=competition.id, round=r).aggregate(last=Max("stored_at"))["last"]
    return found


def stalled_since(competition: Competition) -> datetime | None:
    """Since when the open round has stood still, if the platform has found it stalled
    and no game has come in since it sent the missing deals again; else None."""
    stall = competition.open_stall()
    if stall is None:
        return None
    if stored_count(competition, stall.round) > stall.stored:
        return None  # moving again (the beat records Resumed at its next look)
    return datetime.fromisoformat(stall.since)


def stored_count(competition: Competition, r: int) -> int:
    return CompetitionGame.objects.filter(competition_id=competition.id, round=r).count()


def watch(competition_id: UUID, send: Send, now: datetime | None = None) -> str:
    """The beat's look at a competition's bots' games. Says what it found: ``"finished"``,
    ``"idle"`` (no round open, or only live tables' games missing: their deadlines are
    :func:`collect`'s), ``"moved"`` (every game was stored, and the round is ended now),
    ``"moving"`` (a game came in within :func:`stall_seconds`), or ``"stalled"`` (none
    did while some are missing: the round is recorded stalled, ``Stalled``, and the
    missing deals are sent again; again every :func:`stall_seconds` while it stays so,
    and in between the look says ``"stalled"`` and sends nothing).
    Sending a deal twice stores it once (``tournaments.core.games.play_deals``), so two
    beats, or a look racing a slow worker, do no harm."""
    now = now or timezone.now()
    app = competitions()
    for _ in range(ATTEMPTS):
        competition = app.get(competition_id)
        if competition.ended:
            return "finished"
        r = competition.open_round
        if r is None:
            return "idle"
        missing = missing_games(competition)
        if not missing:
            return "moved" if advance(competition_id, send) else "idle"
        deals = bot_deals(competition, r, missing)
        last = last_stored(competition, r)
        stored = len(competition.rounds[r].games) - len(missing)
        stall = competition.open_stall()
        if stall is not None and stored > stall.stored:
            assert last is not None
            competition.resumed(last.isoformat())
            stall = None
            _save_quietly(app, competition)
        if not deals:
            return "idle"
        quiet = max(filter(None, [last, competition.modified_on,
                                  datetime.fromisoformat(stall.resent_at) if stall else None]))
        if now - quiet < timedelta(seconds=stall_seconds()):
            return "stalled" if stall else "moving"
        since = (stall.since if stall else
                 max(filter(None, [last, competition.modified_on])).isoformat())
        competition = app.get(competition_id)  # the Resumed above is saved or lost
        if competition.open_round != r:
            continue
        competition.stalled(since, now.isoformat(), deals, stored)
        try:
            app.save(competition)
        except IntegrityError:
            continue  # another look or a worker moved it on first: look again
        log.warning("round %s of %s stalled since %s: %d deal(s) sent again", r,
                    competition_id, since, len(deals))
        send(competition_id, r, deals)
        return "stalled"
    return "moving"


def stop(competition_id: UUID, by: str, reason: str, *, staff: bool = False) -> Competition:
    """Stop a competition (``Competition.stop``: ``by`` its organiser, or ``staff``),
    recording the open round's games stored by now, which count; refused
    (CompetitionError, nothing stored) as the aggregate refuses. In the transaction
    that stores it, its account's quota no longer counts it as running
    (``quotas.stopped``) and the beat's entries for it (a ladder's tick, the watch, the
    look at live tables) are removed, so no round is paired and no tick plays. Then its
    open round's live tables still being played are closed as the platform closes an
    abandoned one (``live.close_tables``). Games the workers play after it are stored
    and change nothing. A lost race (a tick, a round's end) is tried again."""
    app = competitions()
    for _ in range(ATTEMPTS):
        competition = app.get(competition_id)
        r = competition.open_round
        played = results_so_far(competition, r) if r is not None else []
        competition.stop(by, reason, played, staff=staff)
        try:
            with transaction.atomic():
                app.save(competition)
                quotas.stopped(competition)
                for what in ("tick", "watch"):
                    beat.stop(competition_id, what)
                live.unschedule(competition_id)
        except IntegrityError:
            continue  # a tick or a round's end came first: stop what it left
        if r is not None:
            live.close_tables(competition, r)
        log.info("competition %s stopped by %s", competition_id, by)
        return competition
    raise CompetitionError("the competition kept changing: try again")


def _save_quietly(app: Any, competition: Competition) -> None:
    """Save what a look recorded (a ``Resumed``); a lost race is harmless: the next look
    sees it again."""
    with contextlib.suppress(IntegrityError):
        app.save(competition)


def run_here(competition_id: UUID, *, rounds: int = 1,
             on_deal: Callable[[Competition], None] | None = None) -> Competition:
    """Play the competition in this process, deal by deal, as the workers would (the
    demo; ``manage.py tournament create --here``); a competition on a schedule (a
    ladder) ``rounds`` of its rounds, one tick after another."""
    pending: list[tuple[int, int]] = []

    def queue(_: UUID, r: int, deals: Sequence[int]) -> None:
        pending.extend((r, deal) for deal in deals if (r, deal) not in pending)

    def drain() -> None:
        while pending:
            r, deal = pending.pop(0)
            play_deals(competition_id, r, [deal])
            advance(competition_id, queue)
            if on_deal is not None:
                on_deal(competitions().get(competition_id))

    competition = competitions().get(competition_id)
    if competition.continuous:
        for _ in range(rounds):
            if tick(competition_id, queue) == "idle":
                break
            drain()
    else:
        start_round(competition, queue)
        drain()
    return competitions().get(competition_id)


__all__ = ["ATTEMPTS", "Send", "advance", "collect", "last_stored", "resume", "run_here",
           "stall_seconds", "stalled_since", "start_due", "start_round", "stop", "tick",
           "watch"]
