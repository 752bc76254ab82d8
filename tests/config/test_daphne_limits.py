"""The contract of config/daphne_limits.py with daphne (checked against 4.2.3) and
Twisted (26.10.0): the patched request class, driven through Twisted's own
``HTTPChannel`` on an in-memory transport, refuses a body over the limit as it arrives
and passes a body within it on to daphne's request; daphne's and Twisted's functions it
relies on are held to fingerprints (tests/walls.py). tests/config/test_production.py runs
it in a real daphne process."""

from __future__ import annotations

from typing import Any

import daphne
import pytest
import twisted
from daphne import http_protocol
from daphne.http_protocol import HTTPFactory
from twisted.internet.testing import StringTransport
from twisted.web.http import HTTPChannel, Request

from config import daphne_limits
from config.daphne_limits import bound_daphne_requests, bounded_request_class
from tests.walls import changed_shapes, parameters

WebRequest: Any = next(cls for cls in http_protocol.WebRequest.__mro__
                       if "bounded_by_bohnanza" not in vars(cls))
"""Daphne's own request class (config/asgi.py may have installed the patch already)."""

PINNED = {
    # Reads the module attribute WebRequest for every connection: what the patch replaces.
    "daphne HTTPFactory.buildProtocol": (HTTPFactory.buildProtocol, "42e972f1a298de97"),
    "daphne WebRequest.__init__": (WebRequest.__init__, "5f70df33c161a236"),
    # Call gotLength once the headers are in, handleContentChunk per piece of the body,
    # requestReceived once it is all in.
    "Twisted HTTPChannel.allHeadersReceived": (HTTPChannel.allHeadersReceived,
                                               "1d6a1bf08fe1fbe6"),
    "Twisted HTTPChannel._maybeChooseTransferDecoder": (
        HTTPChannel._maybeChooseTransferDecoder, "ddfa2376c8ba824b"),
    "Twisted HTTPChannel.allContentReceived": (HTTPChannel.allContentReceived,
                                               "8c814ab7f363929a"),
    # Keeps the request line (_command, _path) on the channel, read by a refusal.
    "Twisted HTTPChannel.lineReceived": (HTTPChannel.lineReceived, "d024119422ee17b7"),
    # What the subclass passes a body within the limit on to.
    "Twisted Request.gotLength": (Request.gotLength, "8b015a9b64053f40"),
    "Twisted Request.handleContentChunk": (Request.handleContentChunk, "663d6317a0750980"),
}


def test_the_checked_versions_are_installed() -> None:
    assert (daphne.__version__, twisted.__version__) == (
        daphne_limits.DAPHNE_CHECKED_AGAINST, daphne_limits.TWISTED_CHECKED_AGAINST), (
        "daphne or Twisted was upgraded: run this file, read the failures against "
        "config/daphne_limits.py, then update its CHECKED_AGAINST versions and docstring")


def test_the_library_functions_the_patch_relies_on_are_unchanged() -> None:
    assert not changed_shapes(PINNED, "config/daphne_limits.py")


def test_the_methods_the_patch_overrides_are_twisted_s_with_their_signatures() -> None:
    own = {name for name in ("gotLength", "handleContentChunk", "requestReceived")
           if name in vars(WebRequest)}
    assert not own, f"daphne's WebRequest now has its own {own}: read it"
    assert parameters(Request.gotLength) == [("self", "POSITIONAL_OR_KEYWORD"),
                                             ("length", "POSITIONAL_OR_KEYWORD")]
    assert parameters(Request.handleContentChunk) == [("self", "POSITIONAL_OR_KEYWORD"),
                                                      ("data", "POSITIONAL_OR_KEYWORD")]
    assert [name for name, _ in parameters(Request.requestReceived)] == [
        "self", "command", "path", "version"]


class Server:
    """What daphne's request tells its server of."""

    def __init__(self) -> None:
        self.connected: list[Any] = []

    def protocol_connected(self, protocol: Any) -> None:
        self.connected.append(protocol)

    def protocol_disconnected(self, protocol: Any) -> None:
        pass


class Factory:
    def __init__(self) -> None:
        self.server = Server()


def _channel() -> tuple[HTTPChannel, StringTransport]:
    channel = HTTPChannel()
    channel.timeOut = None  # no reactor timer
    channel.factory = Factory()
    channel.requestFactory = bounded_request_class(WebRequest)
    transport = StringTransport()
    channel.makeConnection(transport)
    return channel, transport


HEAD = b"POST /replays/verify/ HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n"


@pytest.fixture
def small_limit(settings: Any) -> int:
    settings.BOHNANZA_MAX_REQUEST_BYTES = 100
    return 100


def test_a_declared_oversize_body_is_refused_before_it_arrives(small_limit: int) -> None:
    channel, transport = _channel()
    channel.dataReceived(HEAD + b"Content-Length: 101\r\n\r\n")
    answer = transport.value()
    assert answer.startswith(b"HTTP/1.1 413 ") and b"application/json" in answer
    assert transport.disconnecting


def test_a_chunked_body_is_cut_off_past_the_limit(small_limit: int) -> None:
    channel, transport = _channel()
    channel.dataReceived(HEAD + b"Transfer-Encoding: chunked\r\n\r\n")
    channel.dataReceived(b"40\r\n" + b"x" * 64 + b"\r\n")
    assert transport.value() == b"" and not transport.disconnecting
    channel.dataReceived(b"40\r\n" + b"x" * 64 + b"\r\n")
    assert transport.value().startswith(b"HTTP/1.1 413 ") and transport.disconnecting


def test_a_body_within_the_limit_goes_on_to_daphne_s_request(small_limit: int) -> None:
    channel, transport = _channel()
    channel.dataReceived(HEAD + b"Content-Length: 100\r\n\r\n" + b"x" * 60)
    (request,) = channel.factory.server.connected  # type: ignore[attr-defined]
    assert isinstance(request, WebRequest) and not request.body_refused
    assert request.content.getvalue() == b"x" * 60  # Twisted's Request holds it
    assert transport.value() == b"" and not transport.disconnecting


def test_installing_replaces_the_class_daphne_builds_requests_from(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http_protocol, "WebRequest", WebRequest)
    bound_daphne_requests()
    bounded = http_protocol.WebRequest
    assert issubclass(bounded, WebRequest) and bounded.bounded_by_bohnanza
    bound_daphne_requests()  # a second call changes nothing
    assert http_protocol.WebRequest is bounded
    protocol = HTTPFactory(server=None).buildProtocol(("127.0.0.1", 0))
    assert protocol.requestFactory is bounded
