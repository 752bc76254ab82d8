"""A people's Swiss in a real Chromium over a real daphne (issue 28, item 9): Ann makes
a Swiss of two rounds at tables of two from the competitions' "new" page, open for
entries with a cap, entering two built-in bots; Ann and Bob (two browser contexts) sign
up on its page, Ann starts it, and each opens their live table from "Your games" and
plays it by clicks (the clock would play for whoever stops). The bots' own game is
played by the server's process (standing in for the workers). When round 1's games
have ended the round 2 tables appear in "Your games", paired from round 1's results,
and the competition ends with its standings. Screenshots: ``var/screenshots/
peoples-swiss-signup.png``, ``peoples-swiss-table.png``, ``peoples-swiss-round2.png``,
``peoples-swiss-finished.png``."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.contrib.auth.models import User
from django.test import override_settings
from django.utils import timezone
from playwright.sync_api import Browser, Page, expect, sync_playwright

from bohnanza_core.formats import History
from replays.store import reset_games
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, _require_chromium, sign_in
from tests.e2e.test_live_table import _version, _wait_moved
from tests.live_server import SweepingDaphne
from tests.tournaments.conftest import wipe_competitions
from tournaments import tasks
from tournaments.core import rounds
from tournaments.core.games import play_deals
from tournaments.core.store import competitions, reset_competitions
from tournaments.models import CompetitionGame, CompetitionTable

pytestmark = pytest.mark.e2e

SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
PASSWORD = "pw-swiss-1234"


def play_here(competition_id: UUID, r: int, deals: Sequence[int]) -> None:
    """The workers' part, done by the server's process itself: a round's bots-only
    deals played and stored, and the competition moved on."""
    for deal in deals:
        play_deals(competition_id, r, [deal])
    rounds.advance(competition_id, play_here)


@override_settings(PLAY_BOT_PACE_SECONDS=0.02, PLAY_SWEEP_SECONDS=0.2)
class PeoplesSwissTest(ChannelsLiveServerTestCase):
    serve_static = True
    ProtocolServerProcess = SweepingDaphne

    @classmethod
    def setUpClass(cls) -> None:
        # Before daphne's process is forked, so that it plays the bots' deals itself.
        cls._send = tasks.send_deals
        tasks.send_deals = play_here
        super().setUpClass()

    @classmethod
    def tearDownClass(cls) -> None:
        super().tearDownClass()
        tasks.send_deals = cls._send

    def setUp(self) -> None:
        super().setUp()
        reset_games()
        reset_competitions()
        wipe_competitions()

    def tearDown(self) -> None:
        wipe_competitions()
        reset_competitions()
        reset_games()
        super().tearDown()

    def _signed_in(self, browser: Browser, name: str) -> Page:
        page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        sign_in(page, self.live_server_url, name, PASSWORD)
        return page

    def test_two_people_and_two_bots_play_a_swiss(self) -> None:
        _require_chromium()
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
        for name in ("ann", "bob"):
            User.objects.create_user(name, password=PASSWORD)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        base = self.live_server_url
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                             args=CHROMIUM_ARGS)
            ann, bob = people = [self._signed_in(browser, n) for n in ("ann", "bob")]
            ann.goto(f"{base}/tournaments/new/")
            ann.get_by_role("link", name="Swiss").click()
            expect(ann).to_have_url(f"{base}/tournaments/new/swiss/")
            ann.fill("#id_name", "Friday Swiss")
            ann.select_option("#id_ruleset", "duel")
            ann.fill("#id_table", "2")
            ann.fill("#id_bots", "heuristic, random")
            # Short games (four kinds, one pass through the deck): the people play by clicks.
            ann.fill("#id_rules", 'beans=["wax", "blue", "chili", "stink"]\nends_on_run_out=1')
            ann.fill("#id_rounds", "2")
            ann.check("#id_open_entries")
            deadline = timezone.localtime() + timedelta(days=2)
            ann.fill("#id_deadline", deadline.strftime("%Y-%m-%dT%H:%M"))
            ann.fill("#id_cap", "4")
            ann.fill("#id_move_seconds", "10")
            ann.fill("#id_game_seconds", "120")
            ann.select_option("#id_absent", "clock")
            ann.get_by_role("button", name="Create").click()
            ann.wait_for_url(f"{base}/tournaments/*/")
            (cid,) = competitions().ids()
            page_url = f"{base}/tournaments/{cid}/"
            expect(ann).to_have_url(page_url)
            expect(ann.get_by_role("heading", name="Open for entries")).to_be_visible()
            expect(ann.locator(".sign-up")).to_contain_text("2 of 4 places taken.")
            ann.get_by_role("button", name="Sign up").click()
            expect(ann.locator(".message-success")).to_have_text(
                "You are entered in Friday Swiss.")
            bob.goto(page_url)
            bob.get_by_role("button", name="Sign up").click()
            expect(bob.locator(".sign-up")).to_contain_text("4 of 4 places taken.")
            expect(bob.get_by_role("button", name="Withdraw")).to_be_visible()
            ann.reload()
            ann.screenshot(path=str(SCREENSHOTS / "peoples-swiss-signup.png"), full_page=True)
            ann.get_by_role("button", name="Start the first round").click()

            swiss = competitions().get(cid)
            assert swiss.entrants == ["heuristic@builtin", "random@builtin", "user:ann",
                                      "user:bob"]
            for r in range(2):
                self._play_round(people, page_url, cid, r)
                # The round's last game is in; the server's process moves the
                # competition on just after (round 2 paired, or the end).
                _until(lambda r=r: competitions().get(cid).open_round == 1 if r == 0
                       else competitions().get(cid).finished, f"after round {r + 1}")
            for page in people:
                page.goto(page_url)
                expect(page.locator("#competition-status")).to_have_text("finished")
                expect(page.locator(".my-fixtures")).to_have_count(0)
            expect(ann.locator("table.standings tbody tr")).to_have_count(4)
            ann.screenshot(path=str(SCREENSHOTS / "peoples-swiss-finished.png"),
                           full_page=True)
            browser.close()
        swiss = competitions().get(cid)
        assert swiss.finished
        assert CompetitionGame.objects.filter(competition_id=cid).count() == 4
        met = {frozenset(p.seats) for p in swiss.rounds[0].games}
        assert frozenset({2, 3}) in met  # round 1: Ann against Bob, the bots together
        assert not met & {frozenset(p.seats) for p in swiss.rounds[1].games}
        # round 2 is the Swiss pairing of round 1's results
        after_first = History(4, 2, swiss.rounds[:1], swiss.results[:1], swiss.moves[:1])
        assert swiss.rules.next_round(after_first) == swiss.rounds[1]
        tables = CompetitionTable.objects.filter(competition_id=cid)
        assert [t.round for t in tables.order_by("round")] == [0, 1, 1]  # people's games

    def _play_round(self, people: list[Page], page_url: str, cid: UUID, r: int) -> None:
        """Each person opens their round ``r`` table from "Your games" on the
        competition's page and plays it by clicks until every game of the round is in."""
        for page in people:
            page.goto(page_url)
            links = page.locator(".my-fixtures li a")
            expect(links).to_have_count(1, timeout=20_000)
            if r == 1 and page is people[0]:
                page.screenshot(path=str(SCREENSHOTS / "peoples-swiss-round2.png"),
                                full_page=True)
            links.first.click()
            page.wait_for_selector(".live-table .rt")
        swiss = competitions().get(cid)
        wanted = len(swiss.rounds[r].games)
        shot = False
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            if CompetitionGame.objects.filter(competition_id=cid, round=r).count() == wanted:
                return
            moved = False
            for page in people:
                before = _version(page)
                if _click_first(page):
                    moved = True
                    _wait_moved(page, before, timeout=2000)
                    if not shot and r == 0 and int(before or 0) > 20:
                        page.screenshot(path=str(SCREENSHOTS / "peoples-swiss-table.png"),
                                        full_page=True)
                        shot = True
            if not moved:  # neither may move (a bot's turn, or the round's end coming)
                _wait_moved(people[0], _version(people[0]), timeout=1000)
        raise AssertionError(f"round {r + 1} did not end")


def _until(done: Any, what: str, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, f"the competition did not move on {what}"
        time.sleep(0.1)


def _click_first(page: Any) -> bool:
    buttons = page.query_selector_all(".live-moves button.move:not(.move-offer)")
    if not buttons:
        return False
    with contextlib.suppress(Exception):  # redrawn under the pointer: look again
        buttons[0].click(timeout=2000)
        # A harvest for nothing asks first, as it asks a player: yes.
        yes = page.query_selector(".move-confirm:not([hidden]) .move-yes")
        if yes is not None:
            yes.click(timeout=2000)
        return True
    return False
