"""The analysis job, run by the Celery workers.

``acks_late`` with ``reject_on_worker_lost``, as the competitions' tasks: a job whose
worker dies is delivered again (with its task id) and goes on from the judgments its
row holds (saved every few judgments, :mod:`analyses.jobs`). A second job for the same
analysis (sent again when the first looked lost) waits while the first still holds the
lease (it saved within ``LEASE``) and takes over once it is gone. A job for an
analysis already done does nothing.
"""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.db import DatabaseError

from analyses import jobs
from analyses.models import LEASE

TASK = "analyses.analyse_game"


@shared_task(name=TASK, bind=True, acks_late=True, reject_on_worker_lost=True,
             autoretry_for=(DatabaseError,), retry_backoff=1, retry_backoff_max=30,
             max_retries=20)
def analyse_game(self: Any, pk: int) -> str:
    """Run (or go on with) analysis ``pk``; the status it ends in."""
    try:
        return jobs.run(int(pk), job=str(self.request.id or "") or None)
    except jobs.Held:
        raise self.retry(countdown=LEASE.total_seconds(), max_retries=None) from None


def send(pk: int) -> None:
    """Send analysis ``pk``'s job to the workers."""
    analyse_game.delay(pk)
