"""Uploads: how long the worst ones take to answer (prints figures; never a test).

    .venv/bin/python bench/uploads.py [--repeat 5]

Whole files first: the worst game files we can build (the largest player counts, the
deepest nesting, the most and longest lines within the limits, a bad line at the very
end), each POSTed to ``/replays/verify/`` through Django's test client as an anonymous
visitor would, answered in full (read, bounded, audited); then the rulesets alone.

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


def game_files() -> list[tuple[str, bytes]]:
    """(what, the file): a real game's full record first (the baseline), then the worst
    files within the upload limits."""
    import json
    import os

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()

    from bohnanza_core import ruleset_for
    from bohnanza_core.export import export_jsonl
    from bohnanza_core.jsonlimits import MAX_DEPTH, MAX_LINE_CHARS
    from bohnanza_core.simulator import bot_classes, play_game
    from replays.views.audit import MAX_UPLOAD_BYTES
    from replays.views.audit import UPLOAD_MAX_LINES as MAX_LINES

    def export(name: str, players: int, bots: str, seed: str) -> list[str]:
        lineup = bot_classes([bots] * players)
        return export_jsonl(play_game(ruleset_for(name, players), lineup, seed).events
                            ).splitlines()

    classic = export("classic", 4, "heuristic", "upload-bench")
    longest = export("finnish", 7, "random", "upload-bench-long")

    def text(lines: list[str]) -> bytes:
        header = {**json.loads(lines[0]), "events": len(lines) - 1}
        return ("\n".join([json.dumps(header), *lines[1:]]) + "\n").encode()

    def ruleset(**changes: Any) -> list[str]:
        start = json.loads(classic[1])
        start["ruleset"] = {**start["ruleset"], **changes}
        return [classic[0], json.dumps(start), *classic[2:]]

    nested: Any = 1
    for _ in range(MAX_DEPTH + 1):
        nested = [nested]
    deep_last = [*classic[:-1], json.dumps({**json.loads(classic[-1]), "coins": nested})]
    drawn = json.loads(next(line for line in classic if '"CardDrawn"' in line))
    filler = len(json.dumps({**drawn, "actor": "x" * 100, "seq": MAX_LINES}))
    budget = MAX_UPLOAD_BYTES - sum(len(line) + 1 for line in classic[:2]) - 200
    many = [*classic[:2], *[json.dumps({**drawn, "actor": "x" * 100, "seq": seq})
                            for seq in range(2, 2 + min(MAX_LINES - 2, budget // (filler + 1)))]]
    return [
        ("a classic game's full record (baseline)", text(classic)),
        ("the longest game (finnish, 7 random bots)", text(longest)),
        ("players [3, 50000000] (issue 8)", text(ruleset(players=[3, 50_000_000]))),
        ("players [3, 99999]", text(ruleset(players=[3, 99_999]))),
        (f"nesting {MAX_DEPTH + 1} deep on the last line", text(deep_last)),
        (f"{len(many):,} lines, {MAX_UPLOAD_BYTES // 2**20} MB, rules broken at #3",
         text(many)),
        ("one line of 5 MB", text([classic[0], "[" + "1," * (5 * 512 * 1024 - 2) + "1]"])),
        (f"a line of {MAX_LINE_CHARS + 1:,} characters last",
         text([*classic[:-1], json.dumps({"pad": "x" * MAX_LINE_CHARS})])),
        (f"{MAX_LINES + 1:,} blank-free short lines", b"{}\n" * (MAX_LINES + 1)),
        ("a 5,000-digit number last", text([*classic[:-1], '{"seq":' + "9" * 5000 + "}"])),
    ]


def verify_ms(client: Any, data: bytes, repeat: int) -> tuple[float, str]:
    """The best of ``repeat`` answers to POSTing ``data`` to /replays/verify/, in ms."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    best, answer = float("inf"), ""
    for _ in range(repeat):
        upload = SimpleUploadedFile("game.jsonl", data, "application/x-ndjson")
        started = time.perf_counter()
        response = client.post("/replays/verify/", {"record": upload})
        best = min(best, time.perf_counter() - started)
        answer = f"{response.status_code} {len(data) / 1024:,.0f} kB"
    return best * 1000, answer


def files_table(repeat: int) -> list[tuple[str, float, str]]:
    files = game_files()  # sets Django up
    from django.test import Client

    client = Client()
    return [(what, *verify_ms(client, data, repeat)) for what, data in files]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    reads = [(what, partial(Ruleset.from_parameters, build())) for what, build in payloads()]
    forms = [(what, partial(customize, preset, players, changes))
             for what, preset, players, changes in overrides()]
    print(f"best of {args.repeat}, limit {LIMIT_MS:.0f} ms each")
    worst = 0.0
    tables = [("POST /replays/verify/", files_table(args.repeat))]
    tables += [(title, [(what, *best_ms(read, args.repeat)) for what, read in table])
               for title, table in (("Ruleset.from_parameters", reads), ("customize", forms))]
    for title, rows in tables:
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
