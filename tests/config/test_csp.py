"""The Content-Security-Policy header (config/csp.py, CONTENT_SECURITY_POLICY in the
settings) on every kind of answer, and templates free of what it refuses. The browser
test (tests/e2e/test_csp.py) shows the pages working under it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client, override_settings

from bohnanza_core.games import Game
from replays.store import reset_games
from tests.factories import bot_game

TEMPLATES = Path(settings.BASE_DIR) / "templates"


def directives(header: str) -> dict[str, list[str]]:
    parts = (part.split() for part in header.split(";") if part.strip())
    return {name: values for name, *values in parts}


@pytest.fixture
def game(db: None) -> Iterator[Game]:
    reset_games()
    yield bot_game("csp-header", bots=("heuristic", "random"), ruleset="duel")
    reset_games()


def test_a_page_gets_the_strict_policy(client: Client, db: None) -> None:
    policy = directives(client.get("/").headers["Content-Security-Policy"])
    assert policy["default-src"] == ["'self'"]
    assert policy["script-src"] == ["'self'"]
    assert policy["style-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["base-uri"] == ["'self'"]
    assert policy["form-action"] == ["'self'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert policy["connect-src"] == ["'self'", "ws://testserver"]


def test_the_websocket_origin_is_the_pages_own(client: Client, db: None) -> None:
    """wss on HTTPS, and the host the page was asked for."""
    header = client.get("/", secure=True, HTTP_HOST="localhost").headers[
        "Content-Security-Policy"]
    assert directives(header)["connect-src"] == ["'self'", "wss://localhost"]


def test_the_embed_may_be_framed_anywhere_and_the_page_nowhere(client: Client,
                                                               game: Game) -> None:
    embed = client.get(f"/replays/games/{game.id}/embed/")
    page = client.get(f"/replays/games/{game.id}/")
    assert embed.status_code == page.status_code == 200
    assert directives(embed.headers["Content-Security-Policy"])["frame-ancestors"] == ["*"]
    assert "X-Frame-Options" not in embed.headers
    assert directives(page.headers["Content-Security-Policy"])["frame-ancestors"] == [
        "'none'"]
    assert page.headers["X-Frame-Options"] == "DENY"
    # Kept answers (replays/caching.py) get the policy as the first did.
    again = client.get(f"/replays/games/{game.id}/embed/")
    assert again.headers["Content-Security-Policy"] == embed.headers["Content-Security-Policy"]


@override_settings(DEBUG=False)
def test_refusals_and_error_pages_get_it_too(client: Client, db: None) -> None:
    for response in (client.get("/no-such-page/"),
                     client.get("/replays/games/not-a-game/steps/1.json"),
                     client.post("/accounts/login/", {})):
        assert "script-src 'self'" in response.headers["Content-Security-Policy"], response


INLINE = [
    (re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*application/(?:ld\+)?json)[^>]*>"),
     "an inline script"),
    (re.compile(r"\son[a-z]+\s*=", re.IGNORECASE), "an inline event handler"),
    (re.compile(r"<style[\s>]"), "a style element"),
    (re.compile(r"\sstyle\s*=", re.IGNORECASE), "a style attribute"),
    (re.compile(r"javascript:", re.IGNORECASE), "a javascript: address"),
]

TEXTAREA = re.compile(r"<textarea[^>]*>.*?</textarea>", re.DOTALL)
"""A textarea's content is text, never markup."""


def test_no_template_holds_what_the_policy_refuses() -> None:
    """Inline scripts, handlers and styles are refused by the browser (and a refused
    script fails quietly): every template keeps them in files under static/. (The
    share box's embed snippet is text in a textarea, escaped, not markup.)"""
    found = []
    for template in sorted(TEMPLATES.rglob("*.html")):
        text = TEXTAREA.sub("<textarea></textarea>", template.read_text())
        for pattern, what in INLINE:
            for match in pattern.finditer(text):
                found.append(f"{template.relative_to(TEMPLATES)}: {what}: {match.group(0)!r}")
    assert found == []
