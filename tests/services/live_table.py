"""Seat a started live table for the services tests and bench/live.py:
``python -m tests.services.live_table PLAYERS [TABLES [bots]]`` against ``DATABASE_URL``.

Each table seats people (accounts signed in: their session cookies) at even seats and
bot accounts (their API tokens) at odd ones, on a short four-kind classic game: the
two ways an outside client is known at a table. Prints one JSON line per table: its
id, its game's id, and each seat's credential (``["cookie", value]`` or
``["token", value]``) in seat order.
"""

from __future__ import annotations

import json
import os
import sys
from uuid import uuid4

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth.models import User  # noqa: E402
from django.test import Client  # noqa: E402

from play.tables import create_table, issue_bot_token, join, start  # noqa: E402

SHORT = {"beans": ["wax", "blue", "chili", "stink"]}
"""House rules for a short game (four kinds of bean)."""


def credential(user: User, bot: bool) -> list[str]:
    if bot:
        return ["token", issue_bot_token(user)]
    client = Client()
    client.force_login(user)
    return ["cookie", f"{settings.SESSION_COOKIE_NAME}="
                      f"{client.cookies[settings.SESSION_COOKIE_NAME].value}"]


def seated_table(players: int) -> dict[str, object]:
    kinds = [n % 2 == 1 for n in range(players)]
    users = [User.objects.create_user(f"{'bot' if bot else 'p'}{n}-{uuid4().hex[:8]}")
             for n, bot in enumerate(kinds)]
    table = create_table(users[0], "classic", players, seats=["open"] * players,
                         overrides=SHORT)
    for user in users[1:]:
        join(table, user)
    started = start(table, users[0])
    return {"table": str(started.id), "game": str(started.game_id),
            "seats": [credential(u, bot) for u, bot in zip(users, kinds, strict=True)]}


def bot_table(players: int) -> dict[str, object]:
    """A started table (``bots``): a bot account at seat 0 (its API token), the
    built-in heuristic bot at every other seat: an outside bot's game (bench/live.py's
    outside-bot mode, tests/services/test_bot_client.py)."""
    robo = User.objects.create_user(f"robo-{uuid4().hex[:8]}")
    table = create_table(robo, "classic", players,
                         seats=["open"] + ["heuristic"] * (players - 1), overrides=SHORT)
    started = start(table, robo)
    return {"table": str(started.id), "game": str(started.game_id),
            "seats": [credential(robo, True)] + [["bot", "heuristic"]] * (players - 1)}


if __name__ == "__main__":
    seat = bot_table if sys.argv[3:4] == ["bots"] else seated_table
    for _ in range(int(sys.argv[2]) if len(sys.argv) > 2 else 1):
        print(json.dumps(seat(int(sys.argv[1]))), flush=True)
