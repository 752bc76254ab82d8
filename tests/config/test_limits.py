"""Request bodies over the limit are answered 413 before they are read.

The ASGI application (what daphne serves) is called directly with a fake client whose
body would be 50 MB: it must never be asked for the body when Content-Length says it
is too large, and must stop asking once a chunked body passes the limit. The WSGI
application gets a body stream that fails if anything reads it.
"""

import asyncio
import json
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.conf import settings
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_started
from django.db import close_old_connections

from bohnanza_core.games import Games
from config.asgi import application as asgi_application
from config.wsgi import application as wsgi_application
from replays.views.audit import MAX_UPLOAD_BYTES as MAX_VERIFY_BYTES
from replays.views.transfer import MAX_IMPORT_BYTES

FIFTY_MB = 50 * 1024 * 1024
CHUNK = 1024 * 1024


class FiftyMegabyteClient:
    """The receive side of an ASGI connection that would send 50 MB in 1 MB chunks."""

    def __init__(self) -> None:
        self.chunks_asked = 0

    async def receive(self) -> dict[str, Any]:
        self.chunks_asked += 1
        more = self.chunks_asked * CHUNK < FIFTY_MB
        return {"type": "http.request", "body": b"x" * CHUNK, "more_body": more}


class ChunkedClient(FiftyMegabyteClient):
    """The receive side of a connection that sends ``chunks`` chunks of ``chunk``, then
    only ever disconnects (never asked for: it waits)."""

    def __init__(self, chunk: bytes, chunks: int) -> None:
        super().__init__()
        self.chunk, self.chunks = chunk, chunks

    async def receive(self) -> dict[str, Any]:
        self.chunks_asked += 1
        if self.chunks_asked > self.chunks:
            await asyncio.Event().wait()
        return {"type": "http.request", "body": self.chunk,
                "more_body": self.chunks_asked < self.chunks}


def call_asgi(path: str, headers: list[tuple[bytes, bytes]],
              client: FiftyMegabyteClient) -> tuple[int, dict[bytes, bytes], bytes]:
    """POST to the ASGI application; the answer's status, headers and body."""
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
        "method": "POST", "scheme": "http", "path": path, "raw_path": path.encode(),
        "query_string": b"", "root_path": "", "headers": [(b"host", b"testserver"), *headers],
        "client": ("127.0.0.1", 50000), "server": ("testserver", 80),
    }
    sent: list[dict[str, Any]] = []

    async def send(event: dict[str, Any]) -> None:
        sent.append(event)

    async_to_sync(asgi_application)(scope, client.receive, send)
    start, *bodies = sent
    assert start["type"] == "http.response.start"
    return (start["status"], dict(start["headers"]),
            b"".join(body.get("body", b"") for body in bodies))


def test_limit_covers_the_largest_upload_and_djangos_own_limits() -> None:
    assert max(MAX_IMPORT_BYTES, MAX_VERIFY_BYTES) <= settings.BOHNANZA_MAX_UPLOAD_BYTES
    assert settings.BOHNANZA_MAX_REQUEST_BYTES > settings.BOHNANZA_MAX_UPLOAD_BYTES
    assert settings.DATA_UPLOAD_MAX_MEMORY_SIZE == settings.BOHNANZA_MAX_REQUEST_BYTES
    assert settings.FILE_UPLOAD_MAX_MEMORY_SIZE == settings.BOHNANZA_MAX_REQUEST_BYTES


def test_asgi_refuses_declared_oversize_body_without_reading_it() -> None:
    client = FiftyMegabyteClient()
    status, headers, body = call_asgi(
        "/replays/import/", [(b"content-length", str(FIFTY_MB).encode()),
                             (b"content-type", b"multipart/form-data; boundary=x")], client)

    assert status == 413
    assert client.chunks_asked == 0
    assert headers[b"Content-Type"].startswith(b"text/html")
    assert b"larger than the 5 MB this site accepts" in body


