"""The embedded worker stops whole, and one beat runs however workers are started
(config/beat.py). Real workers as ``run.py start`` starts them (``run.start_worker``),
in subprocesses on a database of their own; every wait is a bounded poll."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import run
from tests.config.test_run_worker import GONE_SECONDS, READY_SECONDS, gone, wait_until

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="reads processes from /proc")

WORKERS = """
import sys, time
import run
for log in sys.argv[1:]:
    worker = run.start_worker(run.Path(log))
time.sleep(600)
"""
SCHEDULE = """
from django_celery_beat.models import IntervalSchedule, PeriodicTask
every = IntervalSchedule.objects.create(every=1, period=IntervalSchedule.SECONDS)
PeriodicTask.objects.create(name="every second", task="tests.beat.tick", interval=every)
"""
SENT = "Sending due task every second"
TAKEOVER_SECONDS = 60


def children(pid: int) -> set[int]:
    """The live processes whose parent is ``pid``."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.add(int(stat.parent.name))
    return found


def ready(log: Path) -> bool:
    return log.exists() and " ready." in log.read_text(errors="replace")


def sent(log: Path) -> int:
    return log.read_text(errors="replace").count(SENT) if log.exists() else 0


class Workers:
    """``run.start_worker`` called once for each log by one driver process (as
    ``run.py start`` does), on a SQLite database in ``folder``."""

    def __init__(self, folder: Path, logs: list[Path], env: dict[str, str]) -> None:
        self.logs = logs
        self.driver = subprocess.Popen([sys.executable, "-c", WORKERS, *map(str, logs)],
                                       cwd=run.ROOT, env=env, stdout=subprocess.PIPE,
                                       text=True)
        assert self.driver.stdout is not None
        self.pids: list[int] = []
        while len(self.pids) < len(logs):
            line = self.driver.stdout.readline()
            assert line, "run.py said nothing of its workers"
            if line.startswith("==> worker pid "):
                self.pids.append(int(line.split()[-1]))
        for log in logs:
            wait_until(lambda log=log: ready(log), READY_SECONDS, f"{log.name} never got ready")

    def stop(self) -> None:
        for pid in [self.driver.pid, *self.pids]:
            for child in children(pid):
                os.kill(child, signal.SIGKILL)
            if not gone(pid):
                os.kill(pid, signal.SIGKILL)
        self.driver.wait(timeout=30)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """A database of the test's own (with django-celery-beat's tables) and the memory
    broker: every beat writes what it sends to its worker's log."""
    environment = {**os.environ, "CELERY_BROKER_URL": "memory://",
                   "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}"}
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "django_celery_beat"],
                   cwd=run.ROOT, env=environment, check=True, capture_output=True)
    return environment


@pytest.fixture
def workers(tmp_path: Path, env: dict[str, str]) -> Iterator[list[Workers]]:
    started: list[Workers] = []
    yield started
    for group in started:
        group.stop()


def test_a_killed_worker_leaves_no_beat_and_no_pool_child(
        tmp_path: Path, env: dict[str, str], workers: list[Workers]) -> None:
    """SIGKILL to the worker's main process (as the OOM killer or ``kill -9`` do): its
    beat and its two pool processes go with it."""
    group = Workers(tmp_path, [tmp_path / "worker.log"], env)
    workers.append(group)
    worker = group.pids[0]
    # Two pool processes and the beat.
    wait_until(lambda: len(children(worker)) == 3, READY_SECONDS,
               "the worker never had its pool and its beat")
    left = children(worker)
    os.kill(worker, signal.SIGKILL)
    try:
        wait_until(lambda: all(gone(pid) for pid in left), GONE_SECONDS, "left behind")
    except AssertionError:
        raise AssertionError("left behind: " + ", ".join(
            Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")[:200] + f" ({pid})"
            for pid in left if not gone(pid))) from None


def test_two_workers_run_one_beat_and_the_second_takes_over(
        tmp_path: Path, env: dict[str, str], workers: list[Workers]) -> None:
    """Two workers started as ``run.py start`` starts its one, on one database with a
    task due every second: one beat sends it, the other's waits; the sending worker
    killed, the waiting beat takes over."""
    subprocess.run([sys.executable, "manage.py", "shell", "-c", SCHEDULE], cwd=run.ROOT,
                   env=env, check=True, capture_output=True)
    logs = [tmp_path / "first.log", tmp_path / "second.log"]
    group = Workers(tmp_path, logs, env)
    workers.append(group)
    # Both are ready, so both beats have started: a second scheduler would send too.
    wait_until(lambda: sum(sent(log) for log in logs) >= 4, READY_SECONDS,
               "no beat sent the task")
    sending = [log for log in logs if sent(log)]
    assert len(sending) == 1, f"{len(sending)} beats sent the task"
    waiting = logs[1 - logs.index(sending[0])]
    assert "another beat holds" in waiting.read_text()
    os.kill(group.pids[logs.index(sending[0])], signal.SIGKILL)
    wait_until(lambda: sent(waiting) > 0, TAKEOVER_SECONDS,
               "the waiting beat never took over")
