"""A table's waiting room in a real Chromium, over a real daphne: it follows its seats by
itself. Ann creates a table for three in the lobby (open, open, a bot); when bob joins
from another browser, ann's room shows him in his seat and her Start button enabled
without anyone reloading her page; when he leaves, the seat is open again; when ann (the
table's creator) leaves, the table is closed and bob's room says so, with a way back
to the lobby, instead of seats that no longer exist."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.contrib.auth.models import User
from playwright.sync_api import Browser, Page, expect, sync_playwright

from play.models import Table
from replays.store import reset_games
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, _require_chromium, sign_in

pytestmark = pytest.mark.e2e

SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
TIMEOUT = 10_000
"""Milliseconds a room may take to show a change made in another browser."""


class RoomTest(ChannelsLiveServerTestCase):
    serve_static = True

    def _signed_in(self, browser: Browser, name: str) -> Page:
        page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        sign_in(page, self.live_server_url, name, "pw-room-123")
        return page

    def test_the_room_follows_joins_and_leaves_and_says_when_it_is_closed(self) -> None:
        _require_chromium()
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
        reset_games()
        for name in ("ann", "bob"):
            User.objects.create_user(name, password="pw-room-123")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                             args=CHROMIUM_ARGS)
            ann = self._signed_in(browser, "ann")
            ann.goto(f"{self.live_server_url}/play/")
            ann.fill("#id_players", "3")
            # The form offers a seat picker for each of the 3 seats, no more.
            expect(ann.locator("#id_seat_2")).to_be_visible()
            expect(ann.locator("#id_seat_3")).to_be_hidden()
            expect(ann.locator("#id_seat_6")).to_be_hidden()
            ann.select_option("#id_seat_0", "open")
            ann.select_option("#id_seat_1", "open")
            ann.select_option("#id_seat_2", "heuristic")
            ann.get_by_role("button", name="Create the table").click()
            ann.wait_for_url(re.compile(r".*/play/tables/[0-9a-f-]{36}/$"))
            room_url = ann.url
            seats = ann.locator(".room-seats li")
            start = ann.get_by_role("button", name="Start")
            expect(seats).to_have_count(3)
            expect(seats.nth(0)).to_have_text("ann")
            expect(seats.nth(1)).to_have_text("open seat")
            expect(start).to_be_disabled()
            # Cleared only by a load of the page: that it is gone after bob's join says
            # the page drew the room again by itself (the test never reloads it).
            ann.evaluate("window.drawnByTheTest = true")

            bob = self._signed_in(browser, "bob")
            bob.goto(room_url)
            bob.get_by_role("button", name="Join").click()
            expect(bob.get_by_role("button", name="Leave")).to_be_visible()
            expect(seats.nth(1)).to_have_text("bob", timeout=TIMEOUT)
            expect(start).to_be_enabled()
            assert ann.evaluate("window.drawnByTheTest") is None
            ann.screenshot(path=str(SCREENSHOTS / "room-bob-joined.png"), full_page=True)

            bob.get_by_role("button", name="Leave").click()
            expect(bob.get_by_role("button", name="Join")).to_be_visible()
            expect(seats.nth(1)).to_have_text("open seat", timeout=TIMEOUT)
            expect(start).to_be_disabled()

            # bob sits again; ann, the table's creator, leaves: the table is closed.
            bob.get_by_role("button", name="Join").click()
            expect(bob.get_by_role("button", name="Leave")).to_be_visible()
            expect(start).to_be_enabled(timeout=TIMEOUT)
            ann.get_by_role("button", name="Leave").click()
            ann.wait_for_url(f"{self.live_server_url}/play/")
            closed = bob.locator(".room-closed")
            expect(closed).to_be_visible(timeout=TIMEOUT)
            expect(closed).to_contain_text("This table was closed before its game started.")
            expect(bob.locator(".room-seats")).to_be_hidden()
            expect(bob.get_by_role("button", name="Leave")).to_be_hidden()
            bob.screenshot(path=str(SCREENSHOTS / "room-closed.png"), full_page=True)
            closed.get_by_role("link", name="Back to the lobby").click()
            bob.wait_for_url(f"{self.live_server_url}/play/")
            browser.close()
        assert not Table.objects.exists()
