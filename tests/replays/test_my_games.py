"""My games: a signed-in player finds every game they sat in or imported, private ones
included (a private import opens through the token its link carries), and nobody
else's."""

from __future__ import annotations

import re

from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from bohnanza_core import ruleset_for
from bohnanza_core.export import export_jsonl
from bohnanza_core.games import Games
from bohnanza_core.simulator import bot_classes, play_game
from replays.models import GameSummary
from tests.factories import LINEUP, bot_game

MINE = "/replays/mine/"
FOREIGN = play_game(ruleset_for("classic", 3), bot_classes(list(LINEUP)), "my-games-foreign")


def signed_in(name: str) -> Client:
    client = Client()
    client.force_login(User.objects.create_user(name, password=f"pw-{name}-123"))
    return client


def listed(page: str) -> set[str]:
    return set(re.findall(r'data-game-id="([0-9a-f-]{36})"', page))


def test_my_games_lists_games_played_and_imported_private_ones_included(
        store: Games) -> None:
    ann, bob = signed_in("ann"), signed_in("bob")
    played = bot_game("my-games-played", players=("user:ann", "bot:random", "bot:random"),
                      private=True)
    other = bot_game("my-games-other", players=("user:bob", "bot:random", "bot:random"))
    upload = SimpleUploadedFile("game.jsonl", export_jsonl(FOREIGN.events).encode(),
                                "application/x-ndjson")
    response = ann.post("/replays/import/", {"file": upload, "private": "on"})
    assert response.status_code == 302
    imported = re.search(r"/replays/games/([0-9a-f-]{36})/", response["Location"])
    assert imported is not None
    imported_id = imported.group(1)
    assert GameSummary.objects.get(pk=imported_id).started_by == "user:ann"

    page = ann.get(MINE).content.decode()
    assert listed(page) == {str(played.id), imported_id}
    assert str(other.id) not in page
    # The private import (no seat of Ann's) opens through the token in its link.
    link = re.search(rf'href="(/replays/games/{imported_id}/\?step=1&amp;token=[^"]+)"', page)
    assert link is not None
    assert ann.get(link.group(1).replace("&amp;", "&")).status_code == 200
    # Bob sees his own game only; the game list never shows Ann's private import to him.
    assert listed(bob.get(MINE).content.decode()) == {str(other.id)}
    assert imported_id not in bob.get("/replays/games/").content.decode()


def test_my_games_needs_an_account_and_filters_like_the_list(store: Games) -> None:
    response = Client().get(MINE)
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    ann = signed_in("ann")
    assert ann.get(MINE, {"page": "x"}).status_code == 400
    assert ann.get(MINE, {"page": "9"}).status_code == 404
    bot_game("my-games-duel", ruleset="duel", bots=("heuristic", "random"),
             players=("user:ann", "bot:random"))
    assert len(listed(ann.get(MINE, {"ruleset": "duel"}).content.decode())) == 1
    assert listed(ann.get(MINE, {"ruleset": "classic"}).content.decode()) == set()
