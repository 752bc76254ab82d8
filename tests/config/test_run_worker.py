"""``run.py start``'s background Celery worker stops with the server: the server killed
(SIGKILL), run.py itself killed (SIGKILL: the kernel's parent-death signal and the
worker's watchdog on its parent), or run.py stopped (SIGTERM, as Ctrl-C); and while the
server runs, a worker killed (SIGKILL) is said so and started again, a bounded number of
times. The real worker command of run.py, in subprocesses; the deadlines are bounded
polls."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import run

# run.py stops its children with SIGTERM/SIGKILL and the parent-death signal, which only
# POSIX has; CI and this machine are Linux, so these tests always run there.
pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX signals")

DRIVER = """
import sys
import run
worker = run.start_worker(run.Path(sys.argv[1]))
sys.exit(run.serve([sys.executable, "-c", "import time; time.sleep(600)"], worker))
"""
READY_SECONDS = 180
GONE_SECONDS = 15


def gone(pid: int) -> bool:
    """No such process, or a zombie (dead, waiting for a parent that does not reap)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return True


def wait_until(check: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


Started = tuple[subprocess.Popen[str], int, int]


@pytest.fixture
def started(tmp_path: Path) -> Iterator[Started]:
    """run.py's worker and a stand-in server under run.serve, the worker ready."""
    log = tmp_path / "worker.log"
    env = {**os.environ, "CELERY_BROKER_URL": "memory://",
           "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}"}
    driver = subprocess.Popen([sys.executable, "-c", DRIVER, str(log)], cwd=run.ROOT,
                              env=env, stdout=subprocess.PIPE, text=True)
    pids: dict[str, int] = {}
    assert driver.stdout is not None
    while len(pids) < 2:
        line = driver.stdout.readline()
        assert line, "run.py said nothing of its worker and server"
        for name in ("worker", "server"):
            if line.startswith(f"==> {name} pid "):
                pids[name] = int(line.split()[-1])
    wait_until(lambda: log.exists() and " ready." in log.read_text(errors="replace"),
               READY_SECONDS, "the worker never got ready")
    yield driver, pids["worker"], pids["server"]
    for pid in (pids["server"], pids["worker"], driver.pid):
        if not gone(pid):
            os.kill(pid, signal.SIGKILL)
    driver.wait(timeout=30)


def test_the_worker_stops_when_the_server_is_killed(started: Started) -> None:
    driver, worker, server = started
    os.kill(server, signal.SIGKILL)
    wait_until(lambda: gone(worker), GONE_SECONDS, "the worker outlived the server")
    assert driver.wait(timeout=GONE_SECONDS) != 0


def test_the_worker_and_server_stop_when_run_py_is_killed(started: Started) -> None:
    driver, worker, server = started
    driver.kill()
    driver.wait(timeout=GONE_SECONDS)
    wait_until(lambda: gone(worker), GONE_SECONDS, "the worker outlived run.py")
    wait_until(lambda: gone(server), GONE_SECONDS, "the server outlived run.py")


def test_sigterm_to_run_py_stops_both(started: Started) -> None:
    driver, worker, server = started
    driver.send_signal(signal.SIGTERM)
    assert driver.wait(timeout=run.STOP_SECONDS + GONE_SECONDS) == 130
    assert gone(worker) and gone(server)


WATCHED = """
import os, subprocess, sys, time
import run
env = {**run.venv_env(), run.WORKER_PARENT: str(os.getpid())}
with open(sys.argv[1], "ab") as log:
    worker = subprocess.Popen([str(run.PYTHON), "-m", "celery", "-A", "config", "worker",
                               "--loglevel", "INFO", "--concurrency", "1"], cwd=run.ROOT,
                              env=env, stdout=log, stderr=subprocess.STDOUT)
print(worker.pid, flush=True)
time.sleep(600)
"""


def test_the_watchdog_alone_stops_a_worker_whose_parent_died(tmp_path: Path) -> None:
    """Without the parent-death signal (as off Linux): the worker's own watchdog."""
    log = tmp_path / "worker.log"
    env = {**os.environ, "CELERY_BROKER_URL": "memory://",
           "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}"}
    parent = subprocess.Popen([sys.executable, "-c", WATCHED, str(log)], cwd=run.ROOT,
                              env=env, stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    worker = int(parent.stdout.readline())
    try:
        wait_until(lambda: log.exists() and " ready." in log.read_text(errors="replace"),
                   READY_SECONDS, "the worker never got ready")
        parent.kill()
        parent.wait(timeout=GONE_SECONDS)
        wait_until(lambda: gone(worker), GONE_SECONDS, "the worker outlived its parent")
    finally:
        for pid in (worker, parent.pid):
            if not gone(pid):
                os.kill(pid, signal.SIGKILL)


SUPERVISED = """
import sys
import run
run.WORKER_RESTARTS = int(sys.argv[2])
if sys.argv[3] == "real":
    start = lambda: run.start_worker(run.Path(sys.argv[1]))
else:  # a worker that dies as it starts, every time
    start = lambda: run._child([sys.executable, "-c", "import sys; sys.exit(3)"])
worker = start()
print("==> worker pid", worker.pid, flush=True)
sys.exit(run.serve([sys.executable, "-c", "import time; time.sleep(600)"], worker,
                   restart=start))
"""


def said(driver: subprocess.Popen[str], start: str) -> str:
    """The next line of run.py's output that starts with ``start``."""
    assert driver.stdout is not None
    while True:
        line = driver.stdout.readline()
        assert line, f"run.py ended without saying {start!r}"
        if line.startswith(start):
            return line


@pytest.fixture
def supervised(tmp_path: Path) -> Iterator[Callable[[int, str], subprocess.Popen[str]]]:
    """run.py's serve with a worker it restarts (``real``: run.py's own Celery worker;
    else one that exits at once) and a stand-in server; everything killed afterwards."""
    drivers: list[subprocess.Popen[str]] = []
    env = {**os.environ, "CELERY_BROKER_URL": "memory://",
           "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}"}

    def begin(restarts: int, kind: str) -> subprocess.Popen[str]:
        driver = subprocess.Popen(
            [sys.executable, "-c", SUPERVISED, str(tmp_path / "worker.log"), str(restarts),
             kind], cwd=run.ROOT, env=env, stdout=subprocess.PIPE, text=True)
        drivers.append(driver)
        return driver

    yield begin
    for driver in drivers:
        driver.send_signal(signal.SIGTERM)
        try:
            driver.wait(timeout=run.STOP_SECONDS + GONE_SECONDS)
        except subprocess.TimeoutExpired:
            driver.kill()
            driver.wait()


def test_a_worker_killed_while_the_server_runs_is_started_again(
        supervised: Callable[[int, str], subprocess.Popen[str]], tmp_path: Path) -> None:
    driver = supervised(5, "real")
    log = tmp_path / "worker.log"
    first = int(said(driver, "==> worker pid ").split()[-1])
    wait_until(lambda: log.exists() and log.read_text(errors="replace").count(" ready.") == 1,
               READY_SECONDS, "the worker never got ready")
    os.kill(first, signal.SIGKILL)
    line = said(driver, "==> the worker ")
    assert f"(pid {first}) stopped (killed by signal 9): starting it again" in line
    second = int(said(driver, "==> worker pid ").split()[-1])
    assert second != first and not gone(second)
    wait_until(lambda: log.read_text(errors="replace").count(" ready.") == 2,
               READY_SECONDS, "the restarted worker never got ready")
    assert driver.poll() is None, "run.py stopped serving"
    driver.send_signal(signal.SIGTERM)
    assert driver.wait(timeout=run.STOP_SECONDS + GONE_SECONDS) == 130
    assert gone(second), "the restarted worker outlived run.py's shutdown"


def test_a_worker_that_keeps_dying_is_left_stopped_loudly_and_the_server_serves_on(
        supervised: Callable[[int, str], subprocess.Popen[str]]) -> None:
    driver = supervised(2, "dying")
    restarts = [said(driver, "==> the worker ") for _ in range(2)]
    assert all("(exit code 3): starting it again" in line for line in restarts)
    assert "of 2 in 60 s" in restarts[-1]
    down = said(driver, "==> WORKER DOWN: ")
    assert "3 times in 60 s; not starting it again" in down
    assert driver.poll() is None, "run.py stopped serving when the worker gave up"
