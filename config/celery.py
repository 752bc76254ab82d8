"""The Celery application "bohnanza".

Its configuration comes from Django's settings, from the names prefixed ``CELERY_``
(see ``config/settings.py``): with ``CELERY_BROKER_URL`` set, tasks go to that broker
(Redis or RabbitMQ) for workers to run; without it, tasks run eagerly in the calling
process, so the embedded default needs no broker server.
"""

import os
import signal
import threading
import time

from celery import Celery
from celery.signals import worker_init

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


@worker_init.connect
def watch_parent(**_: object) -> None:
    parent = os.environ.get(WORKER_PARENT, "")
    if parent.isdigit():
        threading.Thread(target=_watch_parent, args=(int(parent),), daemon=True,
                         name="parent-watchdog").start()
