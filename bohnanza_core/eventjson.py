"""An event as a JSON object: its fields and ``type`` (docs/events.md).

This is the one form of an event both the export (:mod:`bohnanza_core.export`, one line
per event) and the hash chain (:mod:`bohnanza_core.record`, whose reference encoding of
an entry holds the event in this form) are written from. It lives below both so that
neither imports the other to get it: the export reads and writes records, the record
knows nothing of files. Reading an event back (``export.event_from_json``) stays with
the file reader, whose errors name a file's lines.
"""

from __future__ import annotations

import dataclasses
from enum import Enum
from typing import Any

from bohnanza_core.events import EVENT_TYPES, Event
from bohnanza_core.rulesets import Ruleset

FIELDS: dict[type[Event], tuple[str, ...]] = {
    cls: tuple(f.name for f in dataclasses.fields(cls)) for cls in EVENT_TYPES
}
"""Each event class's fields, in their declared order. A field of ``OPTIONAL`` is
left out while it is empty (a record stored before it existed keeps its bytes)."""


def _plain(value: Any) -> Any:
    if isinstance(value, Ruleset):
        return value.parameters()
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def event_to_json(event: Event) -> dict[str, Any]:
    """One event as a JSON object (without its sequence number)."""
    out: dict[str, Any] = {"type": type(event).__name__}
    optional = event.OPTIONAL
    for name in FIELDS[type(event)]:
        value = getattr(event, name)
        if value or name not in optional:
            out[name] = _plain(value)
    return out


def event_for_json(event: Event) -> dict[str, Any]:
    """The event ready for ``json.dumps``: the same JSON text as :func:`event_to_json`
    gives, faster, because tuples and string enums are left for the encoder to write
    (as arrays and their values). For hashing and storing, not for comparing."""
    out: dict[str, Any] = {"type": type(event).__name__}
    optional = event.OPTIONAL
    for name in FIELDS[type(event)]:
        value = getattr(event, name)
        if value or name not in optional:
            out[name] = value.parameters() if isinstance(value, Ruleset) else value
    return out


__all__ = ["FIELDS", "event_for_json", "event_to_json"]
