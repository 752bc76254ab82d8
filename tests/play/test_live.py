"""Live play over websockets (play/consumers.py), with Channels' WebsocketCommunicator:
a whole game by four clients, frames refused with a reason and nothing stored, a
reconnect in the middle of a trade, spectators, bots and the clock."""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Awaitable, Callable, Iterator
from datetime import datetime, timedelta
from typing import Any
from uuid import uuid4

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.auth import AuthMiddlewareStack
from channels.layers import get_channel_layer
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.auth.models import User
from django.utils import timezone

from bohnanza_core.commands import AcceptOffer, EndTrading, Harvest, MakeOffer
from bohnanza_core.engine import OfferShape, awaiting, legal_commands
from bohnanza_core.state import Phase
from bohnanza_core.views import SPECTATOR
from bohnanza_core.wire import command_to_json
from play import driver, live, send_order
from play.lobby import forget_snapshot
from play.models import Table
from play.routing import websocket_urlpatterns
from play.tables import create_table, join, start
from replays.store import games, loaded, reset_games
from tests.frames import check_server
from tests.services.live_servers import told

pytestmark = pytest.mark.django_db(transaction=True)

APP = AuthMiddlewareStack(URLRouter(websocket_urlpatterns))
NAMES = ("ann", "bob", "cy", "di")
TIMEOUT = 5


@pytest.fixture(autouse=True)
def fresh(settings: Any) -> Iterator[None]:
    settings.PLAY_BOT_PACE_SECONDS = 0
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    reset_games()
    loaded.clear()
    forget_snapshot()
    yield
    loaded.clear()
    reset_games()


def _people(n: int) -> list[User]:
    return [User.objects.create_user(name, password="pw") for name in NAMES[:n]]


def _table(people: list[User], seats: list[str], preset: str = "classic", **kw: Any) -> Table:
    table = create_table(people[0], preset, len(seats), seats=seats, **kw)
    for person in people[1:]:
        join(table, person)
    return start(table, people[0])


async def _client(table: Table, user: User | None, query: str = "") -> WebsocketCommunicator:
    """A websocket client signed in as ``user`` (the session cookie, as a browser)."""
    headers = []
    if user is not None:
        from django.test import Client
        client = Client()
        await sync_to_async(client.force_login)(user)
        cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
        headers.append((b"cookie", f"{settings.SESSION_COOKIE_NAME}={cookie}".encode()))
    communicator = WebsocketCommunicator(APP, f"/ws/tables/{table.id}/{query}",
                                         headers=headers)
    connected, _code = await communicator.connect(timeout=TIMEOUT)
    assert connected
    return communicator


async def _frame(c: WebsocketCommunicator) -> dict[str, Any]:
    """The next frame ``c`` is sent, checked against the protocol's schema
    (docs/schema/server-frame.json): every frame these tests read is."""
    return check_server(json.loads(await c.receive_from(timeout=TIMEOUT)))


async def _latest(c: WebsocketCommunicator, version: int) -> dict[str, Any]:
    """Frames until one at ``version`` (or later)."""
    while True:
        frame = await _frame(c)
        assert frame["type"] != "error", frame
        if frame["type"] == "state" and frame["version"] >= version:
            return frame


def _stored_version(table: Table) -> int:
    return games().game(table.game_id).version


def in_loop(test: Callable[[], Awaitable[None]]) -> Callable[[], None]:
    """Run an async test in an event loop (as the ASGI server would), stopping the
    table drivers it started at the end."""
    @functools.wraps(test)
    def run() -> None:
        async def body() -> None:
            try:
                await test()
            finally:
                await driver.stop_all()
        async_to_sync(body)()
    return run


SHORT = {"beans": ["wax", "blue", "chili", "stink"]}
"""House rules for a short four-player classic game (four kinds of bean)."""


@in_loop
async def test_a_whole_game_by_four_websocket_clients() -> None:
    people = await sync_to_async(_people)(4)
    table = await sync_to_async(_table)(people, ["open"] * 4, overrides=SHORT)
    clients = [await _client(table, p) for p in people]
    watcher = await _client(table, None)
    frames = [await _frame(c) for c in clients]
    assert [f["seat"] for f in frames] == [0, 1, 2, 3]
    assert (await _frame(watcher))["seat"] is None
    version = frames[0]["version"]
    state = (await sync_to_async(games().game)(table.game_id)).state
    commands = 0
    while not state.finished:
        seat = awaiting(state)[0]
        move = next(m for m in legal_commands(state, seat) if not isinstance(m, OfferShape))
        await clients[seat].send_to(text_data=json.dumps(
            {"type": "command", "ref": commands, "version": version,
             "command": command_to_json(move)}))
        # every seat and the spectator get their update, each built for them
        got = [await _latest(c, version + 1) for c in (*clients, watcher)]
        version = got[0]["version"]
        assert {g["version"] for g in got} == {version}
        assert {g["head_hash"] for g in got} == {got[0]["head_hash"]}
        for n, g in enumerate(got[:4]):
            assert g["answer"]["table"]["perspective"] == n
            assert "hand" in g["answer"]["table"]["seats"][n]
            assert all("hand" not in s for i, s in enumerate(g["answer"]["table"]["seats"])
                       if i != n)
        state = (await sync_to_async(games().game)(table.game_id)).state
        commands += 1
    assert got[-1]["finished"] and "seed" not in got[-1]["answer"]["table"]
    game = await sync_to_async(games().game)(table.game_id)
    assert game.finished and got[0]["head_hash"] == game.head_hash
    actors = {e.actor for e in await sync_to_async(games().record)(table.game_id)}
    assert {f"user:{n}" for n in NAMES} <= actors
    for c in (*clients, watcher):
        await c.disconnect()


@in_loop
async def test_out_of_turn_forged_and_malformed_frames_are_refused_and_store_nothing() -> None:
    people = await sync_to_async(_people)(3)
    table = await sync_to_async(_table)(people, ["open"] * 3)
    ann, bob, _cy = [await _client(table, p) for p in people]
    watcher = await _client(table, None)
    for c in (ann, bob, watcher):
        await _frame(c)
    before = await sync_to_async(_stored_version)(table)
    refused = [
        (bob, {"type": "command", "command": {"kind": "plant_from_hand", "field": 0}},
         "only the active player"),  # out of turn: seat 0 starts
        (bob, {"type": "command", "command": {"kind": "plant_from_hand", "field": 0,
                                              "seat": 0}}, "this connection plays seat 1"),
        (ann, {"type": "command", "command": {"kind": "plant_from_hand", "field": 99999}},
         "field"),
        (ann, {"type": "command", "command": {"kind": "teleport"}}, "unknown command kind"),
        (ann, {"type": "command", "command": {"kind": "harvest", "field": 0, "x": 1}},
         "has no field"),
        (ann, {"type": "command", "version": before - 1,
               "command": {"kind": "plant_from_hand", "field": 0}}, "moved on"),
        (watcher, {"type": "command", "command": {"kind": "plant_from_hand", "field": 0}},
         "spectators"),
        (ann, {"type": "dance"}, "unknown frame type"),
    ]
    for client, frame, reason in refused:
        await client.send_to(text_data=json.dumps(frame))
        answer = await _frame(client)
        assert answer["type"] == "error" and reason in answer["reason"], (frame, answer)
        if "moved on" in reason:
            assert (await _frame(client))["type"] == "state"  # and its view again
    for junk in ("not json", "[1, 2]", '{"type": 1}', "{" * 50 + "}" * 50, "x" * 20_000,
                 '{"type": "command", "command": {"kind": "harvest", "field": 1e400}}',
                 '{"type": "command", "command": {"kind": "harvest", "field": ' + "9" * 50
                 + "}}"):
        await ann.send_to(text_data=junk)
        answer = await _frame(ann)
        assert answer["type"] == "error" and answer["reason"], junk[:40]
    await ann.send_to(bytes_data=b"\x00\x01")
    assert (await _frame(ann))["type"] == "error"
    assert await sync_to_async(_stored_version)(table) == before
    assert await bob.receive_nothing(timeout=0.1)  # nobody else heard of any of it
    for c in (ann, bob, watcher):
        await c.disconnect()


