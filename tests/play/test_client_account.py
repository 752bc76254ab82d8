"""The client package's account side (clients/python: bohnanza_client.account) without
the platform: the NDJSON reader on bytes (keepalives skipped, an over-long line
refused before it is parsed, ``replaced`` the last event), the error class from the
API's answers, and the calls and the event stream against a small stdlib HTTP server
standing in for the API (a refusal with Retry-After; a stream dropped mid-line and
opened again, ended by ``replaced``). tests/botapi/test_client_account.py plays it
against the platform."""

from __future__ import annotations

import asyncio
import io
import json
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients" / "python"))

from bohnanza_client import Account, ApiError, StreamError, read_events


def _events(data: bytes, max_line: int = 100) -> list[dict[str, Any]]:
    return list(read_events(io.BytesIO(data).readline, max_line=max_line))


def test_the_reader_skips_keepalives_and_ends_on_replaced() -> None:
    data = (b'\n\n{"type": "challenge", "by": "olga"}\n\n \n{"type": "gameStart"}\n'
            b'{"type": "replaced"}\n{"type": "gameFinish"}\n')
    assert [e["type"] for e in _events(data)] == ["challenge", "gameStart", "replaced"]


def test_the_reader_stops_at_a_line_cut_short() -> None:
    assert _events(b'{"type": "seated"}\n{"type": "gameSt') == [{"type": "seated"}]


def test_the_reader_refuses_an_over_long_line_before_parsing_it() -> None:
    fine = b'{"type": "seated", "x": "' + b"a" * 70 + b'"}\n'
    assert len(fine) <= 100 and _events(fine)[0]["type"] == "seated"
    read: list[int] = []
    source = io.BytesIO(b'{"type": "seated", "x": "' + b"a" * 10_000 + b'"}\n')

    def readline(limit: int) -> bytes:
        line = source.readline(limit)
        read.append(len(line))
        return line

    with pytest.raises(StreamError) as refused:
        list(read_events(readline, max_line=100))
    assert refused.value.code == "line_too_long" and refused.value.status is None
    assert read == [101]  # no more than the limit and one byte was read


@pytest.mark.parametrize("line", [b"not json\n", b"[1, 2]\n", b'{"no": "type"}\n'])
def test_the_reader_refuses_a_line_that_is_not_an_event(line: bytes) -> None:
    with pytest.raises(StreamError) as refused:
        _events(line)
    assert refused.value.code == "malformed_line"


def test_the_error_carries_the_api_code_message_status_and_retry_after() -> None:
    error = ApiError.from_answer(429, b'{"code": "rate_limited", "message": "wait"}', "1.5")
    assert (error.code, error.message, error.status, error.retry_after) == (
        "rate_limited", "wait", 429, 1.5)
    assert "rate_limited" in str(error) and "429" in str(error)
    invalid = ApiError.from_answer(400, json.dumps({
        "code": "invalid_request", "message": "see detail",
        "detail": [{"loc": ["body", "players"], "msg": "too big"}]}).encode())
    assert invalid.detail == [{"loc": ["body", "players"], "msg": "too big"}]
    assert invalid.retry_after is None
    proxy = ApiError.from_answer(502, b"<html>Bad gateway</html>", "soon")
    assert (proxy.code, proxy.status, proxy.retry_after) == ("http_502", 502, None)
    assert isinstance(StreamError("line_too_long", "x"), ApiError)


