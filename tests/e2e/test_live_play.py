"""Playing at the live table in Chromium at 1280x800, over a real daphne: a person and a
bot trade on the bot's turn inside the trading window; the clock counts down and its
default move is told as the clock's; a move that vanishes under a press is not sent;
the end of the game shows the replay's summary and the fields as harvested. Screenshots
go to var/screenshots/."""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.contrib.auth.models import User
from django.test import override_settings
from playwright.sync_api import Page, WebSocketRoute, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from bohnanza_core.commands import AcceptOffer
from bohnanza_core.engine import legal_commands
from bohnanza_core.events import OfferAccepted, OfferDeclined, OfferMade, TradingEnded
from play.models import Table
from play.tables import create_table, start
from replays.store import games, reset_games
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, _require_chromium, sign_in

pytestmark = pytest.mark.e2e

SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
SHORT = {"beans": ["wax", "blue", "chili", "stink"]}
VIEWPORT = {"width": 1280, "height": 800}


def _ann_at(preset: str, seats: list[str], overrides: dict | None = None, **kw: Any) -> Table:
    _require_chromium()
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    reset_games()
    ann = User.objects.create_user("ann", password="pw-live-123")
    table = create_table(ann, preset, len(seats), seats=seats, overrides=overrides, **kw)
    return start(table, ann)


def _version(page: Page) -> int:
    return int(page.eval_on_selector("[data-socket]", "r => r.dataset.version || '0'"))


def _press_first(page: Page) -> bool:
    """Press ann's first move (again if it was refused as just changed), saying yes to
    a confirmation and taking the engine's choice of cards for an accept."""
    button = page.query_selector(".live-moves .move-list button.move")
    if button is None:
        return False
    before = _version(page)
    for _ in range(3):
        try:
            button.click(timeout=2000)
        except Exception:  # redrawn under the pointer: look again
            return False
        yes = page.query_selector(".move-confirm:not([hidden]) .move-yes, "
                                  ".move-confirm:not([hidden]) .move-accept")
        if yes is not None:
            with contextlib.suppress(Exception):
                yes.click(timeout=2000)
        with contextlib.suppress(PlaywrightTimeout):
            page.wait_for_function("v => Number(document.querySelector('[data-socket]')"
                                   ".dataset.version) > v", arg=before, timeout=1500)
            return True
        if not button.is_visible():
            return False
    return False


class _Browser(ChannelsLiveServerTestCase):
    serve_static = True

    def _ann(self, driver: Any) -> Page:
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                         args=CHROMIUM_ARGS)
        page = browser.new_context(viewport=VIEWPORT).new_page()
        sign_in(page, self.live_server_url, "ann", "pw-live-123")
        return page


@override_settings(PLAY_BOT_PACE_SECONDS=0.05)
class TradeOnABotsTurnTest(_Browser):
    def test_ann_offers_on_a_bots_turn_and_the_bot_answers_inside_the_window(self) -> None:
        table = _ann_at("classic", ["open", "heuristic", "heuristic"], SHORT, trade_seconds=15)
        with sync_playwright() as driver:
            page = self._ann(driver)
            page.goto(f"{self.live_server_url}/play/tables/{table.id}/")
            page.wait_for_selector(".live-table .rt")
            deadline = time.monotonic() + 150
            ready = False
            while time.monotonic() < deadline:
                if page.is_visible(".live-trade-window:not(.is-empty)") and page.query_selector(
                        ".offer-form") and not page.query_selector(
                        ".live-table .rt-seat.is-you.is-active"):
                    ready = True
                    break
                if not _press_first(page):
                    time.sleep(0.1)
            assert ready, "no bot's trading phase with an offer form came"
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            active = page.eval_on_selector(".live-table .rt-seat.is-active",
                                           "e => Number(e.dataset.seat)")
            page.check(".offer-gives input >> nth=0")
            page.select_option(".offer-to", str(active))
            page.screenshot(path=str(SCREENSHOTS / "live-trade-window.png"))
            page.click(".move-offer")
            page.wait_for_function(
                """() => [...document.querySelectorAll('.live-log li')].some(
                     li => /(accepts|declines) offer/.test(li.textContent))""",
                timeout=15_000)
            page.screenshot(path=str(SCREENSHOTS / "live-trade-answered.png"))
        record = games().record(Table.objects.get(pk=table.pk).game_id)
        made = [e for e in record if isinstance(e.event, OfferMade) and e.actor == "user:ann"]
        assert made and made[-1].event.counterparty == active
        number = made[-1].event.offer
        answered = [e for e in record if isinstance(e.event, OfferAccepted | OfferDeclined)
                    and e.event.offer == number and e.event.seat == active]
        assert answered and answered[0].actor.startswith("bot:")
        ended = [e for e in record if isinstance(e.event, TradingEnded)
                 and e.seq > made[-1].seq]
        # Inside the window: answered before the bot ended trading, within 15 s.
        assert not ended or ended[0].seq > answered[0].seq
        took = (datetime.fromisoformat(answered[0].at)
                - datetime.fromisoformat(made[-1].at)).total_seconds()
        assert 0 <= took < 15


