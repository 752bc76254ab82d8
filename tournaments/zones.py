"""Times as the competitions' pages show them: each with its zone named, since an
organiser in Helsinki and an entrant in Budapest read the same page; and the time zone
an organiser's form is read in."""

from __future__ import annotations

from datetime import UTC, datetime, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.utils.formats import date_format

MAX_ZONE_NAME = 64


def zone_named(name: str) -> tzinfo | None:
    """The IANA time zone ``name`` (``Europe/Budapest``), UTC for "", None for a name
    zoneinfo does not know (the form refuses it)."""
    if not name:
        return UTC
    if len(name) > MAX_ZONE_NAME or not name.isprintable():
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None


def when(moment: datetime) -> str:
    """``moment`` in its own zone (a deadline keeps the organiser's offset; a time the
    platform noted is UTC), with the zone after it: ``Jan. 31, 2027, 6 p.m. UTC+01:00``.
    The zone last also keeps a sentence's full stop from doubling the "p.m."'s."""
    moment = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    offset = moment.utcoffset()
    if offset is None or not offset:
        zone = "UTC"
    else:
        minutes = int(offset.total_seconds()) // 60
        sign = "+" if minutes >= 0 else "-"
        zone = f"UTC{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"
    return f"{date_format(moment, 'DATETIME_FORMAT')} {zone}"


__all__ = ["MAX_ZONE_NAME", "when", "zone_named"]
