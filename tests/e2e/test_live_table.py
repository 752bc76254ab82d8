"""The live table in a real Chromium, over a real daphne (Channels' live server): two
people in two browser contexts and bots play by clicks: a gift offered by one person and
accepted by the other, an offer being composed kept while frames redraw the moves, and a
whole 4-player classic game with a trade to the end."""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from pathlib import Path

import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.contrib.auth.models import User
from django.test import override_settings
from playwright.sync_api import Browser, Page, WebSocketRoute, expect, sync_playwright
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from bohnanza_core.events import OfferAccepted, OfferMade
from play.models import Table
from play.tables import create_table, join, start
from replays.store import games, reset_games
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, _require_chromium, sign_in

pytestmark = pytest.mark.e2e

SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
SHORT = {"beans": ["wax", "blue", "chili", "stink"]}


def _ann_and_bob_at(preset: str, players: int, seats: list[str],
                    overrides: dict | None = None) -> Table:
    """A started table of ann's (seat 0) with bob in seat 1, on an empty store; each
    test's browser then signs them in with ``pw-live-123``."""
    _require_chromium()
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    reset_games()
    ann = User.objects.create_user("ann", password="pw-live-123")
    bob = User.objects.create_user("bob", password="pw-live-123")
    table = create_table(ann, preset, players, seats=seats, overrides=overrides)
    join(table, bob)
    return start(table, ann)


@override_settings(PLAY_BOT_PACE_SECONDS=0.05)
class LiveTableTest(ChannelsLiveServerTestCase):
    """ann (seat 1) and bob (seat 2) in two browser contexts, a bot in seat 3, play by
    clicks until ann gives bob a face-up card and he takes it. (Playing on to the end
    would only repeat what :class:`LiveFourPlayerClassicTest` does, at a minute more.)"""

    serve_static = True

    def _signed_in(self, browser: Browser, name: str) -> Page:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        sign_in(page, self.live_server_url, name, "pw-live-123")
        return page

    def test_two_people_and_a_bot_play_until_a_gift_is_taken(self) -> None:
        table = _ann_and_bob_at("classic", 3, ["open", "open", "heuristic"], SHORT)
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                             args=CHROMIUM_ARGS)
            pages = [self._signed_in(browser, name) for name in ("ann", "bob")]
            for page in pages:
                page.goto(f"{self.live_server_url}/play/tables/{table.id}/")
                page.wait_for_selector(".live-table .rt")
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            traded = self._trade(pages)
            # Reloaded mid-game, bob's page shows the log so far, his accept among it,
            # one line per event numbered by it.
            bob = pages[1]
            bob.reload()
            bob.wait_for_selector(".live-table .rt")
            bob.wait_for_function(LOG_WHOLE, timeout=10_000)
            assert bob.locator(".live-log li", has_text="accepts").count() == 1
            bob.screenshot(path=str(SCREENSHOTS / "live-reloaded.png"), full_page=True)
            browser.close()
        game = games().game(Table.objects.get(pk=table.pk).game_id)
        assert traded
        actors = [entry.actor for entry in games().record(game.id)]
        assert "user:ann" in actors and "user:bob" in actors
        record = games().record(game.id)
        given = [e.event for e in record if isinstance(e.event, OfferMade)
                 and e.actor == "user:ann" and e.event.counterparty == 1]
        accepted = [e.event for e in record if isinstance(e.event, OfferAccepted)
                    and e.actor == "user:bob"]
        assert len(given) == 1 and not given[0].wants, "a gift: cards given, nothing wanted"
        assert [a.offer for a in accepted] == [given[0].offer]

    def _click_first(self, page: Page) -> bool:
        buttons = page.query_selector_all(".live-moves .move-list button.move")
        if not buttons:
            return False
        try:
            buttons[0].click(timeout=2000)
            yes = page.query_selector(".move-confirm:not([hidden]) .move-yes, "
                                      ".move-confirm:not([hidden]) .move-accept")
            if yes is not None:
                yes.click(timeout=2000)
        except Exception:  # redrawn under the pointer: the next look finds the new ones
            return False
        return True

    def _until_ann_may_offer(self, pages: list[Page]) -> bool:
        """Play by clicks until ann may offer in her trading phase."""
        ann, bob = pages
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if ann.query_selector(".offer-form") and ann.query_selector(
                    ".live-table .rt-seat.is-you.is-active"):
                return True
            before = _version(ann)  # ann's page hears every move, hers, bob's, the bot's
            self._click_first(bob)
            if not ann.query_selector(".offer-form"):
                self._click_first(ann)
            elif not ann.query_selector(".live-table .rt-seat.is-you.is-active"):
                self._click_first(ann)  # answering the others' offers
            _wait_moved(ann, before)
        return False

    def _trade(self, pages: list[Page]) -> bool:
        """Play by clicks until ann may offer in her trading phase; she offers bob a
        face-up card as a gift, bob accepts it on his page."""
        ann, bob = pages
        if not self._until_ann_may_offer(pages):
            return False
        ann.screenshot(path=str(SCREENSHOTS / "live-trade-offer.png"), full_page=True)
        ann.check(".offer-gives input >> nth=0")
        ann.select_option(".offer-to", "1")
        ann.click(".move-offer")
        bob.wait_for_selector(".live-moves button.move:has-text('#')", timeout=10_000)
        accept = bob.locator(".live-moves button.move", has_text="Accept offer").first
        bob.screenshot(path=str(SCREENSHOTS / "live-trade-accept.png"), full_page=True)
        accept.click()
        bob.wait_for_selector(".rt-seat.is-you .rt-trade", timeout=10_000)
        return True


