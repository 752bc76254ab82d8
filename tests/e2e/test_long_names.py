"""Names a file or a player brings in cannot break a page's layout (issue 8, item 4: a
1000-character seat name made the game list 26,669 px wide). Names are now bounded
where they come in; the longest allowed must still fit.

Seat names, players (``imported:<the file's actor>``), a house ruleset's name and a
tournament's name, each one long word without a space, on every page that shows them:
no page is wider than the window, and every name cut short shows whole in its
``title``. Bounding the names where they come in is another matter (and another test):
this is the layout's own robustness, for whatever is already stored."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from playwright.sync_api import Page
from pytest_django.live_server_helper import LiveServer

from bohnanza_core.engine import SEAT_NAME_MAX
from bohnanza_core.export import RECORD_TEXT_MAX
from bohnanza_core.games import TOURNAMENT_NAME_MAX, Game, play_bot_game
from bohnanza_core.rulesets import TEXT_LIMITS, customize
from replays.disputes import open_dispute, reset_disputes
from replays.models import GameSummary
from replays.store import games, reset_games
from replays.table import display_player
from tests.e2e.conftest import sign_in

pytestmark = pytest.mark.e2e

SCREENSHOTS = settings.BASE_DIR / "var" / "screenshots"

# The longest each may be where it comes in (bohnanza_core.engine.SEAT_NAME_MAX,
# export.RECORD_TEXT_MAX, rulesets.TEXT_LIMITS, games.TOURNAMENT_NAME_MAX), as one word
# with no space to wrap at; the seat at the bound, in wide letters, is far wider than a
# phone.
SEAT = "W" * SEAT_NAME_MAX
PLAYER = "imported:" + "x" * RECORD_TEXT_MAX  # an actor named by an imported file
RULESET = "Rules" + "r" * (TEXT_LIMITS["name"] - 5)
TOURNAMENT = "Cup" + "p" * (TOURNAMENT_NAME_MAX - 3)  # a competition's longest name


@dataclass
class Long:
    game: Game
    running: Game
    dispute: str


@pytest.fixture
def long_names(transactional_db: None, django_user_model: type[User]) -> Iterator[Long]:
    reset_games()
    reset_disputes()
    rules = customize("classic", 3, {"third_field_cost": 2}, name=RULESET)
    seats = (SEAT, "B" * SEAT_NAME_MAX, "Cy")
    players = ["user:ann", PLAYER, "bot:random"]
    game = play_bot_game(games(), rules, ["random", "random", "random"], "e2e-long",
                         seats=seats, players=players, tournament=TOURNAMENT)
    running = games().start(rules, seats, "e2e-long-running", players=players,
                            tournament=TOURNAMENT)
    ann = django_user_model.objects.create_user("ann", password="ann-secret-pw-1")
    django_user_model.objects.create_user("zed", password="zed-secret-pw-1", is_staff=True)
    dispute = open_dispute(ann, game.id, 5, "W" * 400)
    yield Long(game, running, str(dispute.id))
    reset_disputes()
    reset_games()


def overflow(page: Page) -> int:
    """How many pixels the page is wider than the window (0: it fits)."""
    return int(page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"))


def widest(page: Page) -> list[str]:
    """The deepest elements reaching past the window's right edge (for the message)."""
    return list(page.evaluate("""() => {
        const right = document.documentElement.clientWidth;
        return [...document.querySelectorAll('body *')]
          .filter(e => e.getBoundingClientRect().right > right + 1
                       && ![...e.children].some(c => c.getBoundingClientRect().right > right + 1)
                       && !e.closest('.table-scroll'))
          .slice(0, 5)
          .map(e => e.tagName + '.' + [...e.classList].join('.') + ' '
                    + Math.round(e.getBoundingClientRect().right) + 'px');
    }"""))


def untitled_cut_names(page: Page) -> list[str]:
    """Elements whose text is cut short (an ellipsis) without the whole in a title."""
    return list(page.evaluate("""() => [...document.querySelectorAll('body *')]
        .filter(e => e.children.length === 0 && e.scrollWidth > e.clientWidth + 1
                     && getComputedStyle(e).textOverflow === 'ellipsis'
                     && !(e.title || e.closest('[title]')))
        .map(e => e.tagName + '.' + e.className + ': ' + e.textContent.slice(0, 30))"""))


def sign_in_as(page: Page, live_server: LiveServer, who: str = "ann") -> None:
    """Sign ``who`` in afresh (whoever was signed in before), landing on the game list."""
    page.context.clear_cookies()
    sign_in(page, live_server.url, who, f"{who}-secret-pw-1")
    page.wait_for_url("**/replays/games/")


@pytest.mark.parametrize("width", [1280, 390])
def test_long_names_never_widen_a_page(page: Page, live_server: LiveServer,
                                       long_names: Long, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    game, running = long_names.game.id, long_names.running.id
    pages = {
        "game list": "/replays/games/",
        "viewer": f"/replays/games/{game}/",
        "viewer, first step": f"/replays/games/{game}/?step=1&perspective=seat-0",
        "viewer, running": f"/replays/games/{running}/",
        "embed": f"/replays/games/{game}/embed/",
        "audit": f"/replays/games/{game}/audit/",
        "new dispute": f"/replays/games/{game}/disputes/new/?seq=5",
        "disputes": "/replays/disputes/",
        "dispute": f"/replays/disputes/{long_names.dispute}/",
        "dispute, as the arbiter": f"/replays/disputes/{long_names.dispute}/",
    }
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    wide: dict[str, str] = {}
    untitled: dict[str, list[str]] = {}
    sign_in_as(page, live_server, "ann")
    for name, path in pages.items():
        if name == "dispute, as the arbiter":
            sign_in_as(page, live_server, "zed")
        response = page.goto(live_server.url + path)
        assert response is not None and response.status == 200, name
        if overflow(page) > 0:
            wide[name] = f"{overflow(page)} px: {widest(page)}"
            page.screenshot(path=str(SCREENSHOTS / f"long-{name}-{width}.png"))
        if cut := untitled_cut_names(page):
            untitled[name] = cut
    assert not wide, f"pages wider than a {width} px window: {wide}"
    assert not untitled, f"names cut short without a title: {untitled}"


def test_the_list_cuts_long_names_and_keeps_them_in_titles(
        page: Page, live_server: LiveServer, long_names: Long) -> None:
    page.goto(f"{live_server.url}/replays/games/")
    row = page.locator(f'tr[data-game-id="{long_names.game.id}"]')
    # Players show as people read them (imported:x... is "x... (imported)"), the ruleset
    # under its preset's name (house rules marked).
    listed = GameSummary.objects.get(pk=long_names.game.id).ruleset
    for selector, text in ((".seat-name", SEAT), (".player", display_player(PLAYER)),
                           (".ruleset-name", listed), (".tournament", TOURNAMENT)):
        cell = row.locator(selector).filter(has_text=text[:20])
        assert cell.get_attribute("title") == text, selector
        box = cell.bounding_box()
        assert box is not None and box["width"] < 400, (selector, box)
    # The list files a ruleset under its preset: a file's own name stays with the game.
    assert row.locator(".ruleset-name").inner_text() == "classic (house rules)"
    page.screenshot(path=str(SCREENSHOTS / "long-names-game-list.png"), full_page=True)
