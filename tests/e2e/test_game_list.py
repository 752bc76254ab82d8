"""The game list in a real browser: open it, filter, page, sign in to see a private game."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from bohnanza_core import ruleset_for
from bohnanza_core.games import Game, Games
from replays.store import games, reset_games
from replays.views.games import PER_PAGE
from tests.factories import bot_game

pytestmark = pytest.mark.e2e

SCREENSHOTS = settings.BASE_DIR / "var" / "screenshots"


@pytest.fixture
def lobby(transactional_db: None, django_user_model: type[User]) -> Iterator[dict[str, Game]]:
    """Running tables enough for two pages, then finished games of several rulesets (the
    newest, so they head the list), one of them private to Ann."""
    reset_games()
    store: Games = games()
    rules = ruleset_for("classic", 4)
    for i in range(PER_PAGE - 2):
        store.start(rules, ("Ann", "Bob", "Cy", "Di"), f"e2e-open-{i}",
                    players=["user:ann", "user:bob", "bot:random", "bot:heuristic"])
    made = {
        "duel": bot_game("e2e-duel", ruleset="duel", bots=("heuristic", "nontrading")),
        "rio": bot_game("e2e-rio", ruleset="rio-grande",
                        bots=("heuristic", "random", "nontrading", "heuristic", "random"),
                        tournament="Rio Open"),
        "finnish": bot_game("e2e-finnish", ruleset="finnish",
                            bots=("random", "heuristic", "random", "nontrading")),
        "private": bot_game("e2e-private", bots=("heuristic", "random", "random"),
                            players=("user:ann", "bot:random", "bot:random"), private=True),
        "classic": bot_game("e2e-classic", tournament="Spring Cup"),
    }
    django_user_model.objects.create_user("ann", password="ann-secret-pw-1")
    yield made
    reset_games()


def rows(page: Page) -> list[str]:
    return page.locator("tr.game").evaluate_all("rs => rs.map(r => r.dataset.gameId)")


def test_list_filter_and_page(page: Page, live_server: LiveServer,
                              lobby: dict[str, Game]) -> None:
    page.goto(live_server.url + "/")
    page.get_by_role("link", name="Replays", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Games and replays")
    expect(page.locator(".result-count")).to_contain_text(f"{PER_PAGE + 2} games")
    expect(page.locator("tr.game")).to_have_count(PER_PAGE)
    assert str(lobby["private"].id) not in rows(page)  # not signed in: not even a row
    classic = page.locator(f'tr[data-game-id="{lobby["classic"].id}"]')
    expect(classic.locator(".status")).to_have_text("finished")
    expect(classic.locator(".tournament")).to_have_text("Spring Cup")
    expect(classic.locator(".seat.winner")).not_to_have_count(0)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "game_list.png"), full_page=True)

    # Page 2 holds the rest.
    page.locator("a[rel=next]").click()
    expect(page.locator(".pager .current")).to_have_text("Page 2 of 2")
    expect(page.locator("tr.game")).to_have_count(2)

    # Filter: finished games with a heuristic bot; the form keeps what was asked.
    page.get_by_label("Player or bot").fill("heuristic")
    page.get_by_label("Status").select_option("finished")
    page.get_by_role("button", name="Filter").click()
    expect(page).to_have_url(re.compile(r"player=heuristic.*status=finished"))
    expect(page.get_by_label("Player or bot")).to_have_value("heuristic")
    expected = {str(lobby[k].id) for k in ("duel", "rio", "finnish", "classic")}
    expect(page.locator("tr.game")).to_have_count(len(expected))
    assert set(rows(page)) == expected
    expect(page.locator(".result-count")).to_contain_text("4 games match these filters")

    page.get_by_label("Ruleset").select_option("rio-grande")
    page.get_by_role("button", name="Filter").click()
    assert rows(page) == [str(lobby["rio"].id)]
    expect(page.locator("tr.game .tournament")).to_have_text("Rio Open")
    page.screenshot(path=str(SCREENSHOTS / "game_list_filtered.png"), full_page=True)

    page.get_by_role("link", name="Clear").click()
    expect(page.locator("tr.game")).to_have_count(PER_PAGE)


def test_signed_in_player_sees_their_private_game(page: Page, live_server: LiveServer,
                                                  lobby: dict[str, Game]) -> None:
    page.goto(live_server.url + "/accounts/login/?next=/replays/games/")
    page.get_by_label("Username").fill("ann")
    page.get_by_label("Password").fill("ann-secret-pw-1")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Games and replays")
    private = page.locator(f'tr[data-game-id="{lobby["private"].id}"]')
    expect(private.locator(".badge.private")).to_have_text("private")
    expect(page.locator(".result-count")).to_contain_text(f"{PER_PAGE + 3} games")


def test_bad_input_gets_a_clear_message(page: Page, live_server: LiveServer,
                                        lobby: dict[str, Game]) -> None:
    response = page.goto(live_server.url + "/replays/games/?page=abc&started_from=nonsense")
    assert response is not None and response.status == 400
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("Started from: write a date as YYYY-MM-DD")
    expect(alert).to_contain_text("“abc” is not a page number")
    expect(page.locator("tr.game")).to_have_count(0)
    page.screenshot(path=str(SCREENSHOTS / "game_list_bad_input.png"), full_page=True)
    alert.get_by_role("link", name="show every game").click()
    expect(page.locator("tr.game")).to_have_count(PER_PAGE)
