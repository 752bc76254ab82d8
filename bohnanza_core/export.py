"""Games as JSON Lines (docs/export.md): one header line, then one line per event.

    {"format": "bohnanza-game", "version": 3, "perspective": "seat 1", "events": 512,
     "head": "9f2c..."}
    {"seq": 1, "type": "GameStarted", "ruleset": {...}, "seats": [...], ..., "seed": null,
     "salt": null, "commitments": {"salt": "5d1e...", "seed": "a0c4..."}, "actor": null,
     "at": "2026-11-30T10:00:00+00:00", "previous_hash": "000...0"}
    {"seq": 2, "type": "DeckShuffled", "order": null, "commitments": {"order": "..."}, ...}
    {"seq": 4, "type": "CardDealt", "seat": 1, "card": 17, "salts": {"card": "3f0b..."}, ...}

Each line is one :class:`bohnanza_core.record.Entry`: the event's own fields plus who
issued it, when it was stored, and the hash of the entry before it; the header's
``head`` is the hash of the last entry (docs/store.md, "The hash chain"). A hidden
field comes either with its value and its salt (``salts``), where the file's
perspective may see it, or as ``null`` with its commitment (``commitments``): either
way the chain can be recomputed from the file, by every perspective.

Every event's fields are written as plain JSON (cards as ids, kinds and options as
their value strings). Reading is strict: anything malformed raises
:class:`ExportError` naming the line and what is wrong, and nothing half-read is
returned. An export from the "everything" perspective holds the seed and every
secret, enough to re-derive the game exactly (:mod:`bohnanza_core.rederive`).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
import types
import typing
from collections.abc import Callable, Sequence
from enum import Enum
from typing import Any

from bohnanza_core.cards import BeanKind
from bohnanza_core.commitments import commit, is_salt, value_salt
from bohnanza_core.errors import RulesetError
from bohnanza_core.eventfields import FIELD_TYPES
from bohnanza_core.eventjson import event_for_json, event_to_json
from bohnanza_core.events import EVENT_TYPES, Event, GameStarted
from bohnanza_core.jsonlimits import MAX_LINES, check_line_count, loads_line
from bohnanza_core.record import GENESIS, Entry, chain, head_hash, secret_texts
from bohnanza_core.rulesets import Ruleset
from bohnanza_core.views import EVERYTHING, SPECTATOR, Perspective, may_see, redact

FORMAT = "bohnanza-game"
VERSION = 3
"""Version 3 chains hidden values as salted commitments; version 2 chained them as
they were (and so gave them away to anyone holding the head hash): not read."""

RECORD_KEYS = ("seq", "type", "actor", "at", "previous_hash", "salts", "commitments")
"""Keys of an event line that are not event fields (no event has a field so named)."""

_BY_NAME: dict[str, type[Event]] = {cls.__name__: cls for cls in EVENT_TYPES}


class ExportError(ValueError):
    """A game file that cannot be read: the message names the line and the problem."""


def _perspective_name(perspective: Perspective) -> str:
    if perspective == EVERYTHING:
        return "everything"
    if perspective == SPECTATOR:
        return "spectator"
    return f"seat {perspective}"


def export_record(
    entries: Sequence[Entry], perspective: Perspective = EVERYTHING, *, head: str | None = None
) -> str:
    """The full record ``entries`` as JSON Lines, each event as ``perspective`` may see
    it: a hidden field it may see comes with its salt, one it may not see is ``null``
    with its commitment, so every perspective's file re-hashes to the same chain."""
    header = {
        "format": FORMAT,
        "version": VERSION,
        "perspective": _perspective_name(perspective),
        "events": len(entries),
        "head": head if head is not None else head_hash(entries),
    }
    start = entries[0].event if entries else None
    game_salt = start.salt if isinstance(start, GameStarted) else None
    lines = [json.dumps(header, separators=(",", ":"))]
    for entry in entries:
        event = entry.event
        line = {"seq": entry.seq, **event_to_json(redact(event, perspective))}
        if event.SECRET:
            if may_see(event, perspective):
                if game_salt is None:
                    raise ValueError("exporting hidden values needs the full record")
                line["salts"] = {name: value_salt(game_salt, entry.seq, name)
                                 for name in event.SECRET}
            else:
                line["commitments"] = dict(zip(event.SECRET, entry.commitments, strict=True))
        line.update(actor=entry.actor, at=entry.at, previous_hash=entry.previous_hash)
        lines.append(json.dumps(line, separators=(",", ":"), ensure_ascii=False))
    return "\n".join(lines) + "\n"


