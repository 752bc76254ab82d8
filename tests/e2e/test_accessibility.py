"""Accessibility in a real Chromium: axe-core (``axe-playwright-python``, which ships
axe.min.js in its wheel: nothing is fetched at run time) over the lobby, the table
waiting, being played and ended, the replay viewer and the rules page, at a laptop's
width and a phone's: no serious or critical violation."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from axe_playwright_python.base import AXE_FILE_PATH
from axe_playwright_python.sync_playwright import Axe
from channels.testing import ChannelsLiveServerTestCase
from django.contrib.auth.models import User
from django.test import override_settings
from playwright.sync_api import Page, sync_playwright

from bohnanza_core.bots.turns import fallback
from bohnanza_core.engine import awaiting
from play.models import Table
from play.tables import create_table, start
from replays.store import games, reset_games
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, _require_chromium, sign_in
from tests.factories import bot_game

pytestmark = pytest.mark.e2e

SERIOUS = ("serious", "critical")
SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"


def _violations(page: Page) -> list[str]:
    """The serious and critical violations axe finds on the page as it is now."""
    found = Axe().run(page).response["violations"]
    return [f"{v['id']} ({v['impact']}): {v['help']} at "
            + "; ".join(", ".join(n["target"]) for n in v["nodes"][:3])
            for v in found if v["impact"] in SERIOUS]


def test_axe_core_comes_in_the_wheel() -> None:
    """The script axe runs is the package's own file, not a download."""
    script = AXE_FILE_PATH.read_text(encoding="utf-8")
    assert AXE_FILE_PATH.is_file() and script.startswith("/*! axe v4.")
    assert len(script) > 100_000


def _finish(table: Table) -> None:
    """Play a running game to its end by the default moves (the clock's)."""
    game = games().game(table.game_id)
    while not game.finished:
        games().play_on(game, fallback(game.state, awaiting(game.state)[0]), "clock")


# Bots slower than the test: the tables stay where the test put them.
@override_settings(PLAY_BOT_PACE_SECONDS=600)
class AccessibilityTest(ChannelsLiveServerTestCase):
    serve_static = True

    def test_the_pages_people_play_on_have_no_serious_violation(self) -> None:
        _require_chromium()
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
        reset_games()
        ann = User.objects.create_user("ann", password="pw-live-123")
        waiting = create_table(ann, "classic", 3, seats=["open", "open", "heuristic"],
                               move_seconds=30, game_seconds=120)
        playing = start(create_table(ann, "classic", 3,
                                     seats=["open", "heuristic", "heuristic"]), ann)
        ended = start(create_table(ann, "duel", 2, seats=["open", "random"]), ann)
        _finish(ended)
        replay = bot_game("axe-replay")
        pages = {
            "lobby": ("/play/", ".table-form"),
            "waiting": (f"/play/tables/{waiting.id}/", ".room-seats"),
            "playing": (f"/play/tables/{playing.id}/", ".live-moves .move-list button"),
            "ended": (f"/play/tables/{ended.id}/", ".live-end:not([hidden])"),
            "viewer": (f"/replays/games/{replay.id}/?step=60", ".rt-seat"),
            "rules": ("/rules/", ".beans-table"),
            "home": ("/", ".ways-in"),
        }
        found: dict[str, list[str]] = {}
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                             args=CHROMIUM_ARGS)
            for width, height in ((1280, 800), (390, 844)):
                context = browser.new_context(viewport={"width": width, "height": height})
                page = context.new_page()
                sign_in(page, self.live_server_url, "ann", "pw-live-123")
                for name, (path, ready) in pages.items():
                    page.goto(self.live_server_url + path)
                    page.wait_for_selector(ready, timeout=15_000)
                    page.screenshot(path=str(SCREENSHOTS / f"a11y-{name}-{width}.png"),
                                    full_page=True)
                    problems = _violations(page)
                    if problems:
                        found[f"{name} at {width}px"] = problems
                context.close()
            browser.close()
        assert not found, found
