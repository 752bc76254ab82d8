"""A seat handed to a bot (events.SeatHandedToBot, the platform's HandSeatToBot): an
event of the record like any other, which moves no card, and which the record's every
reader (rederive, export, verify, narration, snapshots, the wire) knows."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bohnanza_core import new_game, play, ruleset_for
from bohnanza_core.bots import HeuristicBot
from bohnanza_core.bots.turns import fallback
from bohnanza_core.commands import COMMAND_TYPES, HandSeatToBot
from bohnanza_core.engine import awaiting, command_for, is_decision
from bohnanza_core.errors import IllegalMove
from bohnanza_core.events import Event, Handover, SeatHandedToBot
from bohnanza_core.export import export_record, read_jsonl
from bohnanza_core.games import Games, GameStateAsDict
from bohnanza_core.narrate import describe, narrate
from bohnanza_core.record import chain
from bohnanza_core.rederive import rederive
from bohnanza_core.state import GameState
from bohnanza_core.verify import verify_text
from bohnanza_core.views import SPECTATOR, redact, view
from bohnanza_core.wire import CommandFormatError, command_from_json

SEATS = ("Ann", "Bob", "Cy")


def _cards(state: GameState) -> tuple[object, ...]:
    return (state.draw_pile[:], state.discard_pile[:], [h[:] for h in state.hands],
            [[f[:] for f in fs] for fs in state.fields], [c[:] for c in state.coins],
            [t[:] for t in state.trade_areas], state.face_up[:], state.phase, state.active)


def _game_with_handover(seed: str = "handover") -> tuple[GameState, list[Event]]:
    """A 3-player classic game where Ann leaves at turn 3 and the heuristic bot plays
    her seat to the end (the others' moves: the default move)."""
    state, events = new_game(ruleset_for("classic", 3), SEATS, seed)
    bot = HeuristicBot(0, "b")
    handed = False
    for _ in range(5000):
        if state.finished:
            break
        if state.turn == 3 and not handed:
            events += play(state, HandSeatToBot(seat=0, bot="heuristic", reason=Handover.LEFT))
            handed = True
            continue
        seat = awaiting(state)[0]
        command = bot.act(view(state, 0)) if seat == 0 and handed else None
        if command is None or command.seat != seat:
            command = fallback(state, seat)
        try:
            events += play(state, command)
        except IllegalMove:
            events += play(state, fallback(state, seat))
    assert state.finished and handed
    return state, events


def test_handing_a_seat_moves_no_card_and_says_who_plays_it() -> None:
    state, _ = new_game(ruleset_for("classic", 3), SEATS, "s")
    before = _cards(state)
    events = play(state, HandSeatToBot(seat=1, bot="heuristic", reason=Handover.ABSENT))
    assert events == [SeatHandedToBot(seat=1, bot="heuristic", reason=Handover.ABSENT)]
    assert _cards(state) == before
    assert state.seat_bots == ["", "heuristic", ""]
    assert view(state, SPECTATOR).bot_of(1) == "heuristic"
    assert view(state, SPECTATOR).as_dict()["seats"][1]["bot"] == "heuristic"
    assert view(state, 0).as_dict()["seats"][0]["bot"] is None
    # Nothing is hidden in it: every perspective sees it whole.
    assert redact(events[0], SPECTATOR) is events[0]


def test_a_seat_is_handed_once_while_the_game_runs_and_only_to_a_named_bot() -> None:
    state, _ = new_game(ruleset_for("classic", 3), SEATS, "s")
    play(state, HandSeatToBot(seat=2, bot="random", reason=Handover.LEFT))
    with pytest.raises(IllegalMove, match="already played by the random bot"):
        play(state, HandSeatToBot(seat=2, bot="heuristic", reason=Handover.LEFT))
    for bad_bot in ("", " ", "x" * 41, "a\nb", 7):
        with pytest.raises(IllegalMove, match="a bot's name"):
            play(state, HandSeatToBot(seat=0, bot=bad_bot, reason=Handover.LEFT))
    with pytest.raises(IllegalMove, match="left or absent, not 'bored'"):
        play(state, HandSeatToBot(seat=0, bot="random", reason="bored"))
    with pytest.raises(IllegalMove, match="no seat 3"):
        play(state, HandSeatToBot(seat=3, bot="random", reason=Handover.LEFT))
    assert state.seat_bots == ["", "", "random"]
    finished, _ = _game_with_handover()
    with pytest.raises(IllegalMove, match="the game is over"):
        play(finished, HandSeatToBot(seat=1, bot="random", reason=Handover.LEFT))


def test_it_is_the_platforms_decision_and_no_client_can_send_it() -> None:
    event = SeatHandedToBot(seat=0, bot="heuristic", reason=Handover.LEFT)
    assert command_for(event) == HandSeatToBot(seat=0, bot="heuristic", reason=Handover.LEFT)
    assert is_decision(event)
    assert HandSeatToBot not in COMMAND_TYPES
    for kind in ("hand_seat_to_bot", "HandSeatToBot", "seat_handed_to_bot"):
        with pytest.raises(CommandFormatError, match="unknown command kind"):
            command_from_json({"kind": kind, "seat": 1, "bot": "random", "reason": "left"}, 1)


def test_a_game_with_a_handover_rederives_exports_and_verifies() -> None:
    _, events = _game_with_handover()
    assert rederive(events).ok
    # Chained as a record known only by its events: each decision credited to its seat.
    entries = chain(events)
    handed = [e for e in entries if isinstance(e.event, SeatHandedToBot)]
    assert len(handed) == 1 and handed[0].actor == "Ann"
    for perspective in (SPECTATOR, 1):
        text = export_record(entries, perspective)
        line = next(json.loads(x) for x in text.splitlines()[1:]
                    if json.loads(x)["type"] == "SeatHandedToBot")
        assert (line["seat"], line["bot"], line["reason"]) == (0, "heuristic", "left")
    text = export_record(entries)
    read = read_jsonl(text)
    assert list(read.events) == events
    verdict = verify_text(text)
    assert verdict.ok, verdict
    tampered = text.replace('"reason":"left"', '"reason":"absent"')
    assert not verify_text(tampered).ok


def test_the_command_line_verifies_a_record_with_a_handover(tmp_path: Path) -> None:
    _, events = _game_with_handover("cli")
    path = tmp_path / "game.jsonl"
    path.write_text(export_record(chain(events)), encoding="utf-8")
    tool = Path(sys.executable).parent / "bohnanza"
    done = subprocess.run([str(tool), "verify", str(path)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_narrated_in_game_words() -> None:
    ruleset = ruleset_for("classic", 3)
    left = SeatHandedToBot(seat=0, bot="heuristic", reason=Handover.LEFT)
    away = SeatHandedToBot(seat=1, bot="random", reason=Handover.ABSENT)
    assert describe(left, ruleset, SEATS) == "Ann left; the heuristic bot plays the seat"
    assert describe(away, ruleset, SEATS) == ("Bob stayed away too long; the random bot "
                                              "plays the seat")
    _, events = _game_with_handover()
    assert "Ann left; the heuristic bot plays the seat" in list(narrate(events))


def test_snapshots_keep_who_plays_each_seat_and_read_old_ones() -> None:
    state, _ = new_game(ruleset_for("classic", 3), SEATS, "s")
    play(state, HandSeatToBot(seat=1, bot="random", reason=Handover.LEFT))
    codec = GameStateAsDict()
    data = json.loads(json.dumps(codec.encode(state), default=list))
    assert codec.decode(data).seat_bots == ["", "random", ""]
    del data["seat_bots"]  # a snapshot stored before seats could be handed over
    assert codec.decode(data).seat_bots == ["", "", ""]
    copy = state.copy()
    copy.seat_bots[0] = "x"
    assert state.seat_bots[0] == ""


def test_a_stored_game_keeps_the_handover_in_its_chain() -> None:
    games = Games(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    game = games.start(ruleset_for("classic", 3), SEATS, players=["user:ann", "user:bob",
                                                                   "bot:random"])
    entries = games.play(game.id, HandSeatToBot(seat=0, bot="heuristic",
                                                reason=Handover.LEFT), "user:ann")
    assert [e.event for e in entries] == [SeatHandedToBot(0, "heuristic", Handover.LEFT)]
    record = games.record(game.id)
    assert record[-1].actor == "user:ann"
    again = games.game(game.id)
    assert again.state.seat_bots == ["heuristic", "", ""]
    assert again.players == ("user:ann", "user:bob", "bot:random")
    text = export_record(record)
    assert verify_text(text).ok