def _count_loads(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Every ``live.load`` from now on, as its ``fresh`` flag (True: read from the store)."""
    reads: list[bool] = []
    load = live.load

    def counted(game_id: Any, *, fresh: bool = False) -> Any:
        reads.append(fresh)
        return load(game_id, fresh=fresh)

    monkeypatch.setattr(live, "load", counted)
    return reads


def test_a_flood_of_illegal_commands_is_refused_without_reading_the_store_each_time(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from play import consumers

    monkeypatch.setattr(consumers, "REFUSED_PER_SECOND", 0.01)  # no refill in the test
    reads = _count_loads(monkeypatch)

    @in_loop
    async def flood() -> None:
        people = await sync_to_async(_people)(3)
        table = await sync_to_async(_table)(people, ["open"] * 3)
        bob = await _client(table, people[1])
        await _frame(bob)
        before = await sync_to_async(_stored_version)(table)
        reads.clear()
        out_of_turn = json.dumps({"type": "command",
                                  "command": {"kind": "plant_from_hand", "field": 0}})
        reasons = []
        for _ in range(3 * consumers.REFUSED_BURST):
            await bob.send_to(text_data=out_of_turn)
            answer = await _frame(bob)
            assert answer["type"] == "error"
            reasons.append(answer["reason"])
        judged = [r for r in reasons if "only the active player" in r]
        limited = [r for r in reasons if r.startswith("too many refused commands")]
        assert len(judged) == consumers.REFUSED_BURST
        assert len(limited) == 2 * consumers.REFUSED_BURST
        assert reasons[-1] == limited[-1]
        assert reads.count(True) <= consumers.REFUSED_BURST  # none for the refused ones
        await bob.send_to(text_data=json.dumps({"type": "sync"}))  # still answered
        assert (await _frame(bob))["type"] == "state"
        assert await sync_to_async(_stored_version)(table) == before
        await bob.disconnect()
        ann = await _client(table, people[0])  # another connection: its own allowance
        first = await _frame(ann)
        await ann.send_to(text_data=json.dumps(
            {"type": "command", "version": first["version"],
             "command": {"kind": "plant_from_hand", "field": 0}}))
        assert (await _latest(ann, first["version"] + 1))["type"] == "state"
        await ann.disconnect()

    flood()


@in_loop
async def test_a_reconnect_in_the_middle_of_a_trade() -> None:
    people = await sync_to_async(_people)(3)
    table = await sync_to_async(_table)(people, ["open"] * 3)
    clients = [await _client(table, p) for p in people]
    for c in clients:
        await _frame(c)

    def to_trading() -> Any:
        game = games().game(table.game_id)
        while game.state.phase.value != "trading":
            seat = awaiting(game.state)[0]
            move = next(m for m in legal_commands(game.state, seat)
                        if not isinstance(m, OfferShape))
            games().play_on(game, move, game.players[seat])
        return game

    game = await sync_to_async(to_trading)()
    offer = {"kind": "make_offer", "gives": [game.state.face_up[0]],
             "wants": [], "to": 1}  # a gift of a face-up card to bob
    await clients[0].send_to(text_data=json.dumps({"type": "command", "command": offer}))
    mid = await _latest(clients[1], game.version + 1)
    assert mid["answer"]["table"]["offers"]
    assert any(m["kind"] == "accept_offer" for m in mid["legal"])
    await clients[1].disconnect()
    bob = await _client(table, people[1])  # reconnects: the view is rebuilt from the store
    again = await _frame(bob)
    assert again["version"] == mid["version"] and again["head_hash"] == mid["head_hash"]
    assert again["answer"]["table"]["offers"] == mid["answer"]["table"]["offers"]
    accept = next(m for m in again["legal"] if m["kind"] == "accept_offer")
    await bob.send_to(text_data=json.dumps({"type": "command", "version": again["version"],
                                            "command": accept}))
    after = await _latest(bob, again["version"] + 1)
    assert not after["answer"]["table"]["offers"]
    assert after["answer"]["table"]["seats"][1]["trade_area"]
    for c in (clients[0], clients[2], bob):
        await c.disconnect()


@in_loop
async def test_a_gap_is_healed_by_asking_again() -> None:
    people = await sync_to_async(_people)(2)
    table = await sync_to_async(_table)(people, ["open"] * 2, preset="duel")
    ann = await _client(table, people[0])
    first = await _frame(ann)
    await ann.send_to(text_data=json.dumps({"type": "sync"}))
    again = await _frame(ann)
    assert again["version"] == first["version"] and again["since"] == again["version"]
    await ann.send_to(text_data=json.dumps({"type": "ping", "ref": 7}))
    assert await _frame(ann) == {"type": "pong", "protocol": live.PROTOCOL, "ref": 7}
    await ann.disconnect()


async def _play_seat_0_to_the_end(ann: Any, frame: dict[str, Any]) -> list[dict[str, Any]]:
    """Seat 0 plays its first legal move (offers aside) whenever it is awaited, until the
    game ends; every state frame it was sent, the first one included."""
    frames = [frame]
    for _ in range(2000):
        if frame["finished"]:
            break
        moves = [m for m in frame["legal"] if m["kind"] != "offer_shape"]
        if moves and 0 in frame["answer"]["table"]["awaiting"][:1]:
            await ann.send_to(text_data=json.dumps(
                {"type": "command", "version": frame["version"], "command": moves[0]}))
        frame = await _frame(ann)
        while frame["type"] != "state":
            frame = await _frame(ann)
        frames.append(frame)
    return frames


@pytest.fixture
def short_log(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(live, "LOG_LINES", 40)


@pytest.mark.usefixtures("short_log")
@in_loop
async def test_bots_play_their_seats_and_the_game_ends() -> None:
    people = await sync_to_async(_people)(1)
    table = await sync_to_async(_table)(people, ["open", "heuristic", "random"],
                                        overrides=SHORT)
    ann = await _client(table, people[0])
    frames = await _play_seat_0_to_the_end(ann, await _frame(ann))
    frame = frames[-1]
    assert frame["finished"]
    # ann was told every event once, in a line each: no move was sent again to her
    # connection once it held the version the move led to (a page would log it twice).
    lines = told(frames)
    assert sorted(lines) == list(range(1, frame["version"] + 1))
    held = -1
    for f in frames:
        assert f["since"] == f["version"] or f["since"] >= held, (f["since"], held)
        held = f["version"]
    # Reloaded at the end, the page is sent the log so far: its last LOG_LINES lines
    # (40 here: the game is longer), the same lines.
    assert frame["version"] > live.LOG_LINES
    again = await _client(table, people[0])
    whole = await _frame(again)
    assert whole["since"] == whole["version"] == frame["version"]
    assert whole["log"] == [lines[v] for v in sorted(lines)][-live.LOG_LINES:]
    await again.disconnect()
    watcher = await _client(table, None)
    public = (await _frame(watcher))["log"]
    assert len(public) == live.LOG_LINES
    await watcher.disconnect()
    record = await sync_to_async(games().record)(table.game_id)
    actors = {e.actor for e in record}
    assert {"user:ann", "bot:heuristic", "bot:random"} <= actors
    await ann.disconnect()
    status = await sync_to_async(lambda: Table.objects.get(pk=table.pk).status)()
    for _ in range(50):
        if status == Table.Status.FINISHED:
            break
        await asyncio.sleep(0.02)
        status = await sync_to_async(lambda: Table.objects.get(pk=table.pk).status)()
    assert status == Table.Status.FINISHED


def _two_moves(table: Table) -> list[live.Played]:
    """Two moves played one after the other at a duel table (the seats' first legal
    moves that are not offers), each with every group's update."""
    played = []
    for _ in range(2):
        state = games().game(table.game_id).state
        seat = awaiting(state)[0]
        move = next(m for m in legal_commands(state, seat) if not isinstance(m, OfferShape))
        played.append(live.submit(table.id, table.game_id, move, f"user:{NAMES[seat]}",
                                  person=True))
    return played


@in_loop
async def test_updates_sent_out_of_order_leave_no_hole_in_a_connections_log() -> None:
    """The cause of the holes in a connection's log under load (issue 26, finding 7):
    two moves stored one after the other (a person's, then a bot's answer from the
    driver, another task) had their updates sent in the other order; the connection
    sent the later one, then dropped the earlier as old. Sent out of order here on
    purpose (as two processes may), the connection fills the gap from the store: it is
    told every event once, in order."""
    people = await sync_to_async(_people)(2)
    table = await sync_to_async(_table)(people, ["open"] * 2, preset="duel")
    ann = await _client(table, people[0], "?html=0")
    first = await _frame(ann)
    one, two = await sync_to_async(_two_moves)(table)
    layer = get_channel_layer()
    await driver.broadcast(layer, two)  # the later move's updates first
    await driver.broadcast(layer, one)
    frames = [first]
    while frames[-1]["version"] < two.game.version:
        frames.append(await _until_state(ann))
    assert await ann.receive_nothing(timeout=0.2)
    lines = told(frames)
    assert sorted(lines) == list(range(1, two.game.version + 1))
    await ann.disconnect()


async def _until_state(c: WebsocketCommunicator) -> dict[str, Any]:
    while (frame := await _frame(c))["type"] != "state":
        pass
    return frame


@in_loop
async def test_the_driver_s_updates_wait_for_a_move_stored_before_them() -> None:
    """A table's updates leave a process in the order its moves were stored
    (``play.send_order``): while a move stored first is not yet sent, the driver's bot
    stores its answer but sends it only after that move's updates."""
    people = await sync_to_async(_people)(1)
    table = await sync_to_async(_table)(people, ["random", "open", "random"],
                                        overrides=SHORT)  # a bot begins
    layer = get_channel_layer()
    await layer.group_add(live.spectator_group(table.id), "watcher")
    before = await sync_to_async(_stored_version)(table)
    order = send_order.of(table.id)
    first = order.slot()
    order.take(first)  # a move stored, its updates not sent yet
    driver.kick(table.id, layer)
    for _ in range(200):  # the bot's move is stored meanwhile
        if await sync_to_async(_stored_version)(table) > before:
            break
        await asyncio.sleep(0.01)
    assert await sync_to_async(_stored_version)(table) > before
    with pytest.raises(TimeoutError):  # but not sent
        async with asyncio.timeout(0.2):
            await layer.receive("watcher")
    order.done(first)
    async with asyncio.timeout(5):
        message = await layer.receive("watcher")
    assert message["type"] == "table.update"


@in_loop
async def test_a_look_that_stores_nothing_holds_no_command_up() -> None:
    """A move waits only for moves stored before it, never for a store call still
    waiting for its thread: a command's updates go at once though an earlier call at
    the table has not stored anything yet."""
    table_id = uuid4()
    order = send_order.of(table_id)
    waiting, stored = order.slot(), order.slot()
    order.take(stored)
    await asyncio.wait_for(order.turn(stored), 1)  # not behind ``waiting``
    order.done(stored)
    order.done(waiting)  # gave up: a ticket it takes later holds nobody up
    order.take(waiting)
    later = order.slot()
    order.take(later)
    await asyncio.sleep(0)  # the abandoned ticket's turn passes on the loop
    await asyncio.wait_for(order.turn(later), 1)
    order.done(later)


async def _clock_started(table: Table) -> Table:
    """The table as stored once its driver has set the clock's deadline (polled for at
    most 2 s: the driver runs beside the test in the same loop)."""
    for _ in range(100):
        stored = await sync_to_async(Table.objects.get)(pk=table.pk)
        if stored.clock_deadline is not None:
            break
        await asyncio.sleep(0.02)
    return stored


@in_loop
async def test_the_clock_plays_the_default_move_when_a_deadline_has_passed() -> None:
    people = await sync_to_async(_people)(2)
    table = await sync_to_async(_table)(people, ["open", "open"], preset="duel",
                                        move_seconds=60)
    ann = await _client(table, people[0])
    first = await _frame(ann)
    # The deadline is stored on the table: move it into the past, as after a restart.
    stored = await _clock_started(table)
    assert stored.clock_seat == 0 and stored.clock_version == first["version"]
    await sync_to_async(Table.objects.filter(pk=table.pk).update)(
        clock_deadline=timezone.now() - timedelta(seconds=1))
    await driver.stop_all()
    driver.kick(table.id, get_channel_layer())
    moved = await _latest(ann, first["version"] + 1)
    record = await sync_to_async(games().record)(table.game_id)
    assert record[first["version"]].actor == "clock"
    assert moved["log"]
    await ann.disconnect()


@pytest.mark.usefixtures("serving_heap")
@in_loop
async def test_a_deadline_set_before_a_restart_fires_with_nobody_connected() -> None:
    from asgiref.testing import ApplicationCommunicator

    from config.asgi import application
    from play import startup

    people = await sync_to_async(_people)(2)
    table = await sync_to_async(_table)(people, ["open", "open"], preset="duel",
                                        move_seconds=60)
    ann = await _client(table, people[0])
    first = await _frame(ann)
    await _clock_started(table)
    await ann.disconnect()
    # The restart: this process forgets every driver and held game; the deadline, in
    # the store, passes while nobody is connected.
    await driver.stop_all()
    loaded.clear()
    startup._started.clear()
    await sync_to_async(Table.objects.filter(pk=table.pk).update)(
        clock_deadline=timezone.now() - timedelta(seconds=1))
    server = ApplicationCommunicator(application, {"type": "lifespan"})
    await server.send_input({"type": "lifespan.startup"})
    assert (await server.receive_output(TIMEOUT))["type"] == "lifespan.startup.complete"
    for _ in range(250):
        if await sync_to_async(_stored_version)(table) > first["version"]:
            break
        await asyncio.sleep(0.02)
    record = await sync_to_async(games().record)(table.game_id)
    assert len(record) > first["version"]
    assert record[first["version"]].actor == "clock"
    await server.send_input({"type": "lifespan.shutdown"})
    assert (await server.receive_output(TIMEOUT))["type"] == "lifespan.shutdown.complete"


def test_a_starting_server_moves_its_long_lived_objects_out_of_the_collectors_sight(
        serving_heap: None) -> None:
    import gc

    from play import startup

    gc.unfreeze()
    gc.set_threshold(700, 10, 10)
    tracked = len(gc.get_objects())
    startup.settle_the_heap()
    assert gc.get_threshold() == startup.SERVING_GC_THRESHOLDS
    assert gc.get_freeze_count() > tracked // 2  # the modules, classes and functions
    assert len(gc.get_objects()) < tracked // 2  # what a full collection still walks


def test_the_tables_picked_up_at_start_are_the_running_ones_that_move_on_their_own() -> None:
    people = _people(2)
    clocked = _table(people, ["open", "open"], preset="duel", move_seconds=60)
    Table.objects.filter(pk=clocked.pk).update(clock_deadline=timezone.now())
    botted = _table(people[:1], ["open", "heuristic", "heuristic"], preset="classic")
    _table(people, ["open", "open"], preset="duel")  # people only, no clock: waits
    create_table(people[0], "duel", 2, seats=["open", "open"])  # not started
    assert sorted(driver.resumable_tables()) == sorted([clocked.id, botted.id])



def test_the_sweep_picks_up_new_unopened_tables_that_move_on_their_own_once() -> None:
    from play.models import Presence

    people = _people(2)
    botted = _table(people[:1], ["open", "heuristic"], preset="duel")
    clocked = _table(people, ["open", "open"], preset="duel", move_seconds=60)
    _table(people, ["open", "open"], preset="duel")  # people only, no clock: waits
    opened = _table(people[:1], ["open", "heuristic"], preset="duel")
    Presence.objects.create(table=opened, seat=0, channel="elsewhere", seen_at=timezone.now())
    old = _table(people[:1], ["open", "heuristic"], preset="duel")
    Table.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(hours=1))
    since = timezone.now() - driver.SWEEP_WINDOW
    assert sorted(t for t, _ in driver.new_tables(since)) == sorted([botted.id, clocked.id])

    async def twice() -> tuple[int, int, set[Any]]:
        try:
            first = await driver.sweep(get_channel_layer())
            driven = set(driver._tasks)
            return first, await driver.sweep(get_channel_layer()), driven
        finally:
            await driver.stop_all()

    first, second, driven = async_to_sync(twice)()
    assert first == 2 and second == 0  # each new table kicked once by the sweep
    assert driven == {botted.id, clocked.id}


