"""Live tables played from outside, for the services tests and bench/live.py: daphne
processes started on ports of their own, and websocket clients that play a seat
through the protocol (docs/protocol.md) as any outside program would, seeing only the
frames that seat is sent.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

ROOT = Path(__file__).resolve().parents[2]
SECRET_KEY = "services-test-secret-key-not-for-production-" + "x" * 20


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_env(database_url: str, redis_url: str) -> dict[str, str]:
    """A production-like environment: DEBUG off, PostgreSQL, the Redis channel layer."""
    return {**os.environ, "PYTHONUNBUFFERED": "1", "DJANGO_DEBUG": "0",
            "DJANGO_SECRET_KEY": SECRET_KEY, "DATABASE_URL": database_url,
            "REDIS_URL": redis_url, "READ_MODELS_CATCH_UP": "0",
            "DJANGO_SETTINGS_MODULE": "config.settings"}


def eventually(predicate: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    """Poll ``predicate`` until it holds; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    tick = threading.Event()
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        tick.wait(0.05)


def listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


class Daphne:
    """One ASGI server process on ``port`` (stopped by :meth:`kill` or :meth:`stop`)."""

    def __init__(self, port: int, env: dict[str, str], log: IO[str]) -> None:
        self.port, self.env, self.log = port, env, log
        self.process: subprocess.Popen[str] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port),
             "config.asgi:application"], cwd=ROOT, env=self.env, stdout=self.log,
            stderr=subprocess.STDOUT, text=True)
        process = self.process
        eventually(lambda: listening(self.port) or process.poll() is not None,
                   f"daphne on port {self.port}")
        assert process.poll() is None, f"daphne on port {self.port} exited"

    def kill(self) -> None:
        """SIGKILL: the process gets no chance to finish anything."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()


def seat_tables(env: dict[str, str], players: int, tables: int, bots: bool = False
                ) -> list[dict[str, Any]]:
    """Started tables with their seats' credentials (tests/services/live_table.py);
    ``bots``: a bot account at seat 0 and built-in bots at the others."""
    done = subprocess.run([sys.executable, "-m", "tests.services.live_table", str(players),
                           str(tables), *(["bots"] if bots else [])], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def migrate(env: dict[str, str]) -> None:
    done = subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr


def first_move(frame: dict[str, Any]) -> dict[str, Any] | None:
    """The seat's first legal command when the game awaits it (never an offer)."""
    table = frame["answer"]["table"]
    if frame["finished"] or frame["seat"] is None or table["awaiting"][:1] != [frame["seat"]]:
        return None
    return next((m for m in frame["legal"] if m["kind"] != "offer_shape"), None)


