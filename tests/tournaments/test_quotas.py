"""Quotas (issue 26, finding 6): an account asks for so many games a day, runs so many
competitions, ladders and leagues at once, and ticks its ladders so often, as the
settings say; over that the form is shown again with the reason (400, in the reader's
language) and nothing is stored; staff are not bounded."""

from __future__ import annotations

import html
import io
from collections.abc import Iterator
from datetime import timedelta
from typing import Any
from uuid import UUID

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from tournaments import tasks
from tournaments.core import quotas
from tournaments.core.rounds import run_here
from tournaments.core.store import Competitions
from tournaments.models import QuotaUse

CUP = {"name": "Cup", "ruleset": "classic", "table": "4",
       "bots": "heuristic, random, nontrading, heuristic, random, nontrading, heuristic, "
               "random", "cycles": "1", "rules": ""}
"""A round robin of 8 at tables of 4: 280 games."""
LADDER = {"name": "Ladder", "ruleset": "duel", "table": "2",
          "bots": "heuristic, random, nontrading, heuristic", "every": "600", "rules": ""}
"""Two tables a tick, 144 ticks a day: 288 games a day."""
LEAGUE = {"name": "League", "ruleset": "duel", "table": "2", "bots": "heuristic, random",
          "divisions": "1", "moves": "0", "seasons": "3", "rules": ""}
"""One division of two playing both seat orders, three seasons: 6 games."""


def new(format: str) -> str:
    return reverse("tournaments:new_format", args=[format])


def of_format(competitions: Competitions, format: str) -> list[UUID]:
    return [i for i in competitions.ids() if competitions.get(i).format == format]