@override_settings(PLAY_BOT_PACE_SECONDS=0.05)
class LiveOfferFormTest(ChannelsLiveServerTestCase):
    """ann (seat 1) and bob (seat 2) in two browser contexts, a bot in seat 3: the offer
    bob composes outlives the frames that redraw his moves. (A class of its own, as each
    test here: a second test on a class's live server found its people not signed in.)"""

    serve_static = True
    _signed_in = LiveTableTest._signed_in
    _click_first = LiveTableTest._click_first
    _until_ann_may_offer = LiveTableTest._until_ann_may_offer

    def test_an_offer_being_composed_outlives_the_frames(self) -> None:
        """static/js/table.js redraws the moves on every frame: bob, composing an offer
        to ann in her trading phase, keeps what he ticked and typed (and where he typed)
        while her offer arrives; once he sends his, the form starts again empty."""
        table = _ann_and_bob_at("classic", 3, ["open", "open", "heuristic"], SHORT)
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                             args=CHROMIUM_ARGS)
            ann, bob = pages = [self._signed_in(browser, name) for name in ("ann", "bob")]
            for page in pages:
                page.goto(f"{self.live_server_url}/play/tables/{table.id}/")
                page.wait_for_selector(".live-table .rt")
            assert self._until_ann_may_offer(pages)
            give = bob.locator(".offer-gives input[type=checkbox]").first
            card = int(give.get_attribute("value"))
            want = bob.locator("input.offer-want").first
            kind = want.get_attribute("data-kind")
            give.check()
            want.fill("2")
            before = _version(bob)
            ann_card = ann.locator(".offer-gives label").first.text_content() or ""
            ann.check(".offer-gives input >> nth=0")  # a frame on bob's page: her offer
            ann.select_option(".offer-to", "1")
            ann.click(".move-offer")
            bob.wait_for_function(VERSION_MOVED, arg=[before], timeout=10_000)
            offered = bob.locator(".live-moves button.move", has_text="Accept offer")
            expect(offered).not_to_have_count(0)
            # The accept says what bob gives (nothing: a gift) and gets (ann's bean),
            # and its decline is right after it.
            gift = ann_card.split(" (")[0].strip()
            accept, after = bob.evaluate("""() => {
              const b = [...document.querySelectorAll('.live-moves button.move')]
                .find((e) => e.textContent.includes('Accept offer'));
              return [b.textContent, b.nextElementSibling && b.nextElementSibling.textContent];
            }""")
            number = accept.split("#")[1].split(":")[0]
            assert accept.endswith(f": give nothing, get {gift}"), accept
            assert after and after.split("] ")[-1] == f"Decline offer #{number}", after
            expect(give).to_be_checked()
            expect(want).to_have_value("2")
            assert bob.evaluate("document.activeElement.name") == f"want-{kind}"
            before = _version(bob)
            bob.click(".move-offer")
            bob.wait_for_function(VERSION_MOVED, arg=[before], timeout=10_000)
            expect(bob.locator(".offer-gives input:checked")).to_have_count(0)
            expect(want).to_have_value("0")
            browser.close()
        record = games().record(Table.objects.get(pk=table.pk).game_id)
        made = [e.event for e in record if isinstance(e.event, OfferMade)
                and e.actor == "user:bob"]
        assert len(made) == 1 and made[0].counterparty == 0
        assert list(made[0].gives) == [card]
        assert [(k.value, n) for k, n in made[0].wants] == [(kind, 2)]


