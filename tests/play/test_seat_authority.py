"""Seat authority (play/authority.py): nobody reads or plays a seat that is not theirs
now. Who holds a seat is decided when a command or a frame is handled: a socket opened
while its account sat at the table and kept open after it stood up, left the game, or
signed out is a spectator's, never the seat's; its commands are refused and change
nothing. The same over HTTP: a seat's view of a running game is its holder's alone."""

from __future__ import annotations

import json
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.auth.models import User
from django.contrib.sessions.models import Session
from django.test import Client
from django.utils import timezone

from bohnanza_core.engine import OfferShape, legal_commands
from bohnanza_core.events import Handover
from bohnanza_core.views import SPECTATOR
from bohnanza_core.wire import command_to_json
from play import live
from play.models import Presence, Table
from play.tables import create_table, hand_to_bot, join, leave, start
from replays.store import games
from tests.play.test_live import (
    APP,
    TIMEOUT,
    _client,
    _frame,
    _people,
    _stored_version,
    _table,
    fresh,
    in_loop,
)

pytestmark = pytest.mark.django_db(transaction=True)

__all__ = ["fresh"]  # the autouse fixture, shared with test_live


async def _until(c: Any, kind: str) -> dict[str, Any]:
    while True:
        frame = await _frame(c)
        if frame["type"] == kind:
            return frame


async def _quiet(c: Any) -> list[dict[str, Any]]:
    """Every frame ``c`` has been sent by now (the consumer's queue drained)."""
    frames = []
    while not await c.receive_nothing(timeout=0.2):
        frames.append(await _frame(c))
    return frames


def _offer_for(table: Table, seat: int) -> dict[str, Any]:
    """A ``make_offer`` the seat may make now, giving a card of its hand (the first
    offer the engine's legal moves describe)."""
    state = games().game(table.game_id).state
    return {"kind": "make_offer", "gives": [state.hands[seat][0]], "wants": [],
            "to": (seat + 1) % state.players}


@in_loop
async def test_a_socket_kept_open_after_standing_up_never_gets_the_seat() -> None:
    """Finding 1 of issue 26: Mallory joins seat 1, opens the table's socket, stands up
    (the page's Leave form) and keeps the socket open; Bob takes seat 1 and Alice starts.
    Mallory's socket is a spectator's: it never holds Bob's hand, her commands are
    refused and store nothing, and it does not count as Bob being there."""
    alice, mallory, bob = await sync_to_async(
        lambda: [User.objects.create_user(n, password="pw") for n in ("alice", "mallory",
                                                                       "bob")])()
    table = await sync_to_async(create_table)(alice, "classic", 3,
                                              seats=["open", "open", "heuristic"])
    await sync_to_async(join)(table, mallory)
    stale = await _client(table, mallory, "?html=0")
    assert (await _frame(stale))["type"] == "waiting"
    await sync_to_async(leave)(table, mallory)
    await sync_to_async(join)(table, bob)
    started = await sync_to_async(start)(table, alice)
    await database_sync_to_async(live.tell)(live.room_group(table.id),
                                            {"type": "table.started"})
    first = await _until(stale, "state")
    assert first["seat"] is None and first["legal"] == []
    assert all("hand" not in s for s in first["answer"]["table"]["seats"])
    assert await sync_to_async(Presence.objects.filter(table=table).count)() == 0

    # Bob's own socket plays seat 1; Mallory's commands for it change nothing.
    bobs = await _client(started, bob, "?html=0")
    assert (await _frame(bobs))["seat"] == 1
    before = await sync_to_async(_stored_version)(started)
    hand_before = (await sync_to_async(games().game)(started.game_id)).state.hands[1][:]
    offer = await sync_to_async(_offer_for)(started, 1)
    await stale.send_to(text_data=json.dumps(
        {"type": "command", "ref": 9, "command": offer}))
    refused = await _until(stale, "error")
    assert refused["ref"] == 9 and "spectators do not play" in refused["reason"]
    assert await sync_to_async(_stored_version)(started) == before
    assert (await sync_to_async(games().game)(started.game_id)).state.hands[1] == hand_before
    for frame in await _quiet(stale):
        assert frame.get("seat") is None
        if frame["type"] == "state":
            assert all("hand" not in s for s in frame["answer"]["table"]["seats"])
    for c in (stale, bobs):
        await c.disconnect()


