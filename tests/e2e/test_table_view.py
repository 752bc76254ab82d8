"""The table component in a real browser, at 1280x800 and at 390x844: every seat
visible at once, stepping by decision and by event, jumping by turn and phase, what
changed highlighted, no spoilers in the log, and the end-of-game summary. Screenshots
go to var/screenshots/ (they are looked at when the table's look changes)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.conf import settings
from playwright.sync_api import Browser, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from pytest_django.live_server_helper import LiveServer

from bohnanza_core.events import CardTurnedOver, OfferAccepted, PhaseStarted, TurnStarted
from bohnanza_core.games import Game
from replays.store import games, reset_games
from replays.views.viewer import timeline
from tests.factories import bot_game

pytestmark = pytest.mark.e2e

SCREENSHOTS = settings.BASE_DIR / "var" / "screenshots"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
SEVEN = ("heuristic", "heuristic", "random", "nontrading", "heuristic", "random", "heuristic")


@pytest.fixture
def seven(transactional_db: None) -> Iterator[Game]:
    """A finished seven-player bot game (the largest table), in a fresh store."""
    reset_games()
    yield bot_game("e2e-table-seven", ruleset="rio-grande", bots=SEVEN,
                   players=["user:ann", "bot:heuristic", "bot:random", "bot:nontrading",
                            "bot:heuristic", "imported:zed", "bot:heuristic"])
    reset_games()


def open_page(browser: Browser, viewport: dict[str, int], locale: str = "en-GB") -> Page:
    context = browser.new_context(viewport=viewport, locale=locale)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors  # type: ignore[attr-defined]
    return page


def in_viewport(page: Page, selector: str) -> list[bool]:
    """For every element matching ``selector``: wholly inside the window as it is."""
    return page.eval_on_selector_all(selector, """(nodes) => nodes.map((n) => {
        const r = n.getBoundingClientRect();
        return r.top >= 0 && r.left >= 0
            && r.bottom <= innerHeight + 1 && r.right <= innerWidth + 1;
    })""")


def shown_step(page: Page) -> int:
    return int(page.locator("#replay-table .rt").get_attribute("data-step") or 0)


def test_whole_table_at_1280_jumps_highlights_and_summary(browser: Browser,
                                                          live_server: LiveServer,
                                                          seven: Game) -> None:
    page = open_page(browser, DESKTOP)
    entries = games().record(seven.id)
    line = timeline(entries)
    turn_steps = [seq for _turn, seq in line.turns]
    base = f"{live_server.url}/replays/games/{seven.id}/"

    page.goto(base + f"?step={turn_steps[2]}")
    expect(page.locator(".rt-seat")).to_have_count(7)
    page.screenshot(path=str(SCREENSHOTS / "table-7-seats-1280.png"))
    # Every seat on screen at once: at turn starts, and while traded cards wait in the
    # trade areas (the tallest seats).
    traded = [e.seq for e in entries if isinstance(e.event, OfferAccepted)][:4]
    for step in [*turn_steps[:6], *traded]:
        page.locator("#rc-step").fill(str(step))
        page.locator("#rc-step").press("Enter")
        expect(page.locator("#replay-table .rt")).to_have_attribute("data-step", str(step))
        assert all(in_viewport(page, ".rt-seat")), f"a seat off screen at step {step}"
    page.screenshot(path=str(SCREENSHOTS / "table-7-seats-trading-1280.png"))
    page.goto(base + f"?step={turn_steps[2]}")

    # Forward by decision: to the end of the next decision's group.
    start = shown_step(page)
    page.keyboard.press("ArrowRight")
    expected = min(s for s in line.stops if s > start)
    expect(page.locator("#replay-table .rt")).to_have_attribute("data-step", str(expected))
    assert page.locator("#replay-table .chg").count() > 0
    expect(page.locator("#replay-log-lines li.in-step").first).to_be_visible()
    page.screenshot(path=str(SCREENSHOTS / "table-highlight-1280.png"))

    # By single event with Shift.
    page.keyboard.press("Shift+ArrowRight")
    expect(page.locator("#replay-table .rt")).to_have_attribute("data-step", str(expected + 1))

    # Next turn, previous turn, next phase.
    here = expected + 1
    page.keyboard.press("PageDown")
    next_turn = min(s for s in turn_steps if s > here)
    expect(page.locator("#replay-table .rt")).to_have_attribute("data-step", str(next_turn))
    page.locator("#rc-prev-turn").click()
    expect(page.locator("#replay-table .rt")).to_have_attribute(
        "data-step", str(max(s for s in turn_steps if s < next_turn)))
    here = shown_step(page)
    page.keyboard.press("]")
    next_phase = min(s for s in line.phases if s > here)
    expect(page.locator("#replay-table .rt")).to_have_attribute("data-step", str(next_phase))
    assert isinstance(entries[next_phase - 1].event, TurnStarted | PhaseStarted
                      | CardTurnedOver)

    # No spoilers: the log shows nothing after the current step, unless asked.
    expect(page.locator("#replay-log-lines li.log-GameEnded")).to_be_hidden()
    page.locator("#rc-spoilers").check()
    expect(page.locator("#replay-log-lines li.log-GameEnded")).to_be_visible()
    page.locator("#rc-spoilers").uncheck()

    # The end: the summary with score, chart and per-player counts.
    page.keyboard.press("End")
    summary = page.locator(".rt-summary")
    expect(summary).to_be_visible()
    expect(summary.locator(".rt-score tbody tr")).to_have_count(7)
    expect(summary.locator("svg path.series")).to_have_count(7)
    page.screenshot(path=str(SCREENSHOTS / "table-summary-1280.png"), full_page=True)
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()


def test_phone_layout_at_390(browser: Browser, live_server: LiveServer, seven: Game) -> None:
    page = open_page(browser, PHONE)
    base = f"{live_server.url}/replays/games/{seven.id}/"
    page.goto(base + "?step=1")
    # At step 1 of a finished game nothing of its end shows (no spoilers from step 1).
    expect(page.locator("#replay-log-lines li.log-GameEnded")).to_be_hidden()
    expect(page.get_by_text("Game over")).to_be_hidden()
    expect(page.locator(".rt-summary")).to_have_count(0)
    page.keyboard.press("PageDown")
    page.keyboard.press("PageDown")
    expect(page.locator(".rt-seat")).to_have_count(7)
    # No seat is cut off at the side, and the page does not scroll sideways, once the
    # step's table is drawn (polled: a loaded machine may still be laying it out).
    laid_out = """() => document.documentElement.scrollWidth <= innerWidth
        && [...document.querySelectorAll('.rt-seat')].every((n) => {
             const r = n.getBoundingClientRect();
             return r.left >= 0 && r.right <= 390 && r.width > 150; })"""
    try:
        page.wait_for_function(laid_out, timeout=10_000)
    except PlaywrightTimeoutError:
        widths = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
        boxes = page.eval_on_selector_all(".rt-seat", "(nodes) => nodes.map((n) => { "
                                          "const r = n.getBoundingClientRect(); "
                                          "return [r.left, r.right, r.width]; })")
        raise AssertionError(f"page {widths}, seats {boxes}") from None
    scrub = page.locator("#rc-scrub").bounding_box()
    assert scrub is not None and scrub["width"] >= 300, scrub
    page.screenshot(path=str(SCREENSHOTS / "table-7-seats-390.png"), full_page=True)
    page.locator(".rt-seats").scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "table-seats-390-screen.png"))
    page.keyboard.press("End")
    expect(page.locator(".rt-summary")).to_be_visible()
    page.screenshot(path=str(SCREENSHOTS / "table-summary-390.png"), full_page=True)
    page.locator(".rt-summary").screenshot(path=str(SCREENSHOTS / "summary-390.png"))
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()


@pytest.mark.parametrize("locale", ["hu-HU", "fi-FI"])
def test_the_browsers_language_and_the_switch(browser: Browser, live_server: LiveServer,
                                              seven: Game, locale: str) -> None:
    page = open_page(browser, DESKTOP, locale)
    language = locale[:2]
    base = f"{live_server.url}/replays/games/{seven.id}/"
    entries = games().record(seven.id)
    turn = [seq for _turn, seq in timeline(entries).turns][4]
    page.goto(base + f"?step={turn}")
    expect(page.locator("html")).to_have_attribute("lang", language)
    words = {"hu": ("Babföld", "kör", "tallér"), "fi": ("Pelto", "Vuoro", "kolikko")}[language]
    expect(page.locator("#replay-event")).to_contain_text(words[1])
    page.keyboard.press("PageDown")
    page.keyboard.press("ArrowRight")
    page.screenshot(path=str(SCREENSHOTS / f"table-7-seats-1280-{language}.png"))
    page.keyboard.press("End")
    expect(page.locator(".rt-summary")).to_be_visible()
    page.screenshot(path=str(SCREENSHOTS / f"table-summary-1280-{language}.png"),
                    full_page=True)
    # The switch: English from here on, whatever the browser prefers, at the same step.
    page.locator("#language-select").select_option("en")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator(".rt-summary")).to_be_visible()
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()
