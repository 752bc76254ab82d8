"""Bot accounts in a real browser (issue 29): a person makes a bot account from their
profile, makes it a token (shown once: the page reloaded no longer holds it), the
token works on the API, then they revoke it and it no longer does. Screenshots:
``var/screenshots/bot-token.png`` (the token shown), ``bot-revoked.png``."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from tests.e2e.conftest import sign_in

pytestmark = pytest.mark.e2e

SCREENSHOTS = settings.BASE_DIR / "var" / "screenshots"


def test_a_person_makes_a_bot_a_token_shown_once_and_revokes_it(
        page: Page, live_server: LiveServer, django_user_model: Any) -> None:
    django_user_model.objects.create_user("olga", password="pw-olga-1234")
    base = live_server.url
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    sign_in(page, base, "olga", "pw-olga-1234", "/players/olga/")
    page.get_by_role("link", name="Bot accounts").click()
    page.wait_for_url(f"{base}/account/bots/")
    page.fill("#id_name", "robo")
    page.get_by_role("button", name="Make the bot account").click()
    page.wait_for_url(f"{base}/account/bots/robo/")
    expect(page.get_by_text("Bot account robo made")).to_be_visible()
    page.fill("#id_label", "laptop")
    page.get_by_role("button", name="Make the token").click()
    token = page.locator("#new-token").inner_text().strip()
    assert token.startswith("bhz_") and len(token) > 40
    page.screenshot(path=str(SCREENSHOTS / "bot-token.png"), full_page=True)
    row = page.locator("tr.token").first
    expect(row).to_contain_text("laptop")
    expect(row).to_contain_text("play read")
    expect(row).to_contain_text(token[:8])
    # shown once: the bot's page, opened again, no longer holds it
    page.goto(f"{base}/account/bots/robo/")
    assert token not in page.content()
    api = Client(HTTP_AUTHORIZATION=f"Bearer {token}")
    assert api.get("/api/v1/account").json()["username"] == "robo"
    # the bot is marked as one on its profile
    page.goto(f"{base}/players/robo/")
    expect(page.locator("h1 .bot-mark")).to_have_text("bot")
    expect(page.get_by_text("A bot account, run by olga.")).to_be_visible()
    page.goto(f"{base}/account/bots/robo/")
    page.locator("tr.token").first.get_by_role("button", name="Revoke").click()
    expect(page.get_by_text("revoked: it no longer works")).to_be_visible()
    expect(page.locator("tr.token.revoked")).to_have_count(1)
    page.screenshot(path=str(SCREENSHOTS / "bot-revoked.png"), full_page=True)
    assert api.get("/api/v1/account").json()["code"] == "invalid_token"


def test_the_api_docs_page_shows_every_call(page: Page, live_server: LiveServer) -> None:
    """The OpenAPI document browsable under the site's Content-Security-Policy (ninja's
    own Swagger UI files, no CDN)."""
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(f"{live_server.url}/api/docs")
    expect(page.get_by_text("/api/v1/challenges").first).to_be_visible(timeout=15_000)
    expect(page.get_by_text("/api/v1/stream/event").first).to_be_visible()
    page.screenshot(path=str(SCREENSHOTS / "api-docs.png"))
    assert not [e for e in errors if "Content Security Policy" in e], errors
