"""Crash recovery without a person, end to end on the embedded default: a worker with its
embedded beat (``celery -A config worker --beat``, as ``python3 run.py start`` runs it)
over kombu's filesystem transport, killed with SIGKILL mid-round together with its pool
and its beat (the messages it had taken are lost with it: the file transport keeps no
copy; one still waiting is deleted too, so that one is lost whatever the timing). A new
worker is started, as a supervisor restarts one, and no command is typed: its beat finds
the round stalled, sends the missing deals again, and the competition ends with every
game of its pairings stored exactly once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from django.conf import settings
from django.db import connection

from bohnanza_core.rulesets import ruleset_for
from config.celery import app
from tests.replays.test_read_models import shared_database_url
from tests.tournaments.conftest import celery_conf
from tournaments import tasks
from tournaments.core.store import Competitions, create
from tournaments.models import CompetitionGame

BOTS = ["heuristic@builtin", "nontrading@builtin", "random@builtin",
        "heuristic@builtin #2", "nontrading@builtin #2", "random@builtin #2"]


@pytest.fixture
def platform(competitions: Competitions, tmp_path: Path) -> Iterator[dict[str, Any]]:
    """The environment of an embedded platform on the test database: a queue folder of
    its own, a stall noticed after 3 s, the beat's look every second."""
    queue = tmp_path / "queue"
    queue.mkdir()
    env = {**os.environ, "DATABASE_URL": shared_database_url(), "CELERY_QUEUE_DIR": str(queue),
           "PYTHONUNBUFFERED": "1", "BOHNANZA_TOURNAMENT_STALL_SECONDS": "3",
           "BOHNANZA_TOURNAMENT_WATCH_SECONDS": "1", "BOHNANZA_TOURNAMENT_BATCH": "1"}
    env.pop("CELERY_BROKER_URL", None)
    options = {**app.conf.broker_transport_options, "data_folder_in": str(queue),
               "data_folder_out": str(queue)}
    with celery_conf(broker_url="filesystem://", broker_transport_options=options):
        yield {"env": env, "logs": tmp_path, "queue": queue}


def start_worker(platform: dict[str, Any], n: int) -> subprocess.Popen[str]:
    """A worker with its pool of two and its embedded beat, in a session of its own (so
    that the whole of it can be killed at once)."""
    log = open(platform["logs"] / f"worker-{n}.log", "w")  # noqa: SIM115 (the process's)
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--beat",
         "--concurrency", "2", "--loglevel", "INFO", "--without-heartbeat",
         "--without-mingle", "--without-gossip", "-n", f"w{n}@%h"],
        cwd=settings.BASE_DIR, env=platform["env"], stdout=log, stderr=subprocess.STDOUT,
        text=True, start_new_session=True)


def stop(worker: subprocess.Popen[str]) -> None:
    if worker.poll() is None:
        os.killpg(worker.pid, signal.SIGTERM)
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait()


def logs(platform: dict[str, Any]) -> str:
    return "\n".join(p.read_text()[-4000:] for p in sorted(platform["logs"].glob("*.log")))


def test_a_round_stalled_by_a_killed_worker_is_resent_by_the_beat(
        platform: dict[str, Any], competitions: Competitions) -> None:
    t = create("Crash Cup", "round-robin", {"cycles": 1}, ruleset_for("classic", 3), 3, BOTS)
    total = t.games_total()
    assert total is not None and total > 20
    first = start_worker(platform, 1)
    workers = [first]
    try:
        tasks.start(t)  # the round's deals to the queue, and the beat's watch scheduled
        deadline = time.monotonic() + 120
        while CompetitionGame.objects.filter(competition_id=t.id).count() < 4:
            assert time.monotonic() < deadline, logs(platform)
            time.sleep(0.05)
        os.killpg(first.pid, signal.SIGKILL)  # the worker, its pool and its beat
        first.wait(timeout=30)
        assert first.returncode == -signal.SIGKILL
        assert not competitions.get(t.id).finished
        # What the killed worker had taken is lost with it; one message still waiting
        # is lost too (a crashed disk, a purged queue), so that a deal is missing
        # however far the worker had read the queue when it was killed.
        deals = [m for m in sorted(platform["queue"].glob("*.msg"))
                 if b"tournaments.play_deals" in m.read_bytes()]
        if deals:
            deals[0].unlink()
        workers.append(start_worker(platform, 2))  # restarted; no command typed
        deadline = time.monotonic() + 300
        while not competitions.get(t.id).finished:
            assert time.monotonic() < deadline, (
                f"{CompetitionGame.objects.filter(competition_id=t.id).count()} of {total} "
                f"games stored\n" + logs(platform))
            time.sleep(0.2)
    finally:
        for worker in workers:
            stop(worker)
    done = competitions.get(t.id)
    assert done.games_done() == total
    names = [type(e).__name__ for e in competitions.repository.event_store.get(t.id)]
    assert "Stalled" in names, "the beat did not notice the stall: " + logs(platform)
    # every pairing's game in the store once: none lost, none recorded twice
    assert CompetitionGame.objects.filter(competition_id=t.id).count() == total
    ids = {done.game_id(r, i) for r, paired in enumerate(done.rounds)
           for i in range(len(paired.games))}
    with connection.cursor() as cursor:  # the store may hold other tests' games too
        cursor.execute("SELECT originator_id FROM games_events WHERE originator_version = 1")
        started = [UUID(str(row[0])) for row in cursor.fetchall()]
    ours = [game_id for game_id in started if game_id in ids]
    assert len(ours) == len(set(ours)) == total
    assert set(CompetitionGame.objects.filter(competition_id=t.id)
               .values_list("game_id", flat=True)) == ids
