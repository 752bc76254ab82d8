"""Issue 8, as an outsider would try it against a running game on the platform: take
what the site publishes (the export for each perspective one may ask for, and the head
hash of every step from ``steps/<n>.json``) and try every card against every hidden
field. Nothing may be recovered: not by a stranger, not by a seated player about the
other seats."""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth.models import User
from django.test import Client

from bohnanza_core.export import read_jsonl
from bohnanza_core.games import Game, Games
from tests.core.attack import recover, seed_guesses
from tests.factories import running_game


def _published(client: Client, game: Game, perspective: str) -> tuple[list[dict[str, Any]],
                                                                       dict[int, str]]:
    base = f"/replays/games/{game.id}"
    export = client.get(f"{base}/export.jsonl", {"perspective": perspective})
    assert export.status_code == 200, export.content[:200]
    text = export.content.decode()
    read_jsonl(text)  # a valid file
    lines = [json.loads(line) for line in text.splitlines()[1:]]
    heads = {}
    for step in range(1, game.version + 1):
        answer = client.get(f"{base}/steps/{step}.json", {"perspective": perspective})
        assert answer.status_code == 200
        heads[step] = answer.json()["head_hash"]
    return lines, heads


def test_nothing_hidden_is_recovered_from_what_a_running_game_publishes(store: Games) -> None:
    game = running_game("demo-running", commands=30)
    assert not game.finished
    stranger = Client()
    ann = Client()
    ann.force_login(User.objects.create_user("ann", password="pw-ann-123"))
    deck = game.state.ruleset.deck_size
    for client, perspective in ((stranger, "spectator"), (ann, "spectator"), (ann, "seat-0")):
        lines, heads = _published(client, game, perspective)
        assert heads[game.version] == game.head_hash
        hidden = [line for line in lines if line["type"] in ("CardDealt", "CardDrawn")
                  and line["card"] is None]
        assert len(hidden) >= 10
        assert recover(lines, heads.get, deck) == [], perspective
        # The seed: the guessable one this game was started with is not confirmed by
        # its commitment (salted with 128 secret bits).
        assert seed_guesses(lines[0]["seed_commitment"]) == []
    assert game.state.seed == "demo-running"  # a test's chosen seed, still not confirmable
