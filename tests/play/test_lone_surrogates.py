"""A frame's ``ref`` that JSON reads as a lone surrogate (``"\\ud800"``, valid JSON
text) is echoed like any other: it once made orjson refuse the answer, and the
socket was closed with 1011 (internal error) instead of a ``pong``."""

from __future__ import annotations

import json
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.auth import AuthMiddlewareStack
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from play import live
from play.lobby import forget_snapshot
from play.routing import websocket_urlpatterns

pytestmark = pytest.mark.django_db(transaction=True)

APP = AuthMiddlewareStack(URLRouter(websocket_urlpatterns))


def test_a_lone_surrogate_is_written_as_the_standard_encoder_writes_it() -> None:
    frame: dict[str, Any] = {"type": "pong", "ref": "\ud800x"}
    assert live.json_text(frame) == json.dumps(frame, separators=(",", ":"))
    assert json.loads(live.json_text(frame)) == frame


def test_the_lobby_answers_a_ping_whose_ref_is_a_lone_surrogate() -> None:
    forget_snapshot()

    async def body() -> None:
        lobby = WebsocketCommunicator(APP, "/ws/lobby/")
        assert (await lobby.connect(timeout=5))[0]
        assert json.loads(await lobby.receive_from(timeout=5))["type"] == "lobby"
        await lobby.send_to(text_data='{"type": "ping", "ref": "\\ud800"}')
        answer = json.loads(await lobby.receive_from(timeout=5))
        assert answer == {"type": "pong", "protocol": live.PROTOCOL, "ref": "\ud800"}
        await lobby.send_to(text_data='{"type": "ping", "ref": 2}')
        assert json.loads(await lobby.receive_from(timeout=5))["ref"] == 2
        await lobby.disconnect()

    async_to_sync(body)()
