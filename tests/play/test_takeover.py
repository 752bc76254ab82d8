"""A seat handed to a bot at a running table: a person leaves (the websocket's ``leave``
frame, the table page's button), or stays away past the table's absence limit (its
deadline on the seat, fired by the driver, here or after a restart). Either is the
game's event ``SeatHandedToBot``, then the table's bot plays the seat. No sleeps: the
deadlines are fired by calling the driver's look with a ``now`` past them."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.test import Client
from django.utils import timezone

from bohnanza_core.events import GameStopped, Handover, SeatHandedToBot, StopReason
from bohnanza_core.export import export_record
from bohnanza_core.verify import verify_text
from play import driver, live, presence
from play.lobby import lobby_lists
from play.models import Presence, Seat, Table
from play.tables import TableError, create_table, hand_to_bot
from replays.store import games, loaded
from tests.play.test_live import (
    TIMEOUT,
    _client,
    _frame,
    _latest,
    _people,
    _stored_version,
    _table,
    fresh,
    in_loop,
)

pytestmark = pytest.mark.django_db(transaction=True)

__all__ = ["fresh"]  # the autouse fixture, shared with test_live


def _handovers(table: Table) -> list[tuple[SeatHandedToBot, str | None]]:
    return [(e.event, e.actor) for e in games().record(table.game_id)
            if isinstance(e.event, SeatHandedToBot)]


def _seat(table: Table, number: int) -> Seat:
    return Seat.objects.get(table=table, number=number)


async def _until(c: Any, kind: str) -> dict[str, Any]:
    """Frames until one of ``kind``."""
    while True:
        frame = await _frame(c)
        if frame["type"] == kind:
            return frame


@in_loop
async def test_a_player_leaves_and_the_tables_bot_plays_their_seat() -> None:
    people = await sync_to_async(_people)(2)
    table = await sync_to_async(_table)(people, ["open", "open", "random"],
                                        replacement_bot="heuristic")
    ann, bob = [await _client(table, p) for p in people]
    first = await _frame(ann)
    await _frame(bob)
    assert first["seat"] == 0 and first["legal"]  # ann starts
    await ann.send_to(text_data=json.dumps({"type": "leave", "ref": 7}))
    assert (await _until(ann, "left")) == {"type": "left", "protocol": live.PROTOCOL,
                                           "seat": 0, "reason": "left"}
    after = await _until(ann, "state")
    assert after["seat"] is None and after["legal"] == []  # a spectator's view now
    assert "hand" not in after["answer"]["table"]["seats"][0]
    # Bob sees the event, narrated, and the table says who plays the seat.
    seen = await _latest(bob, first["version"] + 1)
    assert "ann left; the heuristic bot plays the seat" in seen["log"]
    assert seen["answer"]["table"]["seats"][0]["bot"] == "heuristic"
    handed = await sync_to_async(_handovers)(table)
    assert handed == [(SeatHandedToBot(0, "heuristic", Handover.LEFT), "user:ann")]
    seat = await sync_to_async(_seat)(table, 0)
    assert (seat.bot, seat.handover, seat.user_id) == ("heuristic", "left", people[0].pk)
    # The bot plays the seat, through the driver, as the table's other bots.
    for _ in range(200):
        frame = await _until(bob, "state")
        record = await sync_to_async(games().record)(table.game_id)
        if any(e.actor == "bot:heuristic" for e in record):
            break
    else:
        raise AssertionError("the bot never played the seat")
    assert record[first["version"]].actor == "user:ann"
    # Ann's commands are refused from now on; leaving twice too.
    await ann.send_to(text_data=json.dumps(
        {"type": "command", "command": {"kind": "plant_from_hand", "field": 0}}))
    assert "spectators" in (await _until(ann, "error"))["reason"]
    lists = await database_sync_to_async(lobby_lists)()
    assert lists["running"][0]["left"] == ["ann"]
    assert frame["type"] == "state"
    for c in (ann, bob):
        await c.disconnect()


@in_loop
async def test_nobody_forges_a_handover_for_another_seat() -> None:
    people = await sync_to_async(_people)(3)
    table = await sync_to_async(_table)(people[:2], ["open", "open"], preset="duel")
    ann, bob = [await _client(table, p) for p in people[:2]]
    cy = await _client(table, people[2])  # not seated: a spectator
    watcher = await _client(table, None)
    for c in (ann, bob, cy, watcher):
        await _frame(c)
    before = await sync_to_async(_stored_version)(table)
    refused = [
        (bob, {"type": "command", "command": {"kind": "hand_seat_to_bot", "seat": 0,
                                              "bot": "random", "reason": "left"}},
         "unknown command kind"),
        (bob, {"type": "command", "command": {"kind": "hand_seat_to_bot", "bot": "random",
                                              "reason": "left"}}, "unknown command kind"),
        (bob, {"type": "leave", "seat": 0}, "a leave frame has no field 'seat'"),
        (cy, {"type": "leave"}, "only a seated player leaves"),
        (watcher, {"type": "leave"}, "only a seated player leaves"),
    ]
    for client, frame, reason in refused:
        await client.send_to(text_data=json.dumps(frame))
        answer = await _frame(client)
        assert answer["type"] == "error" and reason in answer["reason"], (frame, answer)
    assert await sync_to_async(_stored_version)(table) == before
    # Nor over the table page: Cy does not sit there; the seat of another is not his.
    web = Client()
    await sync_to_async(web.force_login)(people[2])
    response = await sync_to_async(web.post)(f"/play/tables/{table.id}/leave/")
    assert response.status_code == 302
    with pytest.raises(TableError, match="you do not sit in this seat"):
        await database_sync_to_async(hand_to_bot)(table.id, 0, Handover.LEFT,
                                                  user=people[1])
    assert await sync_to_async(_stored_version)(table) == before
    assert await sync_to_async(_handovers)(table) == []
    for c in (ann, bob, cy, watcher):
        await c.disconnect()


@in_loop
async def test_a_player_away_past_the_limit_is_replaced() -> None:
    people = await sync_to_async(_people)(2)
    table = await sync_to_async(_table)(people, ["open", "open"], preset="duel",
                                        absence_seconds=60)
    ann, bob = [await _client(table, p) for p in people]
    first = await _frame(ann)
    await _frame(bob)
    await ann.disconnect()
    seat = await sync_to_async(_seat)(table, 0)
    assert seat.absence_deadline is not None
    left_for = (seat.absence_deadline - timezone.now()).total_seconds()
    assert 55 < left_for <= 60
    await driver.stop_all()
    # Not yet: a second before the deadline nothing happens.
    step, played = await database_sync_to_async(driver.next_step)(
        table.id, seat.absence_deadline - timedelta(seconds=1))
    assert played == [] and step.kind == "wait"
    assert await sync_to_async(_handovers)(table) == []
    # Past it: the seat is handed to the table's bot, with the actor "absence".
    step, played = await database_sync_to_async(driver.next_step)(
        table.id, seat.absence_deadline + timedelta(seconds=1))
    assert step.handed == 0 and len(played) == 1
    await driver.announce_handover(get_channel_layer(), table.id, played[0], 0)
    handed = await sync_to_async(_handovers)(table)
    assert handed == [(SeatHandedToBot(0, "heuristic", Handover.ABSENT), "absence")]
    seen = await _latest(bob, first["version"] + 1)
    assert "ann stayed away too long; the heuristic bot plays the seat" in seen["log"]
    seat = await sync_to_async(_seat)(table, 0)
    assert (seat.handover, seat.bot, seat.absence_deadline) == ("absent", "heuristic", None)
    # The lobby says she stayed away, not that she left.
    running = (await database_sync_to_async(lobby_lists)())["running"]
    assert (running[0]["left"], running[0]["away"]) == ([], ["ann"])
    # Back on the table's page, ann is told why a bot plays her seat.
    back = Client()
    await sync_to_async(back.force_login)(people[0])
    page = (await sync_to_async(back.get)(f"/play/tables/{table.id}/")).content.decode()
    assert ('<p class="live-left">You stayed away too long: the heuristic bot plays your '
            'seat.') in page
    # Bob, connected, is never due (his connection is fresh).
    bob_seat = await sync_to_async(_seat)(table, 1)
    assert bob_seat.absence_deadline is None
    await bob.disconnect()


@in_loop
async def test_coming_back_before_the_limit_cancels_it() -> None:
    people = await sync_to_async(_people)(2)
    table = await sync_to_async(_table)(people, ["open", "open"], preset="duel",
                                        absence_seconds=60)
    ann, bob = [await _client(table, p) for p in people]
    await _frame(ann)
    await _frame(bob)
    await ann.disconnect()
    deadline = (await sync_to_async(_seat)(table, 0)).absence_deadline
    assert deadline is not None
    again = await _client(table, people[0])
    assert (await _frame(again))["seat"] == 0
    assert (await sync_to_async(_seat)(table, 0)).absence_deadline is None
    await driver.stop_all()
    step, played = await database_sync_to_async(driver.next_step)(
        table.id, deadline + timedelta(seconds=1))
    assert played == [] and step.kind == "wait" and step.handed is None
    assert await sync_to_async(_handovers)(table) == []
    # A table whose creator chose "never" sets no deadline at all.
    never = await sync_to_async(_table)(people, ["open", "open"], preset="duel",
                                        absence_seconds=0)
    c = await _client(never, people[0])
    await _frame(c)
    await c.disconnect()
    assert (await sync_to_async(_seat)(never, 0)).absence_deadline is None
    for x in (again, bob):
        await x.disconnect()


@pytest.mark.usefixtures("serving_heap")
@in_loop
async def test_an_absence_deadline_set_before_a_restart_fires_after_it() -> None:
    from asgiref.testing import ApplicationCommunicator

    from config.asgi import application
    from play import startup

    people = await sync_to_async(_people)(1)
    table = await sync_to_async(_table)(people, ["open", "random"], preset="duel",
                                        absence_seconds=60)
    ann = await _client(table, people[0])
    await _frame(ann)
    await ann.disconnect()
    # The restart: every driver and held game forgotten; the deadline, on the seat in
    # the database, passes while nobody is connected.
    await driver.stop_all()
    loaded.clear()
    startup._started.clear()
    await sync_to_async(Seat.objects.filter(table=table, number=0).update)(
        absence_deadline=timezone.now() - timedelta(seconds=1))
    assert table.id in await database_sync_to_async(driver.resumable_tables)()
    server = ApplicationCommunicator(application, {"type": "lifespan"})
    await server.send_input({"type": "lifespan.startup"})
    assert (await server.receive_output(TIMEOUT))["type"] == "lifespan.startup.complete"
    import asyncio
    for _ in range(500):
        record = await sync_to_async(games().record)(table.game_id)
        if any(e.actor == "bot:heuristic" for e in record):
            break
        await asyncio.sleep(0.02)
    assert await sync_to_async(_handovers)(table) == [
        (SeatHandedToBot(0, "heuristic", Handover.ABSENT), "absence")]
    assert any(e.actor == "bot:heuristic" for e in record)  # and the bot plays on
    await server.send_input({"type": "lifespan.shutdown"})
    assert (await server.receive_output(TIMEOUT))["type"] == "lifespan.shutdown.complete"


def test_presence_is_shared_by_processes_and_a_dead_ones_connections_go_stale() -> None:
    people = _people(2)
    table = _table(people, ["open", "open"], preset="duel", absence_seconds=120)
    now = timezone.now()
    # Two processes serve Ann: closing one connection leaves her there.
    presence.arrive(table.id, 0, "process-a.1", now)
    presence.arrive(table.id, 0, "process-b.1", now)
    assert presence.depart(table.id, 0, "process-a.1", now) is None
    assert presence.depart(table.id, 0, "process-b.1", now) == now + timedelta(seconds=120)
    presence.arrive(table.id, 0, "process-a.2", now)
    assert _seat(table, 0).absence_deadline is None
    # A process that died left Bob's row: once it is stale, his seat gets a deadline.
    Presence.objects.create(table=table, seat=1, channel="dead.1", seen_at=now)
    later = now + timedelta(seconds=presence.stale_seconds() + 1)
    seats = list(table.seats.all())
    away = presence.look(table, seats, later)
    assert away.due == []
    assert _seat(table, 1).absence_deadline == later + timedelta(seconds=120)
    assert table.id in driver.resumable_tables()
    # ... and Ann's, not renewed either by then, too; renewing keeps her there.
    presence.renew_all(["process-a.2"], later)
    table.refresh_from_db()
    away = presence.look(table, list(table.seats.all()), later)
    assert _seat(table, 0).absence_deadline is None
    assert away.next_look is not None


def test_a_tables_absence_limit_and_bot_are_chosen_at_creation(settings: Any) -> None:
    ann = _people(1)[0]
    settings.PLAY_ABSENCE_SECONDS = 240
    table = create_table(ann, "duel", 2, seats=["open", "random"])
    assert (table.absence_seconds, table.replacement_bot) == (240, "heuristic")
    chosen = create_table(ann, "duel", 2, seats=["open", "random"], absence_seconds=0,
                          replacement_bot="random")
    assert (chosen.absence_seconds, chosen.replacement_bot) == (0, "random")
    for bad in ({"absence_seconds": -1}, {"absence_seconds": 10**9},
                {"replacement_bot": "clever"}):
        with pytest.raises(TableError):
            create_table(ann, "duel", 2, seats=["open", "random"], **bad)
    web = Client()
    web.force_login(ann)
    response = web.post("/play/tables/new/", {"preset": "duel", "players": 2,
                                              "seat_0": "open", "seat_1": "random",
                                              "move_seconds": 0, "game_seconds": 0,
                                              "absence_seconds": "600",
                                              "replacement_bot": "nontrading"})
    assert response.status_code == 302
    made = Table.objects.order_by("-created_at").first()
    assert made is not None
    assert (made.absence_seconds, made.replacement_bot) == (600, "nontrading")
    response = web.post("/play/tables/new/", {"preset": "duel", "players": 2,
                                              "seat_0": "open", "seat_1": "random",
                                              "move_seconds": 0, "game_seconds": 0,
                                              "absence_seconds": "77"})
    assert response.status_code == 400


@in_loop
async def test_a_game_everyone_left_is_stopped_replays_exports_and_verifies(
) -> None:
    people = await sync_to_async(_people)(2)
    table = await sync_to_async(_table)(people, ["open", "open"], preset="duel")
    web = Client()
    await sync_to_async(web.force_login)(people[0])
    page = await sync_to_async(web.get)(f"/play/tables/{table.id}/")
    assert b"Leave the game" in page.content
    response = await sync_to_async(web.post)(f"/play/tables/{table.id}/leave/")
    assert response.status_code == 302
    page = await sync_to_async(web.get)(f"/play/tables/{table.id}/")
    assert b"You left this game" in page.content and b"Leave the game" not in page.content
    bob = await _client(table, people[1])
    await _frame(bob)
    await bob.send_to(text_data=json.dumps({"type": "leave"}))
    await _until(bob, "left")
    # Nobody is left at this table of people: the platform stops the game as it stands.
    for _ in range(50):
        frame = await _until(bob, "state")
        if frame["finished"]:
            break
    assert frame["finished"]
    record = await sync_to_async(games().record)(table.game_id)
    handed = [(e.event, e.actor) for e in record if isinstance(e.event, SeatHandedToBot)]
    assert handed == [(SeatHandedToBot(0, "heuristic", Handover.LEFT), "user:ann"),
                      (SeatHandedToBot(1, "heuristic", Handover.LEFT), "user:bob")]
    stopped = record[-1]
    assert isinstance(stopped.event, GameStopped) and stopped.actor == "abandonment"
    assert stopped.event.reason is StopReason.ABANDONED
    assert isinstance(record[-2].event, SeatHandedToBot)  # no bot moved after the last left
    stored = await database_sync_to_async(Table.objects.get)(pk=table.pk)
    assert stored.status == Table.Status.FINISHED
    text = export_record(record)
    assert verify_text(text).ok
    await bob.disconnect()
    from replays.projections import catch_up
    await database_sync_to_async(catch_up)()
    for url in (f"/replays/games/{table.game_id}/", f"/replays/games/{table.game_id}/audit/",
                f"/players/{people[0].username}/"):
        page = await sync_to_async(web.get)(url)
        assert page.status_code == 200, url
    exported = await sync_to_async(web.get)(f"/replays/games/{table.game_id}/export.jsonl")
    assert verify_text(b"".join(exported.streaming_content).decode()
                       if exported.streaming else exported.content.decode()).ok
    story = await sync_to_async(web.get)(f"/replays/games/{table.game_id}/log.json")
    assert "ann left; the heuristic bot plays the seat" in story.content.decode()
    assert "every player left the table" in story.content.decode()
    audit = await sync_to_async(web.get)(f"/replays/games/{table.game_id}/audit/")
    assert b"verdict verdict-ok" in audit.content and b"verdict-bad" not in audit.content
    profile = await sync_to_async(web.get)(f"/players/{people[0].username}/")
    assert b"left: the heuristic bot played on" in profile.content


@in_loop
async def test_a_person_is_refused_once_the_game_hands_their_seat_before_they_hear_of_it(
) -> None:
    from bohnanza_core.commands import HandSeatToBot

    people = await sync_to_async(_people)(2)
    table = await sync_to_async(_table)(people, ["open", "open"], preset="duel")
    ann = await _client(table, people[0])
    first = await _frame(ann)
    await driver.stop_all()
    # Another process stored the handover; this connection has not been told yet.
    await database_sync_to_async(live.submit)(
        table.id, table.game_id, HandSeatToBot(0, "random", Handover.LEFT), "user:ann")
    await ann.send_to(text_data=json.dumps(
        {"type": "command", "command": {"kind": "plant_from_hand", "field": 0}}))
    refused = await _until(ann, "error")
    assert "the random bot plays this seat now" in refused["reason"]
    record = await sync_to_async(games().record)(table.game_id)
    assert len(record) == first["version"] + 1  # the handover only
    await ann.disconnect()