LOG_WHOLE = """() => {
  const root = document.querySelector('[data-socket]');
  const log = root.querySelector('.live-log');
  const version = Number(root.dataset.version || 0);
  // oldest first, each line numbered by its event; the deal's cards folded into a line
  // per seat, so fewer lines than events
  return version > 0 && log.dataset.version === String(version) && log.children.length > 0
    && log.firstElementChild.value === Math.max(1, version - 299)
    && log.lastElementChild.value <= version;
}"""
"""The page holds the log so far: the last 300 events, oldest first."""
VERSION_MOVED = """([before]) => {
  const root = document.querySelector('[data-socket]');
  return root.dataset.version !== before || !root.querySelector('.live-error').hidden;
}"""
LOOK = """() => {
  const root = document.querySelector('[data-socket]');
  const end = document.querySelector('.live-end');
  return {
    ended: !!end && !end.hidden && end.getClientRects().length > 0,
    version: root.dataset.version || '',
    may_offer: !!document.querySelector('.offer-form')
      && !!document.querySelector('.live-table .rt-seat.is-you.is-active'),
    moves: document.querySelectorAll('.live-moves .move-list button.move').length,
  };
}"""
"""What a loop of the 4-player game needs to know of a page, in one round trip."""
HAND_KINDS = """els => els.map(e => [...e.classList].find(c => c.startsWith('kind-')).slice(5))"""
CARD_KINDS = """els => Object.fromEntries(els.map(e => [e.dataset.card,
  [...e.classList].find(c => c.startsWith('kind-')).slice(5)]))"""


DRAWN = """() => {
  // The table as drawn, without what depends on how the page got there: the marks of
  // what the last frames changed (a page that just connected has none) and which
  // details the reader opened.
  const copy = document.querySelector('.live-table .rt').cloneNode(true);
  for (const e of [copy, ...copy.querySelectorAll('[class]')]) {
    const kept = [...e.classList].filter((c) => c !== 'chg' && c !== 'chg-now');
    if (kept.length) e.setAttribute('class', kept.join(' ')); else e.removeAttribute('class');
  }
  for (const e of copy.querySelectorAll('details')) e.removeAttribute('open');
  return copy.outerHTML.replace(/\\s+/g, ' ');
}"""
"""A page's drawing of the table, to compare one built from regions with a whole one."""


def _version(page: Page) -> str:
    """The version the page last drew (live.js keeps it on the root)."""
    return page.eval_on_selector("[data-socket]", "r => r.dataset.version || ''")


def _wait_moved(page: Page, before: str, timeout: float = 5000) -> None:
    """Until the page draws another version or shows a refusal. On a timeout the caller
    looks again; its overall deadline bounds the game."""
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(VERSION_MOVED, arg=[before], timeout=timeout)


