"""An account's event stream (botapi/stream.py) and the lobby's socket with a token:
what is waiting first, each notice as it happens, keepalive lines, one stream per
token (a second replaces the first)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.auth import AuthMiddlewareStack
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.auth.models import User
from django.test import AsyncClient

from botapi import auth
from play import driver, tokens
from play.lobby import forget_snapshot
from play.routing import websocket_urlpatterns
from play.tables import create_table
from replays.store import loaded, reset_games

pytestmark = pytest.mark.django_db(transaction=True)

APP = AuthMiddlewareStack(URLRouter(websocket_urlpatterns))
TIMEOUT = 5


@pytest.fixture(autouse=True)
def fresh(settings: Any) -> Iterator[None]:
    settings.PLAY_BOT_PACE_SECONDS = 0
    settings.BOHNANZA_STREAM_KEEPALIVE = 0.2
    auth._allowances.clear()
    reset_games()
    loaded.clear()
    forget_snapshot()
    yield
    loaded.clear()
    reset_games()


def _bots() -> tuple[str, str, User]:
    owner = User.objects.create_user("olga")
    robo = tokens.create_bot(owner, "robo")
    bobo = tokens.create_bot(owner, "bobo")
    return (tokens.issue(robo, "t", ("play", "read"))[1],
            tokens.issue(bobo, "t", ("play", "read"))[1], bobo.user)


async def _lines(response: Any) -> AsyncIterator[dict[str, Any] | None]:
    """Each line of the stream as JSON (None for a keepalive line)."""
    async for chunk in response.streaming_content:
        for line in chunk.decode().split("\n")[:-1]:
            yield json.loads(line) if line else None


async def _next_event(lines: AsyncIterator[dict[str, Any] | None]) -> dict[str, Any]:
    """The next line that is not a keepalive (within :data:`TIMEOUT` seconds)."""
    async def event() -> dict[str, Any]:
        async for line in lines:
            if line is not None:
                return line
        raise AssertionError("the stream ended")
    return await asyncio.wait_for(event(), TIMEOUT)


def test_a_bot_is_told_of_challenges_seats_and_games_without_polling() -> None:
    async def body() -> None:
        robo_token, bobo_token, _bobo = await sync_to_async(_bots)()
        client = AsyncClient(AUTHORIZATION=f"Bearer {bobo_token}")
        response = await client.get("/api/v1/stream/event")
        assert response.status_code == 200
        assert response["Content-Type"] == "application/x-ndjson"
        lines = _lines(response)
        assert await asyncio.wait_for(anext(lines), TIMEOUT) is None  # keepalive
        robo = AsyncClient(AUTHORIZATION=f"Bearer {robo_token}")
        made = await robo.post("/api/v1/challenges", {
            "ruleset": "classic", "players": 3, "house_rules": {"draw_cards": 1},
            "seats": ["me", "user:bobo", "bot:random"]}, content_type="application/json")
        assert made.status_code == 201
        table_id = made.json()["id"]
        challenge = await _next_event(lines)
        assert challenge["type"] == "challenge" and challenge["by"] == "robo"
        assert challenge["table"]["id"] == table_id and challenge["seat"] == 1
        accepted = await client.post(f"/api/v1/challenges/{table_id}/accept")
        assert accepted.status_code == 200
        seated = await _next_event(lines)
        assert seated["type"] == "seated" and seated["seat"] == 1
        started = await _next_event(lines)
        assert started["type"] == "gameStart" and started["seat"] == 1
        assert started["socket"] == f"/ws/tables/{table_id}/"
        assert started["game"] == accepted.json()["game"]
        # a second stream with the same token replaces this one
        again = await client.get("/api/v1/stream/event")
        assert await _next_event(lines) == {"type": "replaced"}
        restarted = _lines(again)
        first = await _next_event(restarted)  # what is waiting: the running game
        assert first["type"] == "gameStart" and first["table"]["id"] == table_id
        await driver.stop_all()

    async_to_sync(body)()  # thread-sensitive calls in this thread (see conftest)


def test_a_declined_challenge_is_told_to_its_creator() -> None:
    async def body() -> None:
        robo_token, bobo_token, _bobo = await sync_to_async(_bots)()
        robo = AsyncClient(AUTHORIZATION=f"Bearer {robo_token}")
        bobo = AsyncClient(AUTHORIZATION=f"Bearer {bobo_token}")
        made = (await robo.post("/api/v1/challenges", {
            "ruleset": "classic", "players": 3, "seats": ["me", "user:bobo", "bot:random"]},
            content_type="application/json")).json()
        lines = _lines(await robo.get("/api/v1/stream/event"))
        waiting = _lines(await bobo.get("/api/v1/stream/event"))
        assert (await _next_event(waiting))["type"] == "challenge"  # waiting already
        assert (await bobo.post(f"/api/v1/challenges/{made['id']}/decline")).status_code == 204
        told = await _next_event(lines)
        assert told["type"] == "challengeDeclined" and told["by"] == "bobo"

    async_to_sync(body)()  # thread-sensitive calls in this thread (see conftest)


def test_the_lobby_socket_honours_a_token_looked_up_again_each_time() -> None:
    async def body() -> None:
        _robo_token, bobo_token, bobo = await sync_to_async(_bots)()
        refused = WebsocketCommunicator(APP, "/ws/lobby/",
                                        headers=[(b"authorization", b"Bearer bhz_nope")])
        # Refused at the handshake as a table's socket refuses it: accepted only to say
        # why (an error frame with its code), then closed with the cause's close code.
        assert (await refused.connect(timeout=TIMEOUT))[0]
        error = json.loads(await refused.receive_from(TIMEOUT))
        assert (error["type"], error["code"]) == ("error", "bad_token")
        closed = await refused.receive_output(TIMEOUT)
        assert (closed["type"], closed["code"]) == ("websocket.close", 4401)
        lobby = WebsocketCommunicator(
            APP, "/ws/lobby/", headers=[(b"authorization", f"Bearer {bobo_token}".encode())])
        assert (await lobby.connect(timeout=TIMEOUT))[0]
        assert json.loads(await lobby.receive_from(TIMEOUT))["mine"] == []
        table = await sync_to_async(create_table)(bobo, "classic", 3,
                                                  seats=["open", "open", "random"],
                                                  public=False)
        await lobby.send_to(text_data='{"type": "sync"}')
        frame = json.loads(await lobby.receive_from(TIMEOUT))
        assert [t["id"] for t in frame["mine"]] == [str(table.id)]
        assert frame["open"] == []  # private: its own list only
        account = await sync_to_async(lambda: bobo.bot_account)()
        await sync_to_async(lambda: [tokens.revoke(account, t.pk)
                                     for t in account.tokens.all()])()
        forget_snapshot()
        await lobby.send_to(text_data='{"type": "sync"}')
        assert json.loads(await lobby.receive_from(TIMEOUT))["mine"] == []
        await lobby.disconnect()

    async_to_sync(body)()  # thread-sensitive calls in this thread (see conftest)


async def _challenge(token: str, name: str) -> None:
    """The token's account challenges ``name`` and a built-in bot."""
    made = await AsyncClient(AUTHORIZATION=f"Bearer {token}").post("/api/v1/challenges", {
        "ruleset": "classic", "players": 3, "seats": ["me", f"user:{name}", "bot:random"]},
        content_type="application/json")
    assert made.status_code == 201