def test_spectators_of_a_private_table_need_its_invitation() -> None:
    people = _people(1)
    table = _table(people, ["open", "heuristic"], preset="duel", public=False)

    async def connect(query: str) -> str | None:
        """The refusal's code, None if let in (accepted and sent the view)."""
        communicator = WebsocketCommunicator(APP, f"/ws/tables/{table.id}/{query}")
        connected, _ = await communicator.connect(timeout=TIMEOUT)
        assert connected  # accepted, to say why before closing
        frame = await _frame(communicator)
        code = None
        if frame["type"] == "error":
            code = frame["code"]
            assert await communicator.receive_output(timeout=TIMEOUT) == {
                "type": "websocket.close", "code": 4403, "reason": "private_table"}
        await communicator.disconnect()
        return code

    assert async_to_sync(connect)("") == "private_table"
    assert async_to_sync(connect)("?invite=wrong") == "private_table"
    assert async_to_sync(connect)(f"?invite={table.invite_token}") is None




@in_loop
async def test_a_bot_account_plays_its_seat_over_the_websocket_with_its_token() -> None:
    """examples/remote_bot.py's logic (the heuristic bot on what the seat is sent) plays
    a whole game against a built-in bot; a wrong token is refused. The bot asks for its
    frames without the drawing (``?html=0``), as the example does: it is sent none,
    while the person at the table is."""
    import importlib.util
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(settings.BASE_DIR) / "clients" / "python"))
    from bohnanza_client import State

    spec = importlib.util.spec_from_file_location(
        "remote_bot", Path(settings.BASE_DIR) / "examples" / "remote_bot.py")
    assert spec is not None and spec.loader is not None
    remote = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(remote)

    def seat_the_bot() -> tuple[Table, str]:
        from play.tables import issue_bot_token
        ann = User.objects.create_user("ann")
        robo = User.objects.create_user("robo")
        token = issue_bot_token(robo)
        table = create_table(ann, "classic", 3, seats=["open", "open", "random"],
                             overrides=SHORT)
        leave_seat = table.seats.get(number=0)
        leave_seat.user = robo
        leave_seat.save()
        join(table, ann)
        table.created_by = robo
        table.save()
        return start(table, robo), token

    table, token = await sync_to_async(seat_the_bot)()
    refused = WebsocketCommunicator(APP, f"/ws/tables/{table.id}/",
                                    headers=[(b"authorization", b"Bearer nope")])
    assert (await refused.connect(timeout=TIMEOUT))[0]
    assert (await _frame(refused))["code"] == "bad_token"
    assert (await refused.receive_output(timeout=TIMEOUT))["code"] == 4401
    bot = WebsocketCommunicator(APP, f"/ws/tables/{table.id}/?html=0",
                                headers=[(b"authorization", f"Bearer {token}".encode())])
    assert (await bot.connect(timeout=TIMEOUT))[0]
    ann = await _client(table, await sync_to_async(User.objects.get)(username="ann"))
    heuristic = remote.Heuristic()
    answered = -1
    frame = await _frame(bot)
    assert frame["seat"] == 0
    ann_frame = await _frame(ann)
    assert "html" in ann_frame["answer"]
    undrawn = 0
    for _ in range(5000):
        if frame["type"] == "state":
            assert not {"html", "parts"} & set(frame["answer"]), frame["answer"].keys()
            assert frame["answer"]["table"]["perspective"] == 0 and "legal" in frame
            undrawn += 1
        if frame["type"] == "state" and frame["finished"]:
            break
        command = (heuristic.decide(State(frame)) if frame["type"] == "state"
                   and frame["version"] != answered else None)
        if command is not None:
            answered = frame["version"]
            await bot.send_to(text_data=json.dumps(
                {"type": "command", "version": frame["version"], "command": command}))
        # ann plays the first legal move whenever she is the one awaited
        # (a communicator that times out cancels its consumer: look before reading)
        while not await ann.receive_nothing(timeout=0.01):
            ann_frame = await _frame(ann)
        if ann_frame["type"] == "error":  # she acted on a table that had moved on
            await ann.send_to(text_data='{"type": "sync"}')
            ann_frame = {"type": "sent"}
        if (ann_frame["type"] == "state" and not ann_frame["finished"]
                and ann_frame["answer"]["table"]["awaiting"][:1] == [1]):
            moves = [m for m in ann_frame["legal"] if m["kind"] != "offer_shape"]
            await ann.send_to(text_data=json.dumps(
                {"type": "command", "command": moves[0]}))
            ann_frame = {"type": "sent"}
        if await bot.receive_nothing(timeout=0.05):
            await bot.send_to(text_data='{"type": "sync"}')
        frame = await _frame(bot)
    assert frame["finished"] and undrawn > 10
    if ann_frame["type"] == "state":
        assert {"html", "parts"} & set(ann_frame["answer"])
    actors = {e.actor for e in await sync_to_async(games().record)(table.game_id)}
    assert {"user:robo", "user:ann", "bot:random"} <= actors
    await bot.disconnect()
    await ann.disconnect()


