"""``var/`` is its owner's alone after run.py's setup (run.keep_private): the SQLite
database (every running game's seed and salt), its journal, the Celery messages and
folders, the worker's log, and what a looser umask left there before. run.py's own
steps, in a subprocess (a umask is per process: this one's stays as it was)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import run

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")

SETUP = """
import sys
import run
var = run.Path(sys.argv[1])
run.keep_private(var)
run.run(str(run.PYTHON), "manage.py", "migrate", "--noinput")
run.run(str(run.PYTHON), "manage.py", "shell", "-c",
        "from config.celery import app; app.send_task('tests.private.message')")
worker = run.start_worker(var / "celery" / "worker.log")
run._stop(worker, "worker")
"""


def loose(folder: Path) -> list[str]:
    """What in ``folder`` (itself included) the group or others may read, write or enter."""
    return [f"{path} {stat.filemode(path.lstat().st_mode)}"
            for path in [folder, *folder.rglob("*")]
            if not path.is_symlink() and path.lstat().st_mode & 0o077]


def test_var_is_its_owners_alone_after_run_py_s_setup(tmp_path: Path) -> None:
    var = tmp_path / "var"
    # What an older checkout, under the usual umask of 022, left behind.
    (var / "celery").mkdir(parents=True)
    var.chmod(0o755)
    (var / "celery").chmod(0o755)
    (var / "celery" / "worker.log").write_text("an old line\n")
    (var / "celery" / "worker.log").chmod(0o644)
    (var / "old-bohnanza.sqlite3").write_bytes(b"seeds and salts")
    (var / "old-bohnanza.sqlite3").chmod(0o644)
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{var / 'bohnanza.sqlite3'}",
           "CELERY_QUEUE_DIR": str(var / "celery" / "queue")}
    env.pop("CELERY_BROKER_URL", None)  # the embedded default: messages as files
    subprocess.run([sys.executable, "-c", SETUP, str(var)], cwd=run.ROOT, env=env,
                   check=True, capture_output=True, umask=0o022)
    database = var / "bohnanza.sqlite3"
    messages = list((var / "celery" / "queue").glob("*.msg"))
    assert database.stat().st_size > 0
    assert messages, "no Celery message was written"
    assert "an old line" in (var / "celery" / "worker.log").read_text()
    assert loose(var) == []


def test_keep_private_leaves_what_is_not_the_owners_own(tmp_path: Path) -> None:
    """A symbolic link (its target is elsewhere) keeps its target's mode."""
    outside = tmp_path / "shared.txt"
    outside.write_text("not a secret")
    outside.chmod(0o644)
    var = tmp_path / "var"
    var.mkdir()
    (var / "link").symlink_to(outside)
    keep = "import sys, run; run.keep_private(run.Path(sys.argv[1]))"
    subprocess.run([sys.executable, "-c", keep, str(var)], cwd=run.ROOT, check=True)
    assert stat.S_IMODE(outside.stat().st_mode) == 0o644
    assert stat.S_IMODE(var.stat().st_mode) == 0o700
