"""Asking for an analysis and running its job.

:func:`ask` is what a person's request does: only for a finished game (a running one's
analysis would tell the players what their opponents hold), reusing the analysis
already stored or under way for the same game and means, within the account's quota.
:func:`run` is the Celery job's body (``analyses.tasks``): it judges the decisions not
judged yet, saving them every few judgments, and stores the finished analysis.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict
from datetime import timedelta
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from analyses.models import LEASE, Analysis
from bohnanza_core import analysis as core
from bohnanza_core.events import GameEnded
from bohnanza_core.games import Game
from replays.store import games

log = logging.getLogger(__name__)

SAVE_EVERY = 5
"""Judgments between two saves of a running job's progress (and at most
:data:`SAVE_SECONDS` apart): what a killed worker can lose."""
SAVE_SECONDS = 5.0
DAY = timedelta(days=1)


class Refusal(Exception):
    """A request for an analysis that is not taken: the HTTP status and a sentence
    saying why, for the person who asked."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def playouts() -> int:
    """Playouts a decision of the analyses asked for on the site
    (``BOHNANZA_ANALYSIS_PLAYOUTS``; the analysis core's default)."""
    return int(getattr(settings, "ANALYSIS_PLAYOUTS", core.DEFAULT_PLAYOUTS))


def limits() -> dict[str, int]:
    """The per-account quota: analyses asked for in any 24 hours, and at once."""
    given = getattr(settings, "ANALYSIS_QUOTAS", {})
    return {"per_day": int(given.get("per_day", 10)), "running": int(given.get("running", 1))}


def means() -> dict[str, Any]:
    """What an analysis asked for now is made by: the bot, its version and budget."""
    return {"bot": core.BOT, "version": core.VERSION, "playouts": playouts()}


def stored(game_id: UUID) -> Analysis | None:
    """The game's analysis by today's means, if one was ever asked for."""
    return Analysis.objects.filter(game_id=game_id, **means()).first()


def refusal_of_game(game: Game) -> str | None:
    """Why ``game`` cannot be analysed, or None."""
    if not game.finished:
        return _("Only a finished game is analysed: an analysis of a running game would "
                 "tell the players what their opponents hold.")
    if not isinstance(games().record(game.id)[-1].event, GameEnded):
        return _("This game was stopped before its end: only a game played to its end is "
                 "analysed.")
    return None


def _check_quota(user: Any) -> None:
    if user.is_staff:
        return
    quota = limits()
    mine = Analysis.objects.filter(requested_by=user)
    running = mine.filter(status__in=(Analysis.Status.QUEUED, Analysis.Status.RUNNING)).count()
    if running >= quota["running"]:
        raise Refusal(429, ngettext(
            "An account has at most %(limit)d analysis under way at a time: wait until "
            "yours is done.",
            "An account has at most %(limit)d analyses under way at a time: wait until "
            "one of yours is done.", quota["running"]) % {"limit": quota["running"]})
    today = mine.filter(requested_at__gte=timezone.now() - DAY).count()
    if today >= quota["per_day"]:
        raise Refusal(429, ngettext(
            "An account may ask for %(limit)d analysis a day and yours has asked for "
            "%(used)d in the last 24 hours: try again later.",
            "An account may ask for %(limit)d analyses a day and yours has asked for "
            "%(used)d in the last 24 hours: try again later.",
            quota["per_day"]) % {"limit": quota["per_day"], "used": today})


def ask(game: Game, user: Any, send: Callable[[int], None]) -> Analysis:
    """The analysis of ``game`` by today's means for ``user``, who may see the game:
    the one stored or under way if there is one (no quota spent), else a new job
    (``send(pk)`` once the row is committed). Raises :class:`Refusal`."""
    if not user.is_authenticated:
        raise Refusal(403, _("Sign in to ask for an analysis."))
    why = refusal_of_game(game)
    if why is not None:
        raise Refusal(409, why)
    try:
        with transaction.atomic():
            row = Analysis.objects.select_for_update().filter(game_id=game.id,
                                                                **means()).first()
            if row is not None and (row.status == Analysis.Status.DONE
                                    or (row.busy and not row.stale())):
                return row
            if row is not None and row.busy:  # its job was lost: sent again, no quota spent
                row.heartbeat = timezone.now()
                row.save(update_fields=["heartbeat"])
            else:
                _check_quota(user)
                if row is None:
                    row = Analysis.objects.create(game_id=game.id, **means(),
                                                  requested_by=user)
                else:  # a failed one, asked for again
                    row.status, row.error, row.requested_by = Analysis.Status.QUEUED, "", user
                    row.requested_at = row.heartbeat = timezone.now()
                    row.save()
            pk = row.pk
            transaction.on_commit(lambda: send(pk))
    except IntegrityError:  # asked for by two people at once: the other's is the one
        found = stored(game.id)
        assert found is not None
        return found
    return row


