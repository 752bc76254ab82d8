"""The game list page: filters, paging, private games, bad input."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import NoReverseMatch, reverse

from bohnanza_core import ruleset_for
from bohnanza_core.games import Game, Games
from replays.models import GameSummary
from replays.views.games import PER_PAGE
from tests.factories import bot_game, running_game

URL = "/replays/games/"


def listed(client: Client, query: str = "", status: int = 200) -> list[str]:
    """The game ids on the page, in order."""
    response = client.get(URL + ("?" + query if query else ""))
    assert response.status_code == status, response.content.decode()[:2000]
    return re.findall(r'data-game-id="([0-9a-f-]+)"', response.content.decode())


def ids(*games: Game) -> set[str]:
    return {str(g.id) for g in games}


@pytest.fixture
def table(store: Games) -> dict[str, Game]:
    """A handful of games that differ in every filtered way."""
    return {
        "classic": bot_game("gl-classic"),
        "finnish": bot_game("gl-finnish", ruleset="finnish", bots=("random", "random")),
        "cup": bot_game("gl-cup", bots=("nontrading", "random", "random", "random"),
                        tournament="Spring Cup 2026"),
        "people": bot_game("gl-people", bots=("random", "nontrading", "random"),
                           players=("user:ann", "bot:nontrading", "user:bob")),
        "running": running_game("gl-running", players=("user:cy", "user:di", "user:ed"),
                                commands=2),
    }


def test_the_url_is_named_game_list() -> None:
    assert reverse("replays:game_list") == URL


def test_every_game_is_listed_with_its_result(client: Client, table: dict[str, Game]) -> None:
    response = client.get(URL)
    page = response.content.decode()
    assert response.status_code == 200
    assert set(listed(client)) == ids(*table.values())
    assert "5 games" in page
    classic = table["classic"]
    result = classic.state.result
    assert result is not None
    row = page.split(f'data-game-id="{classic.id}"')[1].split("</tr>")[0]
    for name in classic.state.seats:
        assert name in row
    assert "Heuristic bot" in row and "bot:heuristic" not in row  # names people read
    for coins in result.coins:
        assert f'<span class="coins" title="coins">{coins}</span>' in row
    winners = GameSummary.objects.get(pk=classic.id).winners
    assert f'<span class="winner-names cut" title="{winners}">{winners}</span>' in row
    assert "finished" in row
    assert f">{classic.version}<" in row
    running = page.split(f'data-game-id="{table["running"].id}"')[1].split("</tr>")[0]
    assert "running" in running and "playing" in running
    assert 'class="coins"' not in running


def test_a_seat_handed_to_a_bot_says_who_left(client: Client, store: Games) -> None:
    from bohnanza_core.commands import HandSeatToBot
    from bohnanza_core.events import Handover

    game = running_game("gl-left", commands=2)
    store.play_on(game, HandSeatToBot(2, "random", Handover.ABSENT), "absence")
    page = client.get(URL).content.decode()
    row = page.split(f'data-game-id="{game.id}"')[1].split("</tr>")[0]
    seats = row.split('<li class="seat')[1:]
    assert "left: the random bot plays on" in seats[2]
    assert "left:" not in seats[0] + seats[1]


def test_newest_games_come_first(client: Client, table: dict[str, Game]) -> None:
    order = listed(client)
    assert order[0] == str(table["running"].id)
    assert order[-1] == str(table["classic"].id)


def test_filter_by_player_or_bot(client: Client, table: dict[str, Game]) -> None:
    assert set(listed(client, "player=heuristic")) == ids(table["classic"])
    assert set(listed(client, "player=NONTRADING")) == ids(
        table["classic"], table["cup"], table["people"])
    assert set(listed(client, "player=user:ann")) == ids(table["people"])
    assert set(listed(client, "player=user:d")) == ids(table["running"])  # user:di
    assert listed(client, "player=nobody-at-all") == []


def test_filter_by_ruleset_and_player_count(client: Client, table: dict[str, Game]) -> None:
    assert set(listed(client, "ruleset=finnish")) == ids(table["finnish"])
    assert set(listed(client, "players=4")) == ids(table["cup"])
    assert set(listed(client, "ruleset=classic&players=3")) == ids(
        table["classic"], table["people"], table["running"])
    assert listed(client, "ruleset=duel") == []


def test_filter_by_tournament(client: Client, table: dict[str, Game]) -> None:
    assert set(listed(client, "tournament=spring")) == ids(table["cup"])
    assert listed(client, "tournament=autumn") == []


def test_filter_by_status(client: Client, table: dict[str, Game]) -> None:
    assert set(listed(client, "status=running")) == ids(table["running"])
    assert set(listed(client, "status=finished")) == ids(
        table["classic"], table["finnish"], table["cup"], table["people"])


def test_filter_by_winner(client: Client, table: dict[str, Game]) -> None:
    people = table["people"]
    result = people.state.result
    assert result is not None
    winner = people.state.seats[result.winners[0]]
    found = set(listed(client, f"winner={winner}"))
    assert str(people.id) in found
    for game in found:
        row = GameSummary.objects.get(pk=game)
        assert winner.lower() in row.winners.lower()
    losers = [people.state.seats[s] for s in range(3) if s not in result.winners]
    for loser in losers:
        assert str(people.id) not in listed(client, f"winner={loser}")


def test_filter_by_start_date(client: Client, table: dict[str, Game]) -> None:
    GameSummary.objects.filter(pk=table["classic"].id).update(
        started_at=datetime(2026, 1, 10, 23, 59, tzinfo=UTC))
    GameSummary.objects.filter(pk=table["finnish"].id).update(
        started_at=datetime(2026, 1, 11, 0, 0, tzinfo=UTC))
    GameSummary.objects.filter(pk=table["cup"].id).update(
        started_at=datetime(2025, 12, 31, 12, 0, tzinfo=UTC))
    january = set(listed(client, "started_from=2026-01-01&started_to=2026-01-31"))
    assert january == ids(table["classic"], table["finnish"])
    assert set(listed(client, "started_to=2026-01-10")) == ids(table["classic"], table["cup"])
    assert set(listed(client, "started_from=2026-01-11&started_to=2026-01-11")) == ids(
        table["finnish"])
    recent = set(listed(client, "started_from=2026-02-01"))
    assert recent == ids(table["people"], table["running"])


def test_filters_combine(client: Client, table: dict[str, Game]) -> None:
    assert set(listed(client, "player=random&status=finished&ruleset=classic")) == ids(
        table["classic"], table["cup"], table["people"])
    assert set(listed(client, "player=random&tournament=cup")) == ids(table["cup"])


def test_private_games_show_only_to_their_players_and_staff(
        client: Client, store: Games, django_user_model: type[User]) -> None:
    public = bot_game("gl-public")
    secret = bot_game("gl-secret", players=("user:ann", "bot:random", "bot:random"),
                      bots=("heuristic", "random", "random"), private=True)
    ann = django_user_model.objects.create_user("ann", password="pw-ann-12345")
    eve = django_user_model.objects.create_user("eve", password="pw-eve-12345")
    boss = django_user_model.objects.create_user("boss", password="pw-boss-1234",
                                                 is_staff=True)

    page = client.get(URL).content.decode()
    assert str(secret.id) not in page and "1 game" in page
    assert set(listed(client, "player=ann")) == set()
    client.force_login(eve)
    assert set(listed(client)) == ids(public)
    assert listed(client, "status=finished&player=random") == [str(public.id)]
    client.force_login(ann)
    assert set(listed(client)) == ids(public, secret)
    assert "private" in client.get(URL).content.decode()
    client.force_login(boss)
    assert set(listed(client)) == ids(public, secret)


def test_the_ruleset_menu_names_no_ruleset_of_a_hidden_game(
        client: Client, store: Games) -> None:
    secret = bot_game("gl-hidden-rules", private=True, players=("user:ann", "bot:a", "bot:b"))
    GameSummary.objects.filter(pk=secret.id).update(ruleset="house-rules")
    assert "house-rules" not in client.get(URL).content.decode()
    assert client.get(URL, {"ruleset": "house-rules"}).status_code == 400
    ann = User.objects.create_user("ann", password="pw-ann-12345")
    client.force_login(ann)
    assert '<option value="house-rules">' in client.get(URL).content.decode()
    assert listed(client, "ruleset=house-rules") == [str(secret.id)]


def test_paging_keeps_the_filters(client: Client, store: Games) -> None:
    rules = ruleset_for("classic", 3)
    started = [store.start(rules, ("a", "b", "c"), f"page-{i}",
                           players=["bot:random"] * 3, tournament="Paging Cup")
               for i in range(PER_PAGE + 3)]
    store.start(rules, ("x", "y", "z"), "elsewhere", players=["bot:random"] * 3)
    newest_first = [str(g.id) for g in reversed(started)]

    response = client.get(URL, {"tournament": "paging"})
    page = response.content.decode()
    first = re.findall(r'data-game-id="([0-9a-f-]+)"', page)
    assert first == newest_first[:PER_PAGE]
    assert f"{PER_PAGE + 3} games match" in page and "Page 1 of 2" in page
    assert 'href="?tournament=paging&amp;page=2"' in page

    second = listed(client, "tournament=paging&page=2")
    assert second == newest_first[PER_PAGE:]
    page2 = client.get(URL, {"tournament": "paging", "page": 2}).content.decode()
    assert 'href="?tournament=paging&amp;page=1"' in page2
    assert "Page 2 of 2" in page2


@pytest.mark.parametrize(("query", "message"), [
    ("page=abc", "is not a page number"),
    ("page=1.5", "is not a page number"),
    ("page=-1", "is not a page number"),
    ("page=%C2%B2", "is not a page number"),
    ("started_from=garbage", "Started from: write a date as YYYY-MM-DD"),
    ("started_to=2026-13-45", "Started to: write a date as YYYY-MM-DD"),
    ("started_from=2026-05-02&started_to=2026-05-01", "Started from is after started to"),
    ("ruleset=nope", "there is no ruleset nope"),
    ("players=9", "Players: choose a number from 2 to 7"),
    ("status=won", "Status: choose finished or running"),
    ("player=" + "x" * 101, "Player or bot: at most 100 characters"),
])
def test_bad_filters_get_a_clear_message(client: Client, store: Games,
                                         query: str, message: str) -> None:
    running_game("gl-bad-input")
    response = client.get(URL + "?" + query)
    page = response.content.decode()
    assert response.status_code == 400
    assert message in page
    assert 'role="alert"' in page
    assert "data-game-id" not in page
    assert GameSummary.objects.count() == 1


def test_the_list_is_only_read(client: Client, store: Games) -> None:
    assert client.post(URL, {"status": "running"}).status_code == 405
    assert client.head(URL).status_code == 200


def test_a_page_past_the_end_is_not_found(client: Client, store: Games) -> None:
    running_game("gl-past-the-end")
    for number in ("2", "0", "99999999999999999999"):
        response = client.get(URL, {"page": number, "status": "running"})
        assert response.status_code == 404
        assert "these filters give 1 page of games" in response.content.decode()


def test_an_empty_list_says_so(client: Client, store: Games) -> None:
    page = client.get(URL).content.decode()
    assert "No games yet." in page
    assert "No game matches these filters." in client.get(URL + "?ruleset=duel").content.decode()


def test_each_row_links_to_its_replay(client: Client, table: dict[str, Game]) -> None:
    page = client.get(URL).content.decode()
    game = table["classic"]
    try:
        link = reverse("replays:replay", kwargs={"game_id": game.id})
    except NoReverseMatch:  # the viewer is not installed: the row names the game instead
        assert f"<code title=\"The replay viewer is not installed\">{str(game.id)[:8]}" in page
        return
    # From the first step: opening a finished game at its end would spoil it.
    assert f'href="{link}?step=1"' in page
    assert client.get(link).status_code == 200


def test_the_page_loads_its_stylesheet_and_the_nav_links_it(
        client: Client, store: Games) -> None:
    page = client.get(URL).content.decode()
    assert "css/replays_list.css" in page
    assert f'<a href="{URL}">Replays</a>' in page


def test_tied_winners_are_joined_in_the_readers_language() -> None:
    """The read model keeps an English "ann and bob"; the list says it as its reader does
    (a tie between two bots once showed "random 1 and random 2" on the Hungarian page)."""
    from types import SimpleNamespace

    from django.utils import translation

    from replays.templatetags.bohnanza import winner_names

    seats = [SimpleNamespace(name=name, winner=won)
             for name, won in (("ann", True), ("bob", False), ("cy", True), ("di", True))]
    game = SimpleNamespace(seats=SimpleNamespace(all=lambda: seats))
    expected = {"en": "ann, cy and di", "hu": "ann, cy és di", "fi": "ann, cy ja di"}
    for language, text in expected.items():
        with translation.override(language):
            assert winner_names(game) == text
    seats[2].winner = seats[3].winner = False
    assert winner_names(game) == "ann"


def test_the_lists_hide_results_unless_asked_or_played(store: Games) -> None:
    """No spoilers by default: winners and coins hidden (the rows' results marked for
    the stylesheet), except in games the reader sat in; ``results=1`` shows them all."""
    played = bot_game("spoiler-played", players=("user:ann", "bot:heuristic", "bot:random"))
    other = bot_game("spoiler-other")
    client = Client()
    client.force_login(User.objects.create_user("ann", password="pw-ann-123"))
    page = client.get("/replays/games/").content.decode()
    assert "hide-results" in page
    assert f'data-game-id="{played.id}" data-seen="1"' in page
    assert f'data-game-id="{other.id}">' in page
    shown = client.get("/replays/games/?results=1")
    assert shown.status_code == 200 and "hide-results" not in shown.content.decode()
