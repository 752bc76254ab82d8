"""The competitions' pages: create one from the form (a worker plays it), follow its
progress as JSON, its standings, rounds and pairings with each game's replay; bad input
stores nothing; the secret behind the deals never shows."""

from __future__ import annotations

import time

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse, reverse_lazy

from bohnanza_core.formats import FORMATS
from tournaments.core.store import Competitions

FORM = {"name": "Page Cup", "ruleset": "classic", "table": "3",
        "bots": "heuristic, random, nontrading", "deals": "1", "rules": "draw_cards=2"}
NEW = reverse_lazy("tournaments:new_format", args=["duplicate"])


@pytest.fixture
def signed_in() -> Client:
    client = Client()
    client.force_login(User.objects.create(username="organiser"))
    return client


def test_a_competition_created_on_the_page_runs_and_shows_its_games(worker: Competitions,
                                                                    signed_in: Client):
    chooser = signed_in.get(reverse("tournaments:new")).content.decode()
    assert str(NEW) in chooser  # the format is chosen first
    answer = signed_in.post(NEW, FORM)
    assert answer.status_code == 302
    (tid,) = worker.ids()
    assert answer["Location"] == reverse("tournaments:detail", args=[tid])
    deadline = time.monotonic() + 60
    while True:
        progress = signed_in.get(reverse("tournaments:progress", args=[tid])).json()
        if progress["finished"]:
            break
        assert time.monotonic() < deadline
        time.sleep(0.05)
    rate = progress.pop("rate")
    assert rate is not None and rate > 0
    assert progress == {"done": 3, "total": 3, "percent": 100, "finished": True, "round": 1,
                        "text": "3 of 3 games", "eta": None, "pace": "",
                        "status": "finished", "stalled": False}
    page = Client().get(reverse("tournaments:detail", args=[tid]))
    text = page.content.decode()
    assert page.status_code == 200
    assert "Page Cup" in text, text[text.find("<main"):][:3000]
    assert "house rules" in text and "draw_cards" in text
    assert 'max="3" value="3"' in text and "finished" in text
    # statistics, each entrant linked to its page
    assert text.count('<tr><td><a href="/tournaments/entrants/') == 3 and "seat 1: " in text
    assert "95 percent confidence interval" in text
    for i in range(3):
        link = reverse("replays:replay", args=[worker.get(tid).game_id(0, i)])
        assert link in text
        assert Client().get(link).status_code == 200
    t = worker.get(tid)
    assert t.secret not in text
    listing = Client().get(reverse("tournaments:list")).content.decode()
    assert "Page Cup" in listing and "3/3" in listing and "draw_cards" in listing


@pytest.mark.parametrize("format, change, problem", [
    ("duplicate", {"rules": "colour=red"}, "colour is no rule option"),
    ("duplicate", {"bots": "heuristic, clever, random"}, "Unknown bots"),
    ("swiss", {"rounds": "2", "bots": "heuristic, random, nontrading, heuristic"},
     "do not fill tables"),
    ("duplicate", {"table": "9"}, "Ensure this value is less than or equal to 7"),
    ("duplicate", {"ruleset": "duel"}, "duel is played by 2 players"),
    ("duplicate", {"deals": "0"}, "Ensure this value is greater than or equal to 1"),
    ("swiss", {}, "This field is required"),  # a Swiss's rounds, not a duplicate's deals
])
def test_bad_input_is_refused_and_stores_nothing(competitions: Competitions, signed_in: Client,
                                                 format, change, problem):
    answer = signed_in.post(reverse("tournaments:new_format", args=[format]),
                            {**FORM, **change})
    assert answer.status_code == 400
    assert problem in answer.content.decode()
    assert competitions.ids() == []


def test_creating_needs_an_account_and_pages_of_no_competition_are_404(competitions):
    client = Client()
    assert client.get(reverse("tournaments:new")).status_code == 302
    assert client.post(NEW, FORM).status_code == 302
    assert competitions.ids() == []
    signed_in = Client()
    signed_in.force_login(User.objects.create(username="organiser"))
    assert signed_in.get(reverse("tournaments:new_format", args=["poker"])).status_code == 404
    missing = "00000000-0000-0000-0000-000000000000"
    assert client.get(f"/tournaments/{missing}/").status_code == 404
    assert client.get(f"/tournaments/{missing}/progress.json").status_code == 404
    assert client.get("/tournaments/").status_code == 200


@pytest.mark.parametrize("format", list(FORMATS))
def test_every_formats_form_as_it_comes_makes_a_competition(competitions: Competitions,
                                                             signed_in: Client,
                                                             monkeypatch, format):
    """The form of each format, sent with the values it starts with and a name, makes a
    competition of that format (nothing refused: its bots, table and options fit)."""
    from tournaments import tasks
    from tournaments.forms import NewCompetition

    monkeypatch.setattr(tasks, "start", lambda competition: None)  # counted, not played
    form = NewCompetition(format)
    sent = {name: field.initial for name, field in form.fields.items()
            if field.initial is not None}
    sent.setdefault("ruleset", form.fields["ruleset"].choices[0][0])  # a browser's choice
    answer = signed_in.post(reverse("tournaments:new_format", args=[format]),
                            {**sent, "name": f"Default {format}"})
    assert answer.status_code == 302, answer.content.decode()[-3000:]
    (made,) = competitions.ids()
    assert competitions.get(made).format == format


def test_a_ladder_made_on_the_page_with_live_tables_takes_bot_accounts(
        competitions: Competitions, signed_in: Client, monkeypatch) -> None:
    """An outside bot author's walkthrough: the tutorial's ladder step could not be done
    from the site (the ladder's form had no live tables, and a ladder without them
    refuses bot accounts). With "Games at live tables" and a clock it takes them; without,
    it still refuses them with the reason."""
    from play import tokens
    from tournaments import tasks

    monkeypatch.setattr(tasks, "start", lambda competition: None)
    new = reverse("tournaments:new_format", args=["ladder"])
    page = signed_in.get(new).content.decode()
    assert 'name="live_tables"' in page and 'name="move_seconds"' in page
    ladder = {"name": "Live Ladder", "ruleset": "duel", "table": "2",
              "bots": "heuristic, random", "every": "600", "rules": ""}
    assert signed_in.post(new, {**ladder, "live_tables": "on", "move_seconds": "30",
                                "game_seconds": "0", "fixture_hours": "2",
                                "absent": "clock"}).status_code == 302
    assert signed_in.post(new, {**ladder, "name": "Bots Ladder"}).status_code == 302
    made = {competitions.get(i).name: competitions.get(i) for i in competitions.ids()}
    live = made["Live Ladder"].live
    assert live is not None and live.move_seconds == 30 and not live.entries_open
    assert made["Bots Ladder"].live is None
    owner = User.objects.get(username="organiser")
    tokens.create_bot(owner, "robo")
    for name, status in (("Live Ladder", 201), ("Bots Ladder", 409)):
        answer = signed_in.post(f"/api/v1/competitions/{made[name].id}/entries",
                                {"account": "robo"}, content_type="application/json")
        assert answer.status_code == status, answer.content
    assert "user:robo" in competitions.get(made["Live Ladder"].id).entrants
    refused = signed_in.post(new, {**ladder, "name": "No clock", "live_tables": "on"})
    assert refused.status_code == 400
    assert "need a turn clock" in refused.content.decode()