def _judgments(saved: list[dict[str, Any]]) -> list[core.Judgment]:
    """Judgments saved as dicts (``asdict``), as the analysis core's again."""
    return [core.Judgment(j["event"], j["seat"], j["turn"], j["played"], j["best"],
                          core.Estimate(**j["played_estimate"]),
                          core.Estimate(**j["best_estimate"]), j["moves"]) for j in saved]


class Held(Exception):
    """Another job holds the analysis's lease: try again after it."""


def _take(pk: int, job: str) -> Analysis | None:
    """The analysis to run, marked running under ``job``; None when there is nothing
    to do (done, or gone). Raises :class:`Held` while another job's lease holds: two
    jobs for one analysis (one sent again as lost while it was only slow) run one at a
    time. The same job delivered again (its worker died) takes over at once."""
    now = timezone.now()
    with transaction.atomic():
        row = Analysis.objects.select_for_update().filter(pk=pk).first()
        if row is None or row.status == Analysis.Status.DONE:
            return None
        if (row.status == Analysis.Status.RUNNING and row.heartbeat is not None
                and row.heartbeat > now - LEASE and row.worker != job):
            raise Held(str(pk))
        row.status, row.worker, row.heartbeat, row.error = (
            Analysis.Status.RUNNING, job, now, "")
        row.started_at = row.started_at or now
        row.save(update_fields=["status", "worker", "heartbeat", "error", "started_at"])
    return row


def run(pk: int, job: str | None = None) -> str:
    """Judge the analysis's decisions not judged yet and store the whole analysis; the
    status it ends in. ``job``: the job's id (the Celery task's, which a message
    delivered again keeps; a new one by default)."""
    row = _take(pk, job or uuid.uuid4().hex)
    if row is None:
        return Analysis.Status.DONE
    saved: list[dict[str, Any]] = list(row.judgments)
    before = len(saved)
    try:
        events = [entry.event for entry in games().record(row.game_id)]
        row.total = len(core.decision_points(events))
        row.made = before
        row.save(update_fields=["total", "made"])
        log.info("analysis %s: %d of %d decisions judged before, judging the rest", pk,
                 before, row.total)
        last_save = [time.monotonic(), len(saved)]

        def save_progress(judgment: core.Judgment, made: int, total: int) -> None:
            saved.append(asdict(judgment))
            if made - last_save[1] >= SAVE_EVERY or time.monotonic() - last_save[0] > SAVE_SECONDS:
                Analysis.objects.filter(pk=pk).update(
                    judgments=saved, made=made, total=total, heartbeat=timezone.now())
                last_save[:] = [time.monotonic(), made]

        result = core.analyse(events, row.playouts, str(row.game_id), done=_judgments(saved),
                              on_judgment=save_progress)
    except core.NotFinished as refused:
        Analysis.objects.filter(pk=pk).update(status=Analysis.Status.FAILED, error=str(refused),
                                              finished_at=timezone.now())
        return Analysis.Status.FAILED
    except Exception as failure:
        log.exception("the analysis %s failed", pk)
        Analysis.objects.filter(pk=pk).update(status=Analysis.Status.FAILED,
                                              error=repr(failure)[:500], judgments=saved,
                                              finished_at=timezone.now())
        return Analysis.Status.FAILED
    Analysis.objects.filter(pk=pk).update(
        status=Analysis.Status.DONE, result=result.as_dict(), judgments=[],
        made=len(result.judgments), total=len(result.judgments), heartbeat=timezone.now(),
        finished_at=timezone.now())
    # What this job judged itself: a job delivered again after its worker died judges
    # only those not saved (tests/services/test_analysis_worker.py reads this line).
    log.info("analysis %s done: %d judgments made by this job, %d saved before", pk,
             len(saved) - before, before)
    return Analysis.Status.DONE