@in_loop
async def test_a_socket_whose_account_signed_out_loses_the_seat() -> None:
    """The account behind a socket is looked up again for every command: signed out
    (its session gone) the socket's command is refused, nothing is stored, and it is
    told ``left`` (``signed_out``) and sent the spectator's view."""
    people = await sync_to_async(_people)(2)
    table = await sync_to_async(_table)(people, ["open", "open", "random"])
    ann = await _client(table, people[0], "?html=0")
    first = await _frame(ann)
    assert first["seat"] == 0 and first["legal"]
    await sync_to_async(Session.objects.all().delete)()  # signed out everywhere
    move = next(m for m in first["legal"] if m["kind"] != "offer_shape")
    await ann.send_to(text_data=json.dumps({"type": "command", "ref": 3,
                                            "version": first["version"], "command": move}))
    error = await _until(ann, "error")
    assert error["ref"] == 3 and "no longer signed in" in error["reason"]
    assert (await _until(ann, "left")) == {"type": "left", "protocol": live.PROTOCOL,
                                           "seat": 0, "reason": "signed_out"}
    after = await _until(ann, "state")
    assert after["seat"] is None and "hand" not in after["answer"]["table"]["seats"][0]
    assert await sync_to_async(_stored_version)(table) == first["version"]
    await ann.disconnect()


@in_loop
async def test_signing_out_takes_the_seat_from_the_sockets_at_once() -> None:
    """Signing out (the site's sign-out form, in the browser whose session the socket
    was opened with) takes the seat from the account's open sockets without waiting for
    their next command: ``left`` (``signed_out``), then the spectator's view; a second
    account's sockets keep theirs."""
    people = await sync_to_async(_people)(2)
    table = await sync_to_async(_table)(people, ["open", "open", "random"])
    browser = Client()
    await sync_to_async(browser.force_login)(people[0])
    cookie = browser.cookies[settings.SESSION_COOKIE_NAME].value
    ann = WebsocketCommunicator(APP, f"/ws/tables/{table.id}/?html=0", headers=[
        (b"cookie", f"{settings.SESSION_COOKIE_NAME}={cookie}".encode())])
    assert (await ann.connect(timeout=TIMEOUT))[0]
    bob = await _client(table, people[1], "?html=0")
    assert (await _frame(ann))["seat"] == 0 and (await _frame(bob))["seat"] == 1
    await sync_to_async(browser.post)("/accounts/logout/")
    assert (await _until(ann, "left"))["reason"] == "signed_out"
    after = await _until(ann, "state")
    assert after["seat"] is None and "hand" not in after["answer"]["table"]["seats"][0]
    assert await bob.receive_nothing(timeout=0.2)
    for c in (ann, bob):
        await c.disconnect()


async def _browser_socket(table: Table, user: User) -> tuple[Client, WebsocketCommunicator]:
    """A browser signed in as ``user`` and a socket opened with its session cookie."""
    browser = Client()
    await sync_to_async(browser.force_login)(user)
    cookie = browser.cookies[settings.SESSION_COOKIE_NAME].value
    socket = WebsocketCommunicator(APP, f"/ws/tables/{table.id}/?html=0", headers=[
        (b"cookie", f"{settings.SESSION_COOKIE_NAME}={cookie}".encode())])
    assert (await socket.connect(timeout=TIMEOUT))[0]
    return browser, socket


