"""The live table in Hungarian in a real Chromium, over a real daphne: a refusal the
server sends is shown in the page's words for its code (the socket's reason is the
server's English, the same for every reader), the rules' reason beside a move the rules
refused, the server's reason for a code the page does not know; a bot account at the
table is marked on the seats drawn, the clocks and the lobby's list. Screenshot:
``var/screenshots/live-refusal-hu.png``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.contrib.auth.models import User
from django.test import override_settings
from django.utils import translation
from playwright.sync_api import Page, WebSocketRoute, expect, sync_playwright

from play import refusals
from play.models import BotAccount, Table
from play.tables import create_table, join, start
from replays.store import reset_games
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, _require_chromium, sign_in

pytestmark = pytest.mark.e2e

SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
SHORT = {"beans": ["wax", "blue", "chili", "stink"]}


def _ann_robo_and_a_bot() -> Table:
    """ann in seat 0, robo (a bot account, which never connects) in seat 1, a built-in
    bot in seat 2; a clock, so that the page names the seats on its clocks too."""
    _require_chromium()
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    reset_games()
    ann = User.objects.create_user("ann", password="pw-live-123")
    robo = User.objects.create_user("robo")
    BotAccount.objects.create(user=robo, owner=ann)
    table = create_table(ann, "classic", 3, seats=["open", "open", "heuristic"],
                         overrides=SHORT, move_seconds=300, game_seconds=300)
    join(table, robo)
    return start(table, ann)


def _hungarian(code: str) -> str:
    with translation.override("hu"):
        return refusals.words()[code]


def _error(page: Page) -> str:
    page.wait_for_selector(".live-error:not([hidden])")
    return page.inner_text(".live-error")


@override_settings(PLAY_BOT_PACE_SECONDS=0.05)
class RefusalInTheReadersLanguageTest(ChannelsLiveServerTestCase):
    serve_static = True

    def test_a_refusal_is_shown_in_hungarian_by_its_code(self) -> None:
        table = _ann_robo_and_a_bot()
        sockets: list[WebSocketRoute] = []

        def route(socket: WebSocketRoute) -> None:
            socket.connect_to_server()  # both ways as they are; the test adds frames
            sockets.append(socket)

        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                             args=CHROMIUM_ARGS)
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            page = context.new_page()
            sign_in(page, self.live_server_url, "ann", "pw-live-123")
            context.add_cookies([{"name": "django_language", "value": "hu",
                                  "url": self.live_server_url}])
            page.route_web_socket("**/ws/tables/**", route)
            page.goto(f"{self.live_server_url}/play/tables/{table.id}/")
            page.wait_for_selector(".live-table .rt")
            # robo is marked on its seat and on the clocks, in Hungarian
            expect(page.locator(".live-table .rt-seat[data-seat='1']")).to_contain_text(
                "robo (botfiók)")
            expect(page.locator(".live-clock[data-seat='1'] .live-clock-name")).to_have_text(
                "robo (botfiók)")
            expect(page.locator(".live-clock[data-seat='0'] .live-clock-name")).to_have_text(
                "ann")

            # A real refusal: "done trading" while the game opens with planting.
            page.eval_on_selector(".live", "r => r.dispatchEvent(new CustomEvent('live:pass'))")
            told = _error(page)
            assert told == _hungarian(refusals.NOT_TRADING), told
            assert "trading" not in told  # not the server's English reason

            # A move the rules refused: the page's words, then the rules' own reason.
            reason = "only the active player (ann) may harvest now"
            sockets[0].send(json.dumps({"type": "error", "protocol": 3, "code": "illegal",
                                        "reason": reason, "ref": None, "version": None,
                                        "head_hash": None}))
            expect(page.locator(".live-error")).to_contain_text(_hungarian(refusals.ILLEGAL))
            expect(page.locator(".live-error .live-error-detail[lang='en']")).to_have_text(
                f" ({reason})")
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOTS / "live-refusal-hu.png"))

            # retry_after in whole seconds, rounded up
            sockets[0].send(json.dumps({"type": "error", "protocol": 3,
                                        "code": "too_many_refused", "reason": "wait 2.3 s",
                                        "ref": None, "version": None, "head_hash": None,
                                        "retry_after": 2.3}))
            expect(page.locator(".live-error")).to_have_text(
                _hungarian(refusals.TOO_MANY_REFUSED) % {"n": 3})

            # A code this page does not know (a newer server's): the server's reason.
            sockets[0].send(json.dumps({"type": "error", "protocol": 3,
                                        "code": "from_a_newer_server",
                                        "reason": "a reason only the server words",
                                        "ref": None, "version": None, "head_hash": None}))
            expect(page.locator(".live-error")).to_have_text("a reason only the server words")

            # The lobby's running games, as static/js/lobby.js writes them from its socket
            # (the server draws the seats in a span of their own), mark robo too.
            page.goto(f"{self.live_server_url}/play/")
            written = page.locator(".lobby-running li .lobby-entry-meta:not(:has(.lobby-seats))")
            expect(written).to_contain_text("ann, robo (botfiók), Heurisztikus bot")
            browser.close()