@override_settings(PLAY_BOT_PACE_SECONDS=0.05)
class ClockTest(_Browser):
    def test_the_clock_counts_down_and_its_move_is_told_as_the_clocks(self) -> None:
        table = _ann_at("duel", ["open", "heuristic"], move_seconds=6, game_seconds=0)
        with sync_playwright() as driver:
            page = self._ann(driver)
            page.goto(f"{self.live_server_url}/play/tables/{table.id}/")
            page.wait_for_selector(".live-clock.is-running[data-seat='0'] .live-clock-move",
                                   timeout=10_000)
            counted = False
            for _ in range(4):  # a sample may straddle the clock's own move: again
                first = page.inner_text(".live-clock.is-running .live-clock-move")
                page.wait_for_timeout(1200)
                second = page.inner_text(".live-clock.is-running .live-clock-move")
                assert re.fullmatch(r"\s*0:0\d", first), first
                assert re.fullmatch(r"\s*0:0\d", second), second
                if int(second.strip()[-1]) < int(first.strip()[-1]):
                    counted = True
                    break
            assert counted
            assert page.is_visible(".live-clock.is-running.is-warning")
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOTS / "live-clock.png"))
            page.wait_for_function(
                """() => [...document.querySelectorAll('.live-log li')].some(
                     li => li.textContent.startsWith('The clock plays for ann: '))""",
                timeout=10_000)
            page.screenshot(path=str(SCREENSHOTS / "live-clock-played.png"))
        record = games().record(Table.objects.get(pk=table.pk).game_id)
        assert "clock" in [e.actor for e in record]


class _Proxy:
    """The page's table socket routed through the test: every frame the page sends
    (``sent``), the latest state frame the server sent (``latest``, after ``rewrite``),
    and the route itself (``socket``) to send the page frames of the test's own."""

    def __init__(self, rewrite: Callable[[dict[str, Any]], dict[str, Any]] | None = None
                 ) -> None:
        self.sent: list[dict[str, Any]] = []
        self.latest: dict[str, Any] = {}
        self.socket: WebSocketRoute | None = None
        self.rewrite = rewrite

    def route(self, socket: WebSocketRoute) -> None:
        server = socket.connect_to_server()
        self.socket = socket

        def from_page(message: str | bytes) -> None:
            self.sent.append(json.loads(message))
            server.send(message)

        def from_server(message: str | bytes) -> None:
            frame = json.loads(message)
            if frame.get("type") == "state":
                if self.rewrite is not None:
                    frame = self.rewrite(frame)
                    message = json.dumps(frame)
                self.latest["frame"] = frame
            socket.send(message)

        socket.on_message(from_page)
        server.on_message(from_server)

    def commands(self) -> int:
        return sum(1 for f in self.sent if f.get("type") == "command")

    def send(self, frame: dict[str, Any]) -> None:
        assert self.socket is not None
        self.socket.send(json.dumps(frame))


@override_settings(PLAY_BOT_PACE_SECONDS=0.05)
class VanishingMoveTest(_Browser):
    def test_a_move_that_vanishes_under_a_press_is_not_sent(self) -> None:
        """The page is sent a frame in which its first move is gone and another took
        its key; a press of that key at once is not sent, and the reader is told."""
        table = _ann_at("duel", ["open", "heuristic"])
        proxy = _Proxy()
        with sync_playwright() as driver:
            page = self._ann(driver)
            page.route_web_socket(re.compile(r"/ws/tables/"), proxy.route)
            page.goto(f"{self.live_server_url}/play/tables/{table.id}/")
            page.wait_for_selector(".live-moves .move-list button.move[data-key='1']")
            page.wait_for_timeout(1100)  # the moves are settled: no longer "just changed"
            frame = dict(proxy.latest["frame"])
            moves = [m for m in frame["legal"] if m["kind"] != "offer_shape"]
            first = moves[0]
            # The first move vanishes; a harvest of a field takes its key.
            stand_in = {"kind": "harvest", "field": 1}
            frame["legal"] = [stand_in] + [m for m in frame["legal"] if m != first]
            frame["since"] = frame["version"]
            frame["log"] = []
            label = page.inner_text(".live-moves button.move[data-key='1']")
            commands_before = proxy.commands()
            proxy.send(frame)
            page.wait_for_function(
                "t => document.querySelector(\".live-moves button.move[data-key='1']\")"
                ".textContent !== t", arg=label, timeout=5000)
            page.keyboard.press("1")
            page.wait_for_selector(".move-notice:not([hidden])", timeout=5000)
            notice = page.inner_text(".move-notice")
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOTS / "live-vanished.png"))
            page.wait_for_timeout(500)
            commands_after = proxy.commands()
        assert commands_after == commands_before, "a changed move was sent"
        assert "Nothing was sent" in notice



