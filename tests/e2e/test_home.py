"""The home page, in a real browser."""

import pytest
from django.conf import settings
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from bohnanza_core.rulesets import PRESETS

pytestmark = pytest.mark.e2e

SCREENSHOTS = settings.BASE_DIR / "var" / "screenshots"


def test_home_page_shows_heading_and_the_ways_in(page: Page, live_server: LiveServer) -> None:
    page.goto(live_server.url + "/")

    expect(page.get_by_role("heading", level=1)).to_have_text("Play, watch and study Bohnanza")
    # Playing first, then how a turn goes, watching, the rules, one's games, all replays.
    expect(page.locator(".ways-in .way")).to_have_count(6)
    expect(page.locator(".ways-in .way").first).to_have_attribute("href", "/play/")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "home.png"), full_page=True)
    page.get_by_role("link", name="Learn the rules").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Rules")
    expect(page.locator(".beans-table tbody tr")).to_have_count(11)
    table = page.locator("table.rulesets-table")
    expect(table).to_be_visible()
    expect(table.locator("th.preset-name")).to_have_count(len(PRESETS))
    for preset_name in PRESETS:
        expect(table.locator("th.preset-name", has_text=preset_name).first).to_be_visible()
    # The stylesheet loaded: the header is painted in the accent colour.
    header_colour = page.locator(".site-header").evaluate(
        "element => getComputedStyle(element).backgroundColor"
    )
    assert header_colour == "rgb(47, 107, 58)"

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "rules.png"), full_page=True)
