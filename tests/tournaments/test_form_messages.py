"""The competitions' forms say what is wrong in words that fit the case (the review of
the competition pages): the limit that was passed, the rule that was broken, in the
reader's language."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from bohnanza_core.pairings import MAX_ENTRANTS
from bohnanza_core.rulesets import customize
from tournaments.core import consent
from tournaments.core.competition import Competition, CompetitionError, LivePlay, SignUp
from tournaments.core.store import Competitions, create


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


# -- the sign-up, invitations and the time zone ----------------------------------------

SHORT = {"beans": ["wax", "blue", "chili", "stink"]}
OPEN = LivePlay("duel", SHORT, move_seconds=5, game_seconds=0, fixture_hours=24,
                entries_open=True)
PEOPLE_FORM = {"name": "Open Cup", "ruleset": "duel", "table": "2", "rules": "",
               "rounds": "1", "bots": "heuristic", "open_entries": "on",
               "move_seconds": "60", "game_seconds": "300", "fixture_hours": "72",
               "absent": "clock", "absence_seconds": "120", "people": ""}


def open_swiss(now: datetime, cap: int = 64, deadline: datetime | None = None
               ) -> Competition:
    User.objects.get_or_create(username="organiser")
    return create("Open Swiss", "swiss", {"rounds": 1}, customize("duel", 2, SHORT), 2,
                  ["heuristic@builtin"], organiser="user:organiser", live=OPEN,
                  sign_up=SignUp(deadline, cap), now=now)


def test_a_past_deadline_is_told_it_must_lie_ahead(competitions: Competitions,
                                                  organiser: Client):
    answer = organiser.post(reverse("tournaments:new_format", args=["swiss"]), {
        **PEOPLE_FORM, "deadline": "2020-01-01T18:00"})
    text = answer.content.decode()
    assert answer.status_code == 400
    assert "deadline must lie ahead, within 365 days" in text
    assert competitions.ids() == []


def test_the_deadline_is_read_in_the_organisers_time_zone_and_shown_with_it(
        competitions: Competitions, organiser: Client):
    when = timezone.now() + timedelta(days=30)
    typed = when.strftime("%Y-%m-%dT18:00")
    answer = organiser.post(reverse("tournaments:new_format", args=["swiss"]), {
        **PEOPLE_FORM, "deadline": typed, "time_zone": "Asia/Kolkata"})
    assert answer.status_code == 302, answer.content.decode()[:3000]
    (cid,) = competitions.ids()
    deadline = competitions.get(cid).sign_up.deadline
    assert deadline.utcoffset() == timedelta(hours=5, minutes=30)
    assert (deadline.hour, deadline.minute) == (18, 0)
    page = organiser.get(reverse("tournaments:detail", args=[cid])).content.decode()
    assert "6 p.m. UTC+05:30: the first round starts then" in page
    assert "1 entered; no cap." in page and "of 64 places" not in page
    refused = organiser.post(reverse("tournaments:new_format", args=["swiss"]), {
        **PEOPLE_FORM, "deadline": typed, "time_zone": "Mars/Olympus_Mons"})
    assert refused.status_code == 400 and "Unknown time zone" in refused.content.decode()
    page = organiser.get(reverse("tournaments:new_format", args=["swiss"])).content.decode()
    assert 'data-time-zone' in page and "js/time_zone.js" in page


def test_a_closed_sign_up_ends_its_sentence_once(competitions: Competitions,
                                                 organiser: Client):
    now = timezone.now()
    swiss = open_swiss(now - timedelta(hours=2), cap=4, deadline=now - timedelta(hours=1))
    consent.save(competitions, swiss)
    page = Client().get(reverse("tournaments:detail", args=[swiss.id])).content.decode()
    assert "The sign-up closed on " in page and " UTC." in page
    assert ".." not in page[page.find('class="sign-up"'):][:300]
    assert "1 of 4 places taken." in page


def test_inviting_a_name_twice_asks_once(competitions: Competitions, organiser: Client):
    User.objects.create(username="rita")
    swiss = open_swiss(timezone.now())
    consent.save(competitions, swiss)
    said = organiser.post(reverse("tournaments:invite", args=[swiss.id]),
                          {"people": "rita, rita"}, follow=True).content.decode()
    assert "1 person invited." in said and "asked already" not in said
    assert competitions.get(swiss.id).invited == ["user:rita"]


def test_an_organiser_naming_themselves_is_told_they_entered(competitions: Competitions,
                                                            organiser: Client):
    swiss = create("Open Swiss", "swiss", {"rounds": 1}, customize("duel", 2, SHORT), 2,
                   ["heuristic@builtin"], organiser="user:organiser",
                   live=OPEN, invited=[])
    consent.save(competitions, swiss)
    said = organiser.post(reverse("tournaments:invite", args=[swiss.id]),
                          {"people": "organiser"}, follow=True).content.decode()
    assert "You have entered it yourself." in said and "0 people invited" not in said
    assert "user:organiser" in competitions.get(swiss.id).entrants


def test_the_waiting_list_after_the_start_is_told_it_has_started(
        competitions: Competitions):
    now = timezone.now()
    swiss = open_swiss(now, cap=2, deadline=now + timedelta(hours=1))
    for name in ("ann", "bob"):
        User.objects.create(username=name)
        swiss.join(f"user:{name}", now)
    assert swiss.waiting_list == ["user:bob"]
    swiss.start()
    with pytest.raises(CompetitionError, match="has started"):
        swiss.join("user:bob", now)


def test_stalled_since_names_its_zone():
    from tournaments.views import status_text

    text = status_text({"finished": False, "waiting": False, "stopped": None,
                        "stalled": datetime(2026, 12, 6, 20, 55, tzinfo=UTC)})
    assert "8:55 p.m. UTC" in text
