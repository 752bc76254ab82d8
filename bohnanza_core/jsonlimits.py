"""Bounded JSON for game files that come from outside (uploads to the audit, verify
and import pages, ``bohnanza verify FILE``).

Why: ``json.loads`` trusts its input. A line of 100,000 ``[`` raises RecursionError,
an integer of more than 4,300 digits raises ValueError (not JSONDecodeError), and a
line of millions of small numbers allocates a list of millions of ints before anything
looks at it; ``str.splitlines`` on a file of millions of line breaks does the same.
Every one of those was a 500 or a held server thread for an anonymous upload. Here each
bound is checked *before* the work it bounds:

- the number of lines before the text is split (:func:`check_line_count`);
- a line's length before it is parsed, then its nesting depth by a scan of its
  brackets outside strings (:func:`loads_line`);
- while parsing, every integer by its digits before ``int`` is called
  (``parse_int``), and no fractions, exponents, NaN or Infinity at all: exports hold
  whole numbers only;
- after parsing, no text holding a lone surrogate (``\\ud800``: no character, and not
  UTF-8, which an entry's hash is taken over).

The bounds were measured on exports written by ``bohnanza simulate ... --export``:
4,400 games of every ruleset and player count, 2,800 of them 7-player ``finnish``
games (the longest there are) of random, trading and non-trading bots. A stored
game's lines add an actor and a time, a few dozen characters.

- longest line: the GameStarted line, 1,323 characters at most (a DeckShuffled of 154
  card ids is 653). :data:`MAX_LINE_CHARS` is 64 Ki characters: room for a salted
  commitment to every card (about 70 characters each, 11 kB for 154 cards) and more;
- deepest nesting: 3 levels (a GameStarted's ruleset holds lists), and no line opens
  more than 7 brackets. :data:`MAX_DEPTH` is 8;
- largest integer: the last sequence number, 4 digits. :data:`MAX_INT_DIGITS` is 5,
  enough for the sequence number of any file within :data:`MAX_LINES`;
- most lines: 1,362, header included (7-player ``finnish``, random bots).
  :data:`MAX_LINES` is 10,000: over 7 times that, over 3 times the ~3,000 events any
  game is expected to reach.

Errors are :class:`JSONLimitError` (a ValueError) by default; a caller may pass its own
exception type so that the limits read as its other errors ("line 3: nesting deeper
than 8 levels"). Malformed JSON still raises ``json.JSONDecodeError`` as ``json.loads``
does. Standard library only, like the rest of ``bohnanza_core``'s file reading.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

MAX_LINE_CHARS = 64 * 1024
"""Characters in one line of a game file (its longest real line is under 1.5 kB)."""

MAX_DEPTH = 8
"""Levels of nested arrays and objects in one line (real lines nest 3 deep)."""

MAX_INT_DIGITS = 5
"""Digits of any integer in a game file (its largest real one is a 4-digit seq)."""

MAX_LINES = 10_000
"""Lines in a game file, blank ones included (the longest real game has 1,362)."""

ErrorType = Callable[[str], Exception]
"""What a bound raises: called with the whole message."""


class JSONLimitError(ValueError):
    """A game file over one of the bounds: the message names the line and the bound."""


_LINE_BREAKS = ("\n", "\r", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")
"""Every character ``str.splitlines`` splits at (``"\\r\\n"`` is one break)."""

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


def count_lines(text: str) -> int:
    """How many lines ``text.splitlines()`` would give, without splitting it."""
    breaks = sum(text.count(mark) for mark in _LINE_BREAKS) - text.count("\r\n")
    return breaks + (1 if text and not text.endswith(_LINE_BREAKS) else 0)


def check_line_count(text: str, error: ErrorType = JSONLimitError,
                     limit: int = MAX_LINES) -> None:
    """Refuse a file of more than ``limit`` lines, before it is split."""
    if len(text) <= limit:  # fewer characters than the bound: fewer lines too
        return
    lines = count_lines(text)
    if lines > limit:
        where = ("a game file may have" if limit == MAX_LINES else
                 f"taken here (a game file may have {MAX_LINES:,}; `bohnanza verify` on "
                 "one's own machine reads it)")
        raise error(f"the file has {lines:,} lines, more than the {limit:,} {where}")


def nesting_depth(line: str) -> int:
    """The deepest nesting of arrays and objects in one line of JSON, strings skipped
    (a malformed line is measured as best it can be; the parser refuses it anyway)."""
    depth = deepest = 0
    for bracket in _BRACKET.findall(_STRING.sub("", line)):
        if bracket in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def _cut(text: str, limit: int = 20) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


class _Beyond(Exception):
    """A bound crossed inside the parser; :func:`loads_line` adds where."""


def _whole(digits: str) -> int:
    if len(digits) - digits.startswith("-") > MAX_INT_DIGITS:
        raise _Beyond(f"a number of more than {MAX_INT_DIGITS} digits ({_cut(digits)})")
    return int(digits)


def _fraction(number: str) -> Any:
    raise _Beyond(f"{_cut(number)} is not a whole number; a game file holds whole numbers "
                  "only")


def _constant(name: str) -> Any:
    raise _Beyond(f"{name} is not a number a game file may hold")


_DECODER = json.JSONDecoder(parse_int=_whole, parse_float=_fraction, parse_constant=_constant)
"""Built once: ``json.loads`` with hooks builds a decoder for every call."""


def loads_line(line: str, where: str, error: ErrorType = JSONLimitError, *,
               lone_surrogates: bool = False) -> Any:
    """One line of a game file as JSON, within the bounds; ``where`` ("line 3") starts
    every message. Raises ``error`` for a bound, ``json.JSONDecodeError`` for bad JSON.
    ``lone_surrogates``: let texts holding them through (a websocket frame's, whose only
    free text, its ``ref``, is echoed and never hashed or stored)."""
    if len(line) > MAX_LINE_CHARS:
        raise error(f"{where}: {len(line):,} characters long, more than the "
                    f"{MAX_LINE_CHARS:,} a line of a game file may have")
    # Fewer opening brackets than the bound: no need to scan (every real line).
    if line.count("[") + line.count("{") > MAX_DEPTH and nesting_depth(line) > MAX_DEPTH:
        raise error(f"{where}: nesting deeper than {MAX_DEPTH} levels")
    try:
        value = _DECODER.decode(line)
    except _Beyond as beyond:
        raise error(f"{where}: {beyond}") from None
    # Only an escape (\ud800) makes a lone surrogate: the text itself came as UTF-8.
    if not lone_surrogates and "\\u" in line and not _encodable(value):
        raise error(f"{where}: a text holds a lone surrogate (an escape such as \\ud800 "
                    "that is no character), which no game file holds")
    return value


def _encodable(value: Any) -> bool:
    """Whether every text in ``value`` (keys included) encodes as UTF-8: JSON's
    ``\\ud800`` escape reads as a lone surrogate, which hashing or storing it refuses
    (the entry's bytes are UTF-8). Nested at most :data:`MAX_DEPTH` deep."""
    if isinstance(value, str):
        return value.isascii() or not any("\ud800" <= c <= "\udfff" for c in value)
    if isinstance(value, list):
        return all(_encodable(item) for item in value)
    if isinstance(value, dict):
        return all(_encodable(key) and _encodable(item) for key, item in value.items())
    return True


__all__ = [
    "MAX_DEPTH",
    "MAX_INT_DIGITS",
    "MAX_LINES",
    "MAX_LINE_CHARS",
    "JSONLimitError",
    "check_line_count",
    "count_lines",
    "loads_line",
    "nesting_depth",
]