@override_settings(PLAY_BOT_PACE_SECONDS=0.02)
class LiveFourPlayerClassicTest(ChannelsLiveServerTestCase):
    """The issue's browser test: ann (seat 0) and bob (seat 1) in two browser contexts,
    two heuristic bots (seats 2, 3), a full 4-player ``classic`` game (no house rules)
    played by clicks. In ann's first trading phase she offers bob one of her cards for a
    kind in bob's hand (read from bob's own page); bob accepts it by choosing his card."""

    serve_static = True
    _signed_in = LiveTableTest._signed_in

    def test_four_player_classic_to_the_end_with_a_trade(self) -> None:
        table = _ann_and_bob_at("classic", 4, ["open", "open", "heuristic", "heuristic"])
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                             args=CHROMIUM_ARGS)
            pages = [self._signed_in(browser, name) for name in ("ann", "bob")]
            for page in pages:
                page.goto(f"{self.live_server_url}/play/tables/{table.id}/")
                page.wait_for_selector(".live-table .rt")
            staged = self._play(pages)
            for page, name in zip(pages, ("ann", "bob"), strict=True):
                expect(page.locator(".live-end")).to_be_visible()
                page.screenshot(path=str(SCREENSHOTS / f"live4-end-{name}.png"), full_page=True)
            browser.close()
        game = games().game(Table.objects.get(pk=table.pk).game_id)
        assert game.finished
        rules = game.state.ruleset
        assert rules.name == "classic" and not rules.house_rules and game.state.players == 4
        record = games().record(game.id)
        actors = {entry.actor for entry in record}
        assert {"user:ann", "user:bob", "bot:heuristic"} <= actors
        made = [e.event for e in record if isinstance(e.event, OfferMade)
                and e.actor == "user:ann" and e.event.counterparty == 1]
        assert len(made) == 1
        offer = made[0]
        assert list(offer.gives) == [staged["give"]]
        assert [(kind.value, n) for kind, n in offer.wants] == [(staged["kind"], 1)]
        accepted = [e.event for e in record if isinstance(e.event, OfferAccepted)
                    and e.actor == "user:bob" and e.event.offer == offer.offer]
        assert len(accepted) == 1 and accepted[0].seat == 1
        assert len(accepted[0].cards) == 1

    def _click_first(self, page: Page, before: str) -> None:
        """Click this seat's first legal move (not the offer form); wait for the answer
        (a version after ``before``, which the page drew when it was looked at)."""
        try:
            page.locator(".live-moves .move-list button.move").first.click(timeout=2000)
            # A move one may regret asks first; an accept shows the cards it gives.
            yes = page.locator(".move-confirm:not([hidden]) .move-yes, "
                               ".move-confirm:not([hidden]) .move-accept")
            if yes.count():
                yes.first.click(timeout=2000)
        except PlaywrightError:  # redrawn under the pointer: the next look finds the new ones
            return
        _wait_moved(page, before)

    def _stage_trade(self, ann: Page, bob: Page) -> dict:
        """Ann, active and trading: one of her cards to bob for one bean of a kind he
        holds; bob accepts, choosing his card."""
        wantable = ann.eval_on_selector_all("input.offer-want",
                                            "els => els.map(e => e.dataset.kind)")
        held = bob.eval_on_selector_all(".rt-seat.is-you .rt-hand .card[data-card]", HAND_KINDS)
        boxes = ann.locator(".offer-gives input[type=checkbox]")
        givable = [int(v) for v in boxes.evaluate_all("els => els.map(e => e.value)")]
        kinds = ann.eval_on_selector_all(".live-table .card[data-card]", CARD_KINDS)
        # A real trade: one of ann's cards for a kind bob holds, of another kind than it.
        card, kind = next((c, k) for c in givable for k in held
                          if k in wantable and k != kinds[str(c)])
        give = ann.locator(f".offer-gives input[type=checkbox][value='{card}']")
        give.check()
        ann.locator(f"input.offer-want[data-kind='{kind}']").fill("1")
        ann.select_option(".offer-to", "1")
        ann.screenshot(path=str(SCREENSHOTS / "live4-trade-offer.png"), full_page=True)
        ann.click(".move-offer")
        accept = bob.locator(".live-moves button.move", has_text="Accept offer").first
        expect(accept).to_be_visible(timeout=10_000)
        accept.click()
        # One accept per offer: when bob may pay it in more than one way, the button
        # shows his cards with the engine's choice ticked, and he confirms it.
        chosen = bob.locator(".move-confirm:not([hidden]) .move-accept")
        with contextlib.suppress(PlaywrightTimeout):
            chosen.wait_for(timeout=1500)
        bob.screenshot(path=str(SCREENSHOTS / "live4-trade-accept.png"), full_page=True)
        if chosen.count():
            chosen.click()
        expect(bob.locator(".rt-seat.is-you .rt-trade .card")).to_have_count(1, timeout=10_000)
        bob.screenshot(path=str(SCREENSHOTS / "live4-trade-accepted.png"), full_page=True)
        return {"kind": kind, "give": card}

    def _same_as_whole(self, page: Page, version: str) -> bool:
        """The page's drawing, built from the regions sent after its first frame
        (protocol 2), is the drawing a page opened now is sent whole, at the same
        version (False: the table moved on meanwhile, try later)."""
        fresh = page.context.new_page()
        try:
            fresh.goto(page.url)
            fresh.wait_for_selector(".live-table .rt")
            drawn, whole = page.evaluate(DRAWN), fresh.evaluate(DRAWN)
            if _version(fresh) != version or _version(page) != version:
                return False
            assert drawn == whole
            return True
        finally:
            fresh.close()

    def _play(self, pages: list[Page]) -> dict:
        ann, bob = pages
        staged: dict = {}
        compared = False
        deadline = time.monotonic() + 400
        while time.monotonic() < deadline:
            looks = [page.evaluate(LOOK) for page in pages]
            if all(look["ended"] for look in looks):
                assert compared, "no moment to compare a page's drawing with a whole one"
                return staged
            if (not compared and staged and looks[0]["moves"] and not looks[1]["moves"]
                    and not looks[0]["may_offer"]):
                # ann to move, nobody else: the table stays as it is meanwhile
                compared = self._same_as_whole(ann, looks[0]["version"])
            if not staged and looks[0]["may_offer"]:
                staged = self._stage_trade(ann, bob)
                continue
            for page, look in zip(pages, looks, strict=True):
                if look["moves"]:
                    self._click_first(page, look["version"])
            if not any(look["moves"] for look in looks):  # the bots' turn: the next frame
                _wait_moved(ann, looks[0]["version"])
        raise AssertionError("the game did not end in time")