@override_settings(PLAY_BOT_PACE_SECONDS=0.05)
class OwnMoveButtonTest(_Browser):
    """A class of its own: a second test on a class's live server found its people not
    signed in (as LiveTableTest's neighbours say)."""

    def test_a_button_changed_by_ones_own_move_takes_the_first_press(self) -> None:
        """A Harvest button whose pay the reader's own plant just changed (the answer to
        her command, the frame with its ref) is sent at the first press, while a change
        by someone else's move still guards it (VanishingMoveTest)."""
        table = _ann_at("duel", ["open", "heuristic"])

        def with_harvest(frame: dict, coins: int) -> dict:
            frame = json.loads(json.dumps(frame))
            frame["legal"] = [m for m in frame["legal"] if m.get("kind") != "harvest"] + [
                {"kind": "harvest", "field": 1}]
            seat = frame["answer"]["table"]["perspective"]
            frame["facts"]["pays"][seat][1] = coins
            return frame

        def answer_to_her_plant(frame: dict) -> dict:
            return with_harvest(frame, 1) if frame.get("ref") is not None else frame

        proxy = _Proxy(answer_to_her_plant)
        with sync_playwright() as driver:
            page = self._ann(driver)
            page.route_web_socket(re.compile(r"/ws/tables/"), proxy.route)
            page.goto(f"{self.live_server_url}/play/tables/{table.id}/")
            page.wait_for_selector(".live-moves .move-list button.move[data-key='1']")
            # Ann's page offers "Harvest field 2 · pays 0 coins", long settled.
            frame = with_harvest(proxy.latest["frame"], 0)
            frame["since"] = frame["version"]
            frame["log"] = []
            proxy.send(frame)
            harvest = ".live-moves button.move[data-kind='harvest']"
            page.wait_for_function(
                "s => /field 2/.test(document.querySelector(s)?.textContent || '')",
                arg=harvest, timeout=5000)
            page.wait_for_timeout(1100)  # settled: no longer "just changed"
            plant = page.query_selector(
                ".live-moves button.move:not([data-kind='harvest'])")
            assert plant is not None
            before = _version(page)
            plant.click()
            page.wait_for_function(
                "v => Number(document.querySelector('[data-socket]').dataset.version) > v",
                arg=before, timeout=10_000)
            assert "1 coin" in page.inner_text(harvest)
            commands_before = proxy.commands()
            after_plant = _version(page)
            page.click(harvest)
            # Sent: the server answers (played, or refused: the injected harvest may not
            # be legal); swallowed: the page's notice says so.
            page.wait_for_function(
                """v => Number(document.querySelector('[data-socket]').dataset.version) > v
                   || !document.querySelector('.live-error').hidden
                   || /Nothing was sent/.test(
                        document.querySelector('.move-notice')?.textContent || '')""",
                arg=after_plant, timeout=10_000)
            commands = [f for f in proxy.sent if f.get("type") == "command"]
        assert len(commands) == commands_before + 1, "the first press was swallowed"
        assert commands[-1]["command"] == {"kind": "harvest", "field": 1}


@override_settings(PLAY_BOT_PACE_SECONDS=0.02)
class EndSummaryTest(_Browser):
    def test_the_end_shows_the_summary_and_the_fields_as_harvested(self) -> None:
        table = _ann_at("duel", ["open", "heuristic"])
        with sync_playwright() as driver:
            page = self._ann(driver)
            page.goto(f"{self.live_server_url}/play/tables/{table.id}/")
            page.wait_for_selector(".live-table .rt")
            deadline = time.monotonic() + 240
            while time.monotonic() < deadline and not page.is_visible(".live-end"):
                if not _press_first(page):
                    time.sleep(0.05)
            assert page.is_visible(".live-end"), "the game did not end in time"
            page.wait_for_selector(".live-summary .rt-summary", timeout=10_000)
            page.wait_for_selector(".live-final-fields .rt-seats", timeout=10_000)
            assert page.locator(".live-summary .rt-summary table").count() >= 1
            assert page.locator(".live-final-fields .rt-field .card").count() > 0
            page.locator(".live-end").scroll_into_view_if_needed()
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOTS / "live-end.png"), full_page=True)


