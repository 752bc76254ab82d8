"""PostgreSQL's binary COPY, for a large batch of events (a game saved whole, a task's
games): about four times faster than multi-row INSERTs, whose hundreds of placeholders
psycopg parses afresh each time (bench/store.py, section record).

The rows are encoded (:func:`binary_rows`) before the application's counter row is
taken, and only their notification ids are added after it (:func:`numbered_binary`):
the counter, which every other writer of games waits for until the commit, is held for
the server's insert and the commit alone (bench/tournament.py).
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any
from uuid import UUID

from replays.persistence.django_cursor import run_hooked

PG_COPY_FROM = 64
"""Batches of at least this many events go into PostgreSQL by COPY (one command's few
events by one INSERT, a round trip fewer)."""

_PG_COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + bytes(8)  # signature, flags, no extension
_PG_COPY_TRAILER = b"\xff\xff"
_PG_INT8_FIELD = struct.Struct(">iq")  # a field's length (8), then a bigint


def binary_rows(rows: Sequence[tuple[Any, ...]]) -> list[bytes]:
    """Rows (originator_id, originator_version, topic, state) in PostgreSQL's binary COPY
    format, each without its last field, the notification id (:func:`numbered_binary`).
    The originator id is a UUID (a ``uuid`` column: its 16 bytes) or text."""
    pack = struct.pack
    topics: dict[str, bytes] = {}
    encoded: list[bytes] = []
    append = encoded.append
    for originator_id, version, topic, state in rows:
        head = (originator_id.bytes if isinstance(originator_id, UUID)
                else str(originator_id).encode())
        word = topics.get(topic)
        if word is None:
            raw = topic.encode()
            word = topics[topic] = pack(">i", len(raw)) + raw
        state = bytes(state)
        append(b"".join((pack(">hi", 5, len(head)), head, _PG_INT8_FIELD.pack(8, version),
                         word, pack(">i", len(state)), state)))
    return encoded


def numbered_binary(encoded: list[bytes], first: int) -> bytes:
    """A binary COPY's whole data: :func:`binary_rows` numbered from ``first``."""
    number = _PG_INT8_FIELD.pack
    return b"".join((_PG_COPY_HEADER,
                     *[row + number(8, i) for i, row in enumerate(encoded, first)],
                     _PG_COPY_TRAILER))


def copy_data(cursor: Any, statement: str, data: bytes) -> None:
    """COPY ``data`` (already in the statement's format) in by ``statement`` (PostgreSQL),
    through the hooks if there are any."""

    def run(statement: str, params: Any) -> None:
        with cursor.copy(statement) as copy:
            copy.write(data)

    run_hooked(cursor, statement, run)


__all__ = ["PG_COPY_FROM", "binary_rows", "copy_data", "numbered_binary"]
