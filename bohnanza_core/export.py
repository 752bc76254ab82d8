"""Games as JSON Lines (docs/export.md): one header line, then one line per event.

    {"format": "bohnanza-game", "version": 2, "perspective": "everything", "events": 512,
     "head": "9f2c..."}
    {"seq": 1, "type": "GameStarted", "ruleset": {...}, "seats": [...], ..., "actor": null,
     "at": "2026-11-30T10:00:00+00:00", "previous_hash": "000...0"}
    {"seq": 2, "type": "DeckShuffled", "order": [17, 3, ...], "actor": null, ...}

Each line is one :class:`bohnanza_core.record.Entry`: the event's own fields plus who
issued it, when it was stored, and the hash of the entry before it; the header's
``head`` is the hash of the last entry (docs/store.md, "The hash chain").

Every event's fields are written as plain JSON (cards as ids, kinds and options as
their value strings). Reading is strict: anything malformed raises
:class:`ExportError` naming the line and what is wrong, and nothing half-read is
returned. An export from the "everything" perspective holds the seed and every
secret, enough to re-derive the game exactly (:mod:`bohnanza_core.rederive`).
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Sequence
from enum import Enum
from typing import Any

from bohnanza_core.cards import BeanKind
from bohnanza_core.errors import RulesetError
from bohnanza_core.events import EVENT_TYPES, Event
from bohnanza_core.record import GENESIS, Entry, chain, head_hash
from bohnanza_core.rulesets import Ruleset
from bohnanza_core.views import EVERYTHING, SPECTATOR, Perspective, redact

FORMAT = "bohnanza-game"
VERSION = 2

RECORD_KEYS = ("seq", "type", "actor", "at", "previous_hash")
"""Keys of an event line that are not event fields (no event has a field so named)."""

_BY_NAME: dict[str, type[Event]] = {cls.__name__: cls for cls in EVENT_TYPES}


class ExportError(ValueError):
    """A game file that cannot be read: the message names the line and the problem."""


def _plain(value: Any) -> Any:
    if isinstance(value, Ruleset):
        return value.parameters()
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


_FIELDS: dict[type[Event], tuple[str, ...]] = {
    cls: tuple(f.name for f in dataclasses.fields(cls)) for cls in EVENT_TYPES
}


def event_to_json(event: Event) -> dict[str, Any]:
    """One event as a JSON object (without its sequence number)."""
    out: dict[str, Any] = {"type": type(event).__name__}
    for name in _FIELDS[type(event)]:
        out[name] = _plain(getattr(event, name))
    return out


def event_for_json(event: Event) -> dict[str, Any]:
    """The event ready for ``json.dumps``: the same JSON text as :func:`event_to_json`
    gives, faster, because tuples and string enums are left for the encoder to write
    (as arrays and their values). For hashing and storing, not for comparing."""
    out: dict[str, Any] = {"type": type(event).__name__}
    for name in _FIELDS[type(event)]:
        value = getattr(event, name)
        out[name] = value.parameters() if isinstance(value, Ruleset) else value
    return out


def _perspective_name(perspective: Perspective) -> str:
    if perspective == EVERYTHING:
        return "everything"
    if perspective == SPECTATOR:
        return "spectator"
    return f"seat {perspective}"


def export_record(
    entries: Sequence[Entry], perspective: Perspective = EVERYTHING, *, head: str | None = None
) -> str:
    """A stored record as JSON Lines, each event redacted for ``perspective``. The chain
    fields are the stored ones, so only the "everything" file can be re-hashed."""
    header = {
        "format": FORMAT,
        "version": VERSION,
        "perspective": _perspective_name(perspective),
        "events": len(entries),
        "head": head if head is not None else head_hash(entries),
    }
    lines = [json.dumps(header, separators=(",", ":"))]
    for entry in entries:
        line = {
            "seq": entry.seq,
            **event_to_json(redact(entry.event, perspective)),
            "actor": entry.actor,
            "at": entry.at,
            "previous_hash": entry.previous_hash,
        }
        lines.append(json.dumps(line, separators=(",", ":"), ensure_ascii=False))
    return "\n".join(lines) + "\n"


def export_jsonl(events: Sequence[Event], perspective: Perspective = EVERYTHING) -> str:
    """A game known only by its events (a simulation) as JSON Lines: the events are
    chained on the spot, decisions credited to their seats (:func:`record.chain`)."""
    return export_record(chain(events), perspective)


# -- reading ------------------------------------------------------------------------


_HINTS: dict[str, dict[str, Any]] = {
    name: typing.get_type_hints(cls) for name, cls in _BY_NAME.items()
}


def _decode(value: Any, hint: Any, where: str) -> Any:
    """``value`` as type ``hint``, or ExportError saying what was expected."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(hint)
        if value is None and type(None) in options:
            return None
        for option in options:
            if option is type(None):
                continue
            return _decode(value, option, where)
    if hint is Ruleset:
        if not isinstance(value, dict):
            raise ExportError(f"{where}: the ruleset must be an object of parameters")
        try:
            return Ruleset.from_parameters(value)
        except RulesetError as exc:
            raise ExportError(f"{where}: {exc}") from exc
    if origin is tuple:
        args = typing.get_args(hint)
        if not isinstance(value, list):
            raise ExportError(f"{where}: expected a list, got {value!r}")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_decode(v, args[0], where) for v in value)
        if len(value) != len(args):
            raise ExportError(f"{where}: expected {len(args)} items, got {value!r}")
        return tuple(_decode(v, a, where) for v, a in zip(value, args, strict=True))
    if isinstance(hint, type) and issubclass(hint, Enum):
        try:
            return hint(value)
        except ValueError:
            raise ExportError(f"{where}: {value!r} is not a {hint.__name__}") from None
    if hint is bool:
        if not isinstance(value, bool):
            raise ExportError(f"{where}: expected true or false, got {value!r}")
        return value
    if hint is int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise ExportError(f"{where}: expected a whole number, got {value!r}")
        return value
    if hint is str:
        if not isinstance(value, str):
            raise ExportError(f"{where}: expected a string, got {value!r}")
        return value
    raise ExportError(f"{where}: cannot read a value of type {hint}")  # pragma: no cover


