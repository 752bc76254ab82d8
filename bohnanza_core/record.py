"""The record of a game: its events in order, each chained to the one before.

An :class:`Entry` is one stored event with what the store knows about it: its
sequence number, who issued the command it records (``actor``), when it was stored
(``at``), and the hash of the entry before it (``previous_hash``). The hash of an
entry is SHA-256 over its canonical encoding, which includes ``previous_hash``; so
changing, removing, inserting or reordering any entry changes the hash of the last
one, the *head*. The head goes to every seat with every update (docs/store.md), so
a record changed afterwards no longer ends in the head the players were shown.

The canonical encoding is JSON with sorted keys, no spaces, UTF-8, and the event in
its export form (:func:`bohnanza_core.eventjson.event_to_json`), except that every
hidden field (``Event.SECRET``) holds its salted commitment instead of its value
(:mod:`bohnanza_core.commitments`): the chain, and so the head every seat is shown,
reveals nothing that any perspective may not see. Anyone can recompute it from an
exported file without this code (docs/export.md has the recipe).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import types
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from bohnanza_core.commands import Command, StopGame, seat_of
from bohnanza_core.commitments import SALT_HEX_DIGITS, commit, value_salt
from bohnanza_core.engine import command_for, new_game, play
from bohnanza_core.errors import IllegalMove, RulesetError
from bohnanza_core.eventfields import FIELD_TYPES
from bohnanza_core.eventjson import event_to_json
from bohnanza_core.events import Event, GameStarted
from bohnanza_core.rulesets import Ruleset

GENESIS = "0" * 64
"""The ``previous_hash`` of a game's first entry."""

_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
"""The reference encoder of the canonical form; :func:`canonical_entry` writes the
same bytes faster (a test compares them on every event of many games)."""

json_string: Callable[[str], str] = json.encoder.encode_basestring
"""A str as a canonical JSON string: quoted, escaped, non-ASCII kept (the C quoter)."""
_quote = json_string

# The C encoder behind _CANONICAL, made once: calling it directly skips the json
# module's per-call set-up, and being the same encoder with the same settings, it
# writes the same bytes (tuples as arrays, string enums as their values).
_C_ENCODE = (json.encoder.c_make_encoder(  # type: ignore[attr-defined]
    None, None, _quote, None, ":", ",", True, False, True)
    if json.encoder.c_make_encoder is not None else None)  # type: ignore[attr-defined]


def _array(value: tuple[Any, ...] | list[Any]) -> str:
    if _C_ENCODE is None:  # pragma: no cover - CPython always has the C encoder
        return _CANONICAL.encode(value)
    try:
        return "".join(_C_ENCODE(value, 0))
    except TypeError:  # something only _plain knows (a ruleset in a tuple): never stored
        return "[" + ",".join([_value(v) for v in value]) + "]"


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
        return _array(value)
    if isinstance(value, Ruleset):
        return _CANONICAL.encode(value.parameters())
    return _CANONICAL.encode(value)  # anything else: the reference


def _field_code(name: str, hint: Any, env: dict[str, Any]) -> str:
    """A Python expression writing field ``name`` (a local of the same name) of type
    ``hint`` as canonical JSON; anything of another type than declared goes through
    :func:`_value`, so the bytes stay the reference's whatever the event holds."""
    args = typing.get_args(hint)
    if typing.get_origin(hint) in (typing.Union, types.UnionType) and type(None) in args:
        rest = [a for a in args if a is not type(None)]
        inner = _field_code(name, rest[0], env) if len(rest) == 1 else f"_value({name})"
        return f"('null' if {name} is None else {inner})"
    if hint is bool:
        return f"('true' if {name} is True else 'false' if {name} is False else _value({name}))"
    if hint is int:
        return f"(str({name}) if type({name}) is int else _value({name}))"
    if hint is str:
        return f"(_quote({name}) if type({name}) is str else _value({name}))"
    if isinstance(hint, type) and issubclass(hint, StrEnum):
        table = f"_{hint.__name__}_json"
        env[table] = {member: _quote(member.value) for member in hint}
        env[hint.__name__] = hint
        return f"({table}[{name}] if type({name}) is {hint.__name__} else _value({name}))"
    if typing.get_origin(hint) is tuple:
        return f"(_array({name}) if type({name}) is tuple else _value({name}))"
    return f"_value({name})"


