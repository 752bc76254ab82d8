"""Bounded JSON for uploaded game files (bohnanza_core/jsonlimits.py): every bound is
refused with a message naming the line, before the work it bounds is done, and every
real export stays well inside every bound."""

from __future__ import annotations

import json
import time

import pytest

from bohnanza_core import ruleset_for
from bohnanza_core.export import ExportError, export_jsonl, read_jsonl
from bohnanza_core.jsonlimits import (
    MAX_DEPTH,
    MAX_INT_DIGITS,
    MAX_LINE_CHARS,
    MAX_LINES,
    JSONLimitError,
    check_line_count,
    count_lines,
    loads_line,
    nesting_depth,
)
from tests.core.invariants import random_game


def _a_long_export() -> str:
    """A 7-player finnish game of random bots: the longest games there are."""
    _, events = random_game(ruleset_for("finnish", 7), 7, "jsonlimits-long", check=False)
    return export_jsonl(events)


def test_real_exports_are_well_inside_every_bound() -> None:
    text = _a_long_export()
    lines = text.splitlines()
    assert count_lines(text) == len(lines) < MAX_LINES / 5
    assert max(len(line) for line in lines) < MAX_LINE_CHARS / 20
    assert max(nesting_depth(line) for line in lines) <= MAX_DEPTH // 2
    numbers: list[str] = []
    for line in lines:
        json.loads(line, parse_int=lambda s: numbers.append(s) or int(s))
    assert max(len(n) for n in numbers) < MAX_INT_DIGITS
    assert len(str(MAX_LINES)) <= MAX_INT_DIGITS  # any seq a file may hold
    assert read_jsonl(text).events  # and it reads


@pytest.mark.parametrize(("line", "message"), [
    ("[" * 30_000 + "]" * 30_000, f"line 3: nesting deeper than {MAX_DEPTH} levels"),
    ('{"a":' * 9 + "1" + "}" * 9, f"line 3: nesting deeper than {MAX_DEPTH} levels"),
    ("[" * (MAX_DEPTH + 1), f"line 3: nesting deeper than {MAX_DEPTH} levels"),
    ("9" * 5000, f"line 3: a number of more than {MAX_INT_DIGITS} digits"),
    ("[-" + "9" * 4301 + "]", f"line 3: a number of more than {MAX_INT_DIGITS} digits"),
    ('{"seq": 123456}', f"line 3: a number of more than {MAX_INT_DIGITS} digits"),
    ('{"seq": 1.5}', "line 3: 1.5 is not a whole number"),
    ('{"seq": 1e3}', "line 3: 1e3 is not a whole number"),
    ('{"seq": 2.0}', "line 3: 2.0 is not a whole number"),
    ("NaN", "line 3: NaN is not a number"),
    ('{"seq": -Infinity}', "line 3: -Infinity is not a number"),
    ("[Infinity]", "line 3: Infinity is not a number"),
    ('"' + "x" * MAX_LINE_CHARS + '"', f"line 3: {MAX_LINE_CHARS + 2:,} characters long"),
])
def test_each_bound_is_refused_naming_the_line(line: str, message: str) -> None:
    with pytest.raises(JSONLimitError) as refused:
        loads_line(line, "line 3")
    assert str(refused.value).startswith(message)
    assert len(str(refused.value)) < 200
    assert isinstance(refused.value, ValueError)


def test_the_caller_chooses_the_exception() -> None:
    with pytest.raises(ExportError, match=r"^line 7: nesting deeper than 8 levels$"):
        loads_line("[" * 9 + "]" * 9, "line 7", ExportError)


@pytest.mark.parametrize("line", [
    "[" * MAX_DEPTH + "]" * MAX_DEPTH,
    '{"a": "' + "[" * 1000 + '"}',  # brackets in strings are not nesting
    '{"a": "\\"[[[[[[[[[[[[[[\\"", "b": [[1]]}',  # nor after an escaped quote
    "9" * MAX_INT_DIGITS,
    "-" + "9" * MAX_INT_DIGITS,
    '{"hash": "' + "1" * 64 + '"}',  # digits in strings are not numbers
    '"' + "x" * (MAX_LINE_CHARS - 2) + '"',
])
def test_just_inside_the_bounds_reads(line: str) -> None:
    assert loads_line(line, "line 1") == json.loads(line)


def test_malformed_json_is_still_a_decode_error() -> None:
    with pytest.raises(json.JSONDecodeError):
        loads_line("[1, 2", "line 1")
    with pytest.raises((json.JSONDecodeError, JSONLimitError)):
        loads_line('["[[[[[[[[[[[[[', "line 1")  # unterminated: refused either way


@pytest.mark.parametrize("text", [
    "", "a", "a\n", "a\nb", "\n\n", "a\r\nb\r\n", "a\rb\r", "a\u2028b\x85c\x1cd\ve\ff",
    "\r\r\n\n", "x\r",
])
def test_lines_are_counted_as_splitlines_splits(text: str) -> None:
    assert count_lines(text) == len(text.splitlines())


@pytest.mark.parametrize("newline", ["\n", "\r", "\u2028", "\r\n"])
def test_too_many_lines_are_refused_before_splitting(newline: str) -> None:
    check_line_count("a" + newline * (MAX_LINES - 1))  # exactly the bound: no error
    with pytest.raises(ExportError, match=r"^the file has 10,001 lines, more than the "
                                          r"10,000 a game file may have$"):
        read_jsonl("a" + newline * MAX_LINES + "a")


def test_the_worst_files_are_refused_quickly() -> None:
    """Not a timing test (the benchmark is bench/): a bound that fails to hold makes
    these take seconds or raise RecursionError, not a few milliseconds."""
    worst = [
        "\n" * 5_000_000,
        "[" * 5_000_000,
        '{"format": "bohnanza-game", "x": [' + "1," * 2_000_000 + "1]}",
        "9" * 5_000_000,
    ]
    for text in worst:
        began = time.perf_counter()
        with pytest.raises(ExportError):
            read_jsonl(text)
        assert time.perf_counter() - began < 1.0
