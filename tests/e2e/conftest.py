"""Browser tests: Playwright drives Debian's Chromium against pytest-django's live server.

Playwright's own browser downloads are never used: the browser is /usr/bin/chromium
(Debian's package ``chromium``). Without it the browser tests skip, unless
BOHNANZA_REQUIRE_SERVICES=1, where they fail.
"""

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Playwright, sync_playwright

# Playwright's sync API runs an event loop in this thread, so Django would refuse
# the database work that test fixtures (flushing, the live server's setup) do here.
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def _require_chromium() -> None:
    if CHROMIUM.exists():
        return
    reason = f"Chromium not found at {CHROMIUM} (Debian package: apt-get install chromium)"
    if os.environ.get("BOHNANZA_REQUIRE_SERVICES") == "1":
        pytest.fail(f"{reason}; BOHNANZA_REQUIRE_SERVICES=1 requires it", pytrace=False)
    pytest.skip(reason)


# Module scope, not session: while Playwright runs, its event loop counts as running in
# this thread, which would break asyncio.run() and async_to_sync() in later, non-browser
# tests. Each browser test module starts and stops its own Chromium.
@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    _require_chromium()
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    chromium = playwright.chromium.launch(
        executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
    )
    yield chromium
    chromium.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    yield tab
    context.close()


def sign_in(page: Page, base: str, username: str, password: str, then: str = "") -> None:
    """Sign in through the real form at ``base``; with ``then``, as the page a visitor
    was sent to sign in from, and wait until it is back there."""
    page.goto(f"{base}/accounts/login/" + (f"?next={then}" if then else ""))
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.get_by_role("button", name="Sign in").click()
    if then:
        page.wait_for_url(f"{base}{then}")
    else:
        page.wait_for_load_state()
