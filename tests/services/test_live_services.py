"""Live play in production's shape (issue 10): two daphne processes on two ports, with
DEBUG off, PostgreSQL (a database of this test's own) and the Redis channel layer (a
Redis database of its own, flushed), serving one table whose clients are split between
them: people by their session cookies, bot accounts by their API tokens, and a
spectator, each a websocket client seeing only its own frames.

One game is played to the end with every client seeing every update; another has a
server killed (SIGKILL) in the middle and started again: its clients reconnect, get
their view rebuilt from the store, and the game ends normally. In a third, a seat's
only connection, on one server, closes: past the table's absence limit the seat is
handed to the table's bot (an event of the game), and the player on the other server
plays the game to its end against it. (A clock deadline
firing after the restart is not tested here: that needs the deadlines picked up at
process start, built separately.)
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import uuid4

import psycopg
import pytest
import redis

from tests.services.conftest import POSTGRES, require_service
from tests.services.live_servers import (
    Daphne,
    SeatClient,
    free_port,
    gaps,
    migrate,
    seat_tables,
    server_env,
    told,
)

REDIS_URL = "redis://127.0.0.1:6379/12"
KILL_AT = 25
"""The version after which the second game's server is killed."""
TIMEOUT = 240.0


def admin() -> psycopg.Connection[Any]:
    return psycopg.connect(**POSTGRES, autocommit=True)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[dict[str, str],
                                                                        list[Daphne]]]:
    require_service("Redis", "127.0.0.1", 6379)
    require_service("PostgreSQL", str(POSTGRES["host"]), int(str(POSTGRES["port"])))
    name = f"bohnanza_live_{uuid4().hex[:10]}"
    with admin() as db:
        db.execute(f'CREATE DATABASE "{name}"')
    store = redis.Redis.from_url(REDIS_URL)
    store.flushdb()
    # The bots move at 50 ms, not a person's pace (1 s): a seat handed to its bot plays
    # out the game (tests/services/test_bot_client.py plays at 0 ms).
    env = {**server_env(f"postgres://{POSTGRES['user']}@{POSTGRES['host']}:"
                        f"{POSTGRES['port']}/{name}", REDIS_URL),
           "BOHNANZA_BOT_PACE_MS": "50"}
    logs = tmp_path_factory.mktemp("daphne")
    files = [(logs / f"daphne{n}.log").open("w") for n in range(2)]
    daphnes = [Daphne(free_port(), env, file) for file in files]
    try:
        migrate(env)
        for daphne in daphnes:
            daphne.start()
        yield env, daphnes
    finally:
        for daphne in daphnes:
            daphne.stop()
        for file in files:
            file.close()
        store.flushdb()
        with admin() as db:
            db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    for file in files:
        assert "Traceback" not in Path(file.name).read_text(), Path(file.name).read_text()


def stored(env: dict[str, str], game: str) -> int:
    """How many events the database holds for the game."""
    with psycopg.connect(env["DATABASE_URL"]) as db:
        row = db.execute("SELECT COUNT(*) FROM games_events WHERE originator_id = %s",
                         [game]).fetchone()
    assert row is not None
    return int(row[0])


def clients(table: dict[str, Any], daphnes: list[Daphne]) -> list[SeatClient]:
    """One client per seat, seats alternating between the two servers, and a spectator
    on each."""
    seated = [SeatClient(daphnes[n % 2].port, table["table"], credential)
              for n, credential in enumerate(table["seats"])]
    return [*seated, *(SeatClient(d.port, table["table"], None) for d in daphnes)]


def check_ending(everyone: list[SeatClient], env: dict[str, str], game: str) -> None:
    """Every client's last frame: the game over, at the stored version, one head hash;
    each seat saw its own hand and no other."""
    last = [c.frames[-1] for c in everyone]
    assert all(f["type"] == "state" and f["finished"] for f in last)
    assert len({(f["version"], f["head_hash"]) for f in last}) == 1
    assert last[0]["version"] == stored(env, game)
    for n, client in enumerate(everyone):
        seat = n if client.credential is not None else None
        for frame in client.frames:
            if frame["type"] == "state" and not frame["finished"]:
                assert frame["seat"] == seat
                seats = frame["answer"]["table"]["seats"]
                assert [i for i, s in enumerate(seats) if "hand" in s] == (
                    [] if seat is None else [seat])


