"""Daphne refuses an oversized request body while it arrives, not after: a patch of
daphne's request class, and everything it relies on, here.

Checked against **daphne 4.2.3** and **Twisted 26.10.0** (requirements.lock pins them).
Daphne's request class (``daphne.http_protocol.WebRequest``, Twisted's
``http.Request``) receives a whole body, to a temporary file, before it hands the
request to the application: a 50 MB upload was received whole before the 413
(config/limits.py answers it), and one that declares 50 MB and sends nothing held its
connection open. No setting of daphne or Twisted bounds it, so :func:`bounded_request_class`
subclasses it: Twisted's ``HTTPChannel`` calls ``gotLength`` once the headers are in,
``handleContentChunk`` for each piece of the body and ``requestReceived`` once it is
all in; the subclass answers 413 at the first two where the limit is passed, closes
the connection and never calls the third. :func:`bound_daphne_requests` installs it by
replacing the module attribute ``daphne.http_protocol.WebRequest``, which daphne's
``HTTPFactory.buildProtocol`` reads for every connection. The answer is written to the
transport as bytes because Twisted's own ``Request.write`` needs the request line,
which it sets only once the whole body is in; what the answer needs of the request
line (the path: under ``/api/`` the bot API's body) is read from the channel, which
keeps it from ``lineReceived`` on (``HTTPChannel._path`` and ``_command``).

tests/config/test_daphne_limits.py is the contract: daphne's and Twisted's functions this
relies on are held to fingerprints (tests/walls.py), and the subclass is driven through
Twisted's own ``HTTPChannel``; tests/config/test_production.py runs it in a real daphne.
"""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import urlsplit

from config.errors import bare_request, too_large
from config.limits import body_limit

DAPHNE_CHECKED_AGAINST = "4.2.3"
"""The daphne version this module was written against."""
TWISTED_CHECKED_AGAINST = "26.10.0"
"""The Twisted version this module was written against."""

logger = logging.getLogger("config.limits")
"""The refusals of both layers (config/limits.py) are logged as one."""


def refusal_bytes(accept: str, limit: int, *, path: str = "", method: str = "POST",
                  headers: dict[str, str] | None = None) -> bytes:
    """The whole HTTP/1.1 answer refusing a body (the same 413 as Django's layer gives,
    by the request's path, ``Accept`` and language: ``headers``, lower-case names),
    written out for the transport."""
    request = bare_request(path, method, {**(headers or {}), "accept": accept}
                           if accept else dict(headers or {}))
    response = too_large(request, limit)
    head = [b"HTTP/1.1 413 Content Too Large", b"Connection: close",
            b"Content-Length: " + str(len(response.content)).encode()]
    head += [f"{name}: {value}".encode("latin-1") for name, value in response.items()]
    return b"\r\n".join(head) + b"\r\n\r\n" + response.content


def bounded_request_class(base: Any) -> Any:
    """A subclass of daphne's request class ``base`` that refuses a body over
    its path's limit (``config.limits.body_limit``) while it arrives (see the module)."""

    class BoundedWebRequest(base):  # type: ignore[misc]
        bounded_by_bohnanza = True

        def gotLength(self, length: int | None) -> None:
            self.body_received = 0
            self.body_refused = False
            # The request line is the channel's until the body is in (see refuse).
            target = getattr(self.channel, "_path", b"") or b""
            limit = self.body_limit = body_limit(urlsplit(target.decode("latin-1")).path)
            if length is not None and length > limit:
                self.refuse(f"a {length}-byte request body", limit)
                return
            super().gotLength(length)

        def handleContentChunk(self, data: bytes) -> None:
            if self.body_refused:
                return
            self.body_received += len(data)
            limit: int = self.body_limit
            if self.body_received > limit:
                self.refuse(f"a request body over {limit} bytes", limit)
                return
            super().handleContentChunk(data)

        def requestReceived(self, command: bytes, path: bytes,
                            version: bytes) -> None:
            if not self.body_refused:
                super().requestReceived(command, path, version)

        def refuse(self, what: str, limit: int) -> None:
            self.body_refused = True
            accept = (self.requestHeaders.getRawHeaders(b"accept") or [b""])[0]
            headers = {name: (self.requestHeaders.getRawHeaders(name) or [b""])[0]
                       .decode("latin-1") for name in (b"accept-language", b"cookie")
                       if self.requestHeaders.hasHeader(name)}
            # The request line is the channel's until the body is in (requestReceived):
            # its target (a path, or an absolute URI) says whether the API is asked.
            target = getattr(self.channel, "_path", b"") or b""
            method = getattr(self.channel, "_command", b"POST") or b"POST"
            logger.warning("Refused %s while it arrived (limit %d bytes)", what, limit)
            transport = self.channel.transport
            transport.write(refusal_bytes(
                accept.decode("latin-1"), limit,
                path=urlsplit(target.decode("latin-1")).path,
                method=method.decode("latin-1"),
                headers={name.decode(): value for name, value in headers.items()}))
            transport.loseConnection()

    return BoundedWebRequest


def bound_daphne_requests() -> None:
    """Make daphne refuse an oversized body while it arrives (see the module). Installed
    by config/asgi.py, before daphne makes requests; a second call changes nothing."""
    from daphne import http_protocol

    base: Any = http_protocol.WebRequest
    if getattr(base, "bounded_by_bohnanza", False):
        return
    http_protocol.WebRequest = bounded_request_class(base)


__all__ = ["DAPHNE_CHECKED_AGAINST", "TWISTED_CHECKED_AGAINST", "bound_daphne_requests",
           "bounded_request_class", "refusal_bytes"]
