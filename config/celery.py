"""The Celery application "bohnanza".

Its configuration comes from Django's settings, from the names prefixed ``CELERY_``
(see ``config/settings.py``): with ``CELERY_BROKER_URL`` set, tasks go to that broker
(Redis or RabbitMQ) for workers to run; without it, tasks run eagerly in the calling
process, so the embedded default needs no broker server.

Exactly one beat sends the periodic tasks, however many workers embed one or beats
run: each takes the beat lock before its first tick (``config/beat.py``).
"""

import os
import signal
import threading
import time

from celery import Celery
from celery.signals import beat_init, worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("bohnanza")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


WORKER_PARENT = "BOHNANZA_WORKER_PARENT"
"""Set by ``run.py start``: the pid of the process that started this worker."""
WATCH_SECONDS = 1.0


def _watch_parent(parent: int) -> None:
    """Stop the worker (SIGTERM: Celery's warm shutdown) once its parent is gone: the
    worker of ``run.py start`` must not outlive the server, however the server ended."""
    while os.getppid() == parent:
        time.sleep(WATCH_SECONDS)
    os.kill(os.getpid(), signal.SIGTERM)


_worker: int | None = None
"""The worker process's pid, set as it starts: an embedded beat, forked from it, sees it."""


@worker_init.connect
def watch_parent(**_: object) -> None:
    global _worker
    _worker = os.getpid()
    parent = os.environ.get(WORKER_PARENT, "")
    if parent.isdigit():
        threading.Thread(target=_watch_parent, args=(int(parent),), daemon=True,
                         name="parent-watchdog").start()


@beat_init.connect
def one_beat(**_: object) -> None:
    """Before a beat's first tick: an embedded beat dies with its worker, and every beat
    holds the beat lock (waiting for it while another beat does) before it ticks.

    Celery logs and swallows an ``Exception`` from a signal's handler and goes on, which
    here would mean ticking without the lock: any failure to take it stops the beat.
    """
    from django.conf import settings

    from config.beat import hold_the_beat_lock, lock_for, log, tie_to_worker

    if _worker is not None and _worker != os.getpid():
        tie_to_worker(_worker)
    try:
        hold_the_beat_lock(lock_for("default", settings.CELERY_TASK_DEFAULT_QUEUE))
    except Exception:
        log.exception("beat: could not take the beat lock; this beat stops")
        raise SystemExit(1) from None
