"""A bot account is marked as a bot wherever its games are shown (issue 29): the game
list, My games, the replay viewer's seats, log and summary, a profile's opponents, the
home page and a competition's entrants; a person's name stays as it is. The pages look
the bot accounts up once for all their seats (``replays.table.bot_accounts``, installed
by ``play``), so their queries do not grow with the seats."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import translation

from bohnanza_core.games import Game
from play.models import BotAccount
from replays.store import reset_games
from replays.table import bot_accounts, display_player
from tests.factories import bot_game

MARK = "robo (bot account)"


@pytest.fixture
def robo(db: None) -> Iterator[User]:
    """A bot account ``robo``, owned by ``olga``, and a person ``ann``."""
    reset_games()
    olga = User.objects.create_user("olga", password="pw-olga-123")
    robo = User.objects.create_user("robo")
    BotAccount.objects.create(user=robo, owner=olga)
    User.objects.create_user("ann", password="pw-ann-123")
    yield robo
    reset_games()


def _robo_game(seed: str = "marks-robo") -> Game:
    return bot_game(seed, players=("user:robo", "user:ann", "bot:random"))


def test_the_lookup_names_bot_accounts_only(robo: User) -> None:
    assert bot_accounts(["user:robo", "user:ann", "bot:random", "imported:user:robo",
                         "user:nobody"]) == {"user:robo"}
    assert display_player("user:robo", {"user:robo"}) == MARK
    assert display_player("user:ann", {"user:robo"}) == "ann"
    # without the page's set, a name is shown as it is stored (exports, the audit)
    assert display_player("user:robo") == "robo"
    with translation.override("hu"):
        assert display_player("user:robo", {"user:robo"}) == "robo (botfiók)"
    with translation.override("fi"):
        assert display_player("user:robo", {"user:robo"}) == "robo (bottitili)"


def test_the_game_list_and_my_games_mark_a_bot_account(robo: User) -> None:
    _robo_game()
    bot_game("marks-ann", players=("user:ann", "bot:random", "bot:random"))
    page = Client().get("/replays/games/").content.decode()
    assert page.count(MARK) >= 1
    assert "ann (bot account)" not in page
    ann = Client()
    ann.force_login(User.objects.get(username="ann"))
    mine = ann.get("/replays/mine/").content.decode()
    assert MARK in mine and "ann (bot account)" not in mine


def test_a_game_of_people_only_is_not_marked(robo: User) -> None:
    bot_game("marks-people", players=("user:ann", "user:olga", "bot:random"))
    page = Client().get("/replays/games/").content.decode()
    assert "(bot account)" not in page


def test_the_viewer_marks_the_seat_the_log_and_the_summary(robo: User) -> None:
    game = _robo_game()
    client = Client()
    page = client.get(f"/replays/games/{game.id}/").content.decode()
    # the seats' panels (the table drawn), the seats' list and the end's summary
    assert page.count(MARK) >= 3
    assert "ann (bot account)" not in page
    log = json.loads(client.get(f"/replays/games/{game.id}/log.json").content)
    told = [line["text"] for line in log["lines"]]
    # the log names seats: robo's seat is marked on its lines, Ann's is not
    robo_seat, ann_seat = game.state.seats[0], game.state.seats[1]
    assert any(f"{robo_seat} (bot account)" in text for text in told)
    assert not any(f"{ann_seat} (bot account)" in text for text in told)
    step = json.loads(client.get(f"/replays/games/{game.id}/steps/1.json").content)
    assert MARK in step["html"]
    # the export keeps the record's machine ids
    export = client.get(f"/replays/games/{game.id}/export.jsonl").content.decode()
    assert "user:robo" in export and "(bot account)" not in export


def test_a_profile_marks_a_bot_account_among_the_opponents(robo: User) -> None:
    _robo_game()
    page = Client().get("/players/ann/").content.decode()
    assert MARK in page
    own = Client().get("/players/robo/").content.decode()
    assert 'class="bot-mark"' in own and "ann (bot account)" not in own


def test_the_home_page_marks_a_bot_account(robo: User) -> None:
    _robo_game()
    assert MARK in Client().get("/").content.decode()


def _queries(client: Client, url: str) -> int:
    """How many queries answering ``url`` took."""
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


@pytest.mark.parametrize("url", ["/replays/games/", "/players/ann/", "/"])
def test_a_page_looks_bot_accounts_up_once_whatever_its_seats(
        robo: User, url: str) -> None:
    """One game with a bot account, then four more with bot accounts in every seat
    they can take: the page asks no more of the database."""
    _robo_game("marks-count-0")
    client = Client()
    client.get(url)  # sessions, caches and the like set up once
    few = _queries(client, url)
    for n in range(1, 5):
        robot = User.objects.create_user(f"robot{n}")
        BotAccount.objects.create(user=robot)
        bot_game(f"marks-count-{n}",
                 players=("user:ann", f"user:robot{n}", "user:robo"))
    many = _queries(client, url)
    assert many <= few
    assert "robot4 (bot account)" in client.get(url).content.decode()


def test_the_viewer_looks_bot_accounts_up_once(robo: User) -> None:
    few_game = bot_game("marks-viewer-few", players=("user:robo", "bot:random", "bot:random"))
    for n in (1, 2):
        BotAccount.objects.create(user=User.objects.create_user(f"robot{n}"))
    many_game = bot_game("marks-viewer-many", players=("user:robo", "user:robot1", "user:robot2"))
    client = Client()
    client.get(f"/replays/games/{few_game.id}/")
    few = _queries(client, f"/replays/games/{few_game.id}/")
    client.get(f"/replays/games/{many_game.id}/")
    many = _queries(client, f"/replays/games/{many_game.id}/")
    assert many <= few