@pytest.fixture(autouse=True)
def no_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the pages send the workers goes nowhere: these tests count, not play."""
    monkeypatch.setattr(tasks, "start", lambda competition: None)
    monkeypatch.setattr(tasks, "send_deals", lambda *args: None)


@pytest.fixture
def limits(settings: Any) -> Iterator[dict[str, int]]:
    settings.TOURNAMENT_QUOTAS = {"games_per_day": 500, "running_competitions": 5,
                                  "running_ladders": 5, "running_leagues": 5,
                                  "shortest_tick_seconds": 300}
    yield settings.TOURNAMENT_QUOTAS


def account(name: str, **flags: Any) -> Client:
    client = Client()
    client.force_login(User.objects.create(username=name, **flags))
    return client


def refused(answer: Any, reason: str) -> None:
    assert answer.status_code == 400
    text = html.unescape(answer.content.decode())
    assert 'class="problems"' in text and reason in text, text[text.find("problems"):][:600]


def test_games_a_day_bound_competitions_and_staff_are_exempt(competitions: Competitions,
                                                             limits: dict[str, int]):
    owner = account("owner")
    assert owner.post(new("round-robin"), CUP).status_code == 302
    answer = owner.post(new("round-robin"), {**CUP, "name": "Again"})
    refused(answer, "This asks for 280 games; your account may ask for 500 games a day and "
                    "has asked for 280 in the last 24 hours")
    assert len(competitions.ids()) == 1
    # in the reader's language, as the rest of the page
    owner.cookies["django_language"] = "hu"
    refused(owner.post(new("round-robin"), {**CUP, "name": "Again"}), "280")
    assert "This asks for" not in owner.post(new("round-robin"), CUP
                                             ).content.decode()
    owner.cookies["django_language"] = "en"
    # a day later the games asked for then count no more
    QuotaUse.objects.update(games_at=timezone.now() - timedelta(hours=25))
    assert owner.post(new("round-robin"), {**CUP, "name": "Next day"}
                      ).status_code == 302
    staff = account("arbiter", is_staff=True)
    for n in range(3):
        assert staff.post(new("round-robin"), {**CUP, "name": f"Staff {n}"}
                          ).status_code == 302
    assert len(competitions.ids()) == 5
    assert not QuotaUse.objects.filter(user__username="arbiter").exists()


def test_running_competitions_are_bounded_until_one_ends(competitions: Competitions,
                                                         limits: dict[str, int]):
    limits.update(running_competitions=1, games_per_day=10_000)
    owner = account("owner")
    small = {**CUP, "rounds": "1"}  # a Swiss round: 2 games
    assert owner.post(new("swiss"), small).status_code == 302
    refused(owner.post(new("swiss"), small),
            "An account runs at most 1 competition at a time: wait until yours has ended.")
    refused(owner.post(new("round-robin"), CUP),  # any format but a ladder or a league
            "An account runs at most 1 competition at a time")
    (first,) = competitions.ids()
    run_here(first)
    assert owner.post(new("swiss"), small).status_code == 302
    assert QuotaUse.objects.get(competition_id=first).running is False


def test_ladders_tick_no_faster_than_the_quota_and_count_their_games_every_day(
        competitions: Competitions, limits: dict[str, int]):
    owner = account("owner")
    refused(owner.post(new("ladder"), {**LADDER, "every": "60"}),
            "Your ladders tick at most once every 300 seconds.")
    assert of_format(competitions, "ladder") == []
    assert owner.post(new("ladder"), LADDER).status_code == 302
    assert quotas.games_used(User.objects.get(username="owner")) == 288
    # a running ladder's day of games counts in every 24 hours
    QuotaUse.objects.update(games_at=timezone.now() - timedelta(days=3))
    refused(owner.post(new("ladder"), LADDER),
            "This ladder plays 288 games a day; your account may ask for 500 games a day "
            "and has asked for 288")
    limits.update(games_per_day=100_000, running_ladders=1)
    refused(owner.post(new("ladder"), LADDER),
            "An account runs at most 1 ladder.")
    assert len(of_format(competitions, "ladder")) == 1
    staff = account("arbiter", is_staff=True)
    assert staff.post(new("ladder"), {**LADDER, "every": "10"}
                      ).status_code == 302


def test_a_waiting_league_counts_its_games_when_its_organiser_starts_it(
        competitions: Competitions, limits: dict[str, int]):
    limits.update(games_per_day=8, running_leagues=2)
    User.objects.create_user("ann")
    owner = account("owner")
    assert owner.post(new("league"), LEAGUE).status_code == 302  # 6
    waiting = {**LEAGUE, "name": "Waiting", "people": "ann", "move_seconds": "60",
               "game_seconds": "0", "fixture_hours": "24"}
    assert owner.post(new("league"), waiting).status_code == 302
    refused(owner.post(new("league"), LEAGUE),
            "An account runs at most 2 leagues at a time")
    (lid,) = [i for i in of_format(competitions, "league") if competitions.get(i).waiting]
    answer = owner.post(reverse("tournaments:start", args=[lid]), follow=True)
    assert "This asks for 6 games; your account may ask for 8 games a day" in (
        answer.content.decode())
    assert competitions.get(lid).waiting  # refused: nothing changed
    limits.update(games_per_day=12)
    owner.post(reverse("tournaments:start", args=[lid]))
    assert not competitions.get(lid).waiting
    assert quotas.games_used(User.objects.get(username="owner")) == 12


def refused_test(answer: Any, reason: str) -> None:
    """The bot tests' form shown again (400) with the reason among its errors."""
    assert answer.status_code == 400
    text = html.unescape(answer.content.decode())
    assert "errorlist" in text and reason in text, text[text.find("errorlist"):][:600]


