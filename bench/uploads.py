"""Uploaded rulesets: how long reading the worst ones takes (prints figures; never a test).

    .venv/bin/python bench/uploads.py [--repeat 5]

Every uploaded file, stored game and form goes through ``Ruleset.from_parameters``
(house rules from a form through ``customize`` first).
Issue 8 (item 3) found ``"players": [3, 50000000]`` held a server thread for 9.9 s.
This builds the worst payloads we can think of (the largest player counts, the
longest lists, strings and numbers, many unknown options, deep nesting) and prints,
for each, the best of ``--repeat`` timings of ``Ruleset.from_parameters`` in ms, the
ratio to reading a preset's own parameters (measured beside them, these machines are
noisy), and how it was answered. Each must be well under 100 ms.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bohnanza_core.errors import RulesetError
from bohnanza_core.rulesets import Ruleset, customize, ruleset_for

LIMIT_MS = 100.0
MILLION = 1_000_000


def _classic(**changes: Any) -> dict[str, Any]:
    return {**ruleset_for("classic", 4).parameters(), **changes}


def _nested(depth: int) -> list[Any]:
    value: list[Any] = [3]
    for _ in range(depth):
        value = [value]
    return value


def payloads() -> list[tuple[str, Callable[[], dict[str, Any]]]]:
    """(what, how to build it): built outside the timing, as a JSON parser would have."""
    biggest = customize("finnish", 7, {
        "deal": [10], "starting_fields": 4, "max_fields": 5, "third_field_cost": 0,
        "planting_from_hand": 10, "face_up_cards": 10, "draw_cards": 10,
        "ends_on_run_out": 5, "take_matching_discards": True}, name="x" * 60)
    return [
        ("classic as exported (baseline)", _classic),
        ("the largest accepted ruleset", biggest.parameters),
        ("players [3, 50000000] (issue 8)", lambda: _classic(players=[3, 50_000_000])),
        ("players: 1,000,000 counts", lambda: _classic(players=list(range(2, MILLION + 2)))),
        ("players: [3, a 4,000-digit number]", lambda: _classic(players=[3, 10**4000])),
        ("players: nested 100,000 deep", lambda: _classic(players=_nested(100_000))),
        ("deal: 1,000,000 numbers", lambda: _classic(deal=[5] * MILLION)),
        ("deal: [10**4000]", lambda: _classic(deal=[10**4000])),
        ("beans: 1,000,000 kinds", lambda: _classic(beans=["blue"] * MILLION)),
        ("beans: one 10 MB kind", lambda: _classic(beans=["x" * 10 * MILLION])),
        ("house_rules: 1,000,000 names", lambda: _classic(house_rules=["draw_cards"] * MILLION)),
        ("house_rules: one 10 MB name", lambda: _classic(house_rules=["x" * 10 * MILLION])),
        ("name: 10 MB", lambda: _classic(name="x" * 10 * MILLION)),
        ("description: 10 MB", lambda: _classic(description="x" * 10 * MILLION)),
        ("tie_break: 10 MB", lambda: _classic(tie_break="x" * 10 * MILLION)),
        ("draw_cards: a 4,000-digit number", lambda: _classic(draw_cards=10**4000)),
        ("ends_on_run_out: 10**12 (issue 15)",
         lambda: _classic(ends_on_run_out=10**12, draw_cards=40)),
        ("100,000 unknown options", lambda: {**_classic(),
                                             **{f"option{n}": n for n in range(100_000)}}),
    ]


def overrides() -> list[tuple[str, str, int, dict[str, Any]]]:
    """House rules from a form: (what, preset, players, overrides) for ``customize``."""
    return [
        ("customize: draw_cards 4 (baseline)", "classic", 4, {"draw_cards": 4}),
        ("customize: players, 1,000,000 counts", "classic", 2,
         {"players": list(range(2, MILLION + 2))}),
        ("customize: players [2, 50000000]", "classic", 2, {"players": [2, 50_000_000]}),
        ("customize: 100,000 unknown options", "classic", 4,
         {f"option{n}": n for n in range(100_000)}),
    ]


def best_ms(read: Callable[[], Ruleset], repeat: int) -> tuple[float, str]:
    """The best of ``repeat`` timings of ``read``, and how it answered."""
    best = float("inf")
    answer = ""
    for _ in range(repeat):
        started = time.perf_counter()
        try:
            read()
            answer = "accepted"
        except RulesetError as exc:
            answer = f"refused: {exc}"
        best = min(best, time.perf_counter() - started)
    return best * 1000, answer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    reads = [(what, partial(Ruleset.from_parameters, build())) for what, build in payloads()]
    forms = [(what, partial(customize, preset, players, changes))
             for what, preset, players, changes in overrides()]
    print(f"best of {args.repeat}, limit {LIMIT_MS:.0f} ms each")
    worst = 0.0
    for title, table in (("Ruleset.from_parameters", reads), ("customize", forms)):
        rows = [(what, *best_ms(read, args.repeat)) for what, read in table]
        baseline = rows[0][1]
        print(f"\n{title:<40} {'ms':>8} {'x baseline':>10}  answer")
        for what, ms, answer in rows:
            worst = max(worst, ms)
            short = answer if len(answer) <= 70 else answer[:67] + "..."
            print(f"{what:<40} {ms:>8.3f} {ms / baseline:>10.1f}  {short}")
    print(f"\nslowest: {worst:.3f} ms ({'within' if worst < LIMIT_MS else 'OVER'} "
          f"the {LIMIT_MS:.0f} ms limit)")
    return 0 if worst < LIMIT_MS else 1


if __name__ == "__main__":
    sys.exit(main())
