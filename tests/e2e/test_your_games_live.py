"""A competition's "Your games" live in a real Chromium, over a real daphne (Channels'
live server, a process of its own): Alice has a league's page open while the season's
games are played and collected in another process (this one, standing in for the
Celery worker), which makes the next season's tables and tells nobody. The daphne
process's sweep finds them within its period, the lobby's socket speaks, and the page
shows the new games without a reload."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.contrib.auth.models import User
from django.test import override_settings
from playwright.sync_api import expect, sync_playwright

from bohnanza_core.rulesets import customize
from replays.store import reset_games
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, _require_chromium, sign_in
from tests.live_server import SweepingDaphne
from tests.tournaments.conftest import wipe_competitions
from tests.tournaments.test_live_games import play_out
from tournaments.core.competition import LivePlay
from tournaments.core.rounds import collect, start_round
from tournaments.core.store import competitions, create, reset_competitions
from tournaments.models import CompetitionTable

pytestmark = pytest.mark.e2e

SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
SHORT = {"beans": ["wax", "blue", "chili", "stink"]}


@override_settings(PLAY_BOT_PACE_SECONDS=0.02, PLAY_SWEEP_SECONDS=0.2)
class YourGamesLiveTest(ChannelsLiveServerTestCase):
    serve_static = True
    ProtocolServerProcess = SweepingDaphne

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

    def test_the_next_seasons_games_appear_without_a_reload(self) -> None:
        _require_chromium()
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
        User.objects.create_user("alice", password="pw-league-123")
        league = create("Live League", "league", {"divisions": 1, "moves": 0, "seasons": 2},
                        customize("duel", 2, SHORT), 2, ["user:alice", "heuristic@builtin"],
                        organiser="user:alice", live=LivePlay("duel", SHORT, 60, 0, 24, False))
        start_round(league, lambda *_: None)
        first = sorted(str(r.table_id) for r in CompetitionTable.objects.filter(
            competition_id=league.id, round=0))
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                             args=CHROMIUM_ARGS)
            page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
            sign_in(page, self.live_server_url, "alice", "pw-league-123")
            page.goto(f"{self.live_server_url}/tournaments/{league.id}/")
            links = page.locator(".my-fixtures li a")
            expect(links).to_have_count(2)
            shown = sorted((links.nth(i).get_attribute("href") or "").split("/")[-2]
                           for i in range(2))
            assert shown == first
            page.evaluate("window.notReloaded = true")
            lobby = page.context.new_page()  # the lobby's "Your tables", also live
            lobby.goto(f"{self.live_server_url}/play/")
            expect(lobby.locator(".lobby-mine li a")).to_have_count(2)
            expect(page.locator("h2", has_text="Season 2")).to_have_count(0)
            # The worker's side: season 1 is played out and collected, which starts
            # season 2 and makes its tables in this process; nobody tells daphne.
            for row in CompetitionTable.objects.filter(competition_id=league.id, round=0):
                play_out(row.table_id)
            collect(league.id, lambda *_: None)
            assert competitions().get(league.id).open_round == 1
            second = sorted(str(r.table_id) for r in CompetitionTable.objects.filter(
                competition_id=league.id, round=1))
            assert len(second) == 2 and not set(second) & set(first)
            for table_id in second:
                expect(page.locator(f'.my-fixtures a[href="/play/tables/{table_id}/"]')
                       ).to_have_count(1, timeout=20_000)
            expect(links).to_have_count(2)
            # The seasons below follow too: season 1's standings, season 2 begun.
            expect(page.locator("h2", has_text="Season 2 (running)")).to_have_count(1)
            expect(page.locator(".competition-live")).to_contain_text("1 of 2 seasons played")
            assert page.evaluate("window.notReloaded") is True  # the same page, updated
            for table_id in second:
                expect(lobby.locator(f'.lobby-mine a[href="/play/tables/{table_id}/"]')
                       ).to_have_count(1, timeout=20_000)
            expect(lobby.locator(".lobby-mine li a")).to_have_count(2)
            lobby.screenshot(path=str(SCREENSHOTS / "lobby-your-tables-live.png"),
                             full_page=True)
            page.screenshot(path=str(SCREENSHOTS / "your-games-live.png"),
                            full_page=True)
            browser.close()
