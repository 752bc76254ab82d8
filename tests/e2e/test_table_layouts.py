"""The live table laid out for the hand that holds it, in a real Chromium over a real
daphne: on a phone (390x844) one's hand, fields and the face-up cards are on the first
screen together with the moves, every move a finger can hit (44 px), and a field that
could mean two moves asks which; at 1280 px the longest translations (Hungarian,
Finnish) keep the header on one line and one's own seat badges whole. Screenshots go to
var/screenshots/ (looked at when the layout changes)."""

from __future__ import annotations

import contextlib
import os
import re
import time
from pathlib import Path

import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.conf import settings
from django.contrib.auth.models import User
from django.test import override_settings
from playwright.sync_api import Browser, Page, sync_playwright

from play.models import Table
from play.tables import create_table, start
from replays.store import reset_games
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, _require_chromium, sign_in

pytestmark = pytest.mark.e2e

SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}

BOXES = """() => {
  const box = (selector) => {
    const e = document.querySelector(selector);
    if (!e) return null;
    const r = e.getBoundingClientRect();
    return {top: r.top + scrollY, bottom: r.bottom + scrollY, left: r.left, right: r.right,
            width: r.width, height: r.height};
  };
  return {
    hand: box('.live-table .rt-seat.is-you .rt-hand'),
    fields: box('.live-table .rt-seat.is-you .rt-fields'),
    faceup: box('.live-table .rt-faceup'),
    moves: box('.live-moves .move-list'),
    offer: box('.live-moves .offer-form'),
    page: document.documentElement.scrollWidth,
  };
}"""
"""Where the parts of the table are on the page (document coordinates)."""

SMALL_TARGETS = """() => [...document.querySelectorAll(
    '.live-moves button, .live-moves input, .live-moves select, .live-moves label')]
  .filter((e) => e.getClientRects().length)
  .map((e) => [e.tagName + ' ' + (e.textContent || e.name || '').trim().slice(0, 40),
               // a box inside its label is hit through the label
               Math.round((e.closest('label') || e).getBoundingClientRect().height)])
  .filter(([, h]) => h < 44)"""
"""The move controls shorter than a finger (44 px, WCAG 2.5.5), a box in a label
measured by its label."""


LONG_NAME = "ann_with_a_rather_long_username"
"""A name the header cuts (``.who``), as long as it shows it."""


def _table_for_ann(name: str = "ann", **kw: int) -> tuple[User, Table]:
    _require_chromium()
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    reset_games()
    ann = User.objects.create_user(name, password="pw-live-123")
    table = create_table(ann, "classic", 3, seats=["open", "heuristic", "heuristic"], **kw)
    return ann, start(table, ann)


