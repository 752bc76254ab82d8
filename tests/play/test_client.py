"""The client package's own handling (clients/python), on frames fed to it without a
server: a gap makes it ask for the whole view, an allowance's retry_after pauses its
sending, a handshake refusal is raised with its code and close code, a command lost
with its connection is sent again. (tests/services/test_bot_client.py plays it against
a live server.)"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.frames import Close

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients" / "python"))

from bohnanza_client import HandshakeRefused, TableClient, fallback, socket_url
from bohnanza_client.state import State


class FakeSocket:
    """Frames to hand out, then a close with ``code``; what the client sent."""

    def __init__(self, frames: list[dict[str, Any]], code: int = 1000) -> None:
        self.frames, self.code, self.sent = list(frames), code, []

    async def recv(self) -> str:
        await asyncio.sleep(0)
        if not self.frames:
            raise ConnectionClosed(Close(self.code, ""), None)
        return json.dumps(self.frames.pop(0))

    async def send(self, text: str) -> None:
        self.sent.append(json.loads(text))

    async def close(self) -> None:
        pass


def state(version: int, since: int, *, awaiting: tuple[int, ...] = (0,),
          finished: bool = False, ref: object = None) -> dict[str, Any]:
    frame: dict[str, Any] = {
        "type": "state", "since": since, "version": version, "seat": 0, "finished": finished,
        "legal": [{"kind": "end_planting"}, {"kind": "harvest", "field": 0}],
        "facts": {"planted": 1, "ending": False, "harvestable": [[True]], "rules": {}},
        "answer": {"table": {"awaiting": list(awaiting), "phase": "planting from the hand",
                             "active": 0, "turn": 1, "seats": [], "card_kinds": []}}}
    if ref is not None:
        frame["ref"] = ref
    return frame


def client_with(socket: FakeSocket, **kwargs: Any) -> TableClient:
    client = TableClient("http://example.test", "t", token="x", reconnect=False, **kwargs)
    client.socket = socket  # type: ignore[assignment]
    return client


def test_socket_addresses() -> None:
    assert socket_url("https://b.example", "t1") == "wss://b.example/ws/tables/t1/?html=0"
    assert socket_url("127.0.0.1:8000", "t1", invite="i") == (
        "ws://127.0.0.1:8000/ws/tables/t1/?html=0&invite=i")


def test_a_gap_asks_for_the_whole_view_and_refs_are_matched() -> None:
    socket = FakeSocket([state(5, 5), state(6, 5, ref=1), state(9, 8), state(9, 9)])
    client = client_with(socket)

    async def run() -> None:
        async for _frame in client.frames():
            pass
    with pytest.raises(Exception, match="closed"):
        asyncio.run(run())
    assert {"type": "sync"} in socket.sent  # 9 came from 8, held 6: a gap
    assert 1 in client.reflected and client.version == 9


def test_a_handshake_refusal_is_raised_with_its_codes() -> None:
    socket = FakeSocket([{"type": "error", "code": "bad_token", "reason": "no",
                          "ref": None}], code=4401)
    client = client_with(socket)

    async def run() -> None:
        async for _frame in client.frames():
            pass
    with pytest.raises(HandshakeRefused) as refused:
        asyncio.run(run())
    assert (refused.value.code, refused.value.close_code) == ("bad_token", 4401)


def test_play_answers_awaited_frames_once_and_again_after_a_lost_command() -> None:
    socket = FakeSocket([state(5, 5), state(5, 5, awaiting=(1,)), state(5, 5),
                         {"type": "error", "code": "too_many_refused", "reason": "wait",
                          "ref": 9, "retry_after": 0.05},
                         state(6, 5, finished=True)])
    client = client_with(socket)
    asked: list[int] = []

    def decide(s: State) -> dict[str, Any] | None:
        asked.append(s.version)
        return s.commands[0] if s.awaited else None

    last = asyncio.run(client.play(decide))
    assert last.finished
    commands = [f for f in socket.sent if f["type"] == "command"]
    # 5 answered; the whole view of 5 again (a reconnection's: the command was lost)
    # answered again; the frame that does not await the seat answered with None.
    assert [c["version"] for c in commands] == [5, 5]
    assert asked == [5, 5, 5]
    assert [r.code for r in client.refusals] == ["too_many_refused"]
    assert client._paused_until > 0  # sending waits out retry_after


def test_a_stale_refusals_retry_after_does_not_pause_the_commands() -> None:
    """A stale refusal past the sync allowance carries retry_after (when a sync is
    allowed again); commands spend no allowance, so sending does not wait for it."""
    socket = FakeSocket([state(5, 5), {"type": "error", "code": "stale", "reason": "moved on",
                                       "ref": 1, "retry_after": 30.0},
                         state(6, 5, finished=True)])
    client = client_with(socket)
    asyncio.run(client.play(lambda s: None))
    assert [r.code for r in client.refusals] == ["stale"]
    assert client._paused_until == 0.0


def test_fallback_lets_the_game_go_on() -> None:
    assert fallback(State(state(5, 5))) == {"kind": "end_planting"}
    assert fallback(State(state(5, 5, awaiting=(1,)))) is None


def test_the_clients_codes_are_the_documented_ones() -> None:
    """The client package carries the refusal codes of the frames' schema (it imports
    nothing of the platform), and the handshake's close codes of docs/protocol.md."""
    from bohnanza_client import refusals as client_refusals

    from play import refusals

    schema = json.loads((Path(__file__).resolve().parents[2] / "docs" / "schema"
                         / "server-frame.json").read_text())
    assert list(client_refusals.CODES) == schema["$defs"]["code"]["enum"]
    assert client_refusals.HANDSHAKE == refusals.HANDSHAKE


