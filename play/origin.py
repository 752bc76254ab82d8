"""The websockets' ``Origin`` check (config/asgi.py puts it before everything else).

A browser sends ``Origin`` with every websocket handshake, and a page of another site
could otherwise open a socket with its visitor's session cookie: so ``Origin``, when
sent, must be a URL whose host is one of ``ALLOWED_HOSTS`` (Django's own host
patterns: ``.example.org`` for a domain and its subdomains, ``*`` for any), whatever
its scheme and port. A program is no browser and usually sends no ``Origin``: it is
let through when it authenticates with ``Authorization`` (its bearer token, checked
by the consumer), and refused otherwise.

Channels' ``AllowedHostsOriginValidator`` did this before, with two differences a bot
author met (issue 29): a handshake without ``Origin`` was refused, and every refusal
was the same HTTP 403 before the socket opened, so a program could not tell a bad
``Origin`` from a missing table or an unknown token. Here a refused handshake is
accepted, sent an ``error`` frame with the code ``bad_origin`` and closed with the
code's own close code (play/refusals.py), as the consumers refuse theirs.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.http.request import validate_host

from play import refusals
from play.live import error_frame, json_text

MAX_ORIGIN = 500
"""The longest ``Origin`` looked at (a host name is at most 253 characters)."""


def _header(scope: dict[str, Any], name: bytes) -> bytes | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value)
    return None


def allowed_hosts() -> list[str]:
    """``ALLOWED_HOSTS``, or what Django allows when it is empty under DEBUG."""
    hosts = list(settings.ALLOWED_HOSTS)
    if settings.DEBUG and not hosts:
        hosts = [".localhost", "127.0.0.1", "[::1]"]
    return hosts


def origin_refusal(scope: dict[str, Any]) -> str | None:
    """Why the handshake's ``Origin`` is refused (a reason for a person), or None."""
    origin = _header(scope, b"origin")
    if origin is None:
        if _header(scope, b"authorization") is not None:
            return None  # a program with a token: the consumer checks the token
        return ("no Origin header: a browser sends one; a program authenticates with "
                "'Authorization: Bearer <token>'")
    text = origin[:MAX_ORIGIN + 1].decode("latin-1")
    if len(text) > MAX_ORIGIN:
        return "the Origin header is too long"
    try:
        host = urlsplit(text).hostname
    except ValueError:
        host = None
    if not host:
        return f"Origin {text[:80]!r} is not a URL with a host"
    if ":" in host:  # an IPv6 address: ALLOWED_HOSTS writes it in brackets
        host = f"[{host}]"
    if not validate_host(host, allowed_hosts()):
        return f"Origin {text[:80]!r}: its host is not one this server answers for"
    return None


async def refuse_handshake(receive: Any, send: Any, code: str, reason: str) -> None:
    """Accept the handshake only to say why it is refused, then close with the code's
    close code (:data:`play.refusals.HANDSHAKE`)."""
    message = await receive()
    if message.get("type") != "websocket.connect":
        return
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.send", "text": json_text(error_frame(code, reason))})
    await send({"type": "websocket.close", "code": refusals.HANDSHAKE[code], "reason": code})


class OriginCheck:
    """ASGI middleware: a websocket handshake whose ``Origin`` is refused
    (:func:`origin_refusal`) never reaches the application."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope.get("type") == "websocket":
            reason = origin_refusal(scope)
            if reason is not None:
                await refuse_handshake(receive, send, refusals.BAD_ORIGIN, reason)
                return None
        return await self.app(scope, receive, send)
