"""Exports are byte-identical to those of the code before the competitions core and the
named walls (main at 4971ff0): the same seeded bot games, with the clock and the secrets
pinned, give the same JSON Lines in every perspective. A change to the export format or
to what the engine records must change :data:`GOLDEN` knowingly (and docs/export.md)."""

from __future__ import annotations

import datetime as dt
import hashlib
import itertools
import random
import secrets
import uuid

import eventsourcing.domain as domain
import pytest

from bohnanza_core.export import export_record
from bohnanza_core.games import Games, play_bot_game
from bohnanza_core.rulesets import ruleset_for
from bohnanza_core.views import EVERYTHING, SPECTATOR

GOLDEN = "01c643ac985d999ba044d3de54d8bc98e275891fa6025cf951eb4ab0e89093f6"
"""SHA-256 over every export below, made on main at 4971ff0 (pure and compiled alike)."""

TABLES = [
    ("classic", 4, ["heuristic", "nontrading", "random", "heuristic"]),
    ("classic", 3, ["heuristic", "heuristic", "heuristic"]),
    ("duel", 2, ["heuristic", "random"]),
    ("rio-grande", 5, ["heuristic"] * 5),
    ("finnish", 7, ["nontrading", "heuristic"] * 3 + ["random"]),
    ("amigo-en", 3, ["heuristic", "random", "nontrading"]),
]


def test_exports_of_seeded_games_are_byte_identical_to_before(
        monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(2026)

    def pinned(n: int = 32) -> str:
        return f"{rng.getrandbits(8 * n):0{2 * n}x}"

    monkeypatch.setattr(secrets, "token_hex", pinned)
    monkeypatch.setattr(secrets, "token_urlsafe", pinned)
    tick = itertools.count()
    start = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)
    monkeypatch.setattr(domain, "datetime_now_with_tzinfo",
                        lambda: start + dt.timedelta(milliseconds=next(tick)))
    games = Games(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    digest = hashlib.sha256()
    for i, (preset, players, bots) in enumerate(TABLES):
        game = play_bot_game(games, ruleset_for(preset, players), bots, f"golden-{i}",
                             game_id=uuid.UUID(int=i + 1))
        entries = games.record(game.id)
        for perspective in (EVERYTHING, SPECTATOR, *range(players)):
            digest.update(export_record(entries, perspective, head=game.head_hash).encode())
    assert digest.hexdigest() == GOLDEN
