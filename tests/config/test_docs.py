"""The documentation served as pages (config/docs.py): a bot author or an organiser with
only the site reads docs/ there, each guide's sections by the anchors the docs link to,
a guide named in another a link to it, nothing outside docs/ reachable."""

from __future__ import annotations

import html
import re

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_every_guide_is_listed_and_served() -> None:
    from config.docs import guides

    names = guides()
    assert {"bots", "protocol", "tournaments", "export"} <= set(names)
    listed = Client().get("/docs/").content.decode()
    for name in names:
        assert f'href="/docs/{name}/"' in listed
        assert Client().get(f"/docs/{name}/").status_code == 200


def test_a_guide_has_its_sections_anchors_and_links_to_the_others() -> None:
    from config.docs import to_html

    page = Client().get("/docs/bots/").content.decode()
    # the anchors GitHub makes, which the docs' own links use
    assert 'id="bots-from-outside"' in page and 'id="4-enter-a-ladder"' in page
    # a guide named in prose or in code is a link to its page
    assert '<a href="/docs/protocol/">docs/protocol.md</a>' in page
    title, body = to_html("# Two\n\nSee `docs/bots.md`, [its protocol](protocol.md#who-you-are)"
                         ", [the site](https://example.org/x.md) and docs/nothing.md.")
    assert title == "Two" and '<h1 id="two">' in body
    assert '<a href="/docs/bots/"><code>docs/bots.md</code></a>' in body
    assert '<a href="/docs/protocol/#who-you-are">its protocol</a>' in body
    assert 'href="https://example.org/x.md"' in body and "docs/nothing.md." in body
    # tables and code blocks are drawn
    assert "<table>" in page and "<pre><code" in page
    # its raw text is escaped, never markup: `python bot.py /ws/tables/<the table id>/`
    assert "&lt;the table id&gt;" in page and "<the table id>" not in page
    _title, raw = to_html("<script>alert(1)</script> and <b>bold</b>")
    assert "<script>" not in raw and "&lt;script&gt;" in raw and "<b>" not in raw
    tournaments = Client().get("/docs/tournaments/").content.decode()
    for anchor in re.findall(r'href="#([^"]+)"', tournaments):
        assert f'id="{html.unescape(anchor)}"' in tournaments, anchor


@pytest.mark.parametrize("address", [
    "/docs/nothing/", "/docs/..%2Fconfig%2Fsettings/", "/docs/README/", "/docs/schema/",
    "/docs/" + "a" * 500 + "/", "/docs/bots.md/"])
def test_only_the_guides_are_served(address: str) -> None:
    assert Client().get(address).status_code == 404


def test_the_bot_accounts_page_links_to_the_tutorial() -> None:
    from django.contrib.auth.models import User

    browser = Client()
    browser.force_login(User.objects.create_user("olga"))
    page = browser.get("/account/bots/").content.decode()
    assert 'href="/docs/bots/#bots-from-outside"' in page
