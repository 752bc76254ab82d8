"""A worker process that saves bot games whole, as a tournament's Celery worker will:
``python -m tests.services.bot_worker GAMES`` against ``DATABASE_URL``.

Each game is played in memory and saved in one transaction, through
``replays.outages.reconnecting``: when the database goes away the worker waits for it
and plays the game again (nothing of a failed save is stored). Prints each stored game's
id, one a line; plays each game once a line comes on stdin.
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from bohnanza_core import ruleset_for  # noqa: E402
from bohnanza_core.games import Game, play_bot_game  # noqa: E402
from replays.outages import reconnecting  # noqa: E402
from replays.store import games  # noqa: E402

BOTS = ["heuristic", "nontrading", "random", "heuristic"]


def one_game() -> Game:
    return play_bot_game(games(), ruleset_for("classic", len(BOTS)), BOTS,
                         tournament="Outage Cup", save_each_command=False)


def main(count: int) -> None:
    for _ in range(count):
        # Paced by the test (a line on stdin before each game): a fast machine would
        # otherwise store every game before the test has read the first id, and the
        # outages it makes after the n-th would find the worker gone.
        if not sys.stdin.readline():
            return
        game = reconnecting(one_game, give_up_after=120, what="bot games")
        print(game.id, flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]))