async def _told(lines: AsyncIterator[dict[str, Any] | None]) -> list[dict[str, Any]]:
    """Every event the stream tells until it ends (within :data:`TIMEOUT` seconds)."""
    async def told() -> list[dict[str, Any]]:
        return [line async for line in lines if line is not None]

    return await asyncio.wait_for(told(), TIMEOUT)


def test_a_stream_ends_once_its_token_is_revoked() -> None:
    """A stream opened with a token went on telling the account's challenges after the
    token was revoked (or rotated): it now ends, and opening it again is refused."""
    async def body() -> None:
        robo_token, bobo_token, bobo = await sync_to_async(_bots)()
        client = AsyncClient(AUTHORIZATION=f"Bearer {bobo_token}")
        response = await client.get("/api/v1/stream/event")
        assert response.status_code == 200
        lines = _lines(response)
        assert await asyncio.wait_for(anext(lines), TIMEOUT) is None  # keepalive
        account = await sync_to_async(lambda: bobo.bot_account)()
        await sync_to_async(lambda: [tokens.revoke(account, t.pk)
                                     for t in account.tokens.all()])()
        await _challenge(robo_token, "bobo")
        assert await _told(lines) == []  # ended, the challenge untold
        again = await client.get("/api/v1/stream/event")
        assert (again.status_code, again.json()["code"]) == (401, "invalid_token")

    async_to_sync(body)()  # thread-sensitive calls in this thread (see conftest)


