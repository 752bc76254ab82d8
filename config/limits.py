"""Request bodies bounded before they are read: 413 over ``BOHNANZA_MAX_REQUEST_BYTES``.

Two layers, because the servers differ in when Django first sees a request:

- Under ASGI, Django's handler reads the whole body (into memory up to
  FILE_UPLOAD_MAX_MEMORY_SIZE, then a temp file) before any Django middleware runs, so
  :class:`AsgiBodySizeLimit` wraps the application in config/asgi.py. It answers at
  once from a Content-Length over the limit without asking for the body, and for a body
  without one (chunked) counts what it passes on and stops once the limit is passed.
  Daphne itself (Twisted) receives a whole body before it calls the application, so
  config/daphne_limits.py (``bound_daphne_requests``, a patch of daphne's request
  class, with its contract) teaches its request class the same limit: 413 as soon as
  the headers declare too long a body, and no more than the limit of a chunked one.
- Under WSGI, :class:`BodySizeLimitMiddleware` checks Content-Length before anything
  reads ``request.POST`` or ``request.body`` (Django reads no body without one).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from asgiref.typing import (
    ASGI3Application,
    ASGIReceiveCallable,
    ASGIReceiveEvent,
    ASGISendCallable,
    ASGISendEvent,
    HTTPScope,
    Scope,
)
from django.conf import settings
from django.http import HttpRequest, HttpResponse

from botapi.errors import MAX_BODY_BYTES, under_api
from config.errors import bare_request, too_large

logger = logging.getLogger(__name__)


_DIGITS = 18
"""A Content-Length of more digits than this is taken as 10**18 bytes: over any limit."""


def declared_length(value: str | bytes | None) -> int | None:
    """A Content-Length header's value, or None when it is missing or not a number
    (ASCII digits only, at most 18 of them: ``int`` refuses more than 4,300 digits)."""
    if value is None:
        return None
    text = value.decode("latin-1") if isinstance(value, bytes) else value
    text = text.strip()
    if not (text.isascii() and text.isdigit()):
        return None
    # More digits than any body could have: no need to build (or refuse to build,
    # past 4,300 digits) the number to know it is over every limit.
    return int(text) if len(text) <= _DIGITS else 10**_DIGITS


def body_limit(path: str) -> int:
    """The largest request body ``path`` takes: the bot API's bound under ``/api/``
    (botapi.errors.MAX_BODY_BYTES: no call's body comes near it), else the site's
    (``BOHNANZA_MAX_REQUEST_BYTES``: an upload of a game file). Every layer refuses by
    it, so a larger body for the API is refused while it arrives, not received whole
    and then refused."""
    return MAX_BODY_BYTES if under_api(path) else int(settings.BOHNANZA_MAX_REQUEST_BYTES)


class BodySizeLimitMiddleware:
    """Django middleware: 413 for a declared body over the limit, before it is read."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = body_limit(request.path)
        length = declared_length(request.META.get("CONTENT_LENGTH"))
        if length is not None and length > limit:
            return too_large(request, limit)
        return self.get_response(request)


class AsgiBodySizeLimit:
    """ASGI middleware around Django's application: 413 for a body over the limit
    without reading it (declared) or without reading past the limit (chunked).

    For a chunked body, once the limit is passed Django is told the client went away
    (``http.disconnect``: it stops reading and answers nothing) and the 413 is sent
    here, unless the application had already started an answer.
    """

    def __init__(self, app: ASGI3Application) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: ASGIReceiveCallable,
                       send: ASGISendCallable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = body_limit(scope["path"])
        headers = dict(scope["headers"])
        length = declared_length(headers.get(b"content-length"))
        if length is not None and length > limit:
            logger.warning("Refused a %d-byte request body for %s (limit %d bytes)",
                           length, scope["path"], limit)
            await self.send_too_large(scope, send, limit)
            return

        received = 0
        cut_off = False
        answered = False

        async def counting_receive() -> ASGIReceiveEvent:
            nonlocal received, cut_off
            if cut_off:
                return {"type": "http.disconnect"}
            event = await receive()
            if event["type"] == "http.request":
                received += len(event.get("body", b""))
                if received > limit:
                    cut_off = True
                    return {"type": "http.disconnect"}
            return event

        async def watching_send(event: ASGISendEvent) -> None:
            nonlocal answered
            answered = True
            await send(event)

        await self.app(scope, counting_receive, watching_send)
        if cut_off and not answered:
            logger.warning("Refused a request body over %d bytes for %s", limit,
                           scope["path"])
            await self.send_too_large(scope, send, limit)

    @staticmethod
    async def send_too_large(scope: HTTPScope, send: ASGISendCallable, limit: int) -> None:
        """Send the same 413 as the Django middleware gives, built from the scope."""
        headers = {name.decode("latin-1").lower(): value.decode("latin-1")
                   for name, value in scope["headers"]}
        response = too_large(bare_request(scope["path"], scope["method"], headers), limit)
        await send({
            "type": "http.response.start",
            "status": response.status_code,
            "headers": [(name.encode("latin-1"), value.encode("latin-1"))
                        for name, value in response.items()],
            "trailers": False,
        })
        await send({"type": "http.response.body", "body": response.content,
                    "more_body": False})
