"""A league's "Your fixtures" live in a real Chromium, over a real daphne (Channels'
live server, a process of its own): Alice has the league's page open while the
season's fixtures are played and collected in another process (this one, standing in
for the Celery worker), which makes the next season's tables and tells nobody. The
daphne process's sweep finds them within its period, the lobby's socket speaks, and
the page shows the new fixtures without a reload."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from channels.testing import ChannelsLiveServerTestCase
from daphne.testing import DaphneProcess
from django.contrib.auth.models import User
from django.test import override_settings
from playwright.sync_api import expect, sync_playwright

from bohnanza_core.rulesets import customize
from replays.store import reset_games
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, _require_chromium, sign_in
from tests.tournaments.conftest import wipe_competitions
from tests.tournaments.test_league_live import play_out
from tournaments.competitions import reset_tournaments
from tournaments.league_live import collect
from tournaments.league_runner import start_fixtures
from tournaments.leagues import LivePlay, create_league, get_league
from tournaments.models import LeagueTable

pytestmark = pytest.mark.e2e

SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
SHORT = {"beans": ["wax", "blue", "chili", "stink"]}


class SweepingDaphne(DaphneProcess):
    """The live server's daphne, picking up tables as a production process does
    (``play.startup.when_daphne_runs``) even when this test process imported the ASGI
    module before the fork (its import is what schedules the pick-up)."""

    def __init__(self, host: str, get_application: Any, **kwargs: Any) -> None:
        def application() -> Any:
            from play import startup

            app = get_application()
            startup._started.clear()
            startup.when_daphne_runs()
            return app

        super().__init__(host, application, **kwargs)


@override_settings(PLAY_BOT_PACE_SECONDS=0.02, PLAY_SWEEP_SECONDS=0.2)
class LeagueFixturesLiveTest(ChannelsLiveServerTestCase):
    serve_static = True
    ProtocolServerProcess = SweepingDaphne

    def setUp(self) -> None:
        super().setUp()
        reset_games()
        reset_tournaments()
        wipe_competitions()

    def tearDown(self) -> None:
        wipe_competitions()
        reset_tournaments()
        reset_games()
        super().tearDown()

    def test_the_next_seasons_fixtures_appear_without_a_reload(self) -> None:
        _require_chromium()
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
        User.objects.create_user("alice", password="pw-league-123")
        league = create_league("Live League", customize("duel", 2, SHORT), 2, 1, 0, 2,
                               ["user:alice", "heuristic@builtin"], created_by="user:alice",
                               live=LivePlay("duel", SHORT, 60, 0, 24, False))
        start_fixtures(league, lambda *_: None)
        first = sorted(str(r.table_id) for r in LeagueTable.objects.filter(
            league_id=league.id, season=0))
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                             args=CHROMIUM_ARGS)
            page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
            sign_in(page, self.live_server_url, "alice", "pw-league-123")
            page.goto(f"{self.live_server_url}/tournaments/leagues/{league.id}/")
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
            for row in LeagueTable.objects.filter(league_id=league.id, season=0):
                play_out(row.table_id)
            collect(league.id, lambda *_: None)
            assert get_league(league.id).open_season == 1
            second = sorted(str(r.table_id) for r in LeagueTable.objects.filter(
                league_id=league.id, season=1))
            assert len(second) == 2 and not set(second) & set(first)
            for table_id in second:
                expect(page.locator(f'.my-fixtures a[href="/play/tables/{table_id}/"]')
                       ).to_have_count(1, timeout=20_000)
            expect(links).to_have_count(2)
            # The seasons below follow too: season 1's standings, season 2 begun.
            expect(page.locator("h2", has_text="Season 2 (running)")).to_have_count(1)
            expect(page.locator(".lede")).to_contain_text("1 of 2 seasons played")
            assert page.evaluate("window.notReloaded") is True  # the same page, updated
            for table_id in second:
                expect(lobby.locator(f'.lobby-mine a[href="/play/tables/{table_id}/"]')
                       ).to_have_count(1, timeout=20_000)
            expect(lobby.locator(".lobby-mine li a")).to_have_count(2)
            lobby.screenshot(path=str(SCREENSHOTS / "lobby-your-tables-live.png"),
                             full_page=True)
            page.screenshot(path=str(SCREENSHOTS / "league-fixtures-live.png"),
                            full_page=True)
            browser.close()
