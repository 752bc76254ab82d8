"""On a phone (390x844) what the page says about a press is shown by the moves, where the
finger is: the notice that a button changed under it and the confirmation a press asks
for (a harvest that pays nothing, ending trading with offers waiting). The moves' panel
is ``display: contents`` there, and these two boxes are its siblings (static/js/table.js
puts them before and after it), so their order must be set on them as children of
``.live``: else they fall to the bottom of the page, below the other seats and the move
log, and a tap's question is asked out of sight (or the page jumps there)."""

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
  const top = (selector) => rect(selector).top + scrollY;
  const bottom = (selector) => rect(selector).bottom + scrollY;
  return {moves: top('.live-moves .move-list'), notice: bottom('.move-notice'),
          confirm: top('.move-confirm'), log: top('.live-log-box'),
          seat: top('.live-table .rt-seat.is-you'),
          buttons: [...confirm.querySelectorAll('button')].map(
            (b) => Math.round(b.getBoundingClientRect().height))};
}"""
"""Where the notice (its bottom) and the confirmation (its top) show, shown by hand,
against the moves (their top), one's own seat and the move log (document coordinates)."""


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
        for box in ("notice", "confirm"):
            # right by the moves: above one's own seat, far above the move log
            assert places[box] < places["seat"], (box, places)
            assert places[box] < places["log"], (box, places)
        # the notice just above the moves, the confirmation just below them
        assert places["notice"] <= places["moves"] + 1, places
        assert places["confirm"] >= places["moves"], places
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
