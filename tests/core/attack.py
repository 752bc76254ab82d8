"""The attack on hidden cards, as an outsider would run it (issue 8).

Given what a perspective is shown of a running game (its export, and the head hash
published after every step), try every value a hidden field could hold against
everything public that was computed over it:

- the chain as version 2 wrote it: the entry with the candidate value in place of
  what the file shows, hashed, against the next entry's ``previous_hash`` (or the
  head hash published after that step);
- the commitment itself, as if it were an unsalted hash of the value (bare, with the
  old seed prefix, with an empty salt).

:func:`recover` returns every hidden value it could pin down; the platform must give
it nothing. ``tests/core/test_commitments.py`` also shows that the same attack
recovers every card from a record chained the old way, so it is able to fail.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from bohnanza_core.cards import BeanKind
from bohnanza_core.commitments import offline_salt, seed_commitment
from bohnanza_core.events import EVENT_TYPES
from bohnanza_core.record import _CANONICAL

GUESSABLE_SEEDS = (
    "demo", "demo-0", "demo-1", "demo-running", "demo-9", "seed", "s", "test", "test-game",
    "test-running", "game", "bohnanza", "secret", "password", "table-42", "0", "1", "42",
    "123", "1234", "12345", "2026", "2026-12-01", "a", "x", "abc",
    *(str(n) for n in range(1000)), *(f"demo-{n}" for n in range(100)),
)
"""Seeds someone might try: the demo's old ones, numbers, words, dates."""


@dataclass(frozen=True)
class Found:
    seq: int
    field: str
    value: Any
    how: str


_SENTINEL = "@@candidate@@"


def _canonical_with(line: dict[str, Any], field: str) -> Callable[[Any], bytes]:
    """The version-2 canonical bytes of an export line with ``field`` set to a value:
    encoded once around a placeholder, because it is tried for every candidate."""
    event = {k: v for k, v in line.items()
             if k not in ("seq", "actor", "at", "previous_hash", "salts", "commitments")}
    event[field] = _SENTINEL
    body = {"seq": line["seq"], "event": event, "actor": line["actor"], "at": line["at"],
            "previous_hash": line["previous_hash"]}
    before, after = _CANONICAL.encode(body).split(json.dumps(_SENTINEL))

    def with_value(value: Any) -> bytes:
        return (before + _CANONICAL.encode(value) + after).encode("utf-8")

    return with_value


def _unsalted_hashes(value: Any) -> Iterable[tuple[str, str]]:
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    for how, data in (("bare", text), ("empty salt", ":" + text),
                      ("seed v1", f"bohnanza-seed-v1:{value}"),
                      ("seed v2, no salt", f"bohnanza-seed-v2::{value}")):
        yield how, hashlib.sha256(data.encode()).hexdigest()
    if isinstance(value, str):
        yield "the offline salt", seed_commitment(value, offline_salt(value))


def candidates(field: str, deck_size: int) -> list[Any]:
    """Every value a hidden field could hold that can be listed."""
    if field == "card":
        return [*range(max(deck_size, 154)), *(kind.value for kind in BeanKind)]
    if field == "seed":
        return list(GUESSABLE_SEEDS)
    return []  # orders and salts: too many to list; covered by the unsalted checks


SECRET_FIELDS = {cls.__name__: cls.SECRET for cls in EVENT_TYPES}


def recover(lines: Sequence[dict[str, Any]], heads: Callable[[int], str | None],
            deck_size: int) -> list[Found]:
    """Every hidden value (``null`` in ``lines``, the export's event lines) that the
    attack pins down. ``heads(seq)`` is the head hash published after step ``seq``
    (None if none was)."""
    found = []
    for index, line in enumerate(lines):
        hidden = [name for name in SECRET_FIELDS[line["type"]] if line.get(name) is None]
        after = (lines[index + 1]["previous_hash"] if index + 1 < len(lines)
                 else heads(line["seq"]))
        published = {after, heads(line["seq"])} - {None}
        for name in hidden:
            commitment = (line.get("commitments") or {}).get(name)
            entry_with = _canonical_with(line, name)
            for value in candidates(name, deck_size):
                if hashlib.sha256(entry_with(value)).hexdigest() in published:
                    found.append(Found(line["seq"], name, value, "the chain"))
                if commitment is not None and any(
                        digest == commitment for _, digest in _unsalted_hashes(value)):
                    found.append(Found(line["seq"], name, value, "an unsalted commitment"))
    return found


def seed_guesses(seed_commitment: str) -> list[str]:
    """The guessable seeds that a published seed commitment confirms."""
    return [seed for seed in GUESSABLE_SEEDS
            if any(digest == seed_commitment for _, digest in _unsalted_hashes(seed))]


__all__ = ["GUESSABLE_SEEDS", "Found", "candidates", "recover", "seed_guesses"]
