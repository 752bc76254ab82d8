"""Leaving a running game in a real Chromium, over a real daphne: Ann opens the table,
leaves it through the page's button (after its confirmation), and watches the table's
bot finish the game in her seat; the page says who plays the seat now."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.contrib.auth.models import User
from django.test import override_settings
from playwright.sync_api import Page, expect, sync_playwright

from bohnanza_core.events import Handover, SeatHandedToBot
from play.models import Seat, Table
from play.tables import create_table, start
from replays.store import games, reset_games
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, _require_chromium, sign_in

pytestmark = pytest.mark.e2e

SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
SHORT = {"beans": ["wax", "blue", "chili", "stink"]}


@override_settings(PLAY_BOT_PACE_SECONDS=0.02)
class TakeoverTest(ChannelsLiveServerTestCase):
    serve_static = True

    def _signed_in(self, page: Page, name: str) -> None:
        sign_in(page, self.live_server_url, name, "pw-live-123")

    def test_a_player_leaves_and_the_bot_finishes_the_game(self) -> None:
        _require_chromium()
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
        reset_games()
        ann = User.objects.create_user("ann", password="pw-live-123")
        table = create_table(ann, "classic", 3, seats=["open", "heuristic", "random"],
                             overrides=SHORT)
        table = start(table, ann)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                             args=CHROMIUM_ARGS)
            page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
            self._signed_in(page, "ann")
            page.goto(f"{self.live_server_url}/play/tables/{table.id}/")
            page.wait_for_selector(".live-table .rt")
            expect(page.locator(".live-moves .move").first).to_be_visible()
            # The confirmation: the button opens it; leaving needs a second, plain click.
            confirm = page.locator(".live-leave-confirm")
            expect(confirm).to_be_hidden()
            page.click(".live-leave summary")
            expect(confirm).to_be_visible()
            expect(page.locator(".live-leave form")).to_contain_text("heuristic bot")
            page.screenshot(path=str(SCREENSHOTS / "takeover-confirm.png"), full_page=True)
            confirm.click()
            page.wait_for_load_state()
            expect(page.locator(".live-left")).to_contain_text("You left this game")
            expect(page.locator(".live-leave")).to_have_count(0)
            expect(page.locator(".live-moves")).to_have_count(0)
            seat = page.locator('.live-table .rt-seat[data-seat="0"]')
            expect(seat.locator(".rt-badge-bot")).to_contain_text("played by the heuristic bot")
            # Its badges have a line of their own: none is cut ("to play" beside "played
            # by the heuristic bot" was, to nothing), even where the seats are narrow.
            page.set_viewport_size({"width": 1000, "height": 900})
            expect(seat.locator(".rt-badge-turn")).to_be_visible(timeout=60_000)
            badges = seat.locator(".rt-badges")
            assert badges.evaluate("b => b.scrollWidth - b.clientWidth") <= 0
            page.set_viewport_size({"width": 1280, "height": 900})
            # The page came back as a spectator's: the bot's moves in Ann's seat follow.
            expect(page.locator(".live-log")).to_contain_text("ann ")
            page.wait_for_selector(".live-end:not([hidden])", timeout=120_000)
            page.screenshot(path=str(SCREENSHOTS / "takeover-end.png"), full_page=True)
            expect(seat.locator(".rt-badge-bot")).to_be_visible()
            # The live table is a spectator's (no seat is "you"); the end's drawings come
            # from the finished game's replay, where nothing is hidden any more.
            expect(page.locator(".live-table .rt-seat.is-you")).to_have_count(0)
            browser.close()
        stored = Table.objects.get(pk=table.pk)
        game = games().game(stored.game_id)
        assert game.finished
        record = games().record(game.id)
        handed = [(e.event, e.actor) for e in record if isinstance(e.event, SeatHandedToBot)]
        assert handed == [(SeatHandedToBot(0, "heuristic", Handover.LEFT), "user:ann")]
        after = [e.actor for e in record[record.index(next(
            e for e in record if isinstance(e.event, SeatHandedToBot))) + 1:]]
        assert "bot:heuristic" in after and "user:ann" not in after
        seat_row = Seat.objects.get(table=stored, number=0)
        assert (seat_row.bot, seat_row.handover) == ("heuristic", "left")


# A class of its own: a ChannelsLiveServerTestCase's daphne serves one test's database.
@override_settings(PLAY_BOT_PACE_SECONDS=1.0)  # the game runs on while it is looked at
class TakeoverClockTest(ChannelsLiveServerTestCase):
    serve_static = True

    def test_a_seat_handed_to_its_bot_shows_the_bot_not_a_dead_clock(self) -> None:
        """A clocked table: once Ann's seat is handed to its bot, the clocks' bar names
        the bot for that seat instead of its bank (spent while she was away, it read
        "0:00 bank 0:00"); the other seats keep their clocks."""
        _require_chromium()
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
        reset_games()
        ann = User.objects.create_user("ann", password="pw-live-123")
        table = start(create_table(ann, "classic", 3, seats=["open", "heuristic", "random"],
                                   overrides=SHORT, move_seconds=30, game_seconds=60), ann)
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                             args=CHROMIUM_ARGS)
            for width, height in ((1366, 900), (390, 844)):
                page = browser.new_context(viewport={"width": width, "height": height}
                                           ).new_page()
                sign_in(page, self.live_server_url, "ann", "pw-live-123")
                page.goto(f"{self.live_server_url}/play/tables/{table.id}/")
                page.wait_for_selector(".live-table .rt")
                mine = page.locator('.live-clocks .live-clock[data-seat="0"]')
                if width == 1366:
                    expect(mine.locator(".live-clock-bank")).to_be_visible()
                    page.click(".live-leave summary")
                    page.locator(".live-leave-confirm").click()
                    page.wait_for_load_state()
                    expect(page.locator(".live-left")).to_contain_text("You left this game")
                expect(mine).to_contain_text("played by the heuristic bot")
                expect(mine.locator(".live-clock-bank")).to_have_count(0)
                expect(page.locator('.live-clocks .live-clock[data-seat="1"] '
                                    '.live-clock-bank')).to_be_visible()
                page.locator(".live-clocks").screenshot(
                    path=str(SCREENSHOTS / f"takeover-clocks-{width}.png"))
                page.screenshot(path=str(SCREENSHOTS / f"takeover-clock-{width}.png"))
                page.context.close()
            browser.close()
