"""A finished knockout's page in a real browser: its bracket with who went through and
the winner, the podium named by its rule, every game of one entrant across its rounds,
and every game downloaded at once as a zip."""

from __future__ import annotations

import zipfile

import pytest
from django.conf import settings
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from bohnanza_core.rulesets import ruleset_for
from tests.tournaments.conftest import competitions  # noqa: F401 (fixture)
from tournaments.core.rounds import run_here
from tournaments.core.store import Competitions, create

pytestmark = pytest.mark.e2e

SCREENSHOTS = settings.BASE_DIR / "var" / "screenshots"
EIGHT = ["heuristic@builtin", "nontrading@builtin", "random@builtin", "heuristic@builtin #2",
         "nontrading@builtin #2", "random@builtin #2", "heuristic@builtin #3",
         "nontrading@builtin #3"]


def test_a_knockouts_bracket_podium_filter_and_download(page: Page, live_server: LiveServer,
                                                       competitions: Competitions  # noqa: F811
                                                       ) -> None:
    cup = create("Bracket Cup", "knockout", {"advance": 1}, ruleset_for("duel", 2), 2, EIGHT)
    done = run_here(cup.id)
    winner = done.entrants[done.podium().places[0]]
    page.goto(f"{live_server.url}/tournaments/{cup.id}/")
    rounds = page.locator(".bracket .bracket-round")
    expect(rounds).to_have_count(3)
    expect(rounds.nth(0).locator("table.bracket-table")).to_have_count(4)
    expect(rounds.nth(1).locator("table.bracket-table")).to_have_count(2)
    expect(rounds.nth(2).locator("h3")).to_have_text("Final")
    expect(page.locator(".bracket tr.bracket-through")).to_have_count(6)
    champion = page.locator(".bracket tr.bracket-winner")
    expect(champion).to_have_count(1)
    expect(champion.locator(".entrant")).to_have_attribute("title", winner)
    expect(page.locator(".podium .podium-places li")).to_have_count(3)
    expect(page.locator(".podium .place-1 .entrant")).to_have_attribute("title", winner)
    expect(page.locator(".podium")).to_contain_text("By the final table")
    expect(page.locator(".ratings-vs-points")).to_be_visible()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "knockout.png"), full_page=True)

    # the winner's games: two a round, in each of the three rounds
    page.locator("#entrant-filter").select_option(str(done.entrants.index(winner) + 1))
    page.get_by_role("button", name="Show").click()
    games = page.locator("table.pairings tbody tr")
    expect(games).to_have_count(6)
    expect(games.locator("td:first-child")).to_have_text(["1", "1", "2", "2", "3", "3"])
    expect(page.get_by_role("link", name="replay", exact=True)).to_have_count(6)
    page.screenshot(path=str(SCREENSHOTS / "knockout-entrant.png"), full_page=True)

    with page.expect_download() as info:
        page.get_by_role("link", name="Download every game").click()
    download = info.value
    assert download.suggested_filename.endswith(".zip")
    with zipfile.ZipFile(download.path()) as archive:
        names = archive.namelist()
    assert len(names) == 14 + 1 and "games.jsonl" in names
