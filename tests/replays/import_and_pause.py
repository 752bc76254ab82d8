"""An import that stops half-way for the test to kill it (tests/replays/test_import_killed.py).

    python -m tests.replays.import_and_pause FILE halfway|in-transaction

Imports FILE into the store of ``DATABASE_URL`` as ``import_file`` does, and pauses,
printing ``paused`` and waiting for stdin, either when half of the file's decisions have
been played (``halfway``) or inside the save's transaction once its rows are inserted
and before they commit (``in-transaction``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from bohnanza_core.export import read_jsonl  # noqa: E402
from bohnanza_core.games import Game  # noqa: E402
from replays.persistence import DjangoApplicationRecorder  # noqa: E402
from replays.views.transfer import import_file  # noqa: E402


def pause() -> None:
    print("paused", flush=True)
    sys.stdin.readline()  # the test kills the process before anything arrives


def main(path: str, point: str) -> None:
    game_file = read_jsonl(Path(path).read_text())
    decisions = sum(1 for entry in game_file.entries if entry.actor is not None)
    played = [0]
    real_play, real_insert = Game.play, DjangoApplicationRecorder._insert_events
    rehearsed = [False]

    def play(self: Game, *args: Any, **kwargs: Any) -> Any:
        played[0] += 1
        # The second time through: the first is the rehearsal in memory.
        if point == "halfway" and played[0] == decisions + decisions // 2:
            pause()
        return real_play(self, *args, **kwargs)

    def insert(self: Any, *args: Any, **kwargs: Any) -> Any:
        ids = real_insert(self, *args, **kwargs)
        if point == "in-transaction" and not rehearsed[0]:
            rehearsed[0] = True
            pause()
        return ids

    Game.play = play  # type: ignore[method-assign]
    DjangoApplicationRecorder._insert_events = insert  # type: ignore[method-assign]
    game = import_file(game_file, "user:ann", private=False)
    print(f"imported {game.id}", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:3])