@dataclass
class SeatClient:
    """One websocket client playing one seat (or watching: ``credential`` None) at
    ``port``. Keeps every frame it was sent, per connection."""

    port: int
    table: str
    credential: list[str] | None
    connections: list[list[dict[str, Any]]] = field(default_factory=list)
    sent: dict[int, float] = field(default_factory=dict)
    """When this client sent its command, per version it answered."""
    received: dict[int, float] = field(default_factory=dict)
    """When this client first saw each version."""
    moved: dict[int, float] = field(default_factory=dict)
    """When this client was told the game moved on from each version (by a command)."""
    milestone: tuple[int, asyncio.Event] | None = None
    """(a version, an event set once this client has seen it)."""
    keep: int | None = None
    """How many of its latest frames each connection keeps (None: every one). The bench
    keeps a few: 400 clients keeping every frame they parsed held millions of objects,
    which its garbage collector walked for up to half a second at a time."""
    finished: bool = False
    """Whether this client was told the game ended."""
    refused: dict[str, int] = field(default_factory=dict)
    """The reasons of the error frames this client was sent, and how often each."""
    html: bool | None = None
    """Whether it asks for the table's drawing; None: a person (by cookie) and a
    spectator do, a bot account (by token) does not, as examples/remote_bot.py
    (``?html=0``, docs/protocol.md)."""

    @property
    def frames(self) -> list[dict[str, Any]]:
        return [f for frames in self.connections for f in frames]

    def headers(self) -> dict[str, str]:
        if self.credential is None:
            return {}
        kind, value = self.credential
        return {"Cookie": value} if kind == "cookie" else {"Authorization": f"Bearer {value}"}

    async def open(self) -> ClientConnection:
        self.connections.append([])
        html = self.html if self.html is not None else (
            self.credential is None or self.credential[0] == "cookie")
        query = "" if html else "?html=0"
        return await connect(f"ws://127.0.0.1:{self.port}/ws/tables/{self.table}/{query}",
                             additional_headers=self.headers(),
                             origin=f"http://127.0.0.1:{self.port}",  # type: ignore[arg-type]
                             open_timeout=30, max_size=2**22)

    async def play(self, socket: ClientConnection, quiet: float = 2.0,
                   move: Callable[[dict[str, Any]], dict[str, Any] | None] = first_move,
                   pace: Callable[[], Awaitable[None]] | None = None) -> bool:
        """Play until the game ends (True) or the connection drops (False). After
        ``quiet`` seconds without a frame the client asks for its view again (a
        command stored by a server that died before telling anyone). ``pace``, awaited
        before each command, keeps a table's pace (bench/live.py)."""
        answered = -1
        frames = self.connections[-1]
        while True:
            try:
                # Not ``wait_for``: on Python 3.11 it swallows a cancellation that comes
                # as a frame arrives, and the client then waited on (bench/live.py).
                async with asyncio.timeout(quiet):
                    text = await socket.recv()
            except TimeoutError:
                try:
                    await socket.send('{"type": "sync"}')
                except ConnectionClosed:
                    return False
                continue
            except ConnectionClosed:
                return False
            now = time.perf_counter()
            frame = json.loads(text)
            frames.append(frame)
            if self.keep is not None and len(frames) > self.keep:
                del frames[:-self.keep]
            if frame["type"] == "error":
                reason = str(frame.get("reason"))[:60]
                self.refused[reason] = self.refused.get(reason, 0) + 1
            if frame["type"] != "state":
                continue
            self.received.setdefault(frame["version"], now)
            if frame["since"] != frame["version"]:
                self.moved.setdefault(frame["since"], now)
            if self.milestone is not None and frame["version"] >= self.milestone[0]:
                self.milestone[1].set()
            if frame["finished"]:
                self.finished = True
                await socket.close()
                return True
            command = move(frame)
            if command is not None and answered != frame["version"]:
                answered = frame["version"]
                if pace is not None:
                    await pace()
                self.sent[answered] = time.perf_counter()
                try:
                    await socket.send(json.dumps({"type": "command",
                                                  "version": answered,
                                                  "command": command}))
                except ConnectionClosed:
                    return False

    async def play_through(self, back: Callable[[int], asyncio.Event] | None = None) -> None:
        """Play to the end, reconnecting (once ``back(port)`` is set) when dropped."""
        while True:
            try:
                socket = await self.open()
            except (OSError, InvalidHandshake):
                if back is None:
                    raise
                await back(self.port).wait()
                continue
            if await self.play(socket):
                return
            if back is None:
                raise AssertionError(f"client at {self.port} dropped")
            await back(self.port).wait()


def gaps(frames: list[dict[str, Any]]) -> list[tuple[int, int]]:
    """Where one connection missed an update: (version held, version next seen). Its
    first frame is its whole view; every later one must move on from the version held
    (a ``sync`` answer, since = version, only repeats it)."""
    held, missed = None, []
    for frame in frames:
        if frame["type"] != "state":
            continue
        if held is not None and frame["since"] != held and frame["version"] != held:
            missed.append((held, frame["version"]))
        held = frame["version"]
    return missed


def told(frames: list[dict[str, Any]]) -> dict[int, str]:
    """The game's log as one connection was told it, by event version (docs/protocol.md,
    ``log``: one line per event; a whole frame's, since = version, the last events up to
    its version; any other's the events after ``since``). A line told twice is the same."""
    lines: dict[int, str] = {}
    for frame in frames:
        if frame["type"] != "state":
            continue
        first = frame["version"] - len(frame["log"])
        assert frame["since"] in (first, frame["version"]), frame["log"]
        for version, line in enumerate(frame["log"], start=first + 1):
            assert lines.setdefault(version, line) == line, (version, line, lines[version])
    return lines
