"""Every page works under the Content-Security-Policy (config/csp.py), in a real
Chromium over a real daphne (Channels' live server, so the websockets are real): the
home page, the lobby (its socket), a live table played for a few moves, the replay
viewer stepped to the end, its embed framed by another site, a competition's page, the
waiting room, every other page a signed-in person reaches, the rules page and the
language switch. Nothing on the way may break the policy: every
``securitypolicyviolation`` event (in every frame) and every console message about it
is collected, and there must be none; a script injected at the end shows that the
policy is enforced and that a violation would have been seen."""

from __future__ import annotations

import contextlib
import os
import re
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest
from channels.testing import ChannelsLiveServerTestCase
from django.contrib.auth.models import User
from django.test import override_settings
from playwright.sync_api import BrowserContext, Page, Response, expect, sync_playwright

from bohnanza_core.formats import FORMATS
from bohnanza_core.games import Game
from bohnanza_core.rulesets import ruleset_for
from play.models import Table
from play.tables import create_table, start
from replays.store import games, reset_games
from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, _require_chromium, sign_in
from tests.e2e.test_live_table import _version, _wait_moved
from tests.factories import bot_game
from tournaments.core.store import create, reset_competitions

pytestmark = pytest.mark.e2e

SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
REPORT = """
document.addEventListener("securitypolicyviolation", (e) => window.cspViolation(
  [e.violatedDirective, e.blockedURI, e.sourceFile + ":" + e.lineNumber, e.sample,
   location.href].join(" | ")));
"""
MOVES = 3
"""How many of ann's moves the live table plays."""


@contextlib.contextmanager
def another_site(page: bytes) -> Iterator[str]:
    """A site of another origin, on a loopback address (Chromium refuses a public
    site's frames of a local address), serving ``page`` at its root."""

    class Post(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *_: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Post)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@override_settings(PLAY_BOT_PACE_SECONDS=0.05)