def test_a_sessions_stream_ends_once_it_signs_out() -> None:
    """A browser session's stream went on telling the account's challenges after it
    signed out: the session is looked up again before every line, so it ends."""
    async def body() -> None:
        robo_token, _bobo_token, _bobo = await sync_to_async(_bots)()
        ann = await sync_to_async(User.objects.create_user)("ann")
        client = AsyncClient()
        await client.aforce_login(ann)
        response = await client.get("/api/v1/stream/event")
        assert response.status_code == 200
        lines = _lines(response)
        assert await asyncio.wait_for(anext(lines), TIMEOUT) is None  # keepalive
        assert (await client.post("/accounts/logout/")).status_code == 302
        await _challenge(robo_token, "ann")
        assert await _told(lines) == []  # ended, the challenge untold

    async_to_sync(body)()  # thread-sensitive calls in this thread (see conftest)


def test_the_lobby_socket_looks_a_session_up_again_each_time() -> None:
    """A session's lobby socket went on sending the account's own tables (private ones
    too) after its password changed: ``mine`` is empty once the session stops standing."""
    async def body() -> None:
        ann = await sync_to_async(User.objects.create_user)("ann", password="pw")
        table = await sync_to_async(create_table)(ann, "classic", 3,
                                                  seats=["open", "open", "random"],
                                                  public=False)
        browser = AsyncClient()
        await browser.aforce_login(ann)
        cookie = browser.cookies[settings.SESSION_COOKIE_NAME].value
        lobby = WebsocketCommunicator(APP, "/ws/lobby/", headers=[
            (b"cookie", f"{settings.SESSION_COOKIE_NAME}={cookie}".encode())])
        assert (await lobby.connect(timeout=TIMEOUT))[0]
        assert [t["id"] for t in json.loads(await lobby.receive_from(TIMEOUT))["mine"]] == [
            str(table.id)]

        def change_password() -> None:
            ann.set_password("another")
            ann.save()

        await sync_to_async(change_password)()
        await lobby.send_to(text_data='{"type": "sync"}')
        assert json.loads(await lobby.receive_from(TIMEOUT))["mine"] == []
        await lobby.disconnect()

    async_to_sync(body)()  # thread-sensitive calls in this thread (see conftest)


def test_a_read_only_tokens_stream_stays_open() -> None:
    """A token of scope ``read`` alone opened the stream, which ended silently at its
    first keepalive: the credential was looked up again as if it were to play."""
    async def body() -> None:
        robo_token, _bobo_token, bobo = await sync_to_async(_bots)()
        account = await sync_to_async(lambda: bobo.bot_account)()
        _row, reader = await sync_to_async(tokens.issue)(account, "reader", ("read",))
        response = await AsyncClient(AUTHORIZATION=f"Bearer {reader}").get(
            "/api/v1/stream/event")
        assert response.status_code == 200
        lines = _lines(response)
        for _keepalive in range(3):
            assert await asyncio.wait_for(anext(lines), TIMEOUT) is None
        await _challenge(robo_token, "bobo")
        told = await _next_event(lines)
        assert (told["type"], told["by"]) == ("challenge", "robo")

    async_to_sync(body)()  # thread-sensitive calls in this thread (see conftest)


def test_a_game_this_process_started_is_told_once_though_its_sweep_finds_it() -> None:
    """Every game a bot started on a one-process server came twice on its stream: the
    process told it at the start, and its sweep for other processes' tables told it
    again. The sweep tells only the games this process has not told of."""
    from channels.layers import get_channel_layer

    async def body() -> None:
        robo_token, _bobo_token, _bobo = await sync_to_async(_bots)()
        robo = AsyncClient(AUTHORIZATION=f"Bearer {robo_token}")
        response = await robo.get("/api/v1/stream/event")
        lines = _lines(response)
        assert await asyncio.wait_for(anext(lines), TIMEOUT) is None  # keepalive
        made = await robo.post("/api/v1/challenges", {
            "ruleset": "classic", "players": 3,
            "seats": ["me", "bot:random", "bot:random"]}, content_type="application/json")
        assert made.status_code == 201
        assert (await _next_event(lines))["type"] == "seated"
        assert (await _next_event(lines))["type"] == "gameStart"
        await driver.sweep(get_channel_layer())
        for _keepalive in range(3):  # nothing but keepalives
            assert await asyncio.wait_for(anext(lines), TIMEOUT) is None
        await driver.stop_all()

    async_to_sync(body)()  # thread-sensitive calls in this thread (see conftest)
