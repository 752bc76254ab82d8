"""At 390 px (a phone) no page of play is wider than the screen, in English and in
Hungarian (the longest words): the lobby, My games and the live table, running and
ended; a table too wide for it scrolls inside its own box. The lobby's new-table form
has controls a finger tall (44 px), as the table page has. Screenshots go to
var/screenshots/."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.conf import settings
from django.contrib.auth.models import User
from django.test import override_settings
from playwright.sync_api import Browser, Page, sync_playwright

from play.tables import create_table, start
from replays.store import reset_games
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, _require_chromium, sign_in
from tests.factories import bot_game

pytestmark = pytest.mark.e2e

SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
PHONE = {"width": 390, "height": 844}

WIDEST = """() => {
  const over = [...document.querySelectorAll('body *')].filter((e) => {
    const r = e.getBoundingClientRect();
    return r.width && r.right > innerWidth + 0.5 && !e.closest('.visually-hidden');
  }).slice(0, 5).map((e) => e.tagName + '.' + e.className + ' ' + Math.round(
    e.getBoundingClientRect().right));
  return {width: document.documentElement.scrollWidth, over};
}"""
"""The page's width, and the first elements reaching past the screen's right edge."""

FORM_CONTROLS = """() => [...document.querySelectorAll(
    '.table-form input:not([type=hidden]), .table-form select, '
    + '.table-form button, .table-form summary')]
  .filter((e) => e.getClientRects().length)
  .map((e) => [e.name || e.textContent.trim().slice(0, 30),
               Math.round((e.type === 'checkbox' ? e.closest('label') || e.labels[0] || e : e)
                          .getBoundingClientRect().height)])
  .filter(([, h]) => h < 44)"""


@override_settings(PLAY_BOT_PACE_SECONDS=0)
class PhoneWidthsTest(ChannelsLiveServerTestCase):
    serve_static = True

    def _page(self, browser: Browser, language: str) -> Page:
        context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
        page = context.new_page()
        sign_in(page, self.live_server_url, "ann", "pw-live-123")
        context.add_cookies([{"name": settings.LANGUAGE_COOKIE_NAME, "value": language,
                              "url": self.live_server_url}])
        return page

    def test_nothing_is_wider_than_the_phone(self) -> None:
        _require_chromium()
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
        reset_games()
        ann = User.objects.create_user("ann", password="pw-live-123")
        bot_game("phone-widths", bots=("heuristic", "random", "random"),
                 players=("user:ann", "bot:random", "bot:random"))
        table = start(create_table(ann, "classic", 3, seats=["open", "heuristic", "heuristic"]),
                      ann)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        widths: dict[str, dict[str, object]] = {}
        small: dict[str, list[object]] = {}
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                             args=CHROMIUM_ARGS)
            for language in ("en", "hu"):
                page = self._page(browser, language)
                page.goto(f"{self.live_server_url}/play/")
                page.screenshot(path=str(SCREENSHOTS / f"phone-lobby-{language}.png"),
                                full_page=True)
                widths[f"lobby {language}"] = page.evaluate(WIDEST)
                small[language] = page.evaluate(FORM_CONTROLS)
                page.click(".site-nav a[href*='mine'], .site-nav a:nth-child(3)")
                page.wait_for_load_state()
                page.screenshot(path=str(SCREENSHOTS / f"phone-mygames-{language}.png"),
                                full_page=True)
                widths[f"my games {language}"] = page.evaluate(WIDEST)
                page.goto(f"{self.live_server_url}/play/tables/{table.id}/")
                page.wait_for_selector(".live-table .rt-seat.is-you .rt-hand")
                page.wait_for_selector(".live-moves .move-list button.move")
                page.screenshot(path=str(SCREENSHOTS / f"phone-running-{language}.png"))
                widths[f"table {language}"] = page.evaluate(WIDEST)
                page.context.close()
            # Ann leaves: the bots play the game to its end.
            page = self._page(browser, "en")
            page.goto(f"{self.live_server_url}/play/tables/{table.id}/")
            page.click(".live-leave summary")
            page.click(".live-leave-confirm")
            page.wait_for_selector(".live-end:not([hidden]) .live-summary table",
                                   timeout=120_000)
            for language in ("en", "hu"):
                page.context.add_cookies([{"name": settings.LANGUAGE_COOKIE_NAME,
                                           "value": language, "url": self.live_server_url}])
                page.goto(f"{self.live_server_url}/play/tables/{table.id}/")
                page.wait_for_selector(".live-end:not([hidden]) .live-summary table")
                page.screenshot(path=str(SCREENSHOTS / f"phone-ended-{language}.png"),
                                full_page=True)
                widths[f"ended {language}"] = page.evaluate(WIDEST)
            browser.close()
        wide = {k: v for k, v in widths.items()
                if v["width"] > PHONE["width"]}  # type: ignore[operator]
        assert not wide, wide
        assert small == {"en": [], "hu": []}, small