def event_from_json(obj: Any, where: str = "event") -> Event:
    """The event a JSON object describes (as written by :func:`event_to_json`)."""
    if not isinstance(obj, dict):
        raise ExportError(f"{where}: expected an object")
    name = obj.get("type")
    cls = _BY_NAME.get(name) if isinstance(name, str) else None
    if cls is None:
        raise ExportError(f"{where}: unknown event type {name!r}")
    hints = _HINTS[cls.__name__]
    names = [f.name for f in dataclasses.fields(cls)]
    extra = sorted(set(obj) - set(names) - set(RECORD_KEYS))
    if extra:
        raise ExportError(f"{where}: {name} has no field(s) {', '.join(extra)}")
    values = {}
    for field_name in names:
        if field_name not in obj:
            raise ExportError(f"{where}: {name} lacks its field {field_name!r}")
        values[field_name] = _decode(obj[field_name], hints[field_name], f"{where} {field_name}")
    return cls(**values)


@dataclasses.dataclass(frozen=True)
class GameFile:
    """A file read back: whose view it is, the events, the entries (events with their
    chain fields) and the head hash the header announces."""

    perspective: str
    events: tuple[Event, ...]
    entries: tuple[Entry, ...] = ()
    head: str = GENESIS


def _is_hash(value: Any) -> bool:
    return (isinstance(value, str) and len(value) == 64
            and all(c in "0123456789abcdef" for c in value))


def _optional_str(obj: dict[str, Any], key: str, where: str) -> str | None:
    if key not in obj:
        raise ExportError(f"{where}: the line lacks its {key!r}")
    value = obj[key]
    if value is not None and not isinstance(value, str):
        raise ExportError(f"{where}: {key!r} must be a string or null, got {value!r}")
    return value


def read_jsonl(text: str) -> GameFile:
    """Parse an export; raise :class:`ExportError` on anything malformed. Blank
    lines are ignored; errors name the line as an editor numbers it."""
    lines = [(n, line) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
    if not lines:
        raise ExportError("the file is empty")
    first, header_line = lines[0]
    try:
        header = json.loads(header_line)
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
                          f"got {head!r}")
    count = header.get("events")
    if type(count) is not int or count != len(lines) - 1:
        raise ExportError(f"line {first}: the header announces {count!r} events, the file "
                          f"has {len(lines) - 1}")
    events: list[Event] = []
    entries: list[Entry] = []
    for seq, (number, line) in enumerate(lines[1:], start=1):
        where = f"line {number}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ExportError(f"{where}: not JSON ({exc.msg})") from None
        if not isinstance(obj, dict):
            raise ExportError(f"{where}: expected an object")
        if type(obj.get("seq")) is not int or obj.get("seq") != seq:  # not 1.0, not true
            raise ExportError(f"{where}: sequence number {obj.get('seq')!r}, expected {seq}")
        event = event_from_json(obj, where)
        actor = _optional_str(obj, "actor", where)
        at = _optional_str(obj, "at", where)
        previous = obj.get("previous_hash")
        if not _is_hash(previous):
            raise ExportError(f"{where}: 'previous_hash' must be a SHA-256 hex digest, "
                              f"got {previous!r}")
        events.append(event)
        entries.append(Entry(seq, event, actor, at, str(previous)))
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