def _compile_encoder(cls: type[Event]) -> Callable[..., str]:
    """The canonical JSON writer of one event class, generated from its fields' types:
    one string concatenation with the keys already sorted and quoted. Generated
    because this runs for every stored event (bench/store.py: about 2x faster than
    a generic walk over the fields); tests/core/test_verify.py compares its bytes
    with :meth:`Entry.reference_canonical` on every event of many games.

    The writer takes the event and ``sealed``, the commitments to its hidden fields
    in ``cls.SECRET`` order, which it writes in their place (64 hex digits need no
    escaping)."""
    hints = FIELD_TYPES[cls]
    env: dict[str, Any] = {"_value": _value, "_quote": _quote, "_array": _array}
    names = sorted([*(f.name for f in dataclasses.fields(cls)), "type"])
    loads, parts = [], []
    for index, name in enumerate(names):
        key = ("{" if index == 0 else ",") + _quote(name) + ":"
        if name == "type":
            parts.append(repr(key + _quote(cls.__name__)))
            continue
        if name in cls.SECRET:
            parts.append(f"{key + chr(34)!r} + sealed[{cls.SECRET.index(name)}] + '\"'")
            continue
        local = f"f_{name}"
        loads.append(f"    {local} = event.{name}\n")
        if name in cls.OPTIONAL:  # written only when not empty (Event.OPTIONAL)
            assert index > 0, "an optional field never comes first"
            parts.append(f"({key!r} + {_field_code(local, hints[name], env)} "
                         f"if {local} else '')")
            continue
        parts.append(f"{key!r} + {_field_code(local, hints[name], env)}")
    source = (f"def encode_{cls.__name__}(event, sealed=()):\n" + "".join(loads)
              + "    return " + " + ".join(parts) + " + '}'\n")
    exec(compile(source, f"<canonical {cls.__name__}>", "exec"), env)
    encoder: Callable[..., str] = env[f"encode_{cls.__name__}"]
    return encoder


def _compile_secrets(cls: type[Event]) -> Callable[[Event], tuple[str, ...]]:
    """The writer of an event class's hidden values as canonical JSON texts, in
    ``cls.SECRET`` order (generated for the same reason as the encoders)."""
    hints = FIELD_TYPES[cls]
    env: dict[str, Any] = {"_value": _value, "_quote": _quote, "_array": _array}
    loads, parts = [], []
    for name in cls.SECRET:
        local = f"f_{name}"
        loads.append(f"    {local} = event.{name}\n")
        parts.append(_field_code(local, hints[name], env))
    source = (f"def secrets_{cls.__name__}(event):\n" + "".join(loads)
              + "    return (" + "".join(f"{p}, " for p in parts) + ")\n")
    exec(compile(source, f"<secrets {cls.__name__}>", "exec"), env)
    writer: Callable[[Event], tuple[str, ...]] = env[f"secrets_{cls.__name__}"]
    return writer


_ENCODERS: dict[type[Event], Callable[..., str]] = {}
_SECRET_WRITERS: dict[type[Event], Callable[[Event], tuple[str, ...]]] = {}


def event_encoder(cls: type[Event]) -> Callable[..., str]:
    """The function writing events of ``cls`` in canonical JSON, ``(event, sealed)``
    (made on first use)."""
    encoder = _ENCODERS.get(cls)
    if encoder is None:
        encoder = _ENCODERS[cls] = _compile_encoder(cls)
    return encoder


def secret_texts(event: Event) -> tuple[str, ...]:
    """The hidden values of ``event`` as canonical JSON texts, in ``SECRET`` order
    (``()`` for an event that hides nothing)."""
    cls = type(event)
    writer = _SECRET_WRITERS.get(cls)
    if writer is None:
        writer = _SECRET_WRITERS[cls] = _compile_secrets(cls)
    return writer(event)


