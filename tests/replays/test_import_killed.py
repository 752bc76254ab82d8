"""An import is whole or nothing, also when its process is killed (issue 9, item 2).

A subprocess imports a game file into the test database and is killed (SIGKILL) half-way
through the file's decisions, or inside the save's transaction: nothing of the game is
stored, listed or numbered. Stored command by command, the import once left 278 of 644
events behind, listed as a game running for ever.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from bohnanza_core import ruleset_for
from bohnanza_core.export import export_jsonl
from bohnanza_core.games import Games
from bohnanza_core.simulator import bot_classes, play_game
from replays.models import GameSummary
from replays.store import games, reset_games
from tests.factories import LINEUP
from tests.replays.test_read_models import shared_database_url


@pytest.fixture
def committed_store(transactional_db: None, settings: Any) -> Iterator[Games]:
    reset_games()
    yield games()
    reset_games()


def import_killed(file: Path, point: str) -> None:
    env = {**os.environ, "DATABASE_URL": shared_database_url(), "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.replays.import_and_pause", str(file), point],
        cwd=settings.BASE_DIR, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line == "paused\n", line + (process.stderr.read() if process.stderr else "")
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == -signal.SIGKILL


@pytest.mark.parametrize("point", ["halfway", "in-transaction"])
def test_an_import_killed_half_way_leaves_nothing(committed_store: Games, tmp_path: Path,
                                                  point: str) -> None:
    record = play_game(ruleset_for("classic", 3), bot_classes(list(LINEUP)), f"killed-{point}")
    file = tmp_path / "game.jsonl"
    file.write_text(export_jsonl(record.events))
    events_before = committed_store.recorder.max_notification_id()
    listed_before = GameSummary.objects.count()

    import_killed(file, point)

    reset_games()
    assert games().recorder.max_notification_id() == events_before
    assert GameSummary.objects.count() == listed_before