def test_a_player_plays_the_games_in_hand_to_their_end_before_it_stops() -> None:
    """An outside bot author's walkthrough: ``Player.run(games=1)`` stopped when an older
    game ended first and left the challenge's game mid-play (its clock played on for
    it). Now the games in hand are played to their end, and once ``games`` are over no
    new game is started and no challenge answered."""
    from bohnanza_client import Player

    release: dict[str, asyncio.Event] = {}
    answered: list[str] = []

    class Stream:
        server, token = "http://127.0.0.1:1", "t"

        def __init__(self) -> None:
            self.lines: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()

        async def events(self) -> Any:
            while (event := await self.lines.get()) is not None:
                yield event

    class Scripted(Player):
        async def play(self, start: dict[str, Any]) -> Any:
            table = start["table"]["id"]
            release[table] = asyncio.Event()
            await release[table].wait()
            return None

        async def answer(self, challenge: dict[str, Any]) -> None:
            answered.append(challenge["table"]["id"])

    async def scenario() -> list[str]:
        stream = Stream()
        player = Scripted(stream, lambda: fallback, log=None)  # type: ignore[arg-type]
        running = asyncio.create_task(player.run(games=1))
        for table in ("old", "challenge"):
            await stream.lines.put({"type": "gameStart", "table": {"id": table}})
        while len(release) < 2:
            await asyncio.sleep(0)
        release["old"].set()
        await stream.lines.put({"type": "gameFinish", "table": {"id": "old"}})
        await stream.lines.put({"type": "challenge", "table": {"id": "late"}})
        await stream.lines.put({"type": "gameStart", "table": {"id": "late"}})
        await asyncio.sleep(0.05)
        assert not running.done()  # the challenge's game is still being played
        assert not player.games["challenge"].done()
        release["challenge"].set()
        await stream.lines.put({"type": "gameFinish", "table": {"id": "challenge"}})
        await asyncio.wait_for(running, 5)
        return sorted(player.games)

    assert asyncio.run(scenario()) == ["challenge", "old"]  # "late" never started
    assert answered == []


def test_a_seat_lost_ends_play_with_its_reason_not_a_result() -> None:
    """After leaving a game (or staying away) the client went on watching and took the
    bot's result for its own: a ``left`` frame now ends ``play`` with SeatLost."""
    from bohnanza_client import SeatLost

    socket = FakeSocket([state(5, 5), {"type": "left", "protocol": 3, "reason": "left"},
                         state(6, 5, finished=True)])
    with pytest.raises(SeatLost) as lost:
        asyncio.run(client_with(socket).play(lambda s: None))
    assert lost.value.reason == "left"


def test_a_player_replaced_by_another_stream_raises_and_stops_its_games() -> None:
    """A second process with the same token took the first's stream, and the first
    returned as if done: ``run`` now raises StreamReplaced, its games stopped."""
    from bohnanza_client import Player, StreamReplaced

    class Stream:
        server, token = "http://127.0.0.1:1", "t"

        async def events(self) -> Any:
            yield {"type": "gameStart", "table": {"id": "ladder"}}
            await asyncio.sleep(0.01)
            yield {"type": "replaced"}

    class Forever(Player):
        async def play(self, start: dict[str, Any]) -> Any:
            await asyncio.Event().wait()

    player = Forever(Stream(), lambda: fallback, log=None)  # type: ignore[arg-type]
    with pytest.raises(StreamReplaced):
        asyncio.run(player.run())
    assert player.games["ladder"].cancelled() and player.results == {}
