"""Competitions run by real Celery worker processes over Redis and over RabbitMQ, on
PostgreSQL, and one worker killed with SIGKILL in the middle: the competition still
completes, and every game of its pairings is in the store exactly once.

Each test has a database of its own (migrated by ``manage.py migrate``) and a queue of
its own on the broker; the workers are ``celery -A config worker`` processes as
production runs them, the competition is created by ``manage.py tournament create``.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time

from tests.services.conftest import ROOT, logs, query, start_worker

BOTS = "heuristic,nontrading,random,heuristic,nontrading,random"
GAMES = 60  # round robin of 6 at tables of 3: C(6, 3) x 3


def stored(env: dict[str, str]) -> int:
    return int(query(env, "SELECT count(*) FROM tournaments_competitiongame"))


def finished(env: dict[str, str]) -> bool:
    return bool(query(env, "SELECT count(*) FROM tournaments_events "
                           "WHERE topic LIKE '%Competition.Finished'"))


def test_workers_complete_a_competition_though_one_is_killed_mid_way(celery_platform):
    platform = celery_platform
    workers = [start_worker(platform, 1), start_worker(platform, 2)]
    try:
        created = subprocess.run(
            [sys.executable, "manage.py", "tournament", "create", "--name", "Kill Cup",
             "--format", "round-robin", "--ruleset", "classic", "--table", "3",
             "--bots", BOTS, "--no-wait"],
            cwd=ROOT, env=platform, capture_output=True, text=True, timeout=120)
        assert created.returncode == 0, created.stderr
        match = re.search(r"created (\S+): (\d+) games", created.stdout)
        assert match and int(match[2]) == GAMES, created.stdout
        deadline = time.monotonic() + 120
        while stored(platform) < 8:
            assert time.monotonic() < deadline, logs(platform)
            time.sleep(0.05)
        workers[0].send_signal(signal.SIGKILL)  # mid-way, most likely mid-game
        workers[0].wait(timeout=30)
        assert workers[0].returncode == -signal.SIGKILL
        workers.append(start_worker(platform, 3))
        deadline = time.monotonic() + 240
        while not finished(platform):
            assert time.monotonic() < deadline, (
                f"{stored(platform)} of {GAMES} games stored\n" + logs(platform))
            time.sleep(0.2)
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.send_signal(signal.SIGTERM)
        for worker in workers:
            try:
                worker.wait(timeout=30)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait()
    # every pairing's game in the store once: no game lost, none recorded twice
    assert stored(platform) == GAMES
    assert query(platform, "SELECT count(DISTINCT originator_id) FROM games_events") == GAMES
    assert query(platform, "SELECT count(*) FROM games_events e WHERE originator_version = 1 "
                           "AND NOT EXISTS (SELECT 1 FROM tournaments_competitiongame t "
                           "WHERE t.game_id = e.originator_id)") == 0
    shown = subprocess.run([sys.executable, "manage.py", "tournament", "show", match[1]],
                           cwd=ROOT, env=platform, capture_output=True, text=True, timeout=60)
    assert f"{GAMES}/{GAMES} games, finished" in shown.stdout