@override_settings(PLAY_BOT_PACE_SECONDS=0.02)
class LiveResyncTest(ChannelsLiveServerTestCase):
    """static/js/live.js asks for its view again (``sync``) when nothing answered a
    command it sent: the answer to ann's move is lost on the way (the page's websocket
    goes through a route that drops it), and the page catches up by itself."""

    serve_static = True
    _signed_in = LiveTableTest._signed_in

    def test_a_lost_answer_is_asked_for_again_after_a_silence(self) -> None:
        table = _ann_and_bob_at("duel", 2, ["open", "open"])
        sent: list[tuple[float, dict]] = []
        dropped: list[int] = []
        losing = {"frames": 0}

        def route(socket: WebSocketRoute) -> None:
            server = socket.connect_to_server()

            def from_page(message: str | bytes) -> None:
                sent.append((time.monotonic(), json.loads(message)))
                server.send(message)

            def from_server(message: str | bytes) -> None:
                frame = json.loads(message)
                if frame.get("type") == "state" and losing["frames"] > 0:
                    losing["frames"] -= 1
                    dropped.append(frame["version"])
                    return
                socket.send(message)

            socket.on_message(from_page)
            server.on_message(from_server)

        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                             args=CHROMIUM_ARGS)
            page = self._signed_in(browser, "ann")
            page.route_web_socket(re.compile(r"/ws/tables/"), route)
            page.goto(f"{self.live_server_url}/play/tables/{table.id}/")
            page.wait_for_selector(".live-table .rt")
            before = int(_version(page))
            losing["frames"] = 1
            page.locator(".live-moves .move-list button.move").first.click()
            clicked = time.monotonic()
            page.wait_for_function(
                "v => Number(document.querySelector('[data-socket]').dataset.version) > v",
                arg=before, timeout=15_000)
            stored = games().game(Table.objects.get(pk=table.pk).game_id).version
            assert int(_version(page)) == stored > before
            browser.close()
        assert dropped == [stored]
        syncs = [at for at, frame in sent if frame.get("type") == "sync"]
        commands = [frame for _at, frame in sent if frame.get("type") == "command"]
        assert len(commands) == 1 and len(syncs) == 1
        assert syncs[0] - clicked >= 1.5  # after the silence, not at once
