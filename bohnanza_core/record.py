"""The record of a game: its events in order, each chained to the one before.

An :class:`Entry` is one stored event with what the store knows about it: its
sequence number, who issued the command it records (``actor``), when it was stored
(``at``), and the hash of the entry before it (``previous_hash``). The hash of an
entry is SHA-256 over its canonical encoding, which includes ``previous_hash``; so
changing, removing, inserting or reordering any entry changes the hash of the last
one, the *head*. The head goes to every seat with every update (docs/store.md), so
a record changed afterwards no longer ends in the head the players were shown.

The canonical encoding is JSON with sorted keys, no spaces, UTF-8, and the event in
its export form (:func:`bohnanza_core.export.event_to_json`): anyone can recompute
it from an exported file without this code (docs/export.md has the recipe).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bohnanza_core.engine import command_for
from bohnanza_core.events import Event, GameStarted
from bohnanza_core.rulesets import Ruleset

GENESIS = "0" * 64
"""The ``previous_hash`` of a game's first entry."""

_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
"""The reference encoder of the canonical form; :func:`canonical_entry` writes the
same bytes faster (a test compares them on every event of many games)."""

_quote = json.encoder.encode_basestring  # the C-accelerated string quoter, no ASCII escaping


def _value(value: Any) -> str:
    # Hand-written because this runs for every stored event (bench/store.py): the
    # json module builds a new encoder per call, which costs more than the event.
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if type(value) is int:
        return str(value)
    if isinstance(value, str):  # plain strings and string enums (their value)
        return _quote(str.__str__(value))
    if isinstance(value, tuple | list):
        return "[" + ",".join([_value(v) for v in value]) + "]"
    return _CANONICAL.encode(value)  # a ruleset's parameters: rare, keep the reference


def _event_keys(cls: type[Event]) -> tuple[tuple[str, str], ...]:
    names = sorted([*(f.name for f in dataclasses.fields(cls)), "type"])
    return tuple((name, _quote(name) + ":") for name in names)


_KEYS: dict[type[Event], tuple[tuple[str, str], ...]] = {}


def canonical_event(event: Event) -> str:
    """The event in canonical JSON: its fields and ``type``, keys sorted."""
    cls = type(event)
    keys = _KEYS.get(cls)
    if keys is None:
        keys = _KEYS[cls] = _event_keys(cls)
    parts = []
    for name, key in keys:
        if name == "type":
            parts.append(key + _quote(cls.__name__))
        else:
            value = getattr(event, name)
            if isinstance(value, Ruleset):
                parts.append(key + _CANONICAL.encode(value.parameters()))
            else:
                parts.append(key + _value(value))
    return "{" + ",".join(parts) + "}"


def canonical_entry(
    seq: int, event: Event, actor: str | None, at: str | None, previous_hash: str
) -> bytes:
    """The bytes an entry's hash is taken over (and the store keeps): canonical JSON of
    ``{"actor", "at", "event", "previous_hash", "seq"}``, keys sorted, no spaces, UTF-8."""
    return (
        '{"actor":' + _value(actor) + ',"at":' + _value(at) + ',"event":'
        + canonical_event(event) + ',"previous_hash":' + _quote(previous_hash)
        + ',"seq":' + str(seq) + "}"
    ).encode("utf-8")


@dataclass(frozen=True, slots=True)
class Entry:
    """One event of the record, with its place in the chain."""

    seq: int
    event: Event
    actor: str | None
    at: str | None
    previous_hash: str

    def canonical(self) -> bytes:
        """The bytes the hash is taken over (docs/export.md, "The hash chain")."""
        return canonical_entry(self.seq, self.event, self.actor, self.at, self.previous_hash)

    def reference_canonical(self) -> bytes:
        """The same bytes by the json module: the definition :meth:`canonical` keeps to."""
        from bohnanza_core.export import event_to_json

        body = {"seq": self.seq, "event": event_to_json(self.event), "actor": self.actor,
                "at": self.at, "previous_hash": self.previous_hash}
        return _CANONICAL.encode(body).encode("utf-8")

    @property
    def hash(self) -> str:
        return hashlib.sha256(self.canonical()).hexdigest()


def head_hash(entries: Sequence[Entry]) -> str:
    """The hash of the last entry (:data:`GENESIS` for an empty record)."""
    return entries[-1].hash if entries else GENESIS


def decision_actor(event: Event, seats: Sequence[str]) -> str | None:
    """Who decided ``event`` when only the game itself is known: the seat's name for
    a player's decision, None for what the table does by itself (deals, draws...)."""
    command = command_for(event)
    return None if command is None else seats[command.seat]


def chain(
    events: Sequence[Event],
    actors: Sequence[str | None] | None = None,
    times: Sequence[str | None] | None = None,
) -> list[Entry]:
    """Chain ``events`` into entries. Without ``actors``, each decision is credited to
    its seat's name (:func:`decision_actor`); without ``times``, ``at`` is None."""
    seats: tuple[str, ...] = ()
    if events and isinstance(events[0], GameStarted):
        seats = events[0].seats
    entries: list[Entry] = []
    previous = GENESIS
    for index, event in enumerate(events):
        actor = actors[index] if actors is not None else decision_actor(event, seats)
        at = times[index] if times is not None else None
        entry = Entry(index + 1, event, actor, at, previous)
        entries.append(entry)
        previous = entry.hash
    return entries


@dataclass(frozen=True)
class ChainCheck:
    """Whether each entry carries the hash of the one before, and the last one hashes
    to the expected head. ``broken_at`` is the first entry whose ``previous_hash``
    does not match (``len + 1`` when only the head differs)."""

    ok: bool
    broken_at: int | None
    reason: str
    head: str


def check_chain(entries: Sequence[Entry], expected_head: str | None = None) -> ChainCheck:
    """Walk the chain from :data:`GENESIS`; compare the end with ``expected_head``."""
    previous = GENESIS
    for index, entry in enumerate(entries):
        if entry.previous_hash != previous:
            if index == 0:
                reason = "#1 does not start the chain (its previous hash is not the genesis)"
            else:
                reason = (
                    f"#{index + 1} is not chained to #{index}: #{index} was changed, or "
                    f"events were removed or inserted between them"
                )
            return ChainCheck(False, index + 1, reason, head_hash(entries))
        previous = entry.hash
    if expected_head is not None and previous != expected_head:
        last = len(entries)
        return ChainCheck(
            False,
            last + 1,
            f"the record ends in hash {previous[:12]}..., not in the head {expected_head[:12]}... "
            f"it was published with: #{last} was changed, or events were added or cut off",
            previous,
        )
    return ChainCheck(True, None, f"{len(entries)} events chained, head {previous}", previous)


__all__ = ["GENESIS", "ChainCheck", "Entry", "canonical_entry", "canonical_event", "chain",
           "check_chain", "decision_actor", "head_hash"]