def _change_password(user: User) -> None:
    """The password changed as the admin or a reset would: no sign-out signal, every
    session signed in before it stops standing for the account (Django's session hash);
    the account's save tells its sockets to look their sessions up again."""
    user.set_password("a new password")
    user.save()


@in_loop
async def test_a_socket_whose_session_stopped_standing_is_sent_no_seat_frame() -> None:
    """Finding 1 of the second attack: Ann's password changed elsewhere and her socket
    asked for the table again, then Bob moved: each
    frame a seat is sent looks the session up again, so the socket is told ``left``
    (``signed_out``) and never sent her hand again."""
    people = await sync_to_async(_people)(2)
    table = await sync_to_async(_table)(people, ["open", "open", "random"])
    _browser, ann = await _browser_socket(table, people[0])
    first = await _frame(ann)
    assert first["seat"] == 0 and first["answer"]["table"]["seats"][0]["hand"]
    await sync_to_async(_change_password)(people[0])
    await ann.send_to(text_data=json.dumps({"type": "sync"}))
    assert (await _until(ann, "left"))["reason"] == "signed_out"
    frames = await _quiet(ann)
    assert frames and all(f.get("seat") is None for f in frames)
    assert all("hand" not in s for f in frames if f["type"] == "state"
               for s in f["answer"]["table"]["seats"])
    await ann.disconnect()


@in_loop
async def test_a_password_changed_elsewhere_takes_the_seat_from_the_sockets_at_once() -> None:
    """A password changed (in another browser, by a reset, by the admin) ends every
    other session of the account: its sockets are told ``left`` (``signed_out``) at
    once, before they send anything, not at their next frame (a stale socket could
    ``pass`` for the seat meanwhile). A save of other fields tells them nothing."""
    people = await sync_to_async(_people)(2)
    table = await sync_to_async(_table)(people, ["open", "open", "random"])
    _browser, ann = await _browser_socket(table, people[0])
    assert (await _frame(ann))["seat"] == 0

    def sign_in_again() -> None:
        people[0].last_login = timezone.now()
        people[0].save(update_fields=["last_login"])

    await sync_to_async(sign_in_again)()
    assert await ann.receive_nothing(timeout=0.3)
    await sync_to_async(_change_password)(people[0])
    assert (await _until(ann, "left"))["reason"] == "signed_out"
    await ann.disconnect()


@in_loop
async def test_a_pass_from_a_socket_whose_session_expired_is_refused() -> None:
    """``pass`` closed the seat's trading window from a socket whose session no longer
    stood (no signal: an expiry): it is looked up again, as a command is."""
    people = await sync_to_async(_people)(2)
    table = await sync_to_async(_table)(people, ["open", "open", "random"])
    browser, ann = await _browser_socket(table, people[0])
    assert (await _frame(ann))["seat"] == 0
    await sync_to_async(Session.objects.filter(session_key=browser.session.session_key)
                        .update)(expire_date=timezone.now())
    await ann.send_to(text_data=json.dumps({"type": "pass", "ref": 7}))
    refused = await _until(ann, "error")
    assert (refused["code"], refused["ref"]) == ("signed_out", 7)
    assert (await _until(ann, "left"))["reason"] == "signed_out"
    await ann.disconnect()


@in_loop
async def test_a_socket_whose_session_expired_is_sent_no_seat_frame_of_a_move() -> None:
    """Ann's session expired while her socket stayed open; Bob's move reaches her
    socket as ``left`` (``signed_out``) and the spectator's view, never her hand."""
    bob, ann_account = await sync_to_async(_people)(2)
    table = await sync_to_async(_table)([bob, ann_account], ["open", "open", "random"])
    browser, ann = await _browser_socket(table, ann_account)
    assert (await _frame(ann))["seat"] == 1
    bobs = await _client(table, bob, "?html=0")
    seen = await _frame(bobs)
    assert seen["seat"] == 0 and seen["legal"]
    await sync_to_async(Session.objects.filter(session_key=browser.session.session_key)
                        .update)(expire_date=timezone.now())
    await bobs.send_to(text_data=json.dumps({
        "type": "command", "version": seen["version"], "command": seen["legal"][0]}))
    assert (await _until(ann, "left"))["reason"] == "signed_out"
    for frame in await _quiet(ann):
        assert frame.get("seat") is None
        if frame["type"] == "state":
            assert all("hand" not in s for s in frame["answer"]["table"]["seats"])
    assert (await _until(bobs, "state"))["seat"] == 0  # Bob's own session still stands
    for c in (ann, bobs):
        await c.disconnect()


