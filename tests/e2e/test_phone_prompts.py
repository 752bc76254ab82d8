"""On a phone (390x844) what the page says about a press is shown where the reader looks,
and moves nothing: the notice that a button changed under it over the top of the screen,
the confirmation a press asks for (a harvest that pays nothing, ending trading with
offers waiting) over its bottom, as the "Which move?" panel. The moves' panel is
``display: contents`` there, and these two boxes are its siblings (static/js/table.js
puts them before and after it): in the page's flow they would push one's seat down
while they show (docs/table.md)."""

from __future__ import annotations

import os

import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.contrib.auth.models import User
from django.test import override_settings
from playwright.sync_api import sync_playwright

from play.tables import create_table, start
from replays.store import reset_games
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, _require_chromium, sign_in

pytestmark = pytest.mark.e2e

PHONE = {"width": 390, "height": 844}

PLACES = """() => {
  const seatTop = () => document.querySelector('.live-table .rt-seat.is-you')
    .getBoundingClientRect().top + scrollY;
  const before = seatTop();
  for (const box of document.querySelectorAll('.move-notice, .move-confirm')) {
    box.hidden = false;
    box.textContent = 'Harvesting field 1 pays nothing. Harvest it anyway?';
  }
  const confirm = document.querySelector('.move-confirm');
  for (const word of ['Yes', 'Cancel']) {  // as table.js's ask() makes them
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'move move-' + (word === 'Yes' ? 'yes' : 'no');
    b.textContent = word;
    confirm.appendChild(b);
  }
  const rect = (selector) => document.querySelector(selector).getBoundingClientRect();
  return {notice: [rect('.move-notice').top, rect('.move-notice').bottom],
          confirm: [rect('.move-confirm').top, rect('.move-confirm').bottom],
          before, seat: seatTop(), height: innerHeight,
          buttons: [...confirm.querySelectorAll('button')].map(
            (b) => Math.round(b.getBoundingClientRect().height))};
}"""
"""Where the notice and the confirmation show, shown by hand (top and bottom in the
screen's coordinates), and where one's own seat is before and after."""


@override_settings(PLAY_BOT_PACE_SECONDS=0.05)
class PhonePromptsTest(ChannelsLiveServerTestCase):
    serve_static = True

    def test_the_notice_and_the_confirmation_show_by_the_moves(self) -> None:
        _require_chromium()
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
        reset_games()
        ann = User.objects.create_user("ann", password="pw-live-123")
        table = start(create_table(ann, "classic", 3, seats=["open", "heuristic", "heuristic"]),
                      ann)
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                             args=CHROMIUM_ARGS)
            context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
            page = context.new_page()
            sign_in(page, self.live_server_url, "ann", "pw-live-123")
            page.goto(f"{self.live_server_url}/play/tables/{table.id}/")
            page.wait_for_selector(".live-moves .move-list button.move")
            places = page.evaluate(PLACES)
            browser.close()
        # on the screen: the notice at its top, the confirmation at its bottom
        assert places["notice"][0] == 0 and places["notice"][1] < places["height"] / 3, places
        assert places["confirm"][1] == places["height"], places
        assert places["confirm"][0] > places["height"] / 2, places
        # one's seat where it was
        assert places["seat"] == places["before"], places
        # its Yes and Cancel a finger tall, as the moves are (44 px)
        assert all(height >= 44 for height in places["buttons"]), places


HIDE_MOVES = """() => {
  document.querySelector('.live-moves').hidden = true;  // as live.js does at the end
  return [...document.querySelectorAll('.live-moves *')]
    .filter((e) => e.getClientRects().length).map((e) => e.textContent.slice(0, 40));
}"""
"""What of the moves still shows once the moves' panel is hidden (the game over, or the
player gone from it): its panel is ``display: contents`` on a phone, which the
``hidden`` attribute's ``display: none`` must still beat."""


@override_settings(PLAY_BOT_PACE_SECONDS=0.05)
class PhoneMovesHiddenTest(ChannelsLiveServerTestCase):
    serve_static = True

    def test_hidden_moves_are_gone_on_a_phone(self) -> None:
        _require_chromium()
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
        reset_games()
        ann = User.objects.create_user("ann", password="pw-live-123")
        table = start(create_table(ann, "classic", 3, seats=["open", "heuristic", "heuristic"]),
                      ann)
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                             args=CHROMIUM_ARGS)
            context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
            page = context.new_page()
            sign_in(page, self.live_server_url, "ann", "pw-live-123")
            page.goto(f"{self.live_server_url}/play/tables/{table.id}/")
            page.wait_for_selector(".live-moves .move-list button.move")
            shown = page.evaluate(HIDE_MOVES)
            browser.close()
        assert shown == [], shown
