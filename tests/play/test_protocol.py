"""The protocol as a program reads it (docs/protocol.md): every refusal code, each from
a frame or handshake that earns it; ``ref`` echoed by every refusal (of frames that
could not be read too) and by the ``state`` frame that reflects a command; the
``left`` frame before the state frame of the handover; the Origin check; the schemas
served and matching the refusal codes."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any
from uuid import uuid4

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import User
from django.contrib.sessions.models import Session
from django.test import Client

from play import consumers, live, refusals
from play.models import Table
from play.origin import OriginCheck
from play.tables import create_table, issue_bot_token, join
from tests.frames import check_client, problems, schema
from tests.play.test_live import (
    APP,
    TIMEOUT,
    _client,
    _frame,
    _people,
    _table,
    fresh,
    in_loop,
)

pytestmark = pytest.mark.django_db(transaction=True)

__all__ = ["fresh"]  # the autouse fixture, shared with test_live


async def _until(c: WebsocketCommunicator, kind: str) -> dict[str, Any]:
    while True:
        frame = await _frame(c)
        if frame["type"] == kind:
            return frame


async def _send(c: WebsocketCommunicator, frame: dict[str, Any] | str) -> None:
    await c.send_to(text_data=frame if isinstance(frame, str) else json.dumps(frame))


async def _handshake(path: str, headers: list[tuple[bytes, bytes]] | None = None,
                     app: Any = APP) -> tuple[dict[str, Any], int]:
    """The error frame and close code a refused handshake is answered with."""
    c = WebsocketCommunicator(app, path, headers=headers or [])
    connected, _ = await c.connect(timeout=TIMEOUT)
    assert connected  # accepted only to say why
    error = await _frame(c)
    closed = await c.receive_output(timeout=TIMEOUT)
    assert closed["type"] == "websocket.close"
    assert closed.get("reason") == error["code"]
    await c.disconnect()
    return error, closed["code"]


async def _seated() -> tuple[Table, WebsocketCommunicator, dict[str, Any]]:
    """A running duel of two people; ann's connection and its first frame."""
    people = await sync_to_async(_people)(2)
    table = await sync_to_async(_table)(people, ["open", "open"], preset="duel")
    ann = await _client(table, people[0], "?html=0")
    return table, ann, await _frame(ann)


def _move(frame: dict[str, Any]) -> dict[str, Any]:
    return next(m for m in frame["legal"] if m["kind"] != "offer_shape")


# -- one scenario per refusal code: what it is answered with ------------------------------

Scenario = Callable[[pytest.MonkeyPatch], Awaitable[dict[str, Any]]]
SCENARIOS: dict[str, Scenario] = {}


def scenario(code: str) -> Callable[[Scenario], Scenario]:
    def register(function: Scenario) -> Scenario:
        SCENARIOS[code] = function
        return function
    return register