def _counterable(state: Any) -> tuple[int, str, int] | None:
    """Terms for ann's offer to the bot on turn that it declines and counters (asked of a
    fresh copy of it): one of her front cards for one or two beans of a kind."""
    from bohnanza_core.bots import HeuristicBot
    from bohnanza_core.bots.fields import farm
    from bohnanza_core.commands import DeclineOffer
    from bohnanza_core.state import Offer
    from bohnanza_core.views import view

    bot = state.active
    seen = view(state, bot)
    probe = HeuristicBot(bot, "probe")
    for card in state.hands[0][:2]:
        for kind in sorted(set(state.ruleset.beans), key=str):
            for count in (1, 2):
                offer = Offer(state.next_offer, 0, bot, (card,), ((kind, count),))
                answer = probe._answer(probe._holdings_now(seen, farm(seen, bot)), [offer])
                if isinstance(answer, DeclineOffer) and HeuristicBot(bot, "probe").counter(
                        seen, offer) is not None:
                    return card, str(kind.value), count
    return None


@override_settings(PLAY_BOT_PACE_SECONDS=0.05)
class CounterOfferTest(_Browser):
    def test_a_bot_counters_anns_offer_and_her_page_offers_her_its_terms(self) -> None:
        """Ann offers the bot on turn terms it declines but would trade on otherwise: its
        counter-offer to her comes inside the window, and her page offers her to accept it."""
        table = _ann_at("classic", ["open", "heuristic", "heuristic"], SHORT, trade_seconds=15)
        game_id = Table.objects.get(pk=table.pk).game_id
        countered: int | None = None
        with sync_playwright() as driver:
            page = self._ann(driver)
            page.goto(f"{self.live_server_url}/play/tables/{table.id}/")
            page.wait_for_selector(".live-table .rt")
            deadline = time.monotonic() + 200
            tried: set[int] = set()
            while time.monotonic() < deadline and countered is None:
                state = games().game(game_id).state
                if (state.turn not in tried and page.is_visible(".live-trade-window:not(.is-empty)")
                        and page.query_selector(".offer-form")
                        and not page.query_selector(".live-table .rt-seat.is-you.is-active")):
                    tried.add(state.turn)
                    terms = _counterable(state)
                    if terms is not None:
                        card, kind, count = terms
                        page.check(f".offer-gives input[value='{card}']")
                        page.fill(f"input.offer-want[data-kind='{kind}']", str(count))
                        page.select_option(".offer-to", str(state.active))
                        page.click(".move-offer")
                        countered = self._counter_seen(page, game_id, state.active)
                        if countered is not None and not self._offers_her(page, game_id,
                                                                          countered):
                            countered = None  # closed before her page could show it
                        continue
                if not _press_first(page):
                    time.sleep(0.1)
            assert countered is not None, "no counter-offer came"
            # No offer open to her repeats another's terms (a counter says something new).
            offers = games().game(game_id).state.offers.values()
            terms = [(o.gives, tuple(o.wants)) for o in offers if o.counterparty == 0]
            assert len(terms) == len(set(terms)), terms
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOTS / "live-counter-offer.png"))

    def _offers_her(self, page: Page, game_id: Any, number: int) -> bool:
        """Whether ann's page offers her to accept offer ``number``. Not shown: it must
        be that the store no longer lets her (the offer closed as the table moved on,
        or she cannot pay what it asks), else the page failed her."""
        try:
            page.wait_for_function(
                """n => [...document.querySelectorAll('.live-moves button.move')].some(
                     b => b.textContent.includes('#' + n))""", arg=number, timeout=10_000)
            return True
        except PlaywrightTimeout:
            state = games().game(game_id).state
            assert not any(isinstance(move, AcceptOffer) and move.offer == number
                           for move in legal_commands(state, 0)), (
                f"offer {number} is open to ann and she can pay, but her page does not "
                "offer it")
            return False

    def _counter_seen(self, page: Page, game_id: Any, bot: int) -> int | None:
        """The number of the bot's counter-offer to ann, once her page's log tells it;
        None if the bot answered her offer otherwise (the table moved on meanwhile)."""
        for _ in range(50):
            record = games().record(game_id)
            mine = [e for e in record if isinstance(e.event, OfferMade)
                    and e.actor == "user:ann"]
            if mine:
                number = mine[-1].event.offer
                back = [e.event.offer for e in record if isinstance(e.event, OfferMade)
                        and e.event.offer > number and e.event.proposer == bot
                        and e.event.counterparty == 0]
                if back:
                    page.wait_for_function(
                        """n => [...document.querySelectorAll('.live-log li')].some(
                             li => li.textContent.includes('(offer ' + n + ')')
                                   && li.textContent.includes('offers ann'))""",
                        arg=back[0], timeout=5000)
                    return back[0]
                if any(isinstance(e.event, OfferAccepted) and e.event.offer == number
                       for e in record):
                    return None
            time.sleep(0.1)
        return None