class FakeApi(BaseHTTPRequestHandler):
    """The API's answers the tests need; each request kept (method, path, headers,
    body)."""

    requests: list[tuple[str, str, dict[str, str], Any]] = []
    streams = 0

    def log_message(self, *args: Any) -> None:
        pass

    def _record(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length)) if length else None
        FakeApi.requests.append((self.command, self.path, dict(self.headers), body))
        return body

    def _json(self, status: int, body: Any, **headers: str) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        body = self._record()
        if self.path == "/api/v1/challenges":
            self._json(201, {"id": "t1", "seats": body["seats"]})
        elif self.path == "/api/v1/challenges/t2/accept":
            self._json(429, {"code": "rate_limited", "message": "Too many calls"},
                       **{"Retry-After": "2"})
        else:
            self._json(404, {"code": "no_challenge", "message": "No challenge here"})

    def do_DELETE(self) -> None:
        self._record()
        self.send_response(204)
        self.end_headers()

    def do_GET(self) -> None:
        self._record()
        if self.path == "/api/v1/account" and "bad" in self.headers["Authorization"]:
            self._json(401, {"code": "invalid_token", "message": "Unknown token"})
        elif self.path == "/api/v1/stream/event":
            FakeApi.streams += 1
            self.send_response(200)
            self.send_header("Content-Type", "application/x-ndjson")
            self.end_headers()
            if FakeApi.streams == 1:  # an event, a keepalive, then dropped mid-line
                self.wfile.write(b'{"type": "challenge", "table": {"id": "t2"}}\n\n{"ty')
            else:
                self.wfile.write(b'\n{"type": "gameStart", "table": {"id": "t1"}}\n'
                                 b'{"type": "replaced"}\n{"type": "seated"}\n')
            self.wfile.flush()
            self.close_connection = True
        elif self.path == "/api/v1/stream/event?bad":
            self._json(403, {"code": "missing_scope", "message": "read"})
        else:
            self._json(200, {"username": "robo"})


@pytest.fixture
def fake_api() -> Iterator[str]:
    FakeApi.requests, FakeApi.streams = [], 0
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeApi)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def test_the_calls_send_the_token_and_raise_the_api_error(fake_api: str) -> None:
    account = Account(fake_api, "bhz_good", language="fi")
    table = account.challenge(["me", "bot:heuristic", "bot:random"], move_seconds=60)
    assert table == {"id": "t1", "seats": ["me", "bot:heuristic", "bot:random"]}
    method, path, headers, body = FakeApi.requests[-1]
    assert (method, path) == ("POST", "/api/v1/challenges")
    assert headers["Authorization"] == "Bearer bhz_good"
    assert headers["Accept-Language"] == "fi"
    assert body == {"ruleset": "classic", "players": 3, "seats": ["me", "bot:heuristic",
                    "bot:random"], "clock": {"move_seconds": 60, "game_seconds": 0},
                    "house_rules": {}, "public": True}
    with pytest.raises(ApiError) as limited:
        account.accept({"type": "challenge", "table": {"id": "t2"}})
    assert (limited.value.code, limited.value.status, limited.value.retry_after) == (
        "rate_limited", 429, 2.0)
    with pytest.raises(ApiError) as missing:
        account.decline("t/../3")
    assert (missing.value.code, missing.value.status) == ("no_challenge", 404)
    assert FakeApi.requests[-1][1] == "/api/v1/challenges/t%2F..%2F3/decline"
    assert account.cancel("t1") is None and FakeApi.requests[-1][0] == "DELETE"
    with pytest.raises(ApiError) as bad:
        Account(fake_api, "bhz_bad").me()
    assert (bad.value.code, bad.value.status) == ("invalid_token", 401)
    with pytest.raises(ApiError) as unreachable:
        Account("http://127.0.0.1:9", "bhz_good", timeout=5).me()
    assert unreachable.value.code == "unreachable" and unreachable.value.status is None


def test_the_stream_reconnects_after_a_drop_and_ends_on_replaced(fake_api: str) -> None:
    account = Account(fake_api, "bhz_good")

    async def read() -> list[dict[str, Any]]:
        return [e async for e in account.events(delays=(0.05,))]

    seen = asyncio.run(asyncio.wait_for(read(), 30))
    assert [e["type"] for e in seen] == ["challenge", "gameStart", "replaced"]
    assert FakeApi.streams == 2
    assert FakeApi.requests[0][2]["Accept"] == "application/x-ndjson"


def test_the_stream_raises_a_refusal_reconnecting_does_not_mend(fake_api: str) -> None:
    account = Account(fake_api, "bhz_good")

    async def read() -> list[dict[str, Any]]:
        original = account._request

        def bad(method: str, path: str, *args: Any) -> Any:
            return original(method, path + "?bad", *args)

        account._request = bad  # type: ignore[method-assign]
        return [e async for e in account.events(delays=(0.05,))]

    with pytest.raises(ApiError) as refused:
        asyncio.run(asyncio.wait_for(read(), 30))
    assert (refused.value.code, refused.value.status) == ("missing_scope", 403)
