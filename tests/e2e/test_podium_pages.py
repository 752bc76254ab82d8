"""Finished competitions' pages in a real browser, on a phone (390x844) and a laptop
(1366x900): a knockout's bracket whose round columns never overlap (its Final was drawn
over the Round 1 tables at 390 px), and every format's standings in its podium's order
with the tie-breaks that order reads."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.conf import settings
from playwright.sync_api import Browser, Page, expect
from pytest_django.live_server_helper import LiveServer

from bohnanza_core.rulesets import ruleset_for
from tests.tournaments.conftest import competitions  # noqa: F401 (fixture)
from tournaments.core.competition import Competition
from tournaments.core.rounds import run_here
from tournaments.core.store import Competitions, create

pytestmark = pytest.mark.e2e

SCREENSHOTS = settings.BASE_DIR / "var" / "screenshots"
EIGHT = ["heuristic@builtin", "nontrading@builtin", "random@builtin", "heuristic@builtin #2",
         "nontrading@builtin #2", "random@builtin #2", "heuristic@builtin #3",
         "nontrading@builtin #3"]
SIZES = [(390, 844), (1366, 900)]


@pytest.fixture
def pages(browser: Browser) -> Iterator[list[tuple[int, Page]]]:
    """A page at each of :data:`SIZES`, by its width."""
    contexts = [browser.new_context(viewport={"width": w, "height": h}) for w, h in SIZES]
    yield [(w, context.new_page()) for (w, _h), context in zip(SIZES, contexts, strict=True)]
    for context in contexts:
        context.close()


def _boxes(page: Page, selector: str) -> list[dict[str, float]]:
    return page.eval_on_selector_all(selector, """nodes => nodes.map(n => {
        const r = n.getBoundingClientRect();
        return {x: r.left, y: r.top, right: r.right, bottom: r.bottom};
    })""")


def _apart(a: dict[str, float], b: dict[str, float]) -> bool:
    """Two boxes share no area (touching edges allowed)."""
    return (a["right"] <= b["x"] + 0.5 or b["right"] <= a["x"] + 0.5
            or a["bottom"] <= b["y"] + 0.5 or b["bottom"] <= a["y"] + 0.5)


def _standings_first(page: Page, done: Competition, shot: str) -> None:
    """The standings' first three are the podium, in its order (a screenshot of the
    podium, the standings and their note: ``shot``)."""
    podium = [done.entrants[e] for e in done.podium().places]
    rows = page.locator("table.standings tbody tr td:nth-child(2) .entrant")
    assert [rows.nth(i).get_attribute("title") for i in range(3)] == podium
    expect(page.locator(".podium .place-1 .entrant")).to_have_attribute("title", podium[0])
    expect(page.locator(".ratings-vs-points")).to_contain_text("podium's order")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    top = page.locator(".podium").bounding_box()
    note = page.locator(".ratings-vs-points").bounding_box()
    assert top is not None and note is not None
    page.screenshot(path=str(SCREENSHOTS / shot), full_page=True, clip={
        "x": 0, "y": top["y"], "width": page.viewport_size["width"],
        "height": note["y"] + note["height"] - top["y"]})


def test_a_knockouts_bracket_never_overlaps_itself(pages: list[tuple[int, Page]],
                                                   live_server: LiveServer,
                                                   competitions: Competitions,  # noqa: F811
                                                   ) -> None:
    cup = create("Phone Cup", "knockout", {"advance": 2}, ruleset_for("classic", 4), 4, EIGHT)
    done = run_here(cup.id)
    for width, page in pages:
        page.goto(f"{live_server.url}/tournaments/{cup.id}/")
        rounds = page.locator(".bracket .bracket-round")
        expect(rounds).to_have_count(2)
        expect(rounds.nth(1).locator("h3")).to_have_text("Final")
        columns = _boxes(page, ".bracket .bracket-round")
        assert all(_apart(a, b) for i, a in enumerate(columns) for b in columns[i + 1:]), (
            width, columns)
        # each round's tables inside its own column: none drawn over a neighbour's
        for r, column in enumerate(columns):
            for table in _boxes(page, f".bracket .bracket-round:nth-child({r + 1}) table"):
                assert column["x"] - 0.5 <= table["x"] and table["right"] <= (
                    column["right"] + 0.5), (width, r, column, table)
        # on a phone the rounds stack: the page itself never scrolls sideways
        if width == 390:
            assert page.evaluate("document.documentElement.scrollWidth") <= 390
        _standings_first(page, done, f"knockout-standings-{width}.png")
        expect(page.locator("table.standings thead")).to_contain_text("Reached")
        expect(page.locator("table.standings tbody tr").first.locator("td.reached")
               ).to_have_text("Final")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.locator(".bracket").screenshot(path=str(SCREENSHOTS / f"bracket-{width}.png"))
        page.screenshot(path=str(SCREENSHOTS / f"knockout-{width}.png"), full_page=True)


def test_a_swiss_shows_its_standings_by_its_tie_breaks(pages: list[tuple[int, Page]],
                                                       live_server: LiveServer,
                                                       competitions: Competitions,  # noqa: F811
                                                       ) -> None:
    swiss = create("Phone Swiss", "swiss", {"rounds": 3}, ruleset_for("duel", 2), 2, EIGHT)
    done = run_here(swiss.id)
    for width, page in pages:
        page.goto(f"{live_server.url}/tournaments/{swiss.id}/")
        expect(page.locator("table.standings thead")).to_contain_text("Buchholz")
        expect(page.locator("table.standings td.buchholz")).to_have_count(8)
        _standings_first(page, done, f"swiss-standings-{width}.png")
        expect(page.locator(".podium")).to_contain_text("Buchholz")
        page.screenshot(path=str(SCREENSHOTS / f"swiss-{width}.png"), full_page=True)


def test_ladder_and_league_pages_offer_every_game(pages: list[tuple[int, Page]],
                                                  live_server: LiveServer,
                                                  competitions: Competitions,  # noqa: F811
                                                  ) -> None:
    ladder = create("Phone Ladder", "ladder", {}, ruleset_for("duel", 2), 2, EIGHT[:4],
                    every=60)
    run_here(ladder.id, rounds=2)
    league = run_here(create("Phone League", "league",
                             {"divisions": 3, "moves": 1, "seasons": 1},
                             ruleset_for("duel", 2), 2, EIGHT[:6]).id)
    for width, page in pages:
        for name, c in (("ladder", ladder), ("league", league)):
            page.goto(f"{live_server.url}/tournaments/{c.id}/")
            link = page.get_by_role("link", name="Download every game")
            expect(link).to_have_attribute("href", f"/tournaments/{c.id}/games.zip")
            with page.expect_download() as info:
                link.click()
            assert info.value.suggested_filename.endswith(".zip")
            page.screenshot(path=str(SCREENSHOTS / f"{name}-{width}.png"), full_page=True)
        expect(page.locator(".podium")).to_contain_text("third place to the second division")