@in_loop
async def test_a_private_tables_socket_is_closed_once_its_session_stops_standing() -> None:
    """At a private table the signed-out socket is nobody's: closed (4403) after
    ``left``, as a handshake without a seat or invitation would be refused."""
    people = await sync_to_async(_people)(2)
    table = await sync_to_async(_table)(people, ["open", "open", "random"], public=False)
    _browser, ann = await _browser_socket(table, people[0])
    await _frame(ann)
    await sync_to_async(_change_password)(people[0])
    await ann.send_to(text_data=json.dumps({"type": "sync"}))
    assert (await _until(ann, "left"))["reason"] == "signed_out"
    closed = await ann.receive_output(TIMEOUT)
    assert (closed["type"], closed["code"]) == ("websocket.close", 4403)


@in_loop
async def test_a_private_table_watched_by_right_of_an_account_is_closed_once_it_ends(
        ) -> None:
    """Staff watch a private table without its invitation; once their session stops
    standing for them, the next frame they would be sent closes the socket (4403)
    instead: who may watch is decided for every frame, as who may play is."""
    people = await sync_to_async(_people)(2)
    table = await sync_to_async(_table)(people, ["open", "open", "random"], public=False)
    staff = await sync_to_async(User.objects.create_user)("staff", password="pw",
                                                          is_staff=True)
    _browser, watcher = await _browser_socket(table, staff)
    first = await _frame(watcher)
    assert first["type"] == "state" and first["seat"] is None
    await watcher.send_to(text_data=json.dumps({"type": "sync"}))
    assert (await _until(watcher, "state"))["seat"] is None  # still watching
    await sync_to_async(_change_password)(staff)
    await watcher.send_to(text_data=json.dumps({"type": "sync"}))
    closed = await watcher.receive_output(TIMEOUT)
    assert (closed["type"], closed["code"]) == ("websocket.close", 4403)


@in_loop
async def test_a_seat_handed_to_a_bot_elsewhere_is_told_before_its_update() -> None:
    """Bob's second tab leaves the game; his first tab is told ``left`` before any
    frame of the version that handed the seat over, which it gets as a spectator: no
    frame it is sent after the handover holds the seat's hand."""
    people = await sync_to_async(_people)(2)
    table = await sync_to_async(_table)(people, ["open", "open", "random"])
    bob, bobs_other_tab = [await _client(table, people[1], "?html=0") for _ in range(2)]
    first = await _frame(bob)
    await _frame(bobs_other_tab)
    assert first["seat"] == 1
    await bobs_other_tab.send_to(text_data=json.dumps({"type": "leave"}))
    frames = []
    while True:
        frame = await _frame(bob)
        frames.append(frame)
        if frame["type"] == "state" and frame["version"] > first["version"]:
            break
    assert frames[0]["type"] == "left" and frames[0]["reason"] == "left"
    handed = frames[-1]
    assert handed["seat"] is None and "hand" not in handed["answer"]["table"]["seats"][1]
    for frame in await _quiet(bob):
        assert frame.get("seat") is None
    # A command from the first tab is refused by the seat's holder now: nothing stored.
    version = await sync_to_async(_stored_version)(table)
    await bob.send_to(text_data=json.dumps(
        {"type": "command", "command": {"kind": "end_trading"}}))
    assert "spectators" in (await _until(bob, "error"))["reason"]
    assert await sync_to_async(_stored_version)(table) == version
    for c in (bob, bobs_other_tab):
        await c.disconnect()