@scenario(refusals.MALFORMED)
async def _malformed(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    _table, ann, _first = await _seated()
    await _send(ann, '{"type": "command", "ref": 41, "command": {')  # not JSON
    error = await _until(ann, "error")
    assert error["ref"] == 41, error  # found in a frame that could not be read
    await _send(ann, '{"ref": "deep", "type": "sync", "x": ' + "[" * 20 + "]" * 20 + "}")
    deep = await _until(ann, "error")
    assert (deep["code"], deep["ref"]) == (refusals.MALFORMED, "deep")
    await _send(ann, json.dumps({"ref": 7}))  # no type
    untyped = await _until(ann, "error")
    assert (untyped["code"], untyped["ref"]) == (refusals.MALFORMED, 7)
    await ann.send_to(bytes_data=b'{"type": "sync", "ref": 8}')  # binary
    binary = await _until(ann, "error")
    assert (binary["code"], binary["ref"]) == (refusals.MALFORMED, 8)
    await ann.disconnect()
    return error


@scenario(refusals.TOO_LARGE)
async def _too_large(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    _table, ann, _first = await _seated()
    await _send(ann, '{"type": "sync", "ref": "big", "pad": "' + "x" * 9000 + '"}')
    error = await _until(ann, "error")
    assert error["ref"] == "big"
    await ann.disconnect()
    return error


@scenario(refusals.UNKNOWN_TYPE)
async def _unknown_type(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    _table, ann, _first = await _seated()
    await _send(ann, {"type": "fly", "ref": 2})
    error = await _until(ann, "error")
    assert error["ref"] == 2
    await ann.disconnect()
    return error


@scenario(refusals.BAD_FRAME)
async def _bad_frame(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    _table, ann, first = await _seated()
    await _send(ann, {"type": "command", "ref": 3, "version": "44", "command": _move(first)})
    error = await _until(ann, "error")
    await _send(ann, {"type": "leave", "ref": 4, "seat": 1})
    leave = await _until(ann, "error")
    assert (leave["code"], leave["ref"]) == (refusals.BAD_FRAME, 4)
    await ann.disconnect()
    return error


@in_loop
async def test_a_command_frame_with_a_stray_field_is_refused_and_nothing_is_stored() -> None:
    """The schema's command frame takes type, ref, version and command alone: a seat or
    anything else beside the command is a bad_frame (it was read past, and the command
    played), and a command whose seat is not a whole number a bad_command."""
    table, ann, first = await _seated()
    for ref, stray in ((30, {"seat": 0}), (31, {"foo": 1}), (32, {"seat": True})):
        frame = {"type": "command", "ref": ref, "version": first["version"],
                 "command": _move(first), **stray}
        assert problems("client-frame.json", frame)  # the schema refuses it too
        await _send(ann, frame)
        error = await _frame(ann)
        assert (error["code"], error["ref"]) == (refusals.BAD_FRAME, ref), error
        assert repr(next(iter(stray))) in error["reason"]
    for ref, seat in ((33, True), (34, "0"), (35, [0])):
        await _send(ann, {"type": "command", "ref": ref, "version": first["version"],
                          "command": {**_move(first), "seat": seat}})
        error = await _frame(ann)
        assert (error["code"], error["ref"]) == (refusals.BAD_COMMAND, ref), error
    assert await ann.receive_nothing(timeout=0.2)
    stored = await database_sync_to_async(lambda: live.games().game(table.game_id).version)()
    assert stored == first["version"]
    # The same command without the stray field, and with its own seat written, is played.
    await _send(ann, check_client({"type": "command", "ref": 36, "version": first["version"],
                                   "command": {**_move(first), "seat": 0}}))
    played = await _until(ann, "state")
    assert (played["version"], played["ref"]) == (first["version"] + 1, 36)
    await ann.disconnect()


@pytest.mark.parametrize("kind", ["sync", "ping", "pass"])
def test_a_sync_ping_or_pass_with_a_stray_field_is_refused(kind: str) -> None:
    """A sync, a ping and a pass take type and ref alone, as a leave does: a field
    beside them is a bad_frame with the frame's ref, and nothing else is answered (no
    state, no pong; the pass is not told ``not_trading``, the table opening with
    planting: the frame is refused before it is read). The same frame without it is
    answered."""
    @in_loop
    async def run() -> None:
        _table, ann, first = await _seated()
        for ref, stray in ((40, {"seat": 0}), (41, {"version": first["version"]})):
            frame = {"type": kind, "ref": ref, **stray}
            assert problems("client-frame.json", frame)  # the schema refuses it too
            await _send(ann, frame)
            error = await _frame(ann)
            assert (error["code"], error["ref"]) == (refusals.BAD_FRAME, ref), error
            assert repr(next(iter(stray))) in error["reason"]
        assert await ann.receive_nothing(timeout=0.2)
        await _send(ann, check_client({"type": kind, "ref": 42}))
        answer = await _frame(ann)
        assert answer["type"] == {"sync": "state", "ping": "pong", "pass": "error"}[kind]
        if kind == "pass":
            assert answer["code"] == refusals.NOT_TRADING
        await ann.disconnect()
    run()


@pytest.mark.parametrize("kind", ["sync", "ping"])
def test_the_lobbys_sync_and_ping_with_a_stray_field_are_refused(kind: str) -> None:
    """The lobby's socket takes the same frames: a stray field is a bad_frame there too."""
    @in_loop
    async def run() -> None:
        lobby = WebsocketCommunicator(APP, "/ws/lobby/")
        assert (await lobby.connect(timeout=TIMEOUT))[0]
        assert (await _frame(lobby))["type"] == "lobby"
        await _send(lobby, {"type": kind, "ref": 43, "mine": True})
        error = await _frame(lobby)
        assert (error["code"], error["ref"]) == (refusals.BAD_FRAME, 43), error
        assert await lobby.receive_nothing(timeout=0.2)
        await _send(lobby, check_client({"type": kind, "ref": 44}))
        assert (await _frame(lobby))["type"] == {"sync": "lobby", "ping": "pong"}[kind]
        await lobby.disconnect()
    run()


@scenario(refusals.NOT_STARTED)
async def _not_started(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    people = await sync_to_async(_people)(2)
    table = await sync_to_async(create_table)(people[0], "duel", 2, seats=["open", "open"])
    ann = await _client(table, people[0])
    assert (await _frame(ann))["type"] == "waiting"
    await _send(ann, {"type": "sync", "ref": 5})
    error = await _until(ann, "error")
    await ann.disconnect()
    return error


@scenario(refusals.SPECTATOR)
async def _spectator(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    table, ann, first = await _seated()
    watcher = await _client(table, None)
    await _frame(watcher)
    await _send(watcher, {"type": "command", "ref": 6, "command": _move(first)})
    error = await _until(watcher, "error")
    await _send(watcher, {"type": "leave", "ref": 7})
    leave = await _until(watcher, "error")
    assert (leave["code"], leave["ref"]) == (refusals.SPECTATOR, 7)
    for c in (ann, watcher):
        await c.disconnect()
    return error


@scenario(refusals.BAD_COMMAND)
async def _bad_command(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    _table, ann, _first = await _seated()
    await _send(ann, {"type": "command", "ref": 8, "command": {"kind": "fly"}})
    error = await _until(ann, "error")
    await ann.disconnect()
    return error


@scenario(refusals.ILLEGAL)
async def _illegal(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    _table, ann, _first = await _seated()
    await _send(ann, {"type": "command", "ref": 9, "command": {"kind": "end_trading"}})
    error = await _until(ann, "error")
    await ann.disconnect()
    return error


@scenario(refusals.STALE)
async def _stale(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    _table, ann, first = await _seated()
    await _send(ann, {"type": "command", "ref": 10, "version": first["version"] - 1,
                      "command": _move(first)})
    error = await _until(ann, "error")
    again = await _frame(ann)  # the whole view follows, without the refused ref
    assert again["type"] == "state" and again["since"] == again["version"]
    assert "ref" not in again
    await ann.disconnect()
    return error


@scenario(refusals.BUSY)
async def _busy(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    _table, ann, first = await _seated()
    monkeypatch.setattr(live, "RACE_RETRIES", 0)  # every try lost: none is made
    await _send(ann, {"type": "command", "ref": 11, "command": _move(first)})
    error = await _until(ann, "error")
    await ann.disconnect()
    return error


@scenario(refusals.NOT_YOUR_SEAT)
async def _not_your_seat(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    from bohnanza_core.commands import HandSeatToBot
    from bohnanza_core.events import Handover
    from play import driver

    table, ann, first = await _seated()
    await driver.stop_all()
    # Another process stored the handover; this connection has not been told yet.
    await database_sync_to_async(live.submit)(
        table.id, table.game_id, HandSeatToBot(0, "random", Handover.LEFT), "user:ann")
    await _send(ann, {"type": "command", "ref": 12, "command": _move(first)})
    error = await _until(ann, "error")
    assert (await _until(ann, "left"))["reason"] == "left"
    await ann.disconnect()
    return error


@scenario(refusals.SIGNED_OUT)
async def _signed_out(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    _table, ann, first = await _seated()
    await sync_to_async(Session.objects.all().delete)()
    await _send(ann, {"type": "command", "ref": 13, "command": _move(first)})
    error = await _until(ann, "error")
    assert (await _until(ann, "left"))["reason"] == "signed_out"
    await ann.disconnect()
    return error


@scenario(refusals.CANNOT_LEAVE)
async def _cannot_leave(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    table, ann, _first = await _seated()

    def end() -> None:
        Table.objects.filter(pk=table.pk).update(status=Table.Status.FINISHED)
    await sync_to_async(end)()
    await _send(ann, {"type": "leave", "ref": 14})
    error = await _until(ann, "error")
    await ann.disconnect()
    return error


@scenario(refusals.NOT_TRADING)
async def _not_trading(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    _table, ann, first = await _seated()
    assert first["answer"]["table"]["phase"] != "trading"  # a game opens with planting
    await _send(ann, {"type": "pass", "ref": 31})
    error = await _until(ann, "error")
    await ann.disconnect()
    return error


@scenario(refusals.TOO_MANY_REFUSED)
async def _too_many_refused(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    monkeypatch.setattr(consumers, "REFUSED_BURST", 1)
    monkeypatch.setattr(consumers, "REFUSED_PER_SECOND", 0.01)
    _table, ann, _first = await _seated()
    for ref in (15, 16):
        await _send(ann, {"type": "command", "ref": ref, "command": {"kind": "end_trading"}})
    assert (await _until(ann, "error"))["code"] == refusals.ILLEGAL
    error = await _until(ann, "error")
    assert error["retry_after"] > 0
    await ann.disconnect()
    return error


@scenario(refusals.TOO_MANY_SYNCS)
async def _too_many_syncs(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    monkeypatch.setattr(consumers, "SYNC_BURST", 1)
    monkeypatch.setattr(consumers, "SYNC_PER_SECOND", 0.01)
    _table, ann, _first = await _seated()
    await _send(ann, {"type": "sync", "ref": 17})
    assert (await _frame(ann))["type"] == "state"
    await _send(ann, {"type": "sync", "ref": 18})
    error = await _until(ann, "error")
    assert error["retry_after"] > 0
    await ann.disconnect()
    return error


@scenario(refusals.TOO_MANY_FRAMES)
async def _too_many_frames(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    monkeypatch.setattr(consumers, "LOBBY_BURST", 1)
    monkeypatch.setattr(consumers, "LOBBY_PER_SECOND", 0.01)
    lobby = WebsocketCommunicator(APP, "/ws/lobby/")
    assert (await lobby.connect(timeout=TIMEOUT))[0]
    assert (await _frame(lobby))["type"] == "lobby"
    await _send(lobby, {"type": "ping", "ref": 19})
    assert (await _frame(lobby)) == {"type": "pong", "protocol": live.PROTOCOL, "ref": 19}
    await _send(lobby, {"type": "ping", "ref": 20})
    error = await _frame(lobby)
    assert error["retry_after"] > 0
    await lobby.disconnect()
    return error


@scenario(refusals.TOO_MANY_CONNECTIONS)
async def _too_many_connections(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    monkeypatch.setattr(consumers, "CONNECT_BURST", 1)
    monkeypatch.setattr(consumers, "CONNECT_PER_SECOND", 0.01)
    table, ann, _first = await _seated()
    await ann.disconnect()
    user = await sync_to_async(User.objects.get)(username="ann")
    cookie = await _cookie(user)
    error, close = await _handshake(f"/ws/tables/{table.id}/", [(b"cookie", cookie)])
    assert close == 4429
    return error


@scenario(refusals.BAD_TABLE_ID)
async def _bad_table_id(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    error, close = await _handshake("/ws/tables/not-a-table/")
    assert close == 4400
    return error


@scenario(refusals.NO_TABLE)
async def _no_table(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    error, close = await _handshake(f"/ws/tables/{uuid4()}/")
    assert close == 4404
    return error


@scenario(refusals.NO_SOCKET)
async def _no_socket(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """An address with no socket (the router raised: HTTP 500, a traceback logged)."""
    for address in ("/ws/tables/", "/ws/tables/x/y/", "/api/v1/account", "/"):
        _error, close = await _handshake(address)
        assert close == 4406, address
    error, close = await _handshake("/ws/nothing/")
    return error


@scenario(refusals.PRIVATE_TABLE)
async def _private_table(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    people = await sync_to_async(_people)(1)
    table = await sync_to_async(_table)(people, ["open", "random"], preset="duel",
                                        public=False)
    error, close = await _handshake(f"/ws/tables/{table.id}/?invite=wrong")
    assert close == 4403
    return error


@scenario(refusals.BAD_ORIGIN)
async def _bad_origin(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    people = await sync_to_async(_people)(1)
    table = await sync_to_async(_table)(people, ["open", "random"], preset="duel")
    checked = OriginCheck(APP)
    path = f"/ws/tables/{table.id}/"
    error, close = await _handshake(path, [(b"origin", b"https://evil.example")], checked)
    assert close == 4405
    for origin in (b"null", b"localhost", b"https://localhost.evil.example"):
        assert (await _handshake(path, [(b"origin", origin)], checked))[1] == 4405
    # A browser's handshake needs Origin: none, and no token, is refused too.
    missing, _ = await _handshake(path, [], checked)
    assert missing["code"] == refusals.BAD_ORIGIN and "no Origin" in missing["reason"]
    # A URL of an allowed host (any scheme and port) is let in; so is a program with a
    # token and no Origin (tests.play.test_protocol.test_a_bot_without_origin_plays).
    for origin in (b"http://localhost:8000", b"https://127.0.0.1", b"http://[::1]:9"):
        c = WebsocketCommunicator(checked, path, headers=[(b"origin", origin)])
        assert (await c.connect(timeout=TIMEOUT))[0]
        assert (await _frame(c))["type"] == "state", origin
        await c.disconnect()
    return error


@scenario(refusals.BAD_AUTHORIZATION)
async def _bad_authorization(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    people = await sync_to_async(_people)(1)
    table = await sync_to_async(_table)(people, ["open", "random"], preset="duel")
    path = f"/ws/tables/{table.id}/"
    error, close = await _handshake(path, [(b"authorization", b"Token abc")])
    assert close == 4402
    for value in (b"Bearer", b"Bearer a b", b"Basic YTpi", b"Bearer " + b"x" * 201):
        assert (await _handshake(path, [(b"authorization", value)]))[1] == 4402
    # The scheme in any case, as HTTP's: past it, the token is looked up (none here).
    for value in (b"bearer abc", b"BEARER abc"):
        assert (await _handshake(path, [(b"authorization", value)]))[1] == 4401
    return error


@scenario(refusals.BAD_TOKEN)
async def _bad_token(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    people = await sync_to_async(_people)(1)
    table = await sync_to_async(_table)(people, ["open", "random"], preset="duel")
    error, close = await _handshake(f"/ws/tables/{table.id}/",
                                    [(b"authorization", b"Bearer nope")])
    assert close == 4401
    return error


@scenario(refusals.MISSING_SCOPE)
async def _missing_scope(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """A read-only token at a table, a play-only token at the lobby: each told which
    scope it lacks, not that no bot account has it (a token to replace)."""
    from play import tokens

    def bot() -> tuple[str, str]:
        owner = User.objects.create_user("olga")
        account = tokens.create_bot(owner, "robo")
        return (tokens.issue(account, "reader", ("read",))[1],
                tokens.issue(account, "player", ("play",))[1])

    reader, player = await sync_to_async(bot)()
    people = await sync_to_async(_people)(1)
    table = await sync_to_async(_table)(people, ["open", "random"], preset="duel")
    error, close = await _handshake(f"/ws/tables/{table.id}/",
                                    [(b"authorization", f"Bearer {reader}".encode())])
    assert close == 4407 and "lacks the play scope" in error["reason"]
    lobby, close = await _handshake("/ws/lobby/",
                                    [(b"authorization", f"Bearer {player}".encode())])
    assert (lobby["code"], close) == (refusals.MISSING_SCOPE, 4407)
    assert "lacks the read scope" in lobby["reason"]
    return error


async def _cookie(user: User) -> bytes:
    from django.conf import settings
    client = Client()
    await sync_to_async(client.force_login)(user)
    name = settings.SESSION_COOKIE_NAME
    return f"{name}={client.cookies[name].value}".encode()


@pytest.mark.parametrize("code", sorted(refusals.CODES))
def test_every_refusal_code_is_answered_as_documented(code: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Each code of play/refusals.py, from a frame or handshake that earns it: an
    ``error`` frame (checked against the schema) with that code, a reason, and the
    frame's ``ref`` when it had one."""
    assert code in SCENARIOS, f"no test earns the refusal code {code!r}"

    @in_loop
    async def run() -> None:
        error = await SCENARIOS[code](monkeypatch)
        assert error["type"] == "error" and error["code"] == code, error
        assert error["reason"]
    run()


def test_the_schema_lists_the_refusal_codes_and_is_served() -> None:
    assert schema("server-frame.json")["$defs"]["code"]["enum"] == list(refusals.CODES)
    assert set(refusals.HANDSHAKE) <= set(refusals.CODES)
    assert len(set(refusals.HANDSHAKE.values())) == len(refusals.HANDSHAKE)  # one a cause
    web = Client()
    for name in ("client-frame.json", "server-frame.json"):
        answer = web.get(f"/protocol/schema/{name}")
        assert answer.status_code == 200 and answer["Content-Type"] == "application/schema+json"
    assert json.loads(web.get("/protocol/schema/client-frame.json").content) == schema(
        "client-frame.json")
    # the server's as published, with the client's inside it (its $id, no $schema)
    served = json.loads(web.get("/protocol/schema/server-frame.json").content)
    embedded = served["$defs"].pop("client_frame")
    assert served == schema("server-frame.json")
    assert embedded.pop("$id") == "client-frame.json"
    assert embedded == {k: v for k, v in schema("client-frame.json").items() if k != "$schema"}
    assert web.get("/protocol/schema/other.json").status_code == 404
    assert web.get("/protocol/schema/..%2Fprotocol.md").status_code == 404


@in_loop
async def test_the_served_server_schema_validates_a_frame_on_its_own() -> None:
    """A bot author's plain validator, given the served server-frame.json and nothing
    else, could not resolve ``client-frame.json#/$defs/command`` (the published files
    name each other): the served one carries the client's, and validates a real frame
    with its legal commands (which follow that reference)."""
    from jsonschema import Draft202012Validator

    served = json.loads(await sync_to_async(
        lambda: Client().get("/protocol/schema/server-frame.json").content)())
    Draft202012Validator.check_schema(served)
    people = await sync_to_async(_people)(1)
    table = await sync_to_async(_table)(people, ["open", "random"], preset="duel")
    c = await _client(table, people[0], "?html=0")
    frame = await _frame(c)
    assert frame["type"] == "state" and frame["legal"]
    assert list(Draft202012Validator(served).iter_errors(frame)) == []
    wrong = {**frame, "legal": [{**frame["legal"][0], "kind": "steal"}]}
    assert list(Draft202012Validator(served).iter_errors(wrong))
    await c.disconnect()


def test_the_table_page_says_every_refusal_code_in_the_readers_words() -> None:
    """Every code has the page's words (a new code without them fails here), in each
    language its own; the live page carries them in the reader's language, so the
    socket's reason (the server's English) is shown only for a code it does not know."""
    from django.utils import translation

    assert set(refusals.words()) == set(refusals.CODES)
    english = refusals.words()
    for language in ("hu", "fi"):
        with translation.override(language):
            told = refusals.words()
        assert all(told[code] != english[code] for code in refusals.CODES), language
    people = _people(2)
    table = _table(people, ["open", "open"], preset="duel")
    web = Client()
    web.force_login(people[0])
    web.cookies["django_language"] = "fi"
    page = web.get(f"/play/tables/{table.id}/").content.decode()
    carried = json.loads(page.split('id="live-words" type="application/json">', 1)[1]
                         .split("</script>", 1)[0])
    with translation.override("fi"):
        assert carried["refusals"] == refusals.words()


# -- ref, left, the bot's handshake -------------------------------------------------------


@in_loop
async def test_the_state_frame_reflecting_a_command_carries_its_ref_to_its_sender() -> None:
    """The ``state`` frame of the version a command brought the game to carries the
    command's ``ref``, to that connection only; a command without a ref, and other
    connections' frames, carry none."""
    table, ann, first = await _seated()
    bob = await _client(table, await sync_to_async(User.objects.get)(username="bob"))
    await _frame(bob)
    sent = check_client({"type": "command", "ref": "plant-1", "version": first["version"],
                         "command": _move(first)})
    await _send(ann, sent)
    mine = await _until(ann, "state")
    assert mine["ref"] == "plant-1" and mine["since"] == first["version"]
    theirs = await _until(bob, "state")
    assert theirs["version"] == mine["version"] and "ref" not in theirs
    await _send(ann, {"type": "command", "version": mine["version"], "command": _move(mine)})
    assert "ref" not in await _until(ann, "state")
    await _send(ann, {"type": "ping", "ref": "p"})
    assert await _frame(ann) == {"type": "pong", "protocol": live.PROTOCOL, "ref": "p"}
    for c in (ann, bob):
        await c.disconnect()


@in_loop
async def test_left_comes_before_the_state_frame_carrying_the_handover() -> None:
    """Every connection of the person who left (the one that sent ``leave`` and another)
    is sent ``left`` first, then the spectator's view carrying the handover; never the
    seat's frame of that version."""
    table, ann, _first = await _seated()
    again = await _client(table, await sync_to_async(User.objects.get)(username="ann"),
                          "?html=0")
    assert (await _frame(again))["seat"] == 0
    await _send(ann, {"type": "leave", "ref": "bye"})
    for c in (ann, again):
        frames = []
        while True:
            frame = await _frame(c)
            frames.append(frame)
            if frame["type"] == "state" and any(
                    "heuristic" in (s["bot"] or "") for s in frame["answer"]["table"]["seats"]):
                break
        kinds = [f["type"] for f in frames]
        assert kinds[-2:] == ["left", "state"], kinds
        assert frames[-2] == {"type": "left", "protocol": live.PROTOCOL, "seat": 0,
                              "reason": "left"}
        assert frames[-1]["seat"] is None and frames[-1]["legal"] == []
        assert all(f["seat"] == 0 for f in frames[:-2] if f["type"] == "state")
    for c in (ann, again):
        await c.disconnect()


@in_loop
async def test_a_bot_without_origin_plays_with_its_token() -> None:
    """A program sends no Origin: with its bearer token it is let through the Origin
    check and plays its seat."""
    def seat_the_bot() -> tuple[Table, str]:
        ann = User.objects.create_user("ann")
        robo = User.objects.create_user("robo")
        token = issue_bot_token(robo)
        table = create_table(robo, "duel", 2, seats=["open", "open"])
        join(table, ann)
        from play.tables import start
        return start(table, robo), token

    table, token = await sync_to_async(seat_the_bot)()
    bot = WebsocketCommunicator(OriginCheck(APP), f"/ws/tables/{table.id}/?html=0",
                                headers=[(b"authorization", f"Bearer {token}".encode())])
    assert (await bot.connect(timeout=TIMEOUT))[0]
    frame = await _frame(bot)
    assert frame["type"] == "state" and frame["seat"] in (0, 1)
    await bot.disconnect()
