"""Re-derive a recorded game from its ruleset, seats, seed and decisions.

The record's first event names the ruleset, the seats and (in the server's record or
an "everything" export) the seed. Starting a new game from those, every decision in
the record is turned back into its command (:func:`bohnanza_core.command_for`) and
played; what the engine produces must equal the record, event for event. The first
difference is named: an event altered, removed, inserted or reordered, an illegal
move, or a shuffle that does not follow from the seed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from bohnanza_core.engine import command_for, new_game, play
from bohnanza_core.errors import IllegalMove, RulesetError
from bohnanza_core.events import Event, GameStarted
from bohnanza_core.state import GameState
from bohnanza_core.views import EVERYTHING, Perspective, redact


@dataclass(frozen=True)
class Rederivation:
    """The verdict. ``first_bad`` is the 1-based sequence number of the first event
    that disagrees with the rules (None when all agree)."""

    ok: bool
    events_checked: int
    first_bad: int | None
    reason: str
    finished: bool
    state: GameState | None


def show(event: Event) -> str:
    """An event as a reader of a verdict wants it: ``BeanPlanted seat=1 card=25 field=1
    source=hand`` (values as in the export, not Python's repr)."""
    from bohnanza_core.export import event_to_json

    fields = event_to_json(event)
    name = fields.pop("type")
    parts = []
    for key, value in fields.items():
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        parts.append(f"{key}={text[1:-1] if isinstance(value, str) else text}")
    return " ".join([name, *parts])


def _differ(recorded: Sequence[Event], produced: Sequence[Event], start: int,
            perspective: Perspective = EVERYTHING) -> str | None:
    for offset, full in enumerate(produced):
        index = start + offset
        expected = redact(full, perspective)
        if index >= len(recorded):
            return (f"#{index + 1}: the record ends, but the rules say {show(expected)} "
                    "comes next")
        if recorded[index] != expected:
            return (f"#{index + 1}: the record has {shown_apart(recorded[index], expected)}, "
                    f"the rules say {shown_apart(expected, recorded[index])}")
    return None


SHOWN_VALUE = 60
"""The most characters of one value a verdict quotes: a forged seed once quoted the
whole GameStarted twice, ruleset and all (1,500 characters and more)."""


def shown_apart(event: Event, other: Event) -> str:
    """``event`` as :func:`show` has it where ``other`` is of another type; of the same
    type, only the fields in which the two differ, each value cut at
    :data:`SHOWN_VALUE` characters."""
    if type(event) is not type(other):
        return show(event)
    from bohnanza_core.export import event_to_json

    mine, theirs = event_to_json(event), event_to_json(other)
    parts = [str(mine.pop("type"))]
    for key, value in mine.items():
        if theirs.get(key) == value:
            continue
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        text = text[1:-1] if isinstance(value, str) else text
        if len(text) > SHOWN_VALUE:
            text = text[:SHOWN_VALUE - 3] + "..."
        parts.append(f"{key}={text}")
    return " ".join(parts)


def rederive(events: Sequence[Event], *, perspective: Perspective = EVERYTHING,
             revealed: tuple[str, str] | None = None,
             derived: list[Event] | None = None) -> Rederivation:
    """Replay ``events`` through the rules and compare, event by event.

    ``events`` are the full record, or (``perspective``) a seat's or a spectator's
    view of a game that has ended, whose seed and salt the end revealed
    (``revealed``): the rules then derive every hidden card again from the seed, and
    each event they derive, as the perspective sees it, must equal the record's. The
    events derived, hidden values and all, are appended to ``derived`` (the hidden
    values' commitments are the caller's to compare: :mod:`bohnanza_core.verify`)."""
    if not events or not isinstance(events[0], GameStarted):
        return Rederivation(False, 0, 1, "#1: a game begins with GameStarted", False, None)
    start = events[0]
    seed, salt = revealed if revealed is not None else (start.seed, start.salt)
    if seed is None or salt is None:
        return Rederivation(False, 0, 1, "#1: the seed is not in this record", False, None)
    try:
        state, produced = new_game(start.ruleset, start.seats, seed, salt, start.tags)
    except RulesetError as exc:
        return Rederivation(False, 0, 1, f"#1: {exc}", False, None)
    if derived is not None:
        derived += produced
    problem = _differ(events, produced, 0, perspective)
    if problem:
        return _bad(problem, state)
    index = len(produced)
    while index < len(events):
        if state.finished:
            return _bad(f"#{index + 1}: the game was already over", state)
        command = command_for(events[index])
        if command is None:
            return _bad(
                f"#{index + 1}: {show(events[index])} cannot happen now; a player's decision "
                "was expected",
                state,
            )
        try:
            produced = play(state, command)
        except IllegalMove as exc:
            return _bad(f"#{index + 1}: illegal: {exc.reason} ({show(events[index])})", state)
        if derived is not None:
            derived += produced
        problem = _differ(events, produced, index, perspective)
        if problem:
            return _bad(problem, state)
        index += len(produced)
    return Rederivation(True, index, None, "every event follows from the rules and the seed",
                        state.finished, state)


def _bad(problem: str, state: GameState) -> Rederivation:
    seq = int(problem[1 : problem.index(":")])
    return Rederivation(False, seq - 1, seq, problem, state.finished, state)
