"""Bot tests like fishtest's on the platform: started from the page by a signed-in
person, played by a real Celery worker in batches of sets, kept as events (each batch
with the LLR after it, then the verdict), shown with the LLR chart, the Elo estimate
and its interval; refused with a reason (400) for bounds, tables or seeds out of
range; a batch delivered twice recorded once."""

from __future__ import annotations

import itertools
import time
from uuid import uuid4

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from eventsourcing.persistence import IntegrityError

from replays.summary import LABEL_GAP
from tournaments.charts import llr_chart
from tournaments.core import bottests
from tournaments.core.errors import CompetitionError
from tournaments.core.store import Competitions


def _form(**changes: object) -> dict[str, object]:
    return {"a": "heuristic", "b": "random", "preset": "duel", "players": 2, "elo0": 0,
            "elo1": 50, "alpha": 0.05, "beta": 0.05, "max_sets": 400, "seed": "page",
            **changes}


def test_a_test_started_on_the_page_is_played_by_the_workers_to_its_verdict(
        worker: Competitions) -> None:
    client = Client()
    assert client.post(reverse("tournaments:bot_tests"), _form()).status_code == 302
    assert not bottests.ids()  # signed out: sent to sign in, nothing started
    client.force_login(User.objects.create_user("olga"))
    page = client.get(reverse("tournaments:bot_tests"))
    assert page.status_code == 200 and b"New bot test" in page.content
    answer = client.post(reverse("tournaments:bot_tests"), _form())
    assert answer.status_code == 302
    (tid,) = bottests.ids()
    assert answer["Location"] == reverse("tournaments:bot_test", args=[tid])
    deadline = time.monotonic() + 120
    while not bottests.get(tid).decided:
        assert time.monotonic() < deadline, "the worker did not decide the test"
        time.sleep(0.1)
    test = bottests.get(tid)
    assert test.accepted == "H1" and test.organiser == "user:olga"
    names = [type(e).__name__ for e in worker.repository.event_store.get(tid)]
    assert names[0] == "Created" and names[-1] == "Decided"
    assert names.count("SetsPlayed") == len(test.llrs) >= 1
    assert [n for n, _ in test.llrs] == sorted({n for n, _ in test.llrs})
    verdict = test.verdict()
    assert verdict.samples == len(test.scores) and verdict.games == 2 * verdict.samples
    assert test.llrs[-1][1] == pytest.approx(verdict.llr)
    page = client.get(reverse("tournaments:bot_test", args=[tid])).content.decode()
    assert "H1 accepted: heuristic is stronger than random by 50 Elo or more" in page
    assert "interval 95%" in page and "<svg" in page and 'class="series"' in page
    assert "--seed page --elo0 0.0 --elo1 50.0" in page  # the same games from the shell
    assert "bot_test.js" not in page  # decided: nothing more to follow
    data = client.get(reverse("tournaments:bot_test_json", args=[tid])).json()
    assert data["accepted"] == "H1" and data["sets"] == verdict.samples
    assert data["elo"][1] > 0 and data["llr"] >= data["bounds"][1]
    listed = client.get(reverse("tournaments:bot_tests")).content.decode()
    assert "heuristic \N{EN DASH} random" in listed


@pytest.mark.parametrize("changes,reason", [
    ({"elo0": 5, "elo1": 0}, "H1&#x27;s Elo must be more than H0&#x27;s"),
    ({"elo1": 5000}, "less than or equal to 1000"),
    ({"alpha": 0.7}, "less than or equal to 0.49"),
    ({"players": 5}, "duel is not played by 5 players"),
    ({"preset": "nope"}, "Select a valid choice"),
    ({"a": "nobody"}, "Select a valid choice"),
    ({"max_sets": 10**9}, "less than or equal to 20000"),
    ({"seed": "s" * 65}, "at most 64 characters"),
])
def test_bad_input_is_refused_with_its_reason(competitions: Competitions, changes: dict,
                                              reason: str) -> None:
    client = Client()
    client.force_login(User.objects.create_user("olga"))
    answer = client.post(reverse("tournaments:bot_tests"), _form(**changes))
    assert answer.status_code == 400
    assert reason in answer.content.decode()
    assert not bottests.ids()


def test_a_batch_delivered_twice_is_recorded_once(competitions: Competitions) -> None:
    test = bottests.create("heuristic", "random", "duel", 2, 0, 50, 0.05, 0.05, 100, "twice")
    stale = bottests.get(test.id)
    assert bottests.play_batch(test.id, sets=3) is not None
    assert len(bottests.get(test.id).scores) == 3
    stale.record(0, [1.0], 2)  # the same sets again, from a copy read before them
    with pytest.raises(IntegrityError):
        competitions.save(stale)  # the store refuses it
    with pytest.raises(CompetitionError, match="recorded already"):
        bottests.get(test.id).record(0, [1.0], 2)
    assert bottests.play_batch(test.id, sets=2) is not None
    again = bottests.get(test.id)
    assert len(again.scores) == 5 and again.games == 10
    with pytest.raises(CompetitionError):
        bottests.create("heuristic", "random", "duel", 2, 5, 5, 0.05, 0.05, 100, "x")
    with pytest.raises(CompetitionError):
        bottests.create("heuristic", "random", "nope", 2, 0, 5, 0.05, 0.05, 100, "x")
    with pytest.raises(LookupError):
        bottests.get(uuid4())
    assert Client().get(reverse("tournaments:bot_test", args=[uuid4()])).status_code == 404


