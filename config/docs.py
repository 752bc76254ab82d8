"""The platform's documentation, served as pages: ``/docs/`` lists the guides in
``docs/`` and ``/docs/<name>/`` shows one (``docs/bots.md`` at ``/docs/bots/``), so a bot
author or an organiser with only the site reads what the repository's readers read.

Rendered by markdown-it-py (CommonMark, with tables), its raw HTML escaped; the
headings get GitHub's anchors (the docs link to each other's sections by them) and a
link to another guide (``protocol.md#who-you-are``, ``docs/export.md``) is turned into
its page's address. Only the files of ``docs/`` are served, by a name of letters and
digits: an address cannot reach elsewhere. Each page is rendered once per process
(the docs change with a release). The guides are in English, on every language's
site."""

from __future__ import annotations

import functools
import re
import unicodedata
from pathlib import Path
from typing import Any, Final

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import path, reverse
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe
from markdown_it import MarkdownIt
from markdown_it.token import Token

NAME: Final = re.compile(r"[a-z][a-z0-9_-]{0,39}")
"""A guide's name: its file's, without ``.md``."""
_GUIDE_LINK: Final = re.compile(r"^(?:\.?/?docs/|\./)?([a-z][a-z0-9_-]{0,39})\.md(#[^\s]*)?$")


def folder() -> Path:
    return Path(settings.BASE_DIR) / "docs"


def guides() -> list[str]:
    """Every guide's name, in order."""
    return sorted(p.stem for p in folder().glob("*.md") if NAME.fullmatch(p.stem))


def anchor(text: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces
    to hyphens (the docs' own links use these)."""
    text = unicodedata.normalize("NFKC", text).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _heading_ids(tokens: list[Token]) -> None:
    seen: dict[str, int] = {}
    for at, token in enumerate(tokens):
        if token.type != "heading_open":
            continue
        inline = tokens[at + 1]
        base = anchor("".join(c.content for c in inline.children or [] if c.content))
        count = seen.get(base, 0)
        seen[base] = count + 1
        token.attrSet("id", base if count == 0 else f"{base}-{count}")


def _guide_links(tokens: list[Token], known: set[str]) -> None:
    """A link to another guide's file becomes its page's address (with its anchor), and
    a guide named in code (`` `docs/protocol.md` ``, as the docs mostly name each other)
    a link to its page."""
    for token in tokens:
        children: list[Token] = []
        inside_link = False
        for child in token.children or []:
            if child.type == "link_open":
                found = _GUIDE_LINK.match(str(child.attrGet("href") or ""))
                if found and found.group(1) in known:
                    child.attrSet("href", _page(found))
            elif child.type == "code_inline":
                found = _GUIDE_LINK.match(child.content)
                if found and found.group(1) in known:
                    children += _linked(child, _page(found), inside_link)
                    continue
            elif child.type == "text" and not inside_link:
                children += _text_links(child, known)
                continue
            if child.type in ("link_open", "link_close"):
                inside_link = child.type == "link_open"
            children.append(child)
        if token.children is not None:
            token.children = children


_IN_TEXT: Final = re.compile(r"(?<![\w/.])docs/([a-z][a-z0-9_-]{0,39})\.md(#[\w-]+)?")
"""A guide named in prose (``docs/protocol.md``)."""


def _page(found: re.Match[str]) -> str:
    return reverse("docs:guide", args=[found.group(1)]) + (found.group(2) or "")


def _linked(token: Token, href: str, inside_link: bool) -> list[Token]:
    if inside_link:  # already in a link: left as it is
        return [token]
    return [Token("link_open", "a", 1, attrs={"href": href}), token,
            Token("link_close", "a", -1)]


def _text_links(token: Token, known: set[str]) -> list[Token]:
    """A text token with each guide it names made a link to its page."""
    pieces: list[Token] = []
    at = 0
    for found in _IN_TEXT.finditer(token.content):
        if found.group(1) not in known:
            continue
        if found.start() > at:
            pieces.append(Token("text", "", 0, content=token.content[at:found.start()]))
        pieces += _linked(Token("text", "", 0, content=found.group(0)), _page(found), False)
        at = found.end()
    if not pieces:
        return [token]
    if at < len(token.content):
        pieces.append(Token("text", "", 0, content=token.content[at:]))
    return pieces


@functools.cache
def rendered(name: str) -> tuple[str, SafeString]:
    """A guide's title (its first heading) and its HTML, made once per process."""
    return to_html((folder() / f"{name}.md").read_text(encoding="utf-8"), name)


def to_html(text: str, name: str = "") -> tuple[str, SafeString]:
    """Markdown's title (its first heading, else ``name``) and its HTML (see the
    module)."""
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = md.parse(text)
    _heading_ids(tokens)
    _guide_links(tokens, set(guides()))
    title = next((tokens[i + 1].content for i, t in enumerate(tokens)
                  if t.type == "heading_open"), name)
    # markdown-it escapes every raw HTML of the source ("html": False): what it makes
    # is its own markup around escaped text.
    return title, mark_safe(md.renderer.render(tokens, md.options, {}))


@require_safe
def index(request: HttpRequest) -> HttpResponse:
    return render(request, "docs/index.html", {
        "guides": [(name, rendered(name)[0]) for name in guides()]})


@require_safe
def guide(request: HttpRequest, guide: str) -> HttpResponse:
    if not NAME.fullmatch(guide) or guide not in guides():
        raise Http404(_("No such guide"))
    title, body = rendered(guide)
    context: dict[str, Any] = {"name": guide, "title": title, "body": body}
    return render(request, "docs/guide.html", context)


app_name = "docs"
urlpatterns = [
    path("", index, name="index"),
    path("<str:guide>/", guide, name="guide"),
]
