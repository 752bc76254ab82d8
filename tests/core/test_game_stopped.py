"""A game the platform ended (events.GameStopped, the platform's StopGame): a fixture past
its deadline, a table abandoned by everyone, an arbiter's ruling. The result as scored and
the seed and salt revealed, in an event that every reader of a record (rederive, export,
verify, the command line, narration, views, snapshots) knows, and after which nothing
happens."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bohnanza_core import new_game, play, ruleset_for
from bohnanza_core.bots.turns import fallback
from bohnanza_core.commands import COMMAND_TYPES, EndPlanting, PlantFromHand, StopGame
from bohnanza_core.commitments import seed_commitment
from bohnanza_core.engine import awaiting, command_for, is_decision, legal_commands
from bohnanza_core.errors import IllegalMove
from bohnanza_core.events import GameStarted, GameStopped, StopReason
from bohnanza_core.export import export_record, read_jsonl
from bohnanza_core.games import Games, GameStateAsDict
from bohnanza_core.narrate import narrate
from bohnanza_core.record import chain
from bohnanza_core.rederive import rederive
from bohnanza_core.state import GameState, Phase
from bohnanza_core.verify import verify_text
from bohnanza_core.views import EVERYTHING, SPECTATOR, redact, view
from bohnanza_core.wire import CommandFormatError, command_from_json

SEATS = ("Ann", "Bob", "Cy", "Di")


def _midgame(seed: str = "stopped", turns: int = 9) -> tuple[GameState, list]:
    """A 4-player classic game played by the default move up to turn ``turns``: some
    seats have coins, some do not."""
    state, events = new_game(ruleset_for("classic", 4), SEATS, seed)
    while state.turn < turns:
        events += play(state, fallback(state, awaiting(state)[0]))
    return state, events


def test_a_stop_scores_the_coins_banked_and_reveals_the_seed() -> None:
    state, events = _midgame()
    coins = tuple(len(c) for c in state.coins)
    assert len(set(coins)) > 1  # the places mean something
    seed, salt = state.seed, state.salt
    stopped = play(state, StopGame(reason=StopReason.DEADLINE))
    assert len(stopped) == 1
    (event,) = stopped
    assert isinstance(event, GameStopped)
    assert event.coins == coins
    assert event.ranks == tuple(1 + sum(1 for o in coins if o > c) for c in coins)
    assert event.winners == tuple(s for s in range(4) if event.ranks[s] == 1)
    assert (event.seed, event.salt) == (seed, salt)
    start = events[0]
    assert isinstance(start, GameStarted)
    assert seed_commitment(event.seed, event.salt) == start.seed_commitment
    assert state.finished and state.phase is Phase.GAME_OVER
    assert state.result is not None and state.result.ranks == event.ranks
    # public: every perspective sees it whole, and the game is over for everyone
    assert redact(event, SPECTATOR) is event and redact(event, 2) is event
    assert view(state, SPECTATOR).as_dict()["result"]["ranks"] == list(event.ranks)
    assert view(state, EVERYTHING).finished


def test_nothing_is_played_after_a_stop() -> None:
    state, _ = _midgame()
    seat = awaiting(state)[0]
    play(state, StopGame(reason=StopReason.ABANDONED))
    assert awaiting(state) == () and legal_commands(state, seat) == []
    for command in (EndPlanting(seat=seat), PlantFromHand(seat=seat, field=0),
                    StopGame(reason=StopReason.RULING)):
        with pytest.raises(IllegalMove, match="the game is over"):
            play(state, command)


def test_an_arbiter_rules_the_places_only_by_a_ruling_and_in_a_ranking_shape() -> None:
    state, _ = _midgame()
    ruled = play(state.copy(), StopGame(reason=StopReason.RULING, ranks=(2, 1, 3, 3)))
    assert ruled[0].ranks == (2, 1, 3, 3) and ruled[0].winners == (1,)
    assert ruled[0].coins == tuple(len(c) for c in state.coins)  # coins as banked
    bad = [(1, 2, 3), (1, 1, 2, 4), (0, 1, 2, 3), (1, 2, 3, 5), ("1", 2, 3, 4),
           (True, 2, 3, 4), 7, "1234", (1, 2, 3, 4, 5)]
    for ranks in bad:
        with pytest.raises(IllegalMove, match=r"ruling ranks every seat|ranks count from 1"):
            play(state, StopGame(reason=StopReason.RULING, ranks=ranks))
    with pytest.raises(IllegalMove, match="only an arbiter's ruling names the places"):
        play(state, StopGame(reason=StopReason.DEADLINE, ranks=(1, 2, 3, 4)))
    with pytest.raises(IllegalMove, match="deadline, abandoned, ruling, not 'bored'"):
        play(state, StopGame(reason="bored"))
    assert not state.finished  # every refusal left the game as it was


def test_it_is_the_platforms_decision_and_no_client_can_send_it() -> None:
    state, _ = _midgame()
    (deadline,) = play(state.copy(), StopGame(reason=StopReason.DEADLINE))
    (ruling,) = play(state.copy(), StopGame(reason=StopReason.RULING, ranks=(1, 1, 1, 4)))
    assert command_for(deadline) == StopGame(reason=StopReason.DEADLINE)
    assert command_for(ruling) == StopGame(reason=StopReason.RULING, ranks=(1, 1, 1, 4))
    assert is_decision(deadline) and is_decision(ruling)
    assert StopGame not in COMMAND_TYPES
    for kind in ("stop_game", "StopGame", "game_stopped"):
        with pytest.raises(CommandFormatError, match="unknown command kind"):
            command_from_json({"kind": kind, "reason": "ruling", "ranks": [1, 2, 3, 4]}, 1)


@pytest.mark.parametrize("reason", list(StopReason))
def test_a_stopped_game_rederives_exports_and_verifies(reason: StopReason) -> None:
    state, events = _midgame(f"export {reason}")
    ranks = (1, 2, 2, 4) if reason is StopReason.RULING else None
    events += play(state, StopGame(reason=reason, ranks=ranks))
    result = rederive(events)
    assert result.ok and result.finished, result.reason
    entries = chain(events)
    assert entries[-1].actor is None  # no seat decided it: the platform names its actor
    text = export_record(entries)
    assert list(read_jsonl(text).events) == events
    verdict = verify_text(text)
    assert verdict.ok and verdict.finished, verdict
    last = json.loads(text.splitlines()[-1])
    assert last["type"] == "GameStopped" and last["reason"] == reason.value
    # A seat's file of the stopped game: the seed revealed at its end checks out.
    seat_file = export_record(entries, 1)
    seat_verdict = verify_text(seat_file)
    assert seat_verdict.ok and seat_verdict.finished, seat_verdict
    assert any(c.name == "seed" and not c.skipped for c in seat_verdict.checks)
    # Altered places, or a seed that does not open the commitment, do not pass.
    forged = text.replace(json.dumps(list(events[-1].ranks), separators=(",", ":")),
                          "[4,3,2,1]")
    assert forged != text and not verify_text(forged).ok
    seatless = seat_file.replace(f'"seed":"{events[-1].seed}"', '"seed":"guessed"')
    assert seatless != seat_file and not verify_text(seatless).ok


def test_rederive_refuses_scores_that_are_not_the_coins_banked() -> None:
    state, events = _midgame("forged")
    (stopped,) = play(state, StopGame(reason=StopReason.DEADLINE))
    lie = GameStopped(reason=stopped.reason, coins=tuple(c + 1 for c in stopped.coins),
                      winners=stopped.winners, ranks=stopped.ranks, seed=stopped.seed,
                      salt=stopped.salt)
    result = rederive([*events, lie])
    assert not result.ok and result.first_bad == len(events) + 1


def test_the_command_line_verifies_a_stopped_game(tmp_path: Path) -> None:
    state, events = _midgame("cli")
    events += play(state, StopGame(reason=StopReason.DEADLINE))
    path = tmp_path / "game.jsonl"
    path.write_text(export_record(chain(events)), encoding="utf-8")
    tool = Path(sys.executable).parent / "bohnanza"
    done = subprocess.run([str(tool), "verify", str(path)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_narrated_in_game_words() -> None:
    state, events = _midgame("story")
    events += play(state, StopGame(reason=StopReason.DEADLINE))
    line = list(narrate(events))[-1]
    assert line.startswith("The platform stops the game (the fixture's deadline passed): ")
    assert "the seed was" in line


def test_a_stored_game_records_the_stop_and_refuses_moves_after_it() -> None:
    games = Games(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    game = games.start(ruleset_for("classic", 4), SEATS,
                       players=["user:ann", "user:bob", "bot:random", "bot:random"])
    entries = games.play(game.id, StopGame(reason=StopReason.RULING, ranks=(1, 2, 3, 4)),
                         "arbiter:zoe")
    assert isinstance(entries[-1].event, GameStopped)
    record = games.record(game.id)
    assert record[-1].actor == "arbiter:zoe"
    again = games.game(game.id)
    assert again.finished and again.state.result is not None
    assert again.state.result.ranks == (1, 2, 3, 4)
    codec = GameStateAsDict()  # a snapshot of a stopped game keeps its result
    data = json.loads(json.dumps(codec.encode(again.state), default=list))
    assert codec.decode(data).result == again.state.result
    with pytest.raises(IllegalMove, match="the game is over"):
        games.play(game.id, EndPlanting(seat=0), "user:ann")
    assert verify_text(export_record(record)).ok
