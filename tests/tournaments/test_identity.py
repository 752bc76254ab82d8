"""Identity in every record (issue 28, item 1): a competition's game names, in its own
hash chain, the competition, round, table and deal it belongs to and each seat's
entrant, so an exported file alone says who played it."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import reverse

from bohnanza_core.events import GameStarted
from bohnanza_core.export import export_record, read_jsonl
from bohnanza_core.record import check_chain
from bohnanza_core.rulesets import ruleset_for
from bohnanza_core.verify import verify_text
from bohnanza_core.views import EVERYTHING, SPECTATOR
from replays.store import games
from tournaments.core.rounds import run_here
from tournaments.core.store import create
from tournaments.models import CompetitionGame

TWINS = ["heuristic@builtin", "heuristic@builtin #2", "random@builtin"]


@pytest.fixture
def played(competitions):
    c = create("Twins Cup", "round-robin", {"cycles": 1}, ruleset_for("classic", 3), 3, TWINS)
    return run_here(c.id)


def _started(text: str) -> GameStarted:
    start = read_jsonl(text).events[0]
    assert isinstance(start, GameStarted)
    return start


def test_an_export_tells_two_copies_of_one_bot_apart(played):
    rows = list(CompetitionGame.objects.filter(competition_id=played.id).order_by("index"))
    assert len(rows) == 3
    for row in rows:
        record = games().record(row.game_id)
        for perspective in (EVERYTHING, SPECTATOR, 0):
            text = export_record(record, perspective)
            start = _started(text)
            tags = dict(start.tags)
            seats = [played.entrants[e] for e in played.rounds[row.round].games[row.index].seats]
            assert [tags[f"seat_{s}_entrant"] for s in range(3)] == seats
            # display names, never seat numbers; the two copies differ
            names = {"heuristic@builtin": "heuristic", "heuristic@builtin #2": "heuristic #2",
                     "random@builtin": "random"}
            assert list(start.seats) == [names[e] for e in seats]
            assert [tags[f"seat_{s}_name"] for s in range(3)] == list(start.seats)
            assert {tags[f"seat_{s}_copy"] for s in range(3)} == {"1", "2"}
            assert {tags[f"seat_{s}_version"] for s in range(3)} == {"builtin"}
            assert tags["competition"] == "Twins Cup"
            assert tags["competition_id"] == str(played.id)
            assert tags["format"] == "round-robin"
            assert (tags["round"], tags["table"]) == (str(row.round + 1), str(row.index + 1))
            assert tags["deal"] == str(played.rounds[row.round].games[row.index].deal + 1)
            # in the first line as JSON, as tag pairs
            line = json.loads(text.splitlines()[1])
            assert ["competition", "Twins Cup"] in line["tags"]


def test_the_tags_are_in_the_chain_and_in_the_verdict(played):
    row = CompetitionGame.objects.filter(competition_id=played.id).first()
    record = games().record(row.game_id)
    text = export_record(record, EVERYTHING)
    verdict = verify_text(text)
    assert verdict.ok, verdict.report()
    report = verdict.report()
    assert "heuristic #2 (heuristic@builtin #2)" in report
    assert "competition: Twins Cup" in report and f"competition_id: {played.id}" in report
    assert f"round: {row.round + 1}" in report
    # a tag changed afterwards breaks the chain: it is part of the record
    lines = text.splitlines()
    first = json.loads(lines[1])
    first["tags"] = [[k, "Someone else" if k == "competition" else v] for k, v in first["tags"]]
    lines[1] = json.dumps(first, separators=(",", ":"), ensure_ascii=False)
    forged = verify_text("\n".join(lines) + "\n")
    assert not forged.ok and forged.first_bad == 1
    assert check_chain(record, None).ok


def test_the_replay_page_names_the_round_table_and_entrants(played):
    row = CompetitionGame.objects.get(competition_id=played.id, round=1, index=0)
    page = Client().get(reverse("replays:replay", args=[row.game_id])).content.decode()
    assert 'id="replay-placed"' in page and "round 2, table 1" in page
    assert "heuristic@builtin #2" in page and "Twins Cup" in page
