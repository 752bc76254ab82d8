"""A move the clock or the absence rule played is told as theirs, never as the seat's
own: in a narration with the record's actors (the live log, the replay's log, an
export told by ``bohnanza narrate``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bohnanza_core.bots.turns import fallback
from bohnanza_core.cli import main
from bohnanza_core.commands import HandSeatToBot
from bohnanza_core.engine import new_game, play
from bohnanza_core.events import Handover
from bohnanza_core.export import export_record
from bohnanza_core.narrate import CLOCK, Narrator, command_seat, narrate
from bohnanza_core.record import chain, command_actors
from bohnanza_core.rulesets import ruleset_for

SEATS = ("ann", "bob", "cy")


def _game(moves: int) -> tuple[list, list[str | None]]:
    """A classic game's first ``moves`` default moves, each credited to the clock."""
    ruleset = ruleset_for("classic", 3)
    state, events = new_game(ruleset, SEATS, "narrate-actors")
    events = list(events)
    actors: list[str | None] = [None] * len(events)
    from bohnanza_core.engine import awaiting
    for _ in range(moves):
        seat = awaiting(state)[0]
        new = play(state, fallback(state, seat))
        events += new
        actors += [CLOCK] + [None] * (len(new) - 1)
    return events, actors


def test_the_clocks_move_is_told_as_the_clocks() -> None:
    events, actors = _game(1)
    narrator = Narrator(ruleset_for("classic", 3), SEATS)
    opened = len(events) - next(i for i, a in enumerate(reversed(actors)) if a) - 1
    event = events[opened]
    mover = command_seat(event)
    assert mover is not None
    plain = narrator.describe(event)
    told = narrator.describe(event, CLOCK)
    assert told == f"The clock plays for {SEATS[mover]}: {plain}"
    # The seat's own move, a bot's or a person's, is told as before.
    assert narrator.describe(event, f"user:{SEATS[mover]}") == plain
    assert narrator.describe(event, None) == plain


def test_events_the_rules_play_by_themselves_are_never_the_clocks() -> None:
    """Only the event that opens a command carries the actor: the draws after it stay
    the table's, even if a caller passes the actor along."""
    events, _ = _game(0)
    narrator = Narrator(ruleset_for("classic", 3), SEATS)
    dealt = events[3]
    assert command_seat(dealt) is None
    assert narrator.describe(dealt, CLOCK) == narrator.describe(dealt)


def test_a_handover_by_absence_is_told_once() -> None:
    ruleset = ruleset_for("classic", 3)
    state, _ = new_game(ruleset, SEATS, "absence")
    (handed,) = play(state, HandSeatToBot(seat=1, bot="heuristic", reason=Handover.ABSENT))
    line = Narrator(ruleset, SEATS).describe(handed, "absence")
    assert line == "bob stayed away too long; the heuristic bot plays the seat"


def test_narrate_tells_every_clock_move(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                        ) -> None:
    """An export's narration (``bohnanza narrate FILE``) reads each entry's actor."""
    events, actors = _game(6)
    seats = command_actors(events, SEATS)
    mixed = [CLOCK if a == CLOCK and i % 2 else seats[i] for i, a in enumerate(actors)]
    lines = list(narrate(events, actors=mixed))
    assert sum(line.startswith("The clock plays for ") for line in lines) == sum(
        a == CLOCK for a in mixed) >= 2
    path = tmp_path / "game.jsonl"
    path.write_text(export_record(chain(events, actors=mixed)))
    assert main(["narrate", str(path)]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed == lines


def test_narrate_refuses_a_file_that_is_no_export(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text("{not json\n")
    assert main(["narrate", str(path)]) == 1
    assert capsys.readouterr().err.startswith("bohnanza: ")
