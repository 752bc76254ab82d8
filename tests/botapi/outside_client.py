"""An outside bot written from the OpenAPI document and docs/protocol.md alone: it
imports nothing of the platform (only the standard library and ``websockets``), finds
every call by its ``operationId`` in ``/api/openapi.json``, reads its event stream
line by line and plays its seat over the table's websocket.

Its play: whenever its seat is awaited (``answer.table.awaiting``), the first legal
move that is not an offer's shape (``legal`` lists, while others are awaited, moves a
seat may make then too; acting on them is allowed but this bot waits its turn).
"""

from __future__ import annotations

import asyncio
import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

from websockets.asyncio.client import connect


class Api:
    """The API as its document describes it: ``call(operation_id, body, **path)``."""

    def __init__(self, base: str, token: str) -> None:
        self.base, self.token = base, token
        with urllib.request.urlopen(f"{base}/api/openapi.json", timeout=10) as answer:
            document = json.load(answer)
        self.operations = {op["operationId"]: (method.upper(), path)
                           for path, methods in document["paths"].items()
                           for method, op in methods.items()}

    def _request(self, operation: str, body: Any = None, **params: str
                 ) -> urllib.request.Request:
        method, path = self.operations[operation]
        for key, value in params.items():
            path = path.replace("{" + key + "}", value)
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(f"{self.base}{path}", data=data, method=method,
                                         headers={"Authorization": f"Bearer {self.token}"})
        if data is not None:
            request.add_header("Content-Type", "application/json")
        return request

    def call(self, operation: str, body: Any = None, **params: str) -> tuple[int, Any]:
        try:
            with urllib.request.urlopen(self._request(operation, body, **params),
                                        timeout=20) as answer:
                raw = answer.read()
                return answer.status, json.loads(raw) if raw else None
        except urllib.error.HTTPError as refused:
            return refused.code, json.loads(refused.read() or b"null")

    def events(self) -> Iterator[dict[str, Any]]:
        """The account's event stream, one event a line (keepalive lines skipped)."""
        answer = urllib.request.urlopen(self._request("event_stream"), timeout=60)
        for line in answer:
            if line.strip():
                yield json.loads(line)


def _my_move(frame: dict[str, Any]) -> dict[str, Any] | None:
    table = frame["answer"]["table"]
    if frame.get("finished") or frame["seat"] not in table.get("awaiting", [])[:1]:
        return None
    moves = [m for m in frame.get("legal", []) if m.get("kind") != "offer_shape"]
    return moves[0] if moves else None


async def _play(base: str, socket_path: str, token: str, timeout: float) -> dict[str, Any]:
    """Play the seat at ``socket_path`` to the end; the last state frame. (``Origin``:
    the site's own address, as docs/protocol.md asks of every client.)"""
    last: dict[str, Any] = {}
    ws_base = base.replace("http://", "ws://", 1)
    async with connect(f"{ws_base}{socket_path}?html=0", origin=base,  # type: ignore[arg-type]
                       additional_headers={"Authorization": f"Bearer {token}"},
                       open_timeout=10) as socket:
        while True:
            frame = json.loads(await asyncio.wait_for(socket.recv(), timeout))
            if frame["type"] == "error":  # a move on a table that moved on: ask again
                await socket.send(json.dumps({"type": "sync"}))
                continue
            if frame["type"] != "state":
                continue
            last = frame
            if frame["finished"]:
                return last
            move = _my_move(frame)
            if move is not None:
                await socket.send(json.dumps({"type": "command", "command": move,
                                              "version": frame["version"]}))


def play(base: str, socket_path: str, token: str, timeout: float = 30.0) -> dict[str, Any]:
    return asyncio.run(_play(base, socket_path, token, timeout))


class Listener:
    """The event stream read in a thread: what it has seen so far."""

    def __init__(self, api: Api) -> None:
        self.seen: list[dict[str, Any]] = []
        self.arrived = threading.Condition()
        self.thread = threading.Thread(target=self._read, args=(api,), daemon=True)
        self.thread.start()

    def _read(self, api: Api) -> None:
        for event in api.events():
            with self.arrived:
                self.seen.append(event)
                self.arrived.notify_all()

    def wait_for(self, kind: str, timeout: float = 30.0, **fields: Any) -> dict[str, Any]:
        def found() -> dict[str, Any] | None:
            return next((e for e in self.seen if e["type"] == kind
                         and all(e.get(k) == v for k, v in fields.items())), None)
        with self.arrived:
            if not self.arrived.wait_for(lambda: found() is not None, timeout):
                raise AssertionError(f"no {kind} event in {timeout} s: {self.seen}")
            event = found()
            assert event is not None
            return event
