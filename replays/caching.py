"""Caching a game's pages and answers: in HTTP caches and in Django's cache framework.

A finished game never changes: its pages and answers are built once and then served
from the cache, and browsers, proxies and CDNs may keep them. Three things decide how:

- **Freshness, from the store.** Every request reads the game's last stored row (one
  indexed query: :func:`replays.store.head_of`), so the version and the head hash are
  always the store's own; the :class:`~bohnanza_core.games.Game` is rebuilt only when
  they are new to this process (:func:`replays.store.game_at`). For pages, the
  disputes' notification count (one query) says whether a ruling may have changed what
  they show (:func:`replays.disputes.rulings_of`).
- **Keys and ETags that hold everything that changes the answer** (:func:`tag`): the
  release (code, templates, static files and catalogues: a deploy invalidates), the
  game, its version and head hash, what is asked for (page, step *n*, log, export), the
  perspective, the reader's language, the host and scheme of absolute links, the
  rulings a page shows, and, for a private game, how the request was let in (the share
  token's digest or the account). One perspective's or one reader's answer is never
  another's, because what differs is in the key.
- **Who may keep it** (:class:`Policy`): a public finished game's answers are
  ``public`` (pages only for anonymous readers, whose pages hold no CSRF token and no
  name); a private game's and a signed-in reader's pages are ``private``; a running
  game's are ``no-store`` and never answered 304.

Answers kept server-side are stored gzip-compressed (a fifth to a tenth of their size)
and sent as they are to every client that accepts gzip, so a page is compressed once,
not once per request.
"""

from __future__ import annotations

import gzip
import hashlib
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.messages import get_messages
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.utils.cache import get_conditional_response, patch_cache_control, patch_vary_headers
from django.utils.translation import get_language

from bohnanza_core.games import Game
from replays.store import Head

PAGE_MAX_AGE = 300
"""Seconds a browser or a shared cache may show a finished public game's page without
asking again: a dispute ruling (which the page shows) reaches them within five minutes;
the server itself never serves a stale one."""
ANSWER_MAX_AGE = 3600
"""Seconds for a finished game's step and log answers and its export in browsers: they
never change (no ruling shows in them), but a deploy may change how they are drawn."""
SHARED_MAX_AGE = 24 * 3600
"""Seconds for the same in shared caches (``s-maxage``); a CDN may be purged on deploy."""
# -- the release ------------------------------------------------------------------------

_release: str | None = None
RELEASE_FOLDERS = ("bohnanza_core", "replays", "play", "tournaments", "analyses", "config",
                   "templates", "static", "locale")


def release() -> str:
    """What is deployed, as a digest of the files that draw a page (code, templates,
    static files, compiled catalogues), or ``BOHNANZA_RELEASE`` when set: every key and
    ETag holds it, so a deploy never serves an answer the old code built."""
    global _release
    if _release is None:
        given = os.environ.get("BOHNANZA_RELEASE", "").strip()
        _release = given[:40] if given else _digest_files(Path(settings.BASE_DIR))
    return _release


def _digest_files(root: Path) -> str:
    digest = hashlib.sha256()
    for folder in RELEASE_FOLDERS:
        for path in sorted((root / folder).rglob("*")):
            if path.is_file() and path.suffix in {".py", ".html", ".js", ".css", ".svg",
                                                  ".mo", ".txt", ".json"}:
                digest.update(str(path.relative_to(root)).encode() + b"\0")
                digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


# -- who may keep an answer ------------------------------------------------------------------


@dataclass(frozen=True)
class Policy:
    """How an answer may be cached: ``shared`` by anyone (a public finished game),
    ``private`` to the reader's browser (a private game, a signed-in reader's page), or
    not at all (a running game: ``no-store``, never 304)."""

    cacheable: bool
    shared: bool
    max_age: int
    basis: str
    shared_max_age: int = 0
    """How the request was let in, for a private game (its answers are never keyed
    without it): ``token:<digest>``, ``user:<name>``; ``public`` otherwise."""

    def cache_control(self) -> dict[str, Any]:
        if not self.cacheable:
            return {"no_store": True}
        if self.shared:
            return {"public": True, "max_age": self.max_age,
                    "s_maxage": self.shared_max_age}
        return {"private": True, "no_cache": True}


NOT_CACHED = Policy(cacheable=False, shared=False, max_age=0, basis="none")


