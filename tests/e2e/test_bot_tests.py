"""A bot test in a real browser: started from the form by a signed-in person, played by
a real Celery worker while the page follows it live (the LLR chart and figures fetched
again every 2 s), ending with the verdict, the Elo estimate with its interval and the
chart; a refused form says why."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from tests.e2e.conftest import sign_in
from tests.tournaments.conftest import competitions, worker  # noqa: F401 (fixtures)
from tournaments.core.store import Competitions

pytestmark = pytest.mark.e2e

SCREENSHOTS = settings.BASE_DIR / "var" / "screenshots"


def test_a_bot_test_is_started_on_its_page_and_followed_to_its_verdict(
        page: Page, live_server: LiveServer, worker: Competitions) -> None:  # noqa: F811
    User.objects.create_user("olga", password="pw-test-123")
    sign_in(page, live_server.url, "olga", "pw-test-123")
    page.goto(f"{live_server.url}/tournaments/")
    page.get_by_role("link", name="Bot tests: is one bot stronger than another?").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Bot tests")
    expect(page.locator("#id_elo0")).to_have_value("0.0")
    expect(page.locator("#id_elo1")).to_have_value("5.0")
    # Bounds the wrong way round: refused, with the reason, nothing started.
    page.fill("#id_elo0", "10")
    page.fill("#id_elo1", "5")
    page.get_by_role("button", name="Start the test").click()
    expect(page.locator("form.bot-test-form")).to_contain_text("H1's Elo must be more than H0's.")
    expect(page.locator("table.bot-tests")).to_have_count(0)
    page.select_option("#id_a", "heuristic")
    page.select_option("#id_b", "random")
    page.select_option("#id_preset", "duel")
    page.fill("#id_players", "2")
    page.fill("#id_elo0", "0")
    page.fill("#id_elo1", "20")
    page.fill("#id_seed", "browser")
    page.get_by_role("button", name="Start the test").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("heuristic \N{EN DASH} random")
    expect(page.locator(".reproduce code")).to_contain_text("--seed browser --elo0 0.0")
    status = page.locator(".bot-test-status")
    expect(status).to_contain_text("H1 accepted: heuristic is stronger than random by 20 Elo",
                                   timeout=90_000)
    expect(page.locator(".llr-chart svg path.series")).to_have_count(1)
    expect(page.locator(".llr-chart")).to_contain_text("H1")
    expect(page.locator(".bot-test-figures")).to_contain_text("interval 95%")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "bot-test.png"), full_page=True)
    page.get_by_role("link", name="All bot tests").click()
    expect(page.locator("table.bot-tests tbody tr")).to_have_count(1)
    expect(page.locator("table.bot-tests")).to_contain_text("H1 accepted")
    page.screenshot(path=str(SCREENSHOTS / "bot-tests.png"), full_page=True)
