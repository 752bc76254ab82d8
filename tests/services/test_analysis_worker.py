"""A game's analysis run by a real Celery worker process, over Redis and over RabbitMQ,
on PostgreSQL, its worker killed with SIGKILL mid-way: the job is delivered again to a
new worker, goes on from the judgments saved before the kill without judging them
again, and stores the same analysis as ``bohnanza_core.analysis.analyse`` makes.

The platform is the competitions' workers test's (``celery_platform``: a database and
a queue of its own); the game and the request are made by ``tests/services/analysis_job``
as the site makes them. What each job judged itself is read from its "done" log line
(``analyses.jobs.run``).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.services.conftest import ROOT, logs, query, start_worker

PLAYOUTS = 50
"""A budget that makes the short game's analysis (some 200 judgments) last a few seconds."""
POLL = 0.05


def job(env: dict[str, str], *args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "tests.services.analysis_job", *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


def progress(env: dict[str, str], pk: int) -> tuple[str, int, int, int]:
    """The analysis's status, made and total as its row tells them, and the judgments
    the row holds."""
    found: Any = query(env, "SELECT json_build_array(status, made, total, "
                            f"jsonb_array_length(judgments)) FROM analyses_analysis "
                            f"WHERE id = {pk}")
    status, made, total, saved = found
    return status, made, total, saved


def stop(workers: list[subprocess.Popen[str]]) -> None:
    for worker in workers:
        if worker.poll() is None:
            worker.send_signal(signal.SIGTERM)
    for worker in workers:
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait()


def test_an_analysis_survives_its_worker_killed_and_goes_on_from_its_saved_judgments(
        celery_platform: dict[str, str]) -> None:
    env = celery_platform | {"BOHNANZA_ANALYSIS_PLAYOUTS": str(PLAYOUTS),
                             "DJANGO_LOG_LEVEL": "INFO"}
    pk = int(job(env, "ask", "killed"))
    assert progress(env, pk)[0] == "queued"
    workers = [start_worker(env, 1)]
    try:
        deadline = time.monotonic() + 120
        while True:  # some judgments saved, most still to make
            status, made, total, saved = progress(env, pk)
            assert status in ("queued", "running"), f"{status} before the kill\n" + logs(env)
            if total and saved >= total // 5:
                break
            assert time.monotonic() < deadline, logs(env)
            time.sleep(POLL)
        os.killpg(workers[0].pid, signal.SIGKILL)  # the worker and anything it started
        workers[0].wait(timeout=30)
        assert workers[0].returncode == -signal.SIGKILL
        status, made, total, saved = progress(env, pk)
        assert status == "running" and 0 < saved == made < total, (status, made, total, saved)
        workers.append(start_worker(env, 2))
        deadline = time.monotonic() + 240
        while progress(env, pk)[0] != "done":
            assert time.monotonic() < deadline, f"{progress(env, pk)}\n" + logs(env)
            time.sleep(POLL * 4)
    finally:
        stop(workers)
    first, second = (Path(env["LOGS"], f"worker-{n}.log").read_text() for n in (1, 2))
    # the same job (its task id kept) delivered again to the new worker
    received = r"analyses\.analyse_game\[([0-9a-f-]+)\] received"
    assert re.findall(received, first) and set(re.findall(received, second)) == set(
        re.findall(received, first)), first + second
    assert f"analysis {pk}: 0 of {total} decisions judged before" in first
    assert f"analysis {pk} done" not in first
    # ... which judged only those not saved before the kill
    assert f"analysis {pk}: {saved} of {total} decisions judged before" in second, second
    assert (f"analysis {pk} done: {total - saved} judgments made by this job, {saved} saved "
            "before") in second, second
    # and the stored analysis is the one the analysis core makes
    stored = query(env, f"SELECT result FROM analyses_analysis WHERE id = {pk}")
    assert stored == json.loads(job(env, "expected", str(pk)))
    assert len(stored["judgments"]) == total
    assert query(env, f"SELECT playouts FROM analyses_analysis WHERE id = {pk}") == PLAYOUTS