def test_the_seat_holder_is_checked_under_the_games_lock() -> None:
    """``live.submit`` refuses a person's command for a seat they do not play in the
    game as stored, whoever built the command: a seat left to a bot, or another's."""
    people = _people(3)
    table = _table(people[:2], ["open", "open", "random"])
    state = games().game(table.game_id).state
    move = next(m for m in legal_commands(state, 0) if not isinstance(m, OfferShape))
    with pytest.raises(live.IllegalMove, match="not yours"):
        live.submit(table.id, table.game_id, move, "user:bob", person=True)
    with pytest.raises(live.IllegalMove, match="not yours"):
        live.submit(table.id, table.game_id, move, "user:cy", person=True)
    hand_to_bot(table.id, 0, Handover.LEFT, user=people[0])
    version = _stored_version(table)
    with pytest.raises(live.IllegalMove, match="bot plays this seat now"):
        live.submit(table.id, table.game_id, move, "user:ann", person=True)
    assert _stored_version(table) == version
    assert command_to_json(move)  # the move itself was a legal one


def _finish(table: Table) -> None:
    """Play the running game to its end by the default moves (the clock's actor)."""
    from bohnanza_core.bots.turns import fallback
    from bohnanza_core.engine import awaiting

    game = games().game(table.game_id)
    while not game.finished:
        seat = awaiting(game.state)[0]
        games().play_on(game, fallback(game.state, seat), "clock")


def test_a_player_who_left_reads_no_seat_over_http() -> None:
    """Finding 2 of issue 26: after leaving a running game (its seat handed to a bot),
    its player no longer reads the seat's hand: the step, the page and the export from
    the seat refuse; the spectator's view opens. Once the game has ended every seat is
    open to them again, as to anyone."""
    people = _people(2)
    table = _table(people, ["open", "open", "random"])
    ann = Client()
    ann.force_login(people[0])
    base = f"/replays/games/{table.game_id}"
    version = _stored_version(table)
    assert ann.get(f"{base}/steps/{version}.json?perspective=seat-0").status_code == 200
    hand_to_bot(table.id, 0, Handover.LEFT, user=people[0])
    last = _stored_version(table)
    for url in (f"{base}/steps/{last}.json?perspective=seat-0",
                f"{base}/?perspective=seat-0",
                f"{base}/export.jsonl?perspective=seat-0"):
        answer = ann.get(url)
        assert answer.status_code == 403, (url, answer.status_code)
        assert b'"hand"' not in answer.content
    spectator = ann.get(f"{base}/steps/{last}.json")
    assert spectator.status_code == 200
    assert spectator.json()["table"]["perspective"] == SPECTATOR
    assert all("hand" not in seat for seat in spectator.json()["table"]["seats"])
    # Bob still plays his seat and reads it.
    bob = Client()
    bob.force_login(people[1])
    assert bob.get(f"{base}/steps/{last}.json?perspective=seat-1").status_code == 200
    assert bob.get(f"{base}/steps/{last}.json?perspective=seat-0").status_code == 403
    _finish(Table.objects.get(pk=table.pk))
    assert ann.get(f"{base}/steps/{last}.json?perspective=seat-0").status_code == 200


__all__ += ["TIMEOUT"]


def test_a_game_left_is_no_longer_among_the_tables_one_sits_at() -> None:
    """After leaving a running game (a bot plays the seat) the lobby's ``mine`` and the
    profile still listed it as a table the person sits at: they only watch it now."""
    from play.lobby import tables_of

    people = _people(2)
    table = _table(people[:2], ["open", "open", "random"])
    assert [t.pk for t in tables_of(people[0])] == [table.pk]
    hand_to_bot(table.id, 0, Handover.LEFT, user=people[0])
    assert tables_of(people[0]) == []
    assert [t.pk for t in tables_of(people[1])] == [table.pk]