def test_two_servers_play_one_game_to_the_end_every_client_seeing_every_update(
        servers: tuple[dict[str, str], list[Daphne]]) -> None:
    env, daphnes = servers
    (table,) = seat_tables(env, 4, 1)
    everyone = clients(table, daphnes)

    async def game() -> None:
        sockets = [await c.open() for c in everyone]
        await asyncio.wait_for(asyncio.gather(*(c.play(s, quiet=TIMEOUT) for c, s in
                                                zip(everyone, sockets, strict=True))),
                               TIMEOUT)

    asyncio.run(game())
    commands = sum(len(c.sent) for c in everyone)
    for client in everyone:
        assert len(client.connections) == 1
        assert gaps(client.frames) == [], client.port
        assert not [f for f in client.frames if f["type"] == "error"]
        # one update per command stored after its first frame (a connection still
        # joining when the first commands came saw them in its whole view), whichever
        # server took it, each once and in order
        first = client.frames[0]["version"]
        after = sum(1 for c in everyone for v in c.sent if v >= first)
        moves = [(f["since"], f["version"]) for f in client.frames
                 if f["type"] == "state" and f["since"] != f["version"]]
        assert len(moves) == after and set(client.sent) <= {m[0] for m in moves}
    check_ending(everyone, env, table["game"])
    assert commands > 20  # a real game, not a few moves
    assert {c.port for c in everyone if c.sent} == {d.port for d in daphnes}


def test_a_server_killed_mid_game_comes_back_and_the_game_ends_normally(
        servers: tuple[dict[str, str], list[Daphne]]) -> None:
    env, daphnes = servers
    (table,) = seat_tables(env, 4, 1)
    everyone = clients(table, daphnes)
    victim = daphnes[0]

    async def game() -> None:
        up = {d.port: asyncio.Event() for d in daphnes}
        for event in up.values():
            event.set()
        halfway = asyncio.Event()
        for client in everyone:
            client.milestone = (KILL_AT, halfway)
        players = [asyncio.create_task(c.play_through(lambda port: up[port]))
                   for c in everyone]
        await asyncio.wait_for(halfway.wait(), TIMEOUT)
        up[victim.port].clear()
        victim.kill()
        await asyncio.to_thread(victim.start)
        up[victim.port].set()
        await asyncio.wait_for(asyncio.gather(*players), TIMEOUT)

    asyncio.run(game())
    for n, client in enumerate(everyone):
        if client.port == victim.port:
            assert len(client.connections) >= 2, n  # dropped, and came back
            back = client.connections[-1]
            assert back[0]["type"] == "state" and back[0]["since"] == back[0]["version"]
            assert back[0]["version"] >= KILL_AT  # its view rebuilt from the store
    check_ending(everyone, env, table["game"])


def test_a_seat_gone_from_one_server_is_handed_to_its_bot_and_the_game_ends(
        servers: tuple[dict[str, str], list[Daphne]]) -> None:
    env, daphnes = servers
    (table,) = seat_tables({**env, "BOHNANZA_ABSENCE_SECONDS": "2"}, 3, 1)
    goer = SeatClient(daphnes[1].port, table["table"], table["seats"][1])
    stayers = [SeatClient(daphnes[0].port, table["table"], table["seats"][0]),
               SeatClient(daphnes[1].port, table["table"], table["seats"][2])]

    async def game() -> list[bool]:
        socket = await goer.open()
        goer.connections[-1].append(json.loads(await socket.recv()))
        await socket.close()  # its person's every connection is closed now
        sockets = [await c.open() for c in stayers]
        return list(await asyncio.wait_for(asyncio.gather(
            *(c.play(s, quiet=1.0) for c, s in zip(stayers, sockets, strict=True))),
            TIMEOUT))

    assert asyncio.run(game()) == [True, True]
    assert goer.frames[0]["seat"] == 1
    for client in stayers:
        frames = [f for f in client.frames if f["type"] == "state"]
        log = told(frames)
        handed = [v for v, line in log.items() if "stayed away too long" in line]
        assert len(handed) == 1, list(log.values())[-5:]
        # Every view of the table at a step before the event shows a person in the
        # seat, every later one the bot (a view asked for by `sync` may come first).
        at = handed[0] - 1
        seats = [(f["version"], f["answer"]["table"]["seats"][1]["bot"]) for f in frames]
        assert {bot for version, bot in seats if version <= at} == {None}
        assert {bot for version, bot in seats if version > at} == {"heuristic"}
        assert frames[-1]["finished"]
        assert frames[-1]["version"] == stored(env, table["game"])
