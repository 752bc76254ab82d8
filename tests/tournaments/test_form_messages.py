"""The competitions' forms say what is wrong in words that fit the case (the review of
the competition pages): the limit that was passed, the rule that was broken, in the
reader's language."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from bohnanza_core.pairings import MAX_ENTRANTS
from tournaments.core.store import Competitions


@pytest.fixture
def organiser() -> Client:
    client = Client()
    client.force_login(User.objects.create(username="organiser"))
    return client


def test_too_many_bots_names_the_entrant_limit(competitions: Competitions, organiser: Client):
    answer = organiser.post(reverse("tournaments:new_format", args=["round-robin"]), {
        "name": "Crowd", "ruleset": "classic", "table": "4", "cycles": "1", "rules": "",
        "bots": ", ".join(["random"] * 100)})
    text = answer.content.decode()
    assert answer.status_code == 400
    assert f"at most {MAX_ENTRANTS} entrants" in text and "The competition is full" not in text
    assert competitions.ids() == []


NEW_FORM = {"name": "Words Cup", "ruleset": "classic", "table": "4", "rules": "",
            "cycles": "1", "rounds": "1", "advance": "1", "deals": "1",
            "bots": "heuristic, random, nontrading, heuristic"}


@pytest.mark.parametrize("format, change, english", [
    ("round-robin", {"bots": "heuristic, clever"}, "Unknown bots: clever"),
    ("swiss", {"table": "2", "ruleset": "duel", "bots": "heuristic, random, nontrading"},
     "3 entrants do not fill tables of 2"),
    ("knockout", {"table": "2", "ruleset": "duel", "bots": "heuristic, random, nontrading"},
     "3 entrants do not fill tables of 2"),
    ("round-robin", {"rules": "draw_cards=99"}, "outside the engine"),
    ("round-robin", {"rules": "colour=red"}, "is no rule option"),
    ("round-robin", {"bots": ", ".join(["random"] * 40)}, "That makes 365,560 games"),
])
def test_the_engines_refusals_are_worded_in_the_readers_language(
        competitions: Competitions, organiser: Client, format: str, change: dict,
        english: str):
    url = reverse("tournaments:new_format", args=[format])
    answer = organiser.post(url, {**NEW_FORM, **change})
    assert answer.status_code == 400 and english in answer.content.decode()
    for language in ("hu", "fi"):
        organiser.cookies["django_language"] = language
        text = organiser.post(url, {**NEW_FORM, **change}).content.decode()
        assert english not in text, language
    assert competitions.ids() == []


def test_a_bot_tests_verdict_line_is_in_the_readers_language(competitions: Competitions):
    from tournaments.core import bottests

    test = bottests.create("heuristic", "random", "duel", 2, 0.0, 50.0, 0.05, 0.05, 100, "s1")
    while bottests.play_batch(test.id) is not None:
        pass
    client = Client()
    url = reverse("tournaments:bot_test", args=[test.id])
    assert "H1 accepted after 46 games (23 sets)" in client.get(url).content.decode()
    client.cookies["django_language"] = "hu"
    text = client.get(url).content.decode()
    assert "H1 accepted after" not in text and "LLR 3,06" in text


@pytest.mark.parametrize("format, change, says, not_says", [
    ("knockout", {"table": "2", "ruleset": "duel", "advance": "2"},
     "From a table of 2, 1 goes through, not 2.", "1 to 1"),
    ("knockout", {"table": "3", "ruleset": "classic", "advance": "3",
                  "bots": "heuristic, random, nontrading"},
     "From each table of 3, 1 to 2 go through, not 3.", "advance 1 to"),
    ("league", {"table": "2", "ruleset": "duel", "divisions": "2", "moves": "1",
                "seasons": "1", "bots": "heuristic, random, nontrading"},
     "3 entrants do not share out evenly into 2 divisions", "at most 64"),
])
def test_a_refusal_says_the_rule_that_was_broken(competitions: Competitions,
                                                organiser: Client, format: str,
                                                change: dict, says: str, not_says: str):
    answer = organiser.post(reverse("tournaments:new_format", args=[format]),
                            {**NEW_FORM, **change})
    text = answer.content.decode()
    assert answer.status_code == 400 and says in text and not_says not in text