def _until_ann_trades(page: Page) -> None:
    """Click ann's moves (never harvesting nor ending trading) until it is her trading
    phase: face-up cards on the table, the offer form among her moves."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if page.query_selector(".live-moves .offer-form") and page.query_selector(
                ".live-table .rt-seat.is-you.is-active") and page.query_selector(
                ".live-table .rt-faceup [data-card]"):
            return
        buttons = page.query_selector_all(".live-moves .move-list button.move")
        for button in buttons:
            if (button.get_attribute("data-kind") or "") in ("plant_from_hand",
                                                               "end_planting"):
                with contextlib.suppress(Exception):  # redrawn under the pointer: again
                    button.click(timeout=1000)
                break
        page.wait_for_timeout(200)
    raise AssertionError("ann's trading phase never came")


@override_settings(PLAY_BOT_PACE_SECONDS=0.05)
class PhoneLayoutTest(ChannelsLiveServerTestCase):
    """ann against two bots, on a 390x844 phone."""

    serve_static = True

    def _page(self, browser: Browser, viewport: dict[str, int], language: str,
              name: str = "ann") -> Page:
        context = browser.new_context(viewport=viewport, has_touch=viewport is PHONE,
                                      is_mobile=viewport is PHONE)
        page = context.new_page()
        sign_in(page, self.live_server_url, name, "pw-live-123")  # the form in English
        context.add_cookies([{"name": settings.LANGUAGE_COOKIE_NAME, "value": language,
                              "url": self.live_server_url}])
        return page

    def test_the_phone_shows_hand_fields_and_face_up_cards_with_the_moves(self) -> None:
        _ann, table = _table_for_ann()
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                             args=CHROMIUM_ARGS)
            page = self._page(browser, PHONE, "en")
            page.goto(f"{self.live_server_url}/play/tables/{table.id}/")
            page.wait_for_selector(".live-table .rt")
            page.wait_for_selector(".live-moves .move-list button.move")
            page.screenshot(path=str(SCREENSHOTS / "phone-planting.png"))
            _until_ann_trades(page)
            page.screenshot(path=str(SCREENSHOTS / "phone-trading.png"))
            page.screenshot(path=str(SCREENSHOTS / "phone-trading-full.png"), full_page=True)
            boxes = page.evaluate(BOXES)
            small = page.evaluate(SMALL_TARGETS)
            chosen = self._a_field_that_means_two_moves(page)
            browser.close()
        screen = PHONE["height"]
        assert boxes["page"] <= PHONE["width"], boxes  # nothing wider than the phone
        for part in ("hand", "fields", "faceup", "moves"):
            assert boxes[part] is not None, part
            assert boxes[part]["bottom"] <= screen, (part, boxes[part])
        # The offer form above the cards it offers: hand and face-up cards right below it.
        assert boxes["offer"] is not None
        assert small == [], small
        # A field that could mean two moves asked which, each choice a finger tall.
        assert len(chosen) >= 2 and all(height >= 44 for _label, height in chosen), chosen

    def _a_field_that_means_two_moves(self, page: Page) -> list[tuple[str, int]]:
        """Play on by clicks until one of ann's fields means two moves (a card planted
        there or the field harvested, two face-up cards that fit it, ...): tapped, it
        offers the choice, which is looked at and cancelled."""
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            labels = page.eval_on_selector_all(
                ".live-moves .move-list button.move", "bs => bs.map(b => b.textContent)")
            counts: dict[str, int] = {}
            for label in labels:
                for number in re.findall(r"field (\d)", label):
                    counts[number] = counts.get(number, 0) + 1
            two = [n for n, c in counts.items() if c >= 2]
            if two:
                page.click(f".live-table .rt-seat.is-you [data-field='{two[0]}']")
                if page.query_selector(".move-choice"):
                    break
            elif labels:
                with contextlib.suppress(Exception):  # redrawn under the pointer
                    page.click(".live-moves .move-list button.move >> nth=0", timeout=1000)
            page.wait_for_timeout(200)
        else:
            raise AssertionError("no field of ann's meant two moves")
        page.screenshot(path=str(SCREENSHOTS / "phone-field-choice.png"))
        chosen = page.eval_on_selector_all(
            ".move-choice button.move-chosen",
            "bs => bs.map(b => [b.textContent, Math.round(b.getBoundingClientRect().height)])")
        page.click(".move-choice button.move-cancel")
        assert page.query_selector(".move-choice") is None
        return [(label, height) for label, height in chosen]


SMALL_LAPTOP = {"width": 1366, "height": 768}


@override_settings(PLAY_BOT_PACE_SECONDS=0.05)
class SmallLaptopLayoutTest(ChannelsLiveServerTestCase):
    """ann against two bots on a clocked table, on a 1366x768 laptop."""

    serve_static = True
    _page = PhoneLayoutTest._page

    def test_the_trading_phase_fits_one_screen(self) -> None:
        """In her own trading phase, with the offer form shown: the moves, the face-up
        cards, her fields and hand and the offer form are all on the first screen."""
        _ann, table = _table_for_ann(move_seconds=600, game_seconds=600)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                             args=CHROMIUM_ARGS)
            page = self._page(browser, SMALL_LAPTOP, "en")
            page.goto(f"{self.live_server_url}/play/tables/{table.id}/")
            page.wait_for_selector(".live-table .rt")
            page.wait_for_selector(".live-clocks:not([hidden])")
            _until_ann_trades(page)
            page.screenshot(path=str(SCREENSHOTS / "laptop-1366-trading.png"))
            boxes = page.evaluate(BOXES)
            scrolled = page.evaluate("scrollY")
            browser.close()
        assert scrolled == 0
        for part in ("hand", "fields", "faceup", "moves", "offer"):
            assert boxes[part] is not None, part
            assert boxes[part]["top"] >= 0 and boxes[part]["bottom"] <= SMALL_LAPTOP["height"], (
                part, boxes[part])
        assert boxes["page"] <= SMALL_LAPTOP["width"], boxes


HEADER = """() => {
  const wrap = document.querySelector('.site-header .wrap');
  const items = [document.querySelector('.site-header .brand'),
                 ...document.querySelectorAll('.site-nav > *')]
    .filter((e) => e.getClientRects().length);
  const tops = items.map((e) => Math.round(e.getBoundingClientRect().top
                                             + e.getBoundingClientRect().height / 2));
  return {lines: new Set(tops.map((t) => Math.round(t / 10))).size,
          height: wrap.getBoundingClientRect().height,
          texts: items.map((e) => e.textContent.trim())};
}"""
"""How many lines the header takes (items grouped by their middle, 10 px apart)."""

BADGES = """() => {
  const seat = document.querySelector('.live-table .rt-seat.is-you');
  const coins = seat.querySelector('.rt-coins').getBoundingClientRect();
  const box = seat.getBoundingClientRect();
  return [...seat.querySelectorAll('.rt-badge')].map((b) => {
    const r = b.getBoundingClientRect();
    const overCoins = r.left < coins.right && r.right > coins.left
                      && r.top < coins.bottom && r.bottom > coins.top;
    return {text: b.textContent.trim(), clipped: b.scrollWidth > b.clientWidth + 1
            || r.right > box.right + 0.5 || overCoins};
  });
}"""
"""One's own seat's badges, each whole and clear of the coins."""


@override_settings(PLAY_BOT_PACE_SECONDS=0.05)
class LongestWordsTest(ChannelsLiveServerTestCase):
    """The live table at 1280x800 in Hungarian and Finnish, the longest translations:
    the header stays on one line, one's own seat's badges whole."""

    serve_static = True
    _page = PhoneLayoutTest._page

    def test_hungarian_and_finnish_fit(self) -> None:
        _ann, table = _table_for_ann(LONG_NAME)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        found = {}
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                             args=CHROMIUM_ARGS)
            for language in ("hu", "fi"):
                page = self._page(browser, LAPTOP, language, LONG_NAME)
                page.goto(f"{self.live_server_url}/play/tables/{table.id}/")
                page.wait_for_selector(".live-table .rt-seat.is-you .rt-badge-turn")
                assert page.get_attribute("html", "lang") == language
                page.screenshot(path=str(SCREENSHOTS / f"laptop-{language}.png"))
                found[language] = (page.evaluate(HEADER), page.evaluate(BADGES))
                page.context.close()
            browser.close()
        for language, (header, badges) in found.items():
            assert header["lines"] == 1, (language, header)
            assert len(badges) >= 2 and not [b for b in badges if b["clipped"]], (
                language, badges)