PHONE = {"width": 390, "height": 844}

# Each animation frame: where ann's seat is, with what the page offers her (moves,
# offers) and the phase and turn shown; the trading window chip, whose turn it is.
_WATCH = """() => {
  window.__samples = [];
  const look = () => {
    const root = document.querySelector('[data-socket]');
    const seat = document.querySelector('.live-table .rt-seat.is-you');
    const rt = document.querySelector('.live-table .rt');
    if (seat && rt) {
      const moves = [...document.querySelectorAll('.live-moves button.move')]
        .map((b) => b.textContent).join('|');
      window.__samples.push({
        y: Math.round(seat.getBoundingClientRect().top + window.scrollY),
        key: root.dataset.version + '#' + moves,
        bar: document.querySelector('.live-clocks')?.offsetHeight,
        pass: document.querySelector('.live-pass')?.offsetHeight,
        err: document.querySelector('.live-error')?.offsetHeight,
        moves: document.querySelector('.live-moves')?.offsetHeight,
        ownTurn: seat.classList.contains('is-active'),
        window: !!document.querySelector('.live-trade-window:not(.is-empty)'),
        trading: /trading/i.test(document.querySelector('.rt-status')?.textContent || ''),
      });
    }
    requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
}"""


@override_settings(PLAY_BOT_PACE_SECONDS=0.3)
class TradingWindowOnAPhoneTest(_Browser):
    def test_the_window_is_a_bots_and_nothing_moves_while_it_lasts(self) -> None:
        """On a phone, through a bot's trading phase, ann's seat stays where it is while
        the page offers her the same (the chip and the pass button are shown for the
        whole window); on her own trading phase there is no window to show."""
        table = _ann_at("classic", ["open", "heuristic", "heuristic"], SHORT, trade_seconds=4)
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                             args=CHROMIUM_ARGS)
            page = browser.new_context(viewport=PHONE, has_touch=True,
                                       is_mobile=True).new_page()
            sign_in(page, self.live_server_url, "ann", "pw-live-123")
            page.goto(f"{self.live_server_url}/play/tables/{table.id}/")
            page.wait_for_selector(".live-table .rt")
            page.evaluate(_WATCH)
            deadline = time.monotonic() + 150
            windows = 0
            was_open = False
            own = "() => window.__samples.some((s) => s.ownTurn && s.trading)"
            while time.monotonic() < deadline and (windows < 2 or not page.evaluate(own)):
                opened = page.is_visible(".live-trade-window:not(.is-empty)")
                if was_open and not opened:
                    windows += 1
                was_open = opened
                if not opened and not _press_first(page):
                    page.wait_for_timeout(100)
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOTS / "live-trade-window-phone.png"))
            samples = page.evaluate("window.__samples")
        assert windows >= 2, "no two bot's trading phases came"
        assert [s for s in samples if s["ownTurn"] and s["trading"]], "ann never traded"
        assert not [s for s in samples if s["ownTurn"] and s["trading"] and s["window"]], (
            "a trading window shown on ann's own turn")
        # Unchanged for ann (same version, same moves): her seat never moved.
        places: dict[str, set[int]] = {}
        above: dict[str, set[tuple[int, ...]]] = {}
        for s in samples:
            if s["window"]:
                places.setdefault(s["key"], set()).add(s["y"])
                # The heights above the seat, to say why it moved if it did (a refusal
                # and a press checked are told over the page: their height moves nothing).
                above.setdefault(s["key"], set()).add((s["y"], s["bar"], s["pass"], s["err"]))
        assert places, "no samples inside a window"
        moved = {k: above[k] for k, v in places.items() if len(v) > 1}
        assert not moved, f"ann's seat moved while nothing changed for her: {moved}"
