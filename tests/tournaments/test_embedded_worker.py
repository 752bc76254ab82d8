"""The embedded default: a real worker process (``celery -A config worker``, as
``python3 run.py start`` starts it) reading kombu's filesystem transport, no broker
server, plays a competition sent from this process to the end."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings

from bohnanza_core.rulesets import ruleset_for
from config.celery import app
from tests.replays.test_read_models import shared_database_url
from tests.tournaments.conftest import celery_conf
from tournaments import tasks
from tournaments.core.store import Competitions, create


@pytest.fixture
def embedded_worker(competitions: Competitions, tmp_path: Path) -> Iterator[Competitions]:
    queue = tmp_path / "queue"
    queue.mkdir()
    env = {**os.environ, "DATABASE_URL": shared_database_url(), "CELERY_QUEUE_DIR": str(queue),
           "PYTHONUNBUFFERED": "1"}
    env.pop("CELERY_BROKER_URL", None)
    options = {**app.conf.broker_transport_options, "data_folder_in": str(queue),
               "data_folder_out": str(queue)}
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo",
         "--loglevel", "WARNING", "--without-heartbeat", "--without-mingle",
         "--without-gossip"],
        cwd=settings.BASE_DIR, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True)
    try:
        with celery_conf(broker_url="filesystem://", broker_transport_options=options):
            yield competitions
    finally:
        worker.send_signal(signal.SIGTERM)
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()


def test_the_embedded_worker_runs_a_competition_over_files(embedded_worker, tmp_path):
    t = create("Files", "swiss", {"rounds": 2}, ruleset_for("classic", 3), 3,
               ["heuristic@builtin", "random@builtin", "nontrading@builtin",
                "heuristic@builtin #2", "random@builtin #2", "nontrading@builtin #2"])
    tasks.start(t)
    assert list((tmp_path / "queue").iterdir()), "the round's tasks are files in the queue"
    deadline = time.monotonic() + 120
    while not embedded_worker.get(t.id).finished:
        assert time.monotonic() < deadline, "the worker did not finish the competition"
        time.sleep(0.1)
    done = embedded_worker.get(t.id)
    assert done.games_done() == done.games_total() == 4