class ContentSecurityPolicyTest(ChannelsLiveServerTestCase):
    serve_static = True

    def setUp(self) -> None:
        _require_chromium()
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
        reset_games()
        self.ann = User.objects.create_user("ann", password="pw-csp-123")
        self.violations: list[str] = []
        self.headers: dict[str, str] = {}

    def _watched(self, context: BrowserContext) -> Page:
        """A page whose every frame reports violations, and whose console messages
        about the policy count as violations too."""
        context.expose_function("cspViolation", lambda text: self.violations.append(text))
        context.add_init_script(REPORT)
        page = context.new_page()
        page.on("console", lambda message: self.violations.append(message.text)
                if "Content Security Policy" in message.text else None)
        page.on("pageerror", lambda error: self.violations.append(f"page error: {error}"))
        return page

    def _clean(self, where: str) -> None:
        """Nothing so far broke the policy (checked page by page, so that a page that
        fails for a refused script is named with the refusal)."""
        assert self.violations == [], f"{where}:\n" + "\n".join(self.violations)

    def _open(self, page: Page, path: str) -> Response:
        self._clean(f"before {path}")
        response = page.goto(f"{self.live_server_url}{path}")
        assert response is not None and response.ok, f"{path}: {response and response.status}"
        self.headers[path] = response.headers.get("content-security-policy", "")
        page.wait_for_load_state("load")
        return response

    def _shot(self, page: Page, name: str) -> None:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"csp-{name}.png"), full_page=True)

    def _styled(self, page: Page) -> None:
        """The site's stylesheet applies (a refused stylesheet leaves the browser's
        default look: a white page in Times)."""
        family = page.evaluate("getComputedStyle(document.body).fontFamily")
        assert "Times" not in family, family

    def test_every_page_works_under_the_policy(self) -> None:
        game = bot_game("e2e-csp", bots=("heuristic", "heuristic", "random"))
        table = start(create_table(self.ann, "classic", 3, seats=["open", "heuristic",
                                                                  "heuristic"]), self.ann)
        room = create_table(self.ann, "classic", 3, seats=["open", "open", "heuristic"])
        reset_competitions()
        competition = create(
            "CSP Cup", "round-robin", {"cycles": 1}, ruleset_for("classic", 3), 3,
            ["heuristic@builtin", "random@builtin", "nontrading@builtin"]).id
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                             args=CHROMIUM_ARGS)
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            page = self._watched(context)
            sign_in(page, self.live_server_url, "ann", "pw-csp-123")

            self._open(page, "/")
            self._styled(page)
            self._shot(page, "home")

            with page.expect_websocket() as opened:
                self._open(page, "/play/")
            opened.value.wait_for_event("framereceived")
            self._shot(page, "lobby")

            self._play(page, table)

            self._step(page, game)
            self._embed(context, game)

            self._open(page, f"/tournaments/{competition}/")
            self._styled(page)

            # The waiting room (its own socket) and every other page a person reaches.
            with page.expect_websocket() as opened:
                self._open(page, f"/play/tables/{room.id}/")
            opened.value.wait_for_event("framereceived")
            for path in ("/replays/games/", "/replays/mine/", f"/replays/games/{game.id}/audit/",
                         "/replays/import/", "/replays/verify/", "/replays/disputes/",
                         "/tournaments/", "/tournaments/new/", "/tournaments/?format=ladder",
                         *(f"/tournaments/new/{format}/" for format in FORMATS),
                         "/tournaments/invitations/", "/tournaments/entrants/heuristic@builtin/",
                         "/players/ann/", "/accounts/password_change/"):
                self._open(page, path)
                self._styled(page)
            self._clean("the other pages")

            self._open(page, "/rules/")
            self._styled(page)
            self._shot(page, "rules")
            self._clean("the rules page")
            page.select_option("#language-select", "hu")
            expect(page.locator("html")).to_have_attribute("lang", "hu")
            assert page.url == f"{self.live_server_url}/rules/"

            self._clean("at the end")
            self._enforced(page)
            browser.close()
        for path, header in self.headers.items():
            assert "script-src 'self'" in header and "unsafe-inline" not in header, path

    def _play(self, page: Page, table: Table) -> None:
        """ann plays MOVES moves by clicks, the bots theirs, over the table's socket."""
        with page.expect_websocket() as opened:
            self._open(page, f"/play/tables/{table.id}/")
        opened.value.wait_for_event("framereceived")
        page.wait_for_selector(".live-table .rt")
        self._styled(page)
        played = 0
        deadline = time.monotonic() + 60
        while played < MOVES:
            assert time.monotonic() < deadline, f"ann played {played} moves in a minute"
            before = _version(page)
            buttons = page.query_selector_all(".live-moves button.move:not(.move-offer)")
            if buttons:
                with contextlib.suppress(Exception):  # redrawn under the pointer
                    buttons[0].click(timeout=2000)
                    played += 1
            _wait_moved(page, before)
        stored = games().game(Table.objects.get(pk=table.pk).game_id)
        assert sum(1 for entry in games().record(stored.id) if entry.actor == "user:ann") \
            >= MOVES
        self._shot(page, "table")

    def _step(self, page: Page, game: Game) -> None:
        """The viewer steps forward by its buttons and keys, and shows the end-of-game
        summary (its colour swatches are drawn, not styled inline)."""
        self._open(page, f"/replays/games/{game.id}/?step=10")
        self._clean("the viewer's page")
        self._styled(page)
        rt = page.locator("#replay-table .rt")
        expect(rt).to_have_attribute("data-step", re.compile(r"\d+"))
        page.get_by_role("link", name="Forward one step").click()
        expect(rt).not_to_have_attribute("data-step", "10")
        page.locator("body").click(position={"x": 5, "y": 5})
        page.keyboard.press("End")
        expect(rt).to_have_attribute("data-step", str(game.version))
        expect(page.locator(".rt-summary .swatch")).to_have_count(3)
        self._shot(page, "viewer-end")
        self._clean("the viewer")

    def _embed(self, context: BrowserContext, game: Game) -> None:
        """Another site frames the embed, which steps; the viewer page itself is
        refused a frame there (frame-ancestors 'none', as X-Frame-Options: DENY)."""
        embed = f"{self.live_server_url}/replays/games/{game.id}/embed/?step=30"
        viewer = f"{self.live_server_url}/replays/games/{game.id}/?step=30"

        post = ("<!DOCTYPE html><html><body><h1>A blog post about a game</h1>"
                f'<iframe id="embed" src="{embed}" width="960" height="640"></iframe>'
                f'<iframe id="page" src="{viewer}" width="300" height="200"></iframe>'
                "</body></html>").encode()
        page = context.new_page()
        refused: list[str] = []
        page.on("console", lambda message: refused.append(message.text))
        with another_site(post) as blog:
            page.goto(blog)
            frame = page.frame_locator("#embed")
            rt = frame.locator("#replay-table .rt")
            expect(rt).to_have_attribute("data-step", "30")
            frame.get_by_role("link", name="Forward one step").click()
            expect(rt).not_to_have_attribute("data-step", "30")
            expect(page.frame_locator("#page").locator("#replay-table")).to_have_count(0)
            self._shot(page, "embed")
            # The viewer page's refusal is expected there, and only there.
            self.violations[:] = [v for v in self.violations if "frame-ancestors" not in v]
            assert any("frame-ancestors" in text or "X-Frame-Options" in text for text in refused)
        page.close()

    def _enforced(self, page: Page) -> None:
        """An inline script added to the page is refused, and the refusal is seen."""
        ran = page.evaluate("""() => {
            const script = document.createElement("script");
            script.textContent = "window.injected = true";
            document.head.append(script);
            return window.injected === true;
        }""")
        assert not ran
        deadline = time.monotonic() + 5
        while not any("script-src" in v for v in self.violations):
            assert time.monotonic() < deadline, "the refused inline script was not reported"
            page.wait_for_timeout(50)