def test_asgi_refuses_declared_oversize_body_in_json_for_json_clients() -> None:
    client = FiftyMegabyteClient()
    status, headers, body = call_asgi(
        "/replays/verify/", [(b"content-length", str(FIFTY_MB).encode()),
                             (b"accept", b"application/json")], client)

    assert status == 413
    assert client.chunks_asked == 0
    assert headers[b"Content-Type"] == b"application/json"
    assert json.loads(body) == {"error": "The request is larger than the 5 MB this site "
                                         "accepts."}


def test_asgi_stops_reading_chunked_body_past_the_limit() -> None:
    client = FiftyMegabyteClient()
    status, _, body = call_asgi("/replays/import/", [(b"transfer-encoding", b"chunked")],
                                client)

    assert status == 413
    assert b"Too large" in body
    # The chunk that passed the limit is the last one asked for.
    assert client.chunks_asked == settings.BOHNANZA_MAX_REQUEST_BYTES // CHUNK + 1


@pytest.mark.django_db
def test_asgi_passes_bodies_within_the_limit() -> None:
    """A small chunked POST reaches Django (its CSRF check answers), read whole."""

    client = ChunkedClient(b"a=1", 1)
    status, _, _ = call_asgi("/accounts/login/", [], client)

    assert status == 403  # no CSRF token: Django read the body and judged the form
    assert client.chunks_asked == 2  # the body, then Django listening for a disconnect


class UnreadableBody:
    """A WSGI input stream that fails the test if anything reads from it."""

    def read(self, *args: object) -> bytes:
        raise AssertionError("the body was read")

    readline = read


@pytest.mark.django_db
def test_wsgi_refuses_declared_oversize_body_without_reading_it() -> None:
    assert isinstance(wsgi_application, WSGIHandler)
    environ = {
        "REQUEST_METHOD": "POST", "PATH_INFO": "/replays/import/", "SCRIPT_NAME": "",
        "QUERY_STRING": "", "SERVER_NAME": "testserver", "SERVER_PORT": "80",
        "HTTP_HOST": "testserver", "CONTENT_TYPE": "multipart/form-data; boundary=x",
        "CONTENT_LENGTH": str(FIFTY_MB), "wsgi.input": UnreadableBody(),
        "wsgi.url_scheme": "http", "wsgi.errors": None,
    }
    statuses: list[str] = []

    def start_response(status: str, headers: list[tuple[str, str]]) -> None:
        statuses.append(status)

    # As Django's test client does: the test's transaction is not the request's to end.
    request_started.disconnect(close_old_connections)
    try:
        body = b"".join(wsgi_application(environ, start_response))
    finally:
        request_started.connect(close_old_connections)

    assert statuses == ["413 Request Entity Too Large"]
    assert b"Too large" in body


def test_import_just_over_the_file_limit_gets_the_views_own_answer(
        admin_client: Any, store: Games) -> None:
    """The form around a file has room: a file just over the import limit is refused
    by the import view, which says why, not by the body limit."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("big.jsonl", b"x" * (MAX_IMPORT_BYTES + 1))
    response = admin_client.post("/replays/import/", {"file": upload})

    assert response.status_code == 413
    assert "files up to 5 MB" in response.content.decode()


@pytest.fixture
def store(db: None) -> Games:
    from replays.store import games, reset_games

    reset_games()
    return games()


@pytest.mark.parametrize("length", ["abc", "-5", "1e9", "", " 12 "])
def test_odd_content_lengths_are_not_refused_or_a_server_error(client: Any, length: str) -> None:
    response = client.post("/no-such-page/", data=b"", content_type="text/plain",
                           CONTENT_LENGTH=length)

    assert response.status_code == 404


def test_odd_content_length_under_asgi_counts_the_body_instead() -> None:
    client = FiftyMegabyteClient()
    status, _, _ = call_asgi("/replays/import/", [(b"content-length", b"lots")], client)

    assert status == 413
    assert client.chunks_asked == settings.BOHNANZA_MAX_REQUEST_BYTES // CHUNK + 1