class Sealer:
    """Commits to the hidden values of one game's events (bohnanza_core.commitments),
    fast: HMAC-SHA-256 keyed by the game's salt, with the two keyed SHA-256 states made
    once per game and copied per value (RFC 2104 exactly: a test holds it to
    ``commitments.value_salt``), because this runs for every card dealt or drawn while
    a game is stored (bench/store.py, section record), where ``hmac.digest`` sets the
    key up anew each time."""

    __slots__ = ("_inner", "_outer")

    def __init__(self, game_salt: str) -> None:
        key = game_salt.encode()
        if len(key) > _HMAC_BLOCK:
            key = hashlib.sha256(key).digest()
        key = key.ljust(_HMAC_BLOCK, b"\0")
        self._inner = hashlib.sha256(bytes(b ^ 0x36 for b in key))
        self._outer = hashlib.sha256(bytes(b ^ 0x5C for b in key))

    def value_salt(self, seq: int, name: str) -> str:
        inner = self._inner.copy()
        inner.update(f"{seq}:{name}".encode())
        outer = self._outer.copy()
        outer.update(inner.digest())
        return outer.hexdigest()[:SALT_HEX_DIGITS]

    def seal(self, event: Event, seq: int) -> tuple[tuple[str, ...], str]:
        """The commitments to ``event``'s hidden values (``SECRET`` order) and the values
        as the store keeps them (:func:`revealed`); ``((), "")`` if it hides nothing."""
        secret = event.SECRET
        if not secret:
            return (), ""
        texts = secret_texts(event)
        sha256 = hashlib.sha256
        sealed = tuple([sha256(f"{self.value_salt(seq, name)}:{text}".encode()).hexdigest()
                        for name, text in zip(secret, texts, strict=True)])
        if len(secret) == 1:
            return sealed, f'{{"{secret[0]}":{texts[0]}}}'
        pairs = sorted(zip(secret, texts, strict=True))
        return sealed, "{" + ",".join(f"{_quote(name)}:{text}" for name, text in pairs) + "}"


_HMAC_BLOCK = 64  # SHA-256's block size in bytes


def commitments_for(event: Event, seq: int, game_salt: str) -> tuple[str, ...]:
    """The commitments to the hidden values of ``event``, number ``seq`` of a game
    whose salt is ``game_salt`` (the values must be there: the full record)."""
    if not event.SECRET:
        return ()
    if any(getattr(event, name) is None for name in event.SECRET):
        raise ValueError(f"#{seq}: a redacted event cannot be committed to")
    return tuple(commit(value_salt(game_salt, seq, name), text)
                 for name, text in zip(event.SECRET, secret_texts(event), strict=True))


def revealed(event: Event) -> str:
    """The hidden values of ``event`` as a canonical JSON object (keys sorted), as the
    store keeps them beside the entry; ``""`` for an event that hides nothing."""
    if not event.SECRET:
        return ""
    pairs = sorted(zip(event.SECRET, secret_texts(event), strict=True))
    return "{" + ",".join(f"{_quote(name)}:{text}" for name, text in pairs) + "}"


def canonical_event(event: Event, sealed: Sequence[str] = ()) -> str:
    """The event in canonical JSON: its fields and ``type``, keys sorted, each hidden
    field written as its commitment from ``sealed``."""
    if len(sealed) != len(event.SECRET):
        raise ValueError(f"{type(event).__name__} needs {len(event.SECRET)} commitment(s) "
                         f"to its hidden field(s), got {len(sealed)}")
    encoder = _ENCODERS.get(type(event)) or event_encoder(type(event))
    return encoder(event, sealed)


# -- the layout of an entry -------------------------------------------------------
#
# An entry's canonical bytes are canonical JSON of {"actor", "at", "event",
# "previous_hash", "seq"}: keys sorted, no spaces, UTF-8 (docs/export.md, "The hash
# chain"). The layout (the keys, their order, the separators) is written here and only
# here, in entry_bytes: canonical_entry, the store's chaining (bohnanza_core.games,
# Game._seal) and the reference encoding (Entry.reference_canonical) all go through it.
# tests/core/test_verify.py holds it to fixed known entries.


def entry_bytes(actor: str, at: str, event: str, previous_hash: str, seq: int) -> bytes:
    """An entry's canonical bytes: its values given as canonical JSON texts (``actor``,
    ``at``: ``null`` or a quoted string; ``event``: an object), except ``previous_hash``,
    which goes between the quotes as it is given: a hex digest needs no escaping (a
    caller with any other text escapes it first, as :func:`canonical_entry` does), and
    this runs for every event the store chains, where quoting it again cost 2% of
    storing a game (bench/store.py, record)."""
    return (f'{{"actor":{actor},"at":{at},"event":{event},'
            f'"previous_hash":"{previous_hash}","seq":{seq}}}').encode()


def canonical_entry(
    seq: int, event: Event, actor: str | None, at: str | None, previous_hash: str,
    sealed: Sequence[str] = (),
) -> bytes:
    """The bytes an entry's hash is taken over (and the store keeps): canonical JSON of
    ``{"actor", "at", "event", "previous_hash", "seq"}``, keys sorted, no spaces, UTF-8,
    the event's hidden fields as their commitments ``sealed``."""
    return entry_bytes(_value(actor), _value(at), canonical_event(event, sealed),
                       _quote(previous_hash)[1:-1], seq)