def policy(request: HttpRequest, game: Game, token: str | None, *, page: bool) -> Policy:
    """The :class:`Policy` of a request for one of ``game``'s answers. ``token`` is the
    share token the request carried when it is the game's (else None)."""
    if not game.finished:
        return NOT_CACHED
    user: Any = request.user
    signed_in = bool(user.is_authenticated)
    if game.private:
        basis = ("token:" + hashlib.sha256(token.encode()).hexdigest()[:16] if token
                 else f"user:{user.get_username()}" if signed_in else "none")
        return Policy(cacheable=True, shared=False, max_age=0, basis=basis)
    if page and signed_in:
        # The page holds the reader's name and a CSRF token (the sign-out form):
        # drawn anew for them, from the cached parts, and kept by no one.
        return Policy(cacheable=False, shared=False, max_age=0, basis="public")
    if page:
        return Policy(cacheable=True, shared=True, max_age=PAGE_MAX_AGE, basis="public",
                      shared_max_age=PAGE_MAX_AGE)
    return Policy(cacheable=True, shared=True, max_age=ANSWER_MAX_AGE, basis="public",
                  shared_max_age=SHARED_MAX_AGE)


# -- keys ---------------------------------------------------------------------------------


def tag(game: Game, head: Head, *parts: Any) -> str:
    """A digest of everything an answer depends on: the release, the game and its head,
    the reader's language and ``parts`` (what is asked for, the perspective...)."""
    text = "\0".join(str(part) for part in (release(), game.id, head.version, head.digest,
                                            get_language(), *parts))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def remember(key: str, build: Callable[[], Any]) -> Any:
    """``build()``'s value, kept in the cache under ``key`` (built once)."""
    found = cache.get(key)
    if found is None:
        found = build()
        cache.set(key, found)
    return found


# -- answering ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Stored:
    """A response as kept in the cache: gzip-compressed body and the headers to send."""

    status: int
    content_type: str
    body: bytes
    headers: tuple[tuple[str, str], ...]


def _accepts_gzip(request: HttpRequest) -> bool:
    return "gzip" in request.headers.get("Accept-Encoding", "").lower()


def _language_dependent(response: HttpResponse, vary: Iterable[str]) -> HttpResponse:
    patch_vary_headers(response, tuple(vary))
    return response


def answer(request: HttpRequest, rule: Policy, etag: str | None,
           build: Callable[[], HttpResponse], *,
           vary: tuple[str, ...] = ("Accept-Language", "Cookie")) -> HttpResponse:
    """Answer a GET for a game's page or file under ``rule``: a 304 when the reader's
    copy (``If-None-Match``) is this one, else the answer kept in the cache under
    ``etag``, else ``build()``'s (kept for next time when it may be). Running games
    (``rule`` not cacheable): built every time, ``no-store``, no ETag."""
    if not rule.cacheable or etag is None:
        response = build()
        patch_cache_control(response, **rule.cache_control())
        return _language_dependent(response, vary)
    quoted = f'W/"{etag}"'
    if len(get_messages(request)) == 0:  # a page with a message to show is drawn anew
        not_modified = get_conditional_response(request, etag=quoted)
        if not_modified is not None:
            not_modified["ETag"] = quoted
            patch_cache_control(not_modified, **rule.cache_control())
            return _language_dependent(not_modified, vary)
        key = f"answer:{etag}"
        stored = cache.get(key)
        if isinstance(stored, Stored):
            return _language_dependent(_send(request, stored, quoted, rule), vary)
    response = build()
    if response.status_code != 200 or response.streaming or response.cookies \
            or request.META.get("CSRF_COOKIE_NEEDS_UPDATE"):
        # An error, or something personal (a cookie, a CSRF token): kept by no one.
        patch_cache_control(response, private=True, no_cache=True)
        return _language_dependent(response, vary)
    stored = Stored(response.status_code, response["Content-Type"],
                    gzip.compress(response.content, compresslevel=6, mtime=0),
                    tuple((name, value) for name, value in response.items()
                          if name.lower() in {"content-disposition", "x-content-type-options",
                                              "x-frame-options"}))
    cache.set(f"answer:{etag}", stored)
    return _language_dependent(_send(request, stored, quoted, rule), vary)


def _send(request: HttpRequest, stored: Stored, etag: str, rule: Policy) -> HttpResponse:
    """A response from a kept answer: its compressed body as it is for clients that
    accept gzip (GZipMiddleware leaves an encoded answer alone), else unpacked."""
    if _accepts_gzip(request):
        response = HttpResponse(stored.body, status=stored.status,
                                content_type=stored.content_type)
        response["Content-Encoding"] = "gzip"
    else:
        response = HttpResponse(gzip.decompress(stored.body), status=stored.status,
                                content_type=stored.content_type)
    for name, value in stored.headers:
        response[name] = value
    response["ETag"] = etag
    patch_vary_headers(response, ("Accept-Encoding",))
    patch_cache_control(response, **rule.cache_control())
    return response


__all__ = ["ANSWER_MAX_AGE", "NOT_CACHED", "PAGE_MAX_AGE", "SHARED_MAX_AGE", "Policy",
           "Stored", "answer", "policy", "release", "remember", "tag"]
