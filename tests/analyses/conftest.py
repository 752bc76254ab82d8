"""Fixtures of the analyses app: short finished games in the store, and a small budget
(an analysis of a short game at 10 playouts a decision takes a few seconds)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pytest
from django.contrib.auth.models import User
from django.test import Client

from bohnanza_core.games import Game, Games, play_bot_game
from bohnanza_core.rulesets import customize
from replays.store import games, reset_games

SHORT = customize("classic", 3, {"ends_on_run_out": 1})
"""A game that ends when the draw pile first runs out: quick to analyse."""
PLAYOUTS = 10


@pytest.fixture
def store(db: None, settings: object) -> Iterator[Games]:
    settings.ANALYSIS_PLAYOUTS = PLAYOUTS  # type: ignore[attr-defined]
    reset_games()
    yield games()
    reset_games()


def short_game(seed: str = "analysed", *, players: Sequence[str] | None = None,
               private: bool = False) -> Game:
    """A finished short game of bots (one of them random: it blunders), stored command
    by command as the platform stores games."""
    return play_bot_game(games(), SHORT, ["heuristic", "random", "heuristic"], seed,
                         players=players, private=private)


def signed_in(name: str, *, staff: bool = False) -> tuple[Client, User]:
    client = Client()
    user = User.objects.create_user(name, password=f"pw-{name}-123", is_staff=staff)
    client.force_login(user)
    return client, user