def export_jsonl(events: Sequence[Event], perspective: Perspective = EVERYTHING) -> str:
    """A game known only by its events (a simulation) as JSON Lines: the events are
    chained on the spot, decisions credited to their seats (:func:`record.chain`)."""
    return export_record(chain(events), perspective)


# -- reading ------------------------------------------------------------------------


_HINTS: dict[str, dict[str, Any]] = {
    name: FIELD_TYPES[cls] for name, cls in _BY_NAME.items()
}
"""Each event's fields' types, as events.py writes them (bohnanza_core.eventfields:
a compiled event class keeps only rough annotations)."""


Decoder = Callable[[Any, str], Any]
"""Reads one JSON value as a type, or raises ExportError naming ``where``."""


def _bad(where: str, message: str) -> ExportError:
    return ExportError(f"{where}: {message}")


@functools.cache
def _decoder(hint: Any) -> Decoder:
    """The reader for values of type ``hint``, built once per type: events are read by
    the thousand (every audit, every rebuilt step), so the type is not inspected again
    for every value."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = [o for o in typing.get_args(hint) if o is not type(None)]
        inner = _decoder(options[0])
        optional = len(options) < len(typing.get_args(hint))

        def union(value: Any, where: str) -> Any:
            return None if value is None and optional else inner(value, where)

        return union
    if hint is Ruleset:

        def ruleset(value: Any, where: str) -> Any:
            if not isinstance(value, dict):
                raise _bad(where, "the ruleset must be an object of parameters")
            try:
                return Ruleset.from_parameters(value)
            except RulesetError as exc:
                raise _bad(where, str(exc)) from exc

        return ruleset
    if origin is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            item = _decoder(args[0])

            def many(value: Any, where: str) -> Any:
                if not isinstance(value, list):
                    raise _bad(where, f"expected a list, got {value!r}")
                return tuple([item(v, where) for v in value])

            return many
        items = [_decoder(a) for a in args]

        def fixed(value: Any, where: str) -> Any:
            if not isinstance(value, list):
                raise _bad(where, f"expected a list, got {value!r}")
            if len(value) != len(items):
                raise _bad(where, f"expected {len(items)} items, got {value!r}")
            return tuple([read(v, where) for v, read in zip(value, items, strict=True)])

        return fixed
    if isinstance(hint, type) and issubclass(hint, Enum):
        enum: Any = hint
        members = {member.value: member for member in enum}

        def enum_value(value: Any, where: str) -> Any:
            try:
                return members[value]
            except (KeyError, TypeError):
                raise _bad(where, f"{value!r} is not a {enum.__name__}") from None

        return enum_value
    if hint is bool:

        def boolean(value: Any, where: str) -> Any:
            if not isinstance(value, bool):
                raise _bad(where, f"expected true or false, got {value!r}")
            return value

        return boolean
    if hint is int:

        def whole(value: Any, where: str) -> Any:
            if type(value) is not int:  # not a bool, not 1.0
                raise _bad(where, f"expected a whole number, got {value!r}")
            return value

        return whole
    if hint is str:

        def text(value: Any, where: str) -> Any:
            if not isinstance(value, str):
                raise _bad(where, f"expected a string, got {value!r}")
            return value

        return text
    raise TypeError(f"cannot read a value of type {hint}")  # pragma: no cover


_READERS: dict[str, tuple[type[Event], tuple[tuple[str, Decoder], ...], frozenset[str]]] = {
    name: (cls, tuple((f.name, _decoder(_HINTS[name][f.name])) for f in dataclasses.fields(cls)),
           frozenset(f.name for f in dataclasses.fields(cls)) | frozenset(RECORD_KEYS))
    for name, cls in _BY_NAME.items()
}


def _quoted(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def event_from_json(obj: Any, where: str = "event") -> Event:
    """The event a JSON object describes (as written by :func:`event_to_json`)."""
    if not isinstance(obj, dict):
        raise ExportError(f"{where}: expected an object")
    name = obj.get("type")
    reader = _READERS.get(name) if isinstance(name, str) else None
    if reader is None:
        raise ExportError(f"{where}: unknown event type {_quoted(name)}")
    cls, fields, known = reader
    if not known.issuperset(obj):
        extra = sorted(str(key) for key in set(obj) - known)
        raise ExportError(f"{where}: {name} has no field(s) "
                          f"{_quoted(', '.join(extra[:5]))[1:-1]}")
    values = {}
    optional = cls.OPTIONAL
    for field_name, read in fields:
        try:
            value = obj[field_name]
        except KeyError:
            if field_name in optional:  # left out while empty (Event.OPTIONAL)
                continue
            raise ExportError(f"{where}: {name} lacks its field {field_name!r}") from None
        try:
            values[field_name] = read(value, where)
        except ExportError as exc:
            # Name the field as well: "line 6 seat: expected a whole number, got '1'".
            message = str(exc)
            raise ExportError(f"{where} {field_name}{message[len(where):]}") from exc.__cause__
    return cls(**values)


@dataclasses.dataclass(frozen=True)
class GameFile:
    """A file read back: whose view it is, the events, the entries (events with their
    chain fields) and the head hash the header announces."""

    perspective: str
    events: tuple[Event, ...]
    entries: tuple[Entry, ...] = ()
    head: str = GENESIS


_HASH = re.compile("[0-9a-f]{64}")


def _is_hash(value: Any) -> bool:
    """64 lowercase hex digits (a regular expression: this is asked of every line of
    every upload, where a loop over the characters cost a third of reading it)."""
    return isinstance(value, str) and _HASH.fullmatch(value) is not None


RECORD_TEXT_MAX = 100
"""The longest ``actor`` or ``at`` a file may give: an account or bot name, a time."""


def _optional_str(obj: dict[str, Any], key: str, where: str) -> str | None:
    if key not in obj:
        raise ExportError(f"{where}: the line lacks its {key!r}")
    value = obj[key]
    if value is not None and not isinstance(value, str):
        raise ExportError(f"{where}: {key!r} must be a string or null, got {str(value)[:40]}")
    if value is not None and (len(value) > RECORD_TEXT_MAX or not value.isprintable()):
        raise ExportError(f"{where}: {key!r} must be at most {RECORD_TEXT_MAX} printable "
                          f"characters, got {value[:40]!r}...")
    return value


def _keyed(obj: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    value = obj.get(key, _NONE)
    if not isinstance(value, dict):
        raise ExportError(f"{where}: {key!r} must be an object")
    return value


_NONE: dict[str, Any] = {}


def _cut(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _sealed(event: Event, obj: dict[str, Any], where: str) -> tuple[str, ...]:
    """The commitments to ``event``'s hidden fields, as a line gives them: each shown
    value with its salt (the commitment is computed), each ``null`` with its
    commitment. Anything else about ``salts`` and ``commitments`` is refused."""
    secret = event.SECRET
    if not secret and "salts" not in obj and "commitments" not in obj:
        return ()  # most lines: nothing hidden, nothing to check
    salts = _keyed(obj, "salts", where)
    given = _keyed(obj, "commitments", where)
    stray = sorted((set(salts) | set(given)) - set(secret))
    if stray:
        raise ExportError(f"{where}: {type(event).__name__} hides no field(s) "
                          f"{_cut(', '.join(stray[:5]))[1:-1]}")
    sealed = []
    for name, text in zip(secret, secret_texts(event), strict=True):
        if getattr(event, name) is None:
            commitment = given.get(name)
            if name in salts or not _is_hash(commitment):
                raise ExportError(f"{where}: the hidden {name!r} needs its commitment (64 "
                                  f"hex digits) and no salt, got {_cut(commitment)}")
            sealed.append(str(commitment))
        else:
            salt = salts.get(name)
            if name in given or not is_salt(salt):
                raise ExportError(f"{where}: the shown {name!r} needs its salt (32 hex "
                                  f"digits) and no commitment, got {_cut(salt)}")
            sealed.append(commit(str(salt), text))
    return tuple(sealed)


def read_jsonl(text: str, *, max_lines: int = MAX_LINES) -> GameFile:
    """Parse an export; raise :class:`ExportError` on anything malformed. Blank
    lines are ignored; errors name the line as an editor numbers it. A byte-order mark
    before the header (an editor's on Windows) is read past: it is in no hash."""
    check_line_count(text, ExportError, max_lines)
    text = text.removeprefix("\ufeff")
    lines = [(n, line) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
    if not lines:
        raise ExportError("the file is empty")
    first, header_line = lines[0]
    try:
        header = loads_line(header_line, f"line {first}", ExportError)
    except json.JSONDecodeError as exc:
        raise ExportError(f"line {first}: not JSON ({exc.msg})") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise ExportError(
            f"line {first}: not a Bohnanza game export (expected format {FORMAT!r})"
        )
    version = header.get("version")
    if type(version) is not int or version != VERSION:
        raise ExportError(f"line {first}: unsupported version {version!r}")
    perspective = header.get("perspective")
    if not isinstance(perspective, str):
        raise ExportError(f"line {first}: the header lacks its perspective")
    head = header.get("head")
    if not _is_hash(head):
        raise ExportError(f"line {first}: the header's head must be a SHA-256 hex digest, "
                          f"got {_cut(head)}")
    count = header.get("events")
    if type(count) is not int:
        raise ExportError(f"line {first}: the header announces {_cut(count)} events, not a "
                          "number")
    events: list[Event] = []
    entries: list[Entry] = []
    for seq, (number, line) in enumerate(lines[1:], start=1):
        where = f"line {number}"
        try:
            obj = loads_line(line, where, ExportError)
        except json.JSONDecodeError as exc:
            raise ExportError(f"{where}: not JSON ({exc.msg})") from None
        if not isinstance(obj, dict):
            raise ExportError(f"{where}: expected an object")
        if type(obj.get("seq")) is not int or obj.get("seq") != seq:  # not 1.0, not true
            raise ExportError(f"{where}: sequence number {_cut(obj.get('seq'))}, expected {seq}")
        event = event_from_json(obj, where)
        actor = _optional_str(obj, "actor", where)
        at = _optional_str(obj, "at", where)
        previous = obj.get("previous_hash")
        if not _is_hash(previous):
            raise ExportError(f"{where}: 'previous_hash' must be a SHA-256 hex digest, "
                              f"got {_cut(previous)}")
        sealed = _sealed(event, obj, where)
        events.append(event)
        entries.append(Entry(seq, event, actor, at, str(previous), sealed))
    # Counted after every line is read, so that a bad line is named where it is (a line
    # of junk once read as "the header announces 757 events, the file has 758").
    if count != len(lines) - 1:
        raise ExportError(f"line {first}: the header announces {count!r} events, the file "
                          f"has {len(lines) - 1}")
    if events and not isinstance(events[0], _BY_NAME["GameStarted"]):
        raise ExportError(f"line {lines[1][0]}: a game begins with GameStarted")
    return GameFile(perspective=perspective, events=tuple(events), entries=tuple(entries),
                    head=str(head))


__all__ = [
    "FORMAT",
    "VERSION",
    "BeanKind",
    "ExportError",
    "GameFile",
    "event_for_json",
    "event_from_json",
    "event_to_json",
    "export_jsonl",
    "export_record",
    "read_jsonl",
]