@in_loop
async def test_the_lobby_lists_update_live() -> None:
    from django.test import Client

    lobby = WebsocketCommunicator(APP, "/ws/lobby/")
    assert (await lobby.connect(timeout=TIMEOUT))[0]
    first = await _frame(lobby)
    assert first == {"type": "lobby", "protocol": live.PROTOCOL, "open": [], "running": [],
                     "mine": []}
    ann, bob = await sync_to_async(_people)(2)
    client = Client()
    await sync_to_async(client.force_login)(ann)
    await sync_to_async(client.post)("/play/tables/new/", {
        "preset": "classic", "players": "3", "move_seconds": "0", "game_seconds": "0",
        "public": "on", "seat_0": "open", "seat_1": "open", "seat_2": "random"})
    opened = await _frame(lobby)
    assert [(t["preset"], t["free"]) for t in opened["open"]] == [("classic", 1)]
    assert opened["running"] == []
    table_id = opened["open"][0]["id"]
    joiner = Client()
    await sync_to_async(joiner.force_login)(bob)
    await sync_to_async(joiner.post)(f"/play/tables/{table_id}/join/")
    full = await _frame(lobby)  # no seat left to join: waiting for ann to start it
    assert full["open"] == [] and full["running"] == []
    await sync_to_async(client.post)(f"/play/tables/{table_id}/start/")
    started = await _frame(lobby)
    assert started["open"] == [] and [t["id"] for t in started["running"]] == [table_id]
    await lobby.send_to(text_data="nonsense")
    assert (await _frame(lobby))["type"] == "error"
    await lobby.send_to(text_data='{"type": "sync"}')
    assert (await _frame(lobby))["running"] == started["running"]
    await lobby.send_to(text_data='{"type": "ping", "ref": 4}')
    assert await _frame(lobby) == {"type": "pong", "protocol": live.PROTOCOL, "ref": 4}
    await lobby.disconnect()


