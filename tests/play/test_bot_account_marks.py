"""A bot account is marked as a bot wherever its games are shown (issue 29): the game
list, My games, the replay viewer's seats, log and summary, a profile's opponents, the
home page, a competition's entrants, the lobby's entries, a table's waiting room, the
live table's frames (seats drawn, log, ``facts.bot_accounts`` for what the page names
itself), the audit page and the dispute pages; a person's name stays as it is. The
pages look the bot accounts up once for all their seats (``replays.table.bot_accounts``,
installed by ``play``), so their queries do not grow with the seats; a page or frame
looks them up as it is built, never remembering them from a connection's start."""

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
from play import live
from play.lobby import forget_snapshot
from play.models import BotAccount, Table
from play.tables import create_table, join, start
from replays.disputes import disputes, open_dispute, reset_disputes
from replays.store import loaded, reset_games
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


# -- the lobby, a table's room, the live table -------------------------------------------


def _robo_table(robo: User) -> Table:
    """A public table ann opened, robo (a bot account) seated beside her and a built-in
    bot: waiting for its start."""
    table = create_table(User.objects.get(username="ann"), "classic", 3,
                         seats=["open", "open", "random"])
    join(table, robo)
    forget_snapshot()
    return table


@pytest.fixture
def unloaded(robo: User) -> Iterator[None]:
    loaded.clear()
    yield
    loaded.clear()
    forget_snapshot()


def test_the_lobby_and_a_tables_room_mark_a_bot_account(robo: User, unloaded: None) -> None:
    table = create_table(User.objects.get(username="ann"), "classic", 4,
                         seats=["open", "open", "open", "random"])
    join(table, robo)  # a seat left open: the table is among the open ones
    forget_snapshot()
    lobby = Client().get("/play/").content.decode()
    # the entry as the page draws it, and the words static/js/lobby.js marks it with
    assert MARK in lobby and "ann (bot account)" not in lobby
    assert '"bot_account": "%(name)s (bot account)"' in lobby
    room = Client().get(f"/play/tables/{table.id}/").content.decode()
    assert MARK in room and "ann (bot account)" not in room
    with translation.override("fi"):
        assert "robo (bottitili)" in Client(headers={"accept-language": "fi"}).get(
            f"/play/tables/{table.id}/").content.decode()


def _frame(table: Table, seat: int) -> dict[str, object]:
    """The whole state frame ``seat``'s connection is sent now (on connecting, on sync)."""
    return live.answer_for(live.current(table, seat), table).frame


def test_the_live_table_marks_a_bot_account_in_every_frame(robo: User, unloaded: None) -> None:
    """The seats drawn, the log's lines and ``facts.bot_accounts`` (which the page reads
    for the names it writes itself: the offer's "to", the clocks, an offer announced);
    the live page's words carry the mark. Looked up as each frame is built: ann made a
    bot account after the game began is marked from the next frame on."""
    table = start(_robo_table(robo), User.objects.get(username="ann"))
    table = live.running_table(table.id)
    robo_seat = next(s.number for s in table.seats.all() if s.user_id == robo.pk)
    ann_seat = next(s.number for s in table.seats.all() if s.user and s.user.username == "ann")
    frame = _frame(table, ann_seat)
    assert frame["facts"]["bot_accounts"] == [robo_seat]  # type: ignore[index]
    html = frame["answer"]["html"]  # type: ignore[index]
    assert MARK in html and "ann (bot account)" not in html
    assert any("robo (bot account)" in line for line in frame["log"])  # type: ignore[attr-defined]
    ann = Client()
    ann.force_login(User.objects.get(username="ann"))
    page = ann.get(f"/play/tables/{table.id}/").content.decode()
    assert '"bot_account": "%(name)s (bot account)"' in page
    # ann's account becomes a bot account: the next frame says so (nothing remembered)
    BotAccount.objects.create(user=User.objects.get(username="ann"))
    again = _frame(table, robo_seat)
    assert again["facts"]["bot_accounts"] == sorted([robo_seat, ann_seat])  # type: ignore[index]
    assert "ann (bot account)" in again["answer"]["html"]  # type: ignore[index]
    with translation.override("hu"):
        told = _frame(table, robo_seat)
    assert "robo (botfiók)" in told["answer"]["html"]  # type: ignore[index]


def test_a_table_of_people_is_not_marked(robo: User, unloaded: None) -> None:
    ann = User.objects.get(username="ann")
    table = create_table(ann, "classic", 3, seats=["open", "open", "random"])
    join(table, User.objects.get(username="olga"))
    table = live.running_table(start(table, ann).id)
    frame = _frame(table, 0)
    assert frame["facts"]["bot_accounts"] == []  # type: ignore[index]
    assert "(bot account)" not in frame["answer"]["html"]  # type: ignore[index]


# -- the audit and the disputes ---------------------------------------------------------


@pytest.fixture
def dispute_app(robo: User) -> Iterator[None]:
    reset_disputes()
    yield
    reset_disputes()


def test_the_audit_and_the_dispute_pages_mark_a_bot_account(robo: User,
                                                             dispute_app: None) -> None:
    """The audit's players; the dispute's opening, list and page (its players, the
    record's actors and lines, the table before and after the disputed event, as the
    arbiter sees it)."""
    game = _robo_game("marks-dispute")
    ann = Client()
    ann.force_login(User.objects.get(username="ann"))
    audit = ann.get(f"/replays/games/{game.id}/audit/").content.decode()
    assert MARK in audit and "ann (bot account)" not in audit
    new = ann.get(f"/replays/games/{game.id}/disputes/new/?seq=3").content.decode()
    assert MARK in new and "ann (bot account)" not in new
    dispute = open_dispute(User.objects.get(username="ann"), game.id, 3, "this bean was not mine")
    listed = ann.get("/replays/disputes/").content.decode()
    assert MARK in listed and "ann (bot account)" not in listed
    arbiter = Client()
    arbiter.force_login(User.objects.create_user("zed", is_staff=True))
    page = arbiter.get(f"/replays/disputes/{dispute.id}/").content.decode()
    robo_seat = game.state.seats[0]
    assert MARK in page and "ann (bot account)" not in page
    assert f"{robo_seat} (bot account)" in page  # the record's lines name the seat marked
    assert disputes().dispute(dispute.id).opened_by == "user:ann"
