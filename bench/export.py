"""A competition's games downloaded at once (``tournaments/core/export.py``): the zip
streamed game by game, its time and its peak memory, against baselines measured in
the same run.

    .venv/bin/python bench/export.py [--games 560] [--postgres]

A round robin of heuristic bots at tables of four under ``classic`` (8 entrants, 280
games a cycle, as many cycles as --games asks) is played in this process into a fresh
database (SQLite in a temporary folder, or a PostgreSQL database of its own with
``--postgres``). Then, each in a fresh child process so that its peak memory (the
kernel's high-water mark, ``ru_maxrss``) is its own:

- **load**: the child loads the competition and does nothing else (the memory floor);
- **records**: it reads and exports every game, keeping nothing (the baseline: the
  work the zip cannot avoid);
- **zip**: it streams the competition's zip (``games_zip``) into a counting sink;
- **held**: it reads every game's export and keeps them all (what streaming avoids),
  for the memory it would take.

Printed: seconds and games a second of each, the zip's time over the records' (the
cost of compressing and zipping), its size, and each child's peak RSS above the load
child's; the zip's time for 10,000 games extrapolated at its rate.

Measured 2026-12-05, pure Python build (BOHNANZA_BUILD_PURE), SQLite, 280 games, load
average 9.3 (seven other helpers on the 2 cores): records 19.9 s (14 games/s), zip
22.9 s (1.15x: compressing and zipping), 11.3 MB of zip from 42 MB of JSON Lines; peak
RSS +2.4 MB (records) and +2.6 MB (zip) over loading the competition, against +42 MB to
hold the 280 exports: the zip's memory does not grow with the competition. At that
rate 10,000 games take about 820 s: reading a record back (decoding each of its ~600
events: about 70 ms a game here) and writing it (about 40 ms) are the cost, not the zip.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = ROOT / ".venv" / "bin" / "python"
PG_DATABASE = "bench_export"

CHILD = r"""
import resource, sys, time, uuid
import django
django.setup()
from tournaments.core.store import competitions
from tournaments.core.export import games_zip
from tournaments.models import CompetitionGame
from replays.store import games
from bohnanza_core.export import export_record
from bohnanza_core.views import EVERYTHING
mode, cid = sys.argv[1], uuid.UUID(sys.argv[2])
c = competitions().get(cid)
start = time.perf_counter()
size = 0
kept = []
if mode == "records" or mode == "held":
    for gid in CompetitionGame.objects.filter(competition_id=cid).values_list(
            "game_id", flat=True).iterator(200):
        text = export_record(games().record(gid), EVERYTHING)
        size += len(text)
        if mode == "held":
            kept.append(text)
elif mode == "zip":
    for chunk in games_zip(c):
        size += len(chunk)
seconds = time.perf_counter() - start
print(seconds, size, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def child(env: dict[str, str], mode: str, cid: str) -> tuple[float, int, int]:
    out = subprocess.run([str(PYTHON), "-c", CHILD, mode, cid], cwd=ROOT, env=env,
                         capture_output=True, text=True, check=True).stdout.split()
    return float(out[0]), int(out[1]), int(out[2])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=560)
    parser.add_argument("--postgres", action="store_true")
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="bench-export-")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "DJANGO_DEBUG": "0",
           "DJANGO_SECRET_KEY": "bench-export-not-a-secret",
           "READ_MODELS_CATCH_UP": "0", "CELERY_QUEUE_DIR": f"{folder}/queue"}
    if args.postgres:
        subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-d", "test", "-q", "-c",
                        f"DROP DATABASE IF EXISTS {PG_DATABASE}", "-c",
                        f"CREATE DATABASE {PG_DATABASE}"], check=True)
        env["DATABASE_URL"] = f"postgres://postgres@127.0.0.1:5432/{PG_DATABASE}"
    else:
        env["DATABASE_URL"] = f"sqlite:///{folder}/bench.sqlite3"
    subprocess.run([str(PYTHON), "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True)
    cycles = max(1, round(args.games / 280))
    started = time.perf_counter()
    made = subprocess.run(
        [str(PYTHON), "-c", "import django, sys; django.setup(); "
         "from bohnanza_core.rulesets import ruleset_for; "
         "from tournaments.core.store import create; "
         "from tournaments.core.rounds import run_here; "
         "bots = ['heuristic@builtin'] + [f'heuristic@builtin #{i}' for i in range(2, 9)]; "
         f"c = create('Export bench', 'round-robin', {{'cycles': {cycles}}}, "
         "ruleset_for('classic', 4), 4, bots); run_here(c.id); print(c.id)"],
        cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    cid = made.stdout.split()[-1]
    games = cycles * 280
    print(f"{games} games played and stored in {time.perf_counter() - started:.0f} s "
          f"({'PostgreSQL' if args.postgres else 'SQLite'}); load average "
          f"{os.getloadavg()[0]:.1f}")
    runs = {mode: child(env, mode, cid) for mode in ("load", "records", "zip", "held")}
    floor = runs["load"][2]
    for mode, (seconds, size, rss) in runs.items():
        rate = f"{games / seconds:8.0f} games/s" if seconds > 0.001 else " " * 15
        print(f"{mode:<8} {seconds:7.2f} s {rate} {size / 1e6:9.1f} MB written  peak RSS "
              f"{rss / 1024:7.1f} MB (+{(rss - floor) / 1024:.1f} MB over loading)")
    zip_s, rec_s = runs["zip"][0], runs["records"][0]
    print(f"zip / records: {zip_s / rec_s:.2f}x the time; 10,000 games at the zip's rate: "
          f"{zip_s / games * 10_000:.0f} s; held in memory instead: "
          f"+{(runs['held'][2] - floor) / 1024:.0f} MB for {games} games")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