def test_bot_tests_count_against_the_games_a_day_and_give_back_what_they_did_not_play(
        competitions: Competitions, limits: dict[str, int],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Finding 4 of the second attack: three bot tests of up to 100,000 games each
    were accepted from an account the quota held to 5,000 games a day. A test asks for
    its most sets times the table size; once decided, what it did not play is given
    back; staff are exempt."""
    from tournaments.core import bottests

    monkeypatch.setattr(tasks.bot_test, "delay", lambda test_id: None)
    test = {"a": "heuristic", "b": "random", "preset": "duel", "players": 2, "elo0": 0,
            "elo1": 50, "alpha": 0.05, "beta": 0.05, "seed": "q"}
    owner = account("owner")
    url = reverse("tournaments:bot_tests")
    refused_test(owner.post(url, {**test, "max_sets": 300}),
            "This asks for 600 games; your account may ask for 500 games a day and has "
            "asked for 0 in the last 24 hours")
    assert bottests.ids() == []
    assert owner.post(url, {**test, "max_sets": 200}).status_code == 302
    refused_test(owner.post(url, {**test, "max_sets": 60}),
            "This asks for 120 games; your account may ask for 500 games a day and has "
            "asked for 400 in the last 24 hours")
    (first,) = bottests.ids()
    user = User.objects.get(username="owner")
    assert quotas.games_used(user) == 400
    while bottests.play_batch(first) is not None:  # heuristic beats random quickly
        pass
    played = bottests.get(first).games
    assert bottests.get(first).decided and played < 400
    assert quotas.games_used(user) == played
    assert owner.post(url, {**test, "max_sets": 50}).status_code == 302
    staff = account("staff", is_staff=True)
    assert staff.post(url, {**test, "max_sets": 20_000}).status_code == 302


def test_bot_tests_count_as_running_competitions(competitions: Competitions,
                                                 limits: dict[str, int],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tasks.bot_test, "delay", lambda test_id: None)
    limits["running_competitions"] = 1
    test = {"a": "heuristic", "b": "random", "preset": "duel", "players": 2, "elo0": 0,
            "elo1": 50, "alpha": 0.05, "beta": 0.05, "seed": "q", "max_sets": 10}
    owner = account("owner")
    url = reverse("tournaments:bot_tests")
    assert owner.post(url, test).status_code == 302
    refused_test(owner.post(url, test), "An account runs at most 1 competition at a time")


def test_a_running_ladders_new_entrants_count_against_its_organisers_games_a_day(
        competitions: Competitions, limits: dict[str, int]):
    """A ladder made with no entrant was charged nothing, then took 20 bot accounts (10
    tables a tick) by the API with no check: each entry now charges its maker again
    and is refused once the ladder's games a day would pass the quota."""
    from play import tokens

    limits.update(games_per_day=200)
    owner = account("owner")
    ladder = {**LADDER, "bots": "", "live_tables": "on", "move_seconds": "30",
              "game_seconds": "0", "fixture_hours": "2", "absent": "clock"}
    assert owner.post(new("ladder"), ladder).status_code == 302
    (lid,) = of_format(competitions, "ladder")
    maker = User.objects.get(username="owner")
    assert quotas.games_used(maker) == 0
    entries = f"/api/v1/competitions/{lid}/entries"
    for n in range(3):  # one table a tick, 144 ticks a day
        tokens.create_bot(maker, f"robo{n}")
        answer = owner.post(entries, {"account": f"robo{n}"},
                            content_type="application/json")
        assert answer.status_code == 201, answer.content
    assert quotas.games_used(maker) == 144
    tokens.create_bot(maker, "robo3")  # a second table: 288 a day, over the 200
    answer = owner.post(entries, {"account": "robo3"}, content_type="application/json")
    assert (answer.status_code, answer.json()["code"]) == (409, "entry_refused")
    assert "would play 288 games a day" in answer.json()["message"]
    assert "user:robo3" not in competitions.get(lid).entrants
    assert quotas.games_used(maker) == 144
    limits.update(games_per_day=300)
    assert owner.post(entries, {"account": "robo3"},
                      content_type="application/json").status_code == 201
    assert quotas.games_used(maker) == 288
    # the command line's operator enters whom they like, and the count follows
    limits.update(games_per_day=100)
    from django.core.management import call_command
    call_command("tournament", "join", str(lid), "--bots", "heuristic, random",
                 stdout=io.StringIO())
    assert quotas.games_used(maker) == 432
