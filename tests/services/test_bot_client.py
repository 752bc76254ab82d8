"""The client package for bot authors (clients/python) against a live server in
production's shape (daphne, PostgreSQL, the Redis channel layer), as an outside bot
uses it: examples/remote_bot.py plays a bot account's seat against three built-in bots
to the end, every frame it is sent matching the protocol's schema and every command
it sends reflected by a state frame carrying its ref; the server is killed mid-game
and the client reconnects and finishes; each handshake refusal reaches it as its
documented code and close code; the package installs on its own."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import uuid4

import psycopg
import pytest
import redis

from tests.frames import check_client, check_server
from tests.services.conftest import POSTGRES, require_service
from tests.services.live_servers import (
    ROOT,
    Daphne,
    free_port,
    migrate,
    seat_tables,
    server_env,
)

sys.path.insert(0, str(ROOT / "clients" / "python"))

from bohnanza_client import HandshakeRefused, State, TableClient

REDIS_URL = "redis://127.0.0.1:6379/13"
TIMEOUT = 240.0


def _remote() -> Any:
    spec = importlib.util.spec_from_file_location("remote_bot", ROOT / "examples" / "remote_bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def admin() -> psycopg.Connection[Any]:
    return psycopg.connect(**POSTGRES, autocommit=True)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[dict[str, str], Daphne]]:
    require_service("Redis", "127.0.0.1", 6379)
    require_service("PostgreSQL", str(POSTGRES["host"]), int(str(POSTGRES["port"])))
    name = f"bohnanza_client_{uuid4().hex[:10]}"
    with admin() as db:
        db.execute(f'CREATE DATABASE "{name}"')
    store = redis.Redis.from_url(REDIS_URL)
    store.flushdb()
    env = {**server_env(f"postgres://{POSTGRES['user']}@{POSTGRES['host']}:{POSTGRES['port']}/"
                        f"{name}", REDIS_URL), "BOHNANZA_BOT_PACE_MS": "0"}
    log = (tmp_path_factory.mktemp("daphne") / "daphne.log").open("w")
    daphne = Daphne(free_port(), env, log)
    try:
        migrate(env)
        daphne.start()
        yield env, daphne
    finally:
        daphne.stop()
        log.close()
        store.flushdb()
        with admin() as db:
            db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    assert "Traceback" not in Path(log.name).read_text(), Path(log.name).read_text()


class Recording(TableClient):
    """A client keeping every frame it is sent and every frame it sends, checked
    against the schemas."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.received: list[dict[str, Any]] = []
        self.sent_frames: list[dict[str, Any]] = []

    def _handle(self, frame: dict[str, Any]) -> bool:
        self.received.append(check_server(frame))
        return super()._handle(frame)

    async def _send(self, frame: dict[str, Any]) -> None:
        self.sent_frames.append(check_client(frame))
        await super()._send(frame)


def _server(daphne: Daphne) -> str:
    return f"http://127.0.0.1:{daphne.port}"


def test_the_remote_bot_plays_a_whole_game_against_three_built_in_bots(
        server: tuple[dict[str, str], Daphne]) -> None:
    env, daphne = server
    (table,) = seat_tables(env, 4, 1, bots=True)
    token = table["seats"][0][1]
    remote = _remote()
    client = Recording(_server(daphne), table["table"], token=token)

    async def run() -> State:
        async with asyncio.timeout(TIMEOUT):
            async with client:
                return await client.play(remote.Heuristic().decide)

    last = asyncio.run(run())
    assert last.finished and last.result is not None and last.seat == 0
    # The built-in bots move at once (no pace): a command they overtook is refused as
    # stale (the whole view follows, and the bot answers that); nothing else is refused.
    assert {r.code for r in client.refusals} <= {"stale", "busy"}
    commands = [f for f in client.sent_frames if f["type"] == "command"]
    assert len(commands) > 20
    # Every other command was stored, and its ref came back on the state frame
    # reflecting it.
    refused = {r.ref for r in client.refusals}
    assert set(client.sent) == {f["ref"] for f in commands}
    # (but the last ones: the game may end before their answer comes).
    unresolved = sorted(set(client.sent) - refused - set(client.reflected))
    assert not unresolved or unresolved == sorted(client.sent)[-len(unresolved):]
    assert len(unresolved) <= 3 and len(client.reflected) > 20
    states = [f for f in client.received if f["type"] == "state"]
    assert all("html" not in f["answer"] and "parts" not in f["answer"] for f in states)
    assert all("hand" not in s for f in states for n, s in
               enumerate(f["answer"]["table"]["seats"]) if n != 0)