def test_a_flood_on_the_lobby_socket_is_refused_then_closed_without_reading_the_store(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Finding 5 of issue 26: 1,000 frames of anything on /ws/lobby/ rebuilt the lobby
    from the database 1,000 times. Now frames past the allowance are refused without a
    read, and a client that goes on is closed (4429); the lists are built once."""
    from play import consumers, lobby

    monkeypatch.setattr(consumers, "LOBBY_PER_SECOND", 0.01)  # no refill in the test
    built: list[int] = []
    real = lobby._public_lists
    monkeypatch.setattr(lobby, "_public_lists", lambda: built.append(1) or real())

    @in_loop
    async def flood() -> None:
        client = WebsocketCommunicator(APP, "/ws/lobby/")
        assert (await client.connect(timeout=TIMEOUT))[0]
        assert (await _frame(client))["type"] == "lobby"
        answers: list[dict[str, Any]] = []
        for _ in range(1000):
            await client.send_to(text_data='{"type": "x"}')
        while True:
            message = await client.receive_output(timeout=TIMEOUT)
            if message["type"] == "websocket.close":
                assert message["code"] == consumers.CLOSE_TOO_MANY
                break
            answers.append(json.loads(message["text"]))
        assert all(a["type"] == "error" for a in answers)
        burst = consumers.LOBBY_BURST
        assert ["unknown frame type" in a["reason"] for a in answers[:burst]] == [True] * burst
        assert all("too many frames" in a["reason"] for a in answers[burst:])
        assert len(answers) == burst + consumers.LOBBY_REFUSED_BEFORE_CLOSING

    flood()
    assert len(built) == 1  # the lists of the connection, and nothing for the flood


@in_loop
async def test_a_lobby_change_builds_the_public_lists_once_for_every_socket(
        ) -> None:
    """One snapshot per change: three sockets told of one change cost one build of the
    public lists (their own lists are each person's); sockets connecting right after
    share it; a change told since is never hidden by it."""
    from play import lobby

    calls: list[int] = []
    real = lobby._public_lists

    def counted() -> dict[str, Any]:
        calls.append(1)
        return real()

    lobby._public_lists = counted  # type: ignore[assignment]
    try:
        sockets = [WebsocketCommunicator(APP, "/ws/lobby/") for _ in range(3)]
        for socket in sockets:
            assert (await socket.connect(timeout=TIMEOUT))[0]
            await _frame(socket)
        assert len(calls) == 1  # connecting within a second: one build
        ann, = await sync_to_async(_people)(1)
        await sync_to_async(create_table)(ann, "classic", 3,
                                          seats=["open", "open", "random"])
        await get_channel_layer().group_send(live.LOBBY_GROUP, live.lobby_changed())
        seen = [await _frame(socket) for socket in sockets]
        assert len(calls) == 2
        assert all(len(frame["open"]) == 1 for frame in seen)
        await sync_to_async(create_table)(ann, "classic", 3,
                                          seats=["open", "open", "random"])
        live.lobby_changed()  # told, with no socket of this process in the group yet
        late = WebsocketCommunicator(APP, "/ws/lobby/")
        assert (await late.connect(timeout=TIMEOUT))[0]
        assert len((await _frame(late))["open"]) == 2
        for socket in (*sockets, late):
            await socket.disconnect()
    finally:
        lobby._public_lists = real  # type: ignore[assignment]


@in_loop
async def test_a_persons_own_tables_update_live_in_the_lobby_private_ones_too() -> None:
    from django.test import Client

    ann, bob = await sync_to_async(_people)(2)
    headers = []
    for person in (ann, bob):
        client = Client()
        await sync_to_async(client.force_login)(person)
        headers.append([(b"cookie", f"{settings.SESSION_COOKIE_NAME}="
                                    f"{client.cookies[settings.SESSION_COOKIE_NAME].value}".encode())])
    anns = WebsocketCommunicator(APP, "/ws/lobby/", headers=headers[0])
    bobs = WebsocketCommunicator(APP, "/ws/lobby/", headers=headers[1])
    visitor = WebsocketCommunicator(APP, "/ws/lobby/")
    for lobby in (anns, bobs, visitor):
        assert (await lobby.connect(timeout=TIMEOUT))[0]
        assert (await _frame(lobby))["mine"] == []

    private = await sync_to_async(create_table)(ann, "classic", 3, seats=["open", "open", "random"],
                                               public=False)
    await get_channel_layer().group_send("lobby", {"type": "lobby.changed"})
    seen = {name: await _frame(lobby) for name, lobby in
            (("ann", anns), ("bob", bobs), ("visitor", visitor))}
    assert [t["id"] for t in seen["ann"]["mine"]] == [str(private.id)]
    assert seen["ann"]["mine"][0]["status"] == "open"
    assert seen["bob"]["mine"] == seen["visitor"]["mine"] == []
    assert seen["ann"]["open"] == seen["visitor"]["open"] == []  # private: only ann's list

    await sync_to_async(join)(private, bob)
    await sync_to_async(start)(private, ann)
    await get_channel_layer().group_send("lobby", {"type": "lobby.changed"})
    for lobby in (anns, bobs):
        mine = (await _frame(lobby))["mine"]
        assert [(t["id"], t["status"]) for t in mine] == [(str(private.id), "running")]
    assert (await _frame(visitor))["mine"] == []
    for lobby in (anns, bobs, visitor):
        await lobby.disconnect()


def test_a_flood_of_syncs_is_refused_without_reading_the_store_each_time(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from play import consumers

    monkeypatch.setattr(consumers, "SYNC_PER_SECOND", 0.01)  # no refill in the test
    reads = _count_loads(monkeypatch)

    @in_loop
    async def flood() -> None:
        people = await sync_to_async(_people)(2)
        table = await sync_to_async(_table)(people, ["open"] * 2, preset="duel")
        ann = await _client(table, people[0])
        first = await _frame(ann)
        reads.clear()
        kinds, reasons = [], []
        for n in range(consumers.SYNC_BURST + 4):
            await ann.send_to(text_data=json.dumps({"type": "sync", "ref": n}))
            answer = await _frame(ann)
            kinds.append(answer["type"])
            reasons.append(answer.get("reason") or "")
        assert kinds == ["state"] * consumers.SYNC_BURST + ["error"] * 4
        assert all(r.startswith("too many requests for the whole view: wait ")
                   for r in reasons[consumers.SYNC_BURST:])
        assert reads.count(True) == consumers.SYNC_BURST  # none for the refused ones
        await ann.send_to(text_data=json.dumps({"type": "ping", "ref": 3}))
        assert (await _frame(ann))["type"] == "pong"
        # Commands are not held back by the syncs' allowance.
        await ann.send_to(text_data=json.dumps(
            {"type": "command", "version": first["version"],
             "command": {"kind": "plant_from_hand", "field": 0}}))
        assert (await _latest(ann, first["version"] + 1))["type"] == "state"
        await ann.disconnect()

    flood()


def test_a_flood_of_stale_commands_spends_the_syncs_allowance_for_its_whole_views(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A stale command is refused for free, but the whole view sent after it costs what
    a ``sync`` does: past the allowance the refusal comes alone, saying when a ``sync``
    is allowed again, and the store is not read for it."""
    from play import consumers

    monkeypatch.setattr(consumers, "SYNC_PER_SECOND", 0.01)  # no refill in the test
    reads = _count_loads(monkeypatch)

    @in_loop
    async def flood() -> None:
        people = await sync_to_async(_people)(2)
        table = await sync_to_async(_table)(people, ["open"] * 2, preset="duel")
        ann = await _client(table, people[0], "?html=0")
        first = await _frame(ann)
        reads.clear()
        stale = {"type": "command", "version": first["version"] - 1,
                 "command": {"kind": "end_trading"}}
        for n in range(consumers.SYNC_BURST):
            await ann.send_to(text_data=json.dumps({**stale, "ref": n}))
            refused = await _frame(ann)
            assert refused["code"] == "stale" and "retry_after" not in refused
            whole = await _frame(ann)
            assert whole["type"] == "state" and whole["since"] == whole["version"]
        for n in range(3):
            await ann.send_to(text_data=json.dumps({**stale, "ref": 100 + n}))
            refused = await _frame(ann)
            assert refused["code"] == "stale" and refused["ref"] == 100 + n
            assert refused["retry_after"] > 0
            assert "send sync in " in refused["reason"]
        assert await ann.receive_nothing(timeout=0.2)  # no whole view after them
        assert reads.count(True) == consumers.SYNC_BURST
        await ann.send_to(text_data=json.dumps({"type": "sync"}))  # one allowance
        assert (await _frame(ann))["code"] == "too_many_syncs"
        # Legal commands stay free.
        await ann.send_to(text_data=json.dumps(
            {"type": "command", "version": first["version"],
             "command": {"kind": "plant_from_hand", "field": 0}}))
        assert (await _latest(ann, first["version"] + 1))["type"] == "state"
        await ann.disconnect()

    flood()


def test_reconnecting_too_often_is_refused_with_a_reason_and_a_close_code(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from play import consumers

    monkeypatch.setattr(consumers, "CONNECT_BURST", 3)
    monkeypatch.setattr(consumers, "CONNECT_PER_SECOND", 0.01)  # no refill in the test
    reads = _count_loads(monkeypatch)

    @in_loop
    async def reconnects() -> None:
        people = await sync_to_async(_people)(2)
        table = await sync_to_async(_table)(people, ["open"] * 2, preset="duel")
        reads.clear()
        for _ in range(consumers.CONNECT_BURST):
            ann = await _client(table, people[0])
            assert (await _frame(ann))["type"] == "state"
            await ann.disconnect()
        assert reads.count(True) == consumers.CONNECT_BURST
        ann = await _client(table, people[0])
        refused = await _frame(ann)
        assert refused["type"] == "error"
        assert refused["reason"].startswith("too many connections to this table: wait ")
        assert refused["code"] == "too_many_connections" and refused["retry_after"] > 0
        closed = await ann.receive_output(timeout=TIMEOUT)
        assert closed == {"type": "websocket.close", "code": consumers.CLOSE_TOO_MANY,
                          "reason": "too_many_connections"}
        assert reads.count(True) == consumers.CONNECT_BURST  # the store was not read
        bob = await _client(table, people[1])  # another player: an allowance of their own
        assert (await _frame(bob))["type"] == "state"
        await bob.disconnect()

    reconnects()


def test_a_frame_is_drawn_once_per_update_and_language_and_shared() -> None:
    from django.utils import translation

    people = _people(2)
    table = _table(people, ["open"] * 2, preset="duel")
    update = live.current(table, 0)
    with translation.override("en"):
        first = live.answer_for(update, table)
        again = live.answer_for(dict(update), table)
    with translation.override("hu"):
        hungarian = live.answer_for(update, table)
    assert again is first  # the second client of the group: no second drawing
    assert hungarian is not first
    assert "Draw pile" in first.frame["answer"]["html"]
    assert "Draw pile" not in hungarian.frame["answer"]["html"]
    spectator = live.answer_for(live.current(table, SPECTATOR), table)
    assert spectator is not first and spectator.frame["seat"] is None


def test_a_connection_is_sent_the_regions_that_changed_and_they_make_the_whole() -> None:
    """protocol 2: after the whole drawing, a connection is sent the regions that changed
    since its last frame; put in place of the ones it holds, they are the whole drawing
    of the new update. After a sync (nothing shown) it is sent the whole drawing."""
    people = _people(4)
    table = _table(people, ["open"] * 4)
    assert table.game_id is not None
    shown: dict[str, str] = {}
    before = live.answer_for(live.current(table, 1), table)
    first = json.loads(live.frame_text(before, shown))
    assert "parts" not in first["answer"] and "Draw pile" in first["answer"]["html"]
    held = dict(before.regions)
    sizes = []
    for _ in range(6):
        state = live.load(table.game_id).state
        seat = awaiting(state)[0]
        command = next(m for m in legal_commands(state, seat) if not isinstance(m, OfferShape))
        played = live.submit(table.id, table.game_id, command, f"user:{people[seat].username}")
        drawn = live.answer_for(played.updates[live.seat_group(table.id, 1)], table)
        text = live.frame_text(drawn, shown)
        frame = json.loads(text)
        assert "html" not in frame["answer"] and frame["answer"]["table"]["perspective"] == 1
        parts = dict(frame["answer"]["parts"])
        assert len(parts) < len(drawn.regions)  # something stayed as it was
        assert parts  # the status at least: whose turn, the head hash
        held.update(parts)
        assert [held[key] for key, _ in drawn.regions] == [html for _, html in drawn.regions]
        sizes.append((len(text), len(drawn.whole())))
    assert sum(s for s, _ in sizes) < sum(w for _, w in sizes) * 0.7
    shown.clear()  # a sync: the client may hold anything
    again = json.loads(live.frame_text(drawn, shown))
    assert "parts" not in again["answer"]
    assert again["answer"]["html"] == drawn.frame["answer"]["html"]


def test_a_drawn_frame_is_kept_as_text_and_sent_as_the_frame_encoded() -> None:
    """A process keeps its drawn frames as JSON text, not dictionaries the garbage
    collector walks; what it sends is the frame as encoded whole, or with the regions
    that changed in place of the drawing, to the byte."""
    import gc

    people = _people(4)
    table = _table(people, ["open"] * 4)
    update = live.current(table, 2)
    drawn = live.answer_for(update, table)
    frame = live._draw_answer(update, table).frame  # decoded from the text it keeps
    assert drawn.whole() == json.dumps(frame, separators=(",", ":"))
    # The rules come as text (live.rules_text), first of the facts, as they were.
    assert isinstance(update["rules"], str) and "rules" not in update["facts"]
    assert frame["facts"] == {"rules": table.ruleset().parameters(), **update["facts"]}
    parts = [[key, html] for key, html in drawn.regions[:2]]
    answer = {k: v for k, v in frame["answer"].items() if k != "html"}
    assert drawn.with_parts(parts) == json.dumps({**frame, "answer": {**answer, "parts": parts}},
                                                 separators=(",", ":"))
    gc.collect()
    gc.collect()  # a tuple of untracked tuples is untracked once they are
    assert [name for name in drawn.__slots__ if gc.is_tracked(getattr(drawn, name))] == []


def test_a_held_game_behind_another_process_is_caught_up_to_the_store() -> None:
    """A game this process holds, moved on by another process (here: another object
    of the same game), is brought up to the store's by the events stored since: the
    same object, the same state, views and head hash as the game read afresh, and it
    plays on."""
    people = _people(4)
    table = _table(people, ["open"] * 4)
    assert table.game_id is not None
    held = live.load(table.game_id, fresh=True)
    for behind in (1, 2, 3):
        other = games().game(table.game_id)  # "another process"
        for _ in range(behind):
            state = other.state
            seat = awaiting(state)[0]
            games().play_on(other, next(m for m in legal_commands(state, seat)
                                        if not isinstance(m, OfferShape)), "user:other")
        assert held.version < other.version
        caught = live.caught_up(table.game_id)
        fresh = games().game(table.game_id)
        assert caught is held and caught.version == fresh.version == other.version
        assert caught.head_hash == fresh.head_hash
        assert caught.state.hands == fresh.state.hands
        assert caught.state.draw_pile == fresh.state.draw_pile
        for perspective in (SPECTATOR, 0, 1, 2, 3):
            assert (live.seat_update(caught, perspective, [], 0)
                    == live.seat_update(fresh, perspective, [], 0))
        state = caught.state
        seat = awaiting(state)[0]
        played = live.submit(table.id, table.game_id,
                             next(m for m in legal_commands(state, seat)
                                  if not isinstance(m, OfferShape)),
                             f"user:{people[seat].username}", caught.version)
        assert played.game.version == games().game(table.game_id).version


def _trading(table: Table) -> Any:
    """The table's game played on (first legal moves) to its first trading phase: a
    moment when the seats other than the active one may each make an offer."""
    game = games().game(table.game_id)
    while True:
        state = game.state
        if state.phase is Phase.TRADING:
            return game
        seat = awaiting(state)[0]
        games().play_on(game, next(m for m in legal_commands(state, seat)
                                   if not isinstance(m, OfferShape)), "user:other")


def _offer(state: Any, seat: int) -> MakeOffer:
    return MakeOffer(seat, gives=(state.hands[seat][0],), wants=())


def test_a_command_on_a_version_another_process_moved_on_is_stale() -> None:
    """This process holds the game at the version the client saw; another process
    (another object of the game) stores a move first. The command, with that version,
    is refused as stale and nothing of it is stored, as when this process already held
    the other move: never judged on a table the client has not seen (an outside bot
    got ``illegal`` for a card it had just seen face up). Without a version it is
    decided again on the stored game, and stored while it is still legal."""
    people = _people(4)
    table = _table(people, ["open"] * 4)
    assert table.game_id is not None
    game = _trading(table)
    held = live.load(table.game_id, fresh=True)
    seen = held.version
    first, second = [s for s in range(4) if s != game.state.active][:2]
    games().play_on(game, _offer(game.state, first), f"user:{people[first].username}")
    stored = games().game(table.game_id).version
    with pytest.raises(live.StaleFrame) as refused:
        live.submit(table.id, table.game_id, _offer(held.state, second),
                    f"user:{people[second].username}", seen)
    assert refused.value.code == "stale" and f"you saw {seen}" in str(refused.value)
    assert games().game(table.game_id).version == stored
    # The same command without a version: decided again on the stored game.
    behind = games().game(table.game_id)
    games().play_on(games().game(table.game_id), _offer(behind.state, first),
                    f"user:{people[first].username}")
    played = live.submit(table.id, table.game_id, _offer(behind.state, second),
                         f"user:{people[second].username}")
    assert played.game.version == games().game(table.game_id).version == stored + 2


def _phase3_with_a_gift(people: list[User], table: Table) -> tuple[Any, int, int]:
    """The table played on to phase 3 with the active seat's gift of a hand card
    accepted by the next seat: both plant at once. Returns the game, the active seat
    and the receiver."""
    game = _trading(table)
    active = game.state.active
    receiver = (active + 1) % 4
    who = [f"user:{p.username}" for p in people]
    games().play_on(game, MakeOffer(active, gives=(game.state.hands[active][0],), wants=(),
                                    to=receiver), who[active])
    offer = max(game.state.offers)
    games().play_on(game, AcceptOffer(receiver, offer), who[receiver])
    games().play_on(game, EndTrading(active), who[active])
    assert game.state.phase is Phase.PLANTING_RECEIVED
    assert set(awaiting(game.state)) >= {active, receiver}
    return game, active, receiver


def test_a_move_apart_from_a_command_does_not_make_it_stale() -> None:
    """Phase 3: the receiver of a gift looks (version ``seen``); the active seat (a bot,
    say) plants a face-up card meanwhile. The receiver's plant, sent with ``seen``,
    is played: nothing it depends on changed (docs/protocol.md, "apart")."""
    people = _people(4)
    table = _table(people, ["open"] * 4)
    assert table.game_id is not None
    game, active, receiver = _phase3_with_a_gift(people, table)
    seen = game.version
    # The receiver's harvest if one is legal, else its plant; the active seat's plant.
    mine = sorted((m for m in legal_commands(game.state, receiver)
                   if not isinstance(m, OfferShape)), key=lambda m: not isinstance(m, Harvest))[0]
    # (a plant, or a harvest where no face-up card fits a field: the deal decides)
    theirs = sorted((m for m in legal_commands(game.state, active)
                     if not isinstance(m, OfferShape)), key=lambda m: isinstance(m, Harvest))[0]
    games().play_on(game, theirs, "bot:heuristic")
    moved = games().game(table.game_id).version
    assert moved > seen
    played = live.submit(table.id, table.game_id, mine,
                         f"user:{people[receiver].username}", seen, person=True)
    assert played.game.version > moved
    assert played.game.version == games().game(table.game_id).version


def test_a_change_that_bears_on_the_seat_keeps_its_command_stale() -> None:
    """An offer made to a seat since its client's version bears on it: that client's
    command is still refused as stale, and nothing of it is stored."""
    people = _people(4)
    table = _table(people, ["open"] * 4)
    assert table.game_id is not None
    game = _trading(table)
    active = game.state.active
    other = (active + 1) % 4
    seen = game.version
    mine = _offer(game.state, other)
    games().play_on(game, MakeOffer(active, gives=(game.state.hands[active][0],), wants=(),
                                    to=other), f"user:{people[active].username}")
    stored = games().game(table.game_id).version
    with pytest.raises(live.StaleFrame):
        live.submit(table.id, table.game_id, mine, f"user:{people[other].username}", seen,
                    person=True)
    assert games().game(table.game_id).version == stored


def test_a_frame_for_a_client_that_has_gone_is_dropped() -> None:
    """An update that crosses a client's close: daphne (autobahn) raises on the send,
    which ended the consumer with an error in the server's log. The frame is dropped
    instead; any other failure of a send still raises."""
    from autobahn.exception import Disconnected

    from play.consumers import TableConsumer

    consumer = TableConsumer()

    async def gone(message: dict[str, Any]) -> None:
        raise Disconnected("Attempt to send on a closed protocol")

    async def broken(message: dict[str, Any]) -> None:
        raise ValueError("not a frame")

    consumer.base_send = gone
    async_to_sync(consumer.send)(text_data="{}")
    async_to_sync(consumer.send_json)({"type": "pong"})
    consumer.base_send = broken
    with pytest.raises(ValueError, match="not a frame"):
        async_to_sync(consumer.send)(text_data="{}")


@in_loop
async def test_a_waiting_room_is_told_when_its_seats_change_and_when_it_closes() -> None:
    """Every connection to a waiting table (its players', a visitor's) is sent a
    ``room`` frame once a seat is taken or left, after the change is committed, and a
    ``closed`` frame (then the socket is closed) when its creator leaves and the table
    is deleted. The ``waiting`` frame's digest of the seats follows them too."""
    from django.db import transaction

    from play.tables import leave, seats_digest

    ann, bob = await sync_to_async(_people)(2)
    table = await sync_to_async(create_table)(ann, "classic", 3,
                                              seats=["open", "open", "random"])
    anns, visitor = await _client(table, ann), await _client(table, None)
    first = [await _frame(c) for c in (anns, visitor)]
    drawn = await sync_to_async(lambda: seats_digest(table.seats.all()))()
    assert first == [{"type": "waiting", "protocol": live.PROTOCOL,
                      "table_id": str(table.id), "seats": drawn}] * 2

    def join_uncommitted() -> bool:
        with transaction.atomic():
            join(table, bob)
            return async_to_sync(anns.receive_nothing)(0.3)

    assert await sync_to_async(join_uncommitted)(), "told before the join was committed"
    room = {"type": "room", "protocol": live.PROTOCOL, "table_id": str(table.id)}
    assert [await _frame(c) for c in (anns, visitor)] == [room, room]
    bobs = await _client(table, bob)
    seated = await _frame(bobs)
    assert seated["type"] == "waiting" and seated["seats"] != drawn

    await sync_to_async(leave)(table, bob)
    assert [await _frame(c) for c in (anns, visitor, bobs)] == [room] * 3
    assert (await _frame(await _client(table, None)))["seats"] == drawn  # as at first

    await sync_to_async(leave)(table, ann)  # the creator: the table is deleted
    closed = {"type": "closed", "protocol": live.PROTOCOL, "table_id": str(table.id)}
    for c in (anns, visitor, bobs):
        assert await _frame(c) == closed
        assert await c.receive_output(timeout=TIMEOUT) == {"type": "websocket.close",
                                                           "code": 4404}
    assert not await sync_to_async(Table.objects.filter(pk=table.pk).exists)()


@in_loop
async def test_a_search_bot_plays_its_seat_at_a_live_table() -> None:
    """The search bot is a bot people can seat at a table like the others: it plays
    its seat through the driver to the game's end."""
    people = await sync_to_async(_people)(1)
    table = await sync_to_async(_table)(people, ["open", "search", "heuristic"],
                                        overrides=SHORT)
    ann = await _client(table, people[0])
    frame = (await _play_seat_0_to_the_end(ann, await _frame(ann)))[-1]
    assert frame["finished"]
    assert frame["answer"]["table"]["seats"][1]["name"].startswith("search")
    await ann.disconnect()


def test_a_move_clock_keeps_its_deadline_while_the_seat_owes_the_same_decision() -> None:
    """A person's move clock runs for one decision: another seat's move meanwhile (an
    offer made to them) leaves its deadline as it was; their own move starts it again
    (play.clock, docs/table.md)."""
    from bohnanza_core.commands import DeclineOffer, EndPlanting, PlantFromHand
    from play.models import Seat

    people = _people(3)
    table = _table(people, ["open", "open", "open"], move_seconds=60)
    now = timezone.now()

    def look(at: timedelta) -> datetime:
        stored = Table.objects.get(pk=table.pk)
        game = games().game(table.game_id)
        seat = Seat.objects.get(table=stored, number=awaiting(game.state)[0])
        driver._clock(stored, game, seat, now + at)
        deadline = Table.objects.get(pk=table.pk).clock_deadline
        assert deadline is not None
        return deadline

    # Ann plants until her trading phase (each of her moves a new decision).
    while games().game(table.game_id).state.phase is not Phase.TRADING:
        state = games().game(table.game_id).state
        moves = legal_commands(state, 0)
        move = next((m for m in moves if isinstance(m, EndPlanting)), None) or next(
            m for m in moves if isinstance(m, PlantFromHand))
        live.submit(table.id, table.game_id, move, "user:ann")
    first = look(timedelta(0))
    assert first == now + timedelta(seconds=60 + table.game_seconds)
    bob_card = games().game(table.game_id).state.hands[1][0]
    live.submit(table.id, table.game_id, MakeOffer(seat=1, gives=(bob_card,), wants=(), to=0),
                "user:bob")
    assert awaiting(games().game(table.game_id).state)[0] == 0  # ann: to answer it
    assert look(timedelta(seconds=5)) == first  # bob's offer: the same decision
    stored = Table.objects.get(pk=table.pk)
    assert stored.clock_version == games().game(table.game_id).version
    offer = next(iter(games().game(table.game_id).state.offers))
    live.submit(table.id, table.game_id, DeclineOffer(seat=0, offer=offer), "user:ann")
    assert look(timedelta(seconds=10)) == now + timedelta(seconds=70 + table.game_seconds)