def test_resume_sends_an_undecided_tests_job_again(competitions: Competitions,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from io import StringIO

    from django.core.management import call_command

    from tournaments import tasks

    waiting = bottests.create("heuristic", "random", "duel", 2, 0, 50, 0.05, 0.05, 100, "w")
    done = bottests.create("heuristic", "random", "duel", 2, 0, 50, 0.05, 0.05, 1, "d")
    bottests.play_batch(done.id)
    assert bottests.get(done.id).decided
    sent: list[str] = []

    class Sent:
        id = "job"

    monkeypatch.setattr(tasks.bot_test, "delay", lambda tid: sent.append(tid) or Sent())
    out = StringIO()
    call_command("tournament", "resume", stdout=out)
    assert sent == [str(waiting.id)]
    assert f"resumed bot test {waiting.id}" in out.getvalue()


@pytest.mark.parametrize("llr", [2.9, 2.94, 3.0, -2.9, 0.0])
def test_the_llr_label_is_never_drawn_over_a_bounds_label(llr: float) -> None:
    """The LLR's label ends at the bounds' labels' x: near a bound (2.9 by H1 at 2.94)
    it is moved apart from that bound's label, never over it."""
    chart = llr_chart([(10, 1.0), (20, llr)], -2.94, 2.94)
    ys = sorted([chart["final_y"], *(b["label_y"] for b in chart["bounds"])])
    assert all(b - a >= LABEL_GAP - 0.05 for a, b in itertools.pairwise(ys))  # one decimal
    assert all(chart["top"] <= y <= chart["bottom"] + 4 for y in ys)



def test_the_page_and_its_command_line_stop_at_the_same_set(competitions: Competitions):
    """A test decided in the middle of a batch (set 23 of 24) stops there, as
    ``bohnanza head-to-head`` with the page's arguments does: the same games, Elo and LLR."""
    from bohnanza_core.headtohead import head_to_head
    from bohnanza_core.ratings import Gsprt
    from bohnanza_core.rulesets import ruleset_for

    command = head_to_head(ruleset_for("duel", 2), 2, "heuristic", "random", "s1",
                           test=Gsprt(0, 50, 0.05, 0.05), max_sets=100).verdict
    assert command.samples % bottests.BATCH  # decided within a batch, not at its end
    test = bottests.create("heuristic", "random", "duel", 2, 0, 50, 0.05, 0.05, 100, "s1")
    while bottests.play_batch(test.id) is not None:
        pass
    page = bottests.get(test.id)
    assert page.decided and page.accepted == command.accepted
    assert (len(page.scores), page.games) == (command.samples, command.games)
    assert page.verdict() == command
    assert page.llrs[-1] == (command.samples, command.llr)


@pytest.mark.parametrize("language", ["en", "hu", "fi"])
def test_the_printed_command_line_takes_its_numbers_in_any_language(
        competitions: Competitions, language: str):
    """``bohnanza head-to-head`` reads 0.05, never the page's 0,05."""
    test = bottests.create("heuristic", "random", "duel", 2, 0.0, 50.0, 0.05, 0.05, 1000, "s")
    client = Client()
    client.cookies["django_language"] = language
    page = client.get(reverse("tournaments:bot_test", args=[test.id])).content.decode()
    assert ("--seed s --elo0 0.0 --elo1 50.0 --alpha 0.05 --beta 0.05 --max-sets 1000"
            "</code>") in page


def test_the_forms_default_fits_the_accounts_games_left_today(competitions: Competitions,
                                                               settings, monkeypatch) -> None:
    """An account with 4,400 of its 5,000 games a day taken (a ladder) is offered 150
    sets of 4, not 1,000 (4,000 games refused at once), and the form says why."""
    from django.utils import timezone

    from tournaments import tasks
    from tournaments.models import QuotaUse

    monkeypatch.setattr(tasks.bot_test, "delay", lambda test_id: None)
    settings.TOURNAMENT_QUOTAS = {"games_per_day": 5000}
    user = User.objects.create(username="busy")
    QuotaUse.objects.create(competition_id=uuid4(), kind=QuotaUse.Kind.COMPETITION,
                            user=user, games=4400, games_at=timezone.now())
    client = Client()
    client.force_login(user)
    page = client.get(reverse("tournaments:bot_tests")).content.decode()
    assert 'name="max_sets" value="150"' in page
    assert "may ask for 600 more games today" in page
    form = {"a": "heuristic", "b": "random", "preset": "classic", "players": "4",
            "elo0": "0", "elo1": "5", "alpha": "0.05", "beta": "0.05", "max_sets": "150",
            "seed": ""}
    assert client.post(reverse("tournaments:bot_tests"), form).status_code == 302
    fresh = Client()
    fresh.force_login(User.objects.create(username="idle"))
    assert 'name="max_sets" value="1000"' in fresh.get(reverse("tournaments:bot_tests")
                                                       ).content.decode()