def test_the_client_reconnects_after_its_server_dies_and_finishes_the_game(
        server: tuple[dict[str, str], Daphne]) -> None:
    env, daphne = server
    (table,) = seat_tables(env, 4, 1, bots=True)
    remote = _remote()
    client = Recording(_server(daphne), table["table"], token=table["seats"][0][1],
                       delays=(0.2, 0.5, 1))
    bot = remote.Heuristic()
    killed = False

    def decide(state: State) -> Any:
        nonlocal killed
        if not killed and state.version > 30:
            killed = True
            daphne.kill()  # SIGKILL mid-game
            daphne.start()
        return bot.decide(state)

    async def run() -> State:
        async with asyncio.timeout(TIMEOUT):
            async with client:
                return await client.play(decide)

    last = asyncio.run(run())
    assert killed and client.connections >= 2
    assert last.finished and last.result is not None


@pytest.mark.parametrize(("case", "code", "close"), [
    ("token", "bad_token", 4401),
    ("scheme", "bad_authorization", 4402),
    ("origin", "bad_origin", 4405),
    ("no table", "no_table", 4404),
    ("table id", "bad_table_id", 4400),
])
def test_handshake_refusals_reach_the_client_as_their_code(
        server: tuple[dict[str, str], Daphne], case: str, code: str, close: int) -> None:
    env, daphne = server
    (table,) = seat_tables(env, 4, 1, bots=True)
    token = table["seats"][0][1]
    table_id = {"no table": str(uuid4()), "table id": "nope"}.get(case, table["table"])
    client = Recording(_server(daphne), table_id,
                       token={"token": "wrong", "origin": token}.get(case, token),
                       origin="https://evil.example" if case == "origin" else None,
                       reconnect=False)
    if case == "scheme":
        client.headers = lambda: {"Authorization": f"Token {token}"}  # type: ignore[method-assign]

    async def run() -> None:
        async with client:
            async for _frame in client.frames():
                pass

    with pytest.raises(HandshakeRefused) as refused:
        asyncio.run(run())
    assert (refused.value.code, refused.value.close_code) == (code, close)
    assert client.received[0]["code"] == code


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_javascript_example_plays_a_whole_game(server: tuple[dict[str, str], Daphne]
                                                   ) -> None:
    """examples/remote_bot.js, the minimal bot for node, plays its seat to the end."""
    env, daphne = server
    (table,) = seat_tables(env, 4, 1, bots=True)
    done = subprocess.run(["node", "--experimental-websocket", str(ROOT / "examples" /
                                                                   "remote_bot.js"),
                           _server(daphne), table["table"], table["seats"][0][1]],
                          capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    ended = json.loads(done.stdout.splitlines()[-1])
    assert ended["result"]["ranks"] and ended["sent"] >= ended["reflected"] > 10
    # A command the built-in bots' moves overtook is refused as stale, nothing else.
    refused = [line for line in done.stderr.splitlines() if line.startswith("refused")]
    assert all(line.startswith(("refused (stale)", "refused (busy)")) for line in refused)
    assert ended["sent"] - ended["reflected"] == len(refused), done.stderr


def test_the_package_installs_and_imports_on_its_own(tmp_path: Path) -> None:
    """``pip install ./clients/python``: its one dependency is websockets, and importing
    it loads nothing of the platform."""
    target = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps",
                           "--no-build-isolation", "--target", str(target), "-q",
                           str(ROOT / "clients" / "python")], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    meta = next(target.glob("bohnanza_client-*.dist-info")) / "METADATA"
    requires = [line for line in meta.read_text().splitlines()
                if line.startswith("Requires-Dist")]
    assert requires == ["Requires-Dist: websockets>=13"]
    websockets_home = Path(__import__("websockets").__file__).parents[1]
    probe = ("import sys, bohnanza_client, bohnanza_client.table; "
             "platform = [m for m in sys.modules if m.split('.')[0] in "
             "('bohnanza_core', 'django', 'play', 'replays', 'tournaments', 'config')]; "
             "assert not platform, platform; print(bohnanza_client.PROTOCOL)")
    isolated = subprocess.run([sys.executable, "-I", "-c",
                               f"import sys; sys.path[:0] = [{str(target)!r}, "
                               f"{str(websockets_home)!r}]; " + probe],
                              capture_output=True, text=True, timeout=60, cwd=tmp_path,
                              env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert isolated.returncode == 0, isolated.stderr
    assert json.loads(isolated.stdout) == 3
