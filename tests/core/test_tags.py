"""A game's tag pairs (``GameStarted.tags``): in the chain when given, left out of the
export and the chain when not (records stored before them keep their bytes)."""

from __future__ import annotations

import json

import pytest

from bohnanza_core.engine import TAGS_MAX, new_game
from bohnanza_core.errors import RulesetError
from bohnanza_core.export import export_jsonl, read_jsonl
from bohnanza_core.record import chain
from bohnanza_core.rederive import rederive
from bohnanza_core.rulesets import ruleset_for

SEATS = ("Ann", "Bob", "Cy")
TAGS = (("competition", "Spring Cup"), ("round", "2"), ("seat_0_entrant", "user:ann"))


def test_a_game_without_tags_is_written_as_before():
    _, events = new_game(ruleset_for("classic", 3), SEATS, "s")
    line = json.loads(export_jsonl(events).splitlines()[1])
    assert "tags" not in line
    entry = chain(events)[0]
    assert b'"tags"' not in entry.canonical()
    assert entry.canonical() == entry.reference_canonical()


def test_tags_are_chained_read_back_and_rederived():
    _, events = new_game(ruleset_for("classic", 3), SEATS, "s", tags=TAGS)
    entries = chain(events)
    assert b'"tags":[["competition","Spring Cup"]' in entries[0].canonical()
    assert entries[0].canonical() == entries[0].reference_canonical()
    game = read_jsonl(export_jsonl(events))
    assert game.events[0].tags == TAGS and game.events[0].tag("round") == "2"
    assert rederive(list(game.events)).ok
    _, untagged = new_game(ruleset_for("classic", 3), SEATS, "s")
    assert chain(untagged)[0].canonical() != entries[0].canonical()


@pytest.mark.parametrize("tags", [
    (("", "x"),), (("k", "a\nb"),), (("k", "x" * 201),), (("k", "1"), ("k", "2")),
    tuple((f"k{i}", "v") for i in range(TAGS_MAX + 1)), (("k",),), "competition",
])
def test_tags_that_cannot_be_shown_are_refused(tags):
    with pytest.raises(RulesetError):
        new_game(ruleset_for("classic", 3), SEATS, "s", tags=tags)