@dataclass(frozen=True, slots=True)
class Entry:
    """One event of the record, with its place in the chain. ``commitments`` are the
    commitments to the event's hidden fields (``SECRET`` order): what the chain holds
    of them, whether or not ``event`` itself still holds the values."""

    seq: int
    event: Event
    actor: str | None
    at: str | None
    previous_hash: str
    commitments: tuple[str, ...] = ()

    def canonical(self) -> bytes:
        """The bytes the hash is taken over (docs/export.md, "The hash chain")."""
        return canonical_entry(self.seq, self.event, self.actor, self.at, self.previous_hash,
                               self.commitments)

    def reference_canonical(self) -> bytes:
        """The same bytes with every value written by the json module (the event from
        its export form, :func:`bohnanza_core.eventjson.event_to_json`): the definition
        that :meth:`canonical`'s fast encoders keep to, in the one layout
        (:func:`entry_bytes`)."""
        event = event_to_json(self.event)
        event.update(zip(self.event.SECRET, self.commitments, strict=True))
        encode = _CANONICAL.encode
        return entry_bytes(encode(self.actor), encode(self.at), encode(event),
                           encode(self.previous_hash)[1:-1], self.seq)

    @property
    def hash(self) -> str:
        return hashlib.sha256(self.canonical()).hexdigest()


def head_hash(entries: Sequence[Entry]) -> str:
    """The hash of the last entry (:data:`GENESIS` for an empty record)."""
    return entries[-1].hash if entries else GENESIS


def decision_actor(event: Event, seats: Sequence[str]) -> str | None:
    """Who decided ``event`` when only the game itself is known: the seat's name for
    a player's decision, None for what the table does by itself (deals, draws...)."""
    return _decider(command_for(event), seats)


def _decider(command: Command | None, seats: Sequence[str]) -> str | None:
    """The seat whose name a command is credited to; None for what no seat decided: the
    table's own moves, and the platform's stop (the platform names its actor itself)."""
    if command is None or isinstance(command, StopGame):
        return None
    return seats[seat_of(command)]


def command_actors(events: Sequence[Event], seats: Sequence[str]) -> list[str | None]:
    """Who issued each event when only the game itself is known: the seat's name for
    the event that opens a command, None for everything the rules do by themselves
    (deals, draws, and a planting that ends because the hand is empty). Found by
    playing the record through the rules, because the same event type (PlantingEnded)
    may be a decision or automatic; where the record stops following the rules, each
    decision-type event is credited to its seat (:func:`decision_actor`)."""
    actors: list[str | None] = [None] * len(events)
    start = events[0] if events else None
    if not isinstance(start, GameStarted) or start.seed is None:
        return [decision_actor(event, seats) for event in events]
    try:
        state, opening = new_game(start.ruleset, start.seats, start.seed, start.salt,
                                   start.tags)
        index = len(opening)
        while index < len(events):
            command = command_for(events[index])
            if command is None or state.finished:
                break
            actors[index] = _decider(command, seats)
            index += len(play(state, command))
    except (IllegalMove, RulesetError, IndexError, ValueError):
        pass
    else:
        if index >= len(events):
            return actors
    return [actor if actor is not None else decision_actor(event, seats)
            for actor, event in zip(actors, events, strict=True)]


def chain(
    events: Sequence[Event],
    actors: Sequence[str | None] | None = None,
    times: Sequence[str | None] | None = None,
) -> list[Entry]:
    """Chain the full record ``events`` into entries, each hidden value committed to
    with the game's salt. Without ``actors``, each command is credited to its seat's
    name (:func:`command_actors`); without ``times``, ``at`` is None."""
    seats: tuple[str, ...] = ()
    salt = ""
    if events and isinstance(events[0], GameStarted):
        seats = events[0].seats
        salt = events[0].salt or ""
    if actors is None:
        actors = command_actors(events, seats)
    entries: list[Entry] = []
    previous = GENESIS
    sealer = Sealer(salt)
    for index, event in enumerate(events):
        at = times[index] if times is not None else None
        sealed: tuple[str, ...] = ()
        if event.SECRET:
            if any(getattr(event, name) is None for name in event.SECRET):
                raise ValueError(f"#{index + 1}: a redacted event cannot be chained")
            sealed = sealer.seal(event, index + 1)[0]
        entry = Entry(index + 1, event, actors[index], at, previous, sealed)
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


__all__ = [
    "GENESIS",
    "ChainCheck",
    "Entry",
    "Sealer",
    "canonical_entry",
    "canonical_event",
    "chain",
    "check_chain",
    "command_actors",
    "commitments_for",
    "decision_actor",
    "entry_bytes",
    "event_encoder",
    "head_hash",
    "json_string",
    "revealed",
    "secret_texts",
]
