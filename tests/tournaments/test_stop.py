"""Stopping a competition: a bots' round robin mid-way, a ladder between ticks, a league
with live tables; who may stop one, twice refused, the quota slot freed, the shell and
the page; a ladder's life bounded."""

from __future__ import annotations

import html
from io import StringIO
from typing import Any
from uuid import UUID

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.urls import reverse
from django_celery_beat.models import PeriodicTask

from bohnanza_core.events import GameStopped, StopReason
from bohnanza_core.rulesets import customize, ruleset_for
from play.models import Table
from replays.store import games
from tournaments import tasks
from tournaments.core import quotas, rounds
from tournaments.core.competition import OPERATOR, CompetitionError, LivePlay
from tournaments.core.games import play_deals, stored_results
from tournaments.core.ratings import rerate
from tournaments.core.store import Competitions, create
from tournaments.models import CompetitionGame, CompetitionTable, QuotaUse

BOTS5 = ["heuristic@builtin", "random@builtin", "nontrading@builtin", "heuristic@builtin #2",
         "random@builtin #2"]
SHORT = {"beans": ["wax", "blue", "chili", "stink"]}


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[UUID, int, list[int]]]:
    """What would go to the workers, kept here (a test plays it when it likes)."""
    kept: list[tuple[UUID, int, list[int]]] = []
    monkeypatch.setattr(tasks, "send_deals",
                        lambda cid, r, deals: kept.append((cid, r, list(deals))))
    return kept


def events(competitions: Competitions, cid: UUID) -> int:
    return len(list(competitions.events.get(cid)))


def same_ratings(competition: Any) -> None:
    again = rerate(stored_results(competition))
    assert {e: (r.mu, r.sigma) for e, r in again.ratings.items()} == {
        e: (mu, sigma) for e, (mu, sigma, games) in competition.ratings.items() if games}


def test_a_bots_round_robin_stopped_mid_way(competitions: Competitions, sent: list[Any]):
    cup = create("Broken cup", "round-robin", {"cycles": 1}, ruleset_for("duel", 2), 2,
                 BOTS5, organiser="user:olga")
    tasks.start(cup)
    assert PeriodicTask.objects.filter(name=f"competition {cup.id} watch").exists()
    for _, r, deals in list(sent):  # round 1, played in full: round 2 is paired
        for deal in deals:
            play_deals(cup.id, r, [deal])
            rounds.advance(cup.id, tasks.send_deals)
    running = competitions.get(cup.id)
    assert running.open_round == 1
    second = [d for _, r, deals in sent if r == 1 for d in deals]
    assert play_deals(cup.id, 1, second[:1]) == 1  # one game of round 2 in, one not
    before = events(competitions, cup.id)
    with pytest.raises(CompetitionError, match="Only its organiser"):  # not anyone
        rounds.stop(cup.id, "user:mallory", "mine now")
    assert before == events(competitions, cup.id)  # nothing stored

    stopped = rounds.stop(cup.id, "user:olga", "a bot is broken")
    assert stopped.stopped is not None and stopped.stopped.round == 1
    assert stopped.ended and not stopped.finished and stopped.open_round is None
    standings = {t.entrant: t.games for t in stopped.standings()}
    assert sum(standings.values()) == 2 * (len(stopped.rounds[0].games) + 1)
    assert len(second) == len(stopped.rounds[1].games) > 1
    assert not PeriodicTask.objects.filter(name=f"competition {cup.id} watch").exists()
    with pytest.raises(CompetitionError, match="stopped"):  # twice: refused
        rounds.stop(cup.id, "user:olga", "again")
    # the game still out there comes in later: stored, but nothing changes
    assert play_deals(cup.id, 1, second[1:]) == len(second) - 1
    assert not rounds.advance(cup.id, tasks.send_deals)
    assert rounds.watch(cup.id, tasks.send_deals) == "finished"
    after = competitions.get(cup.id)
    assert len(after.rounds) == 2 and len(after.results) == 1
    assert {t.entrant: t.games for t in after.standings()} == standings
    assert CompetitionGame.objects.filter(competition_id=cup.id, round=1).count() == len(
        second)
    same_ratings(after)  # the games it counted, rated on: the same from the store
    with pytest.raises(CompetitionError):
        after.enter("cautious@builtin")


def test_a_ladder_stopped_between_ticks_ticks_no_more(competitions: Competitions,
                                                      sent: list[Any]):
    ladder = create("Ladder", "ladder", {}, ruleset_for("duel", 2), 2, BOTS5[:4], every=60,
                    organiser="user:olga")
    tasks.start(ladder)
    assert PeriodicTask.objects.filter(name=f"competition {ladder.id} tick").exists()
    rounds.run_here(ladder.id, rounds=2)
    ticked = competitions.get(ladder.id)
    assert len(ticked.results) == 2 and ticked.open_round is None
    stopped = rounds.stop(ladder.id, "user:olga", "")
    assert stopped.stopped is not None and stopped.stopped.round is None
    assert not PeriodicTask.objects.filter(name__startswith=f"competition {ladder.id}"
                                           ).exists()
    assert rounds.tick(ladder.id, tasks.send_deals) == "idle"
    assert tasks.tick(str(ladder.id)) == "ended"  # a beat that fired anyway
    assert len(competitions.get(ladder.id).rounds) == 2 and sent == []
    assert competitions.get(ladder.id).ratings == ticked.ratings


def test_a_ladders_life_is_bounded():
    from tournaments.core.competition import Competition

    def ticks(every: int) -> int | None:
        return Competition("L", "ladder", {}, {}, 2, every, None, "", "round").ticks_total

    assert ticks(60) == 10_000  # about 7 days
    assert ticks(3600) == 8_760  # a year
    assert ticks(7 * 24 * 3600) == 52  # a year, not 192 of them
    assert Competition("C", "swiss", {"rounds": 1}, {}, 2, 0, None, "", "round"
                       ).ticks_total is None


def test_a_weekly_ladder_finishes_after_a_years_ticks(competitions: Competitions,
                                                      sent: list[Any]):
    ladder = create("Weekly", "ladder", {}, ruleset_for("duel", 2), 2, BOTS5[:2],
                    every=7 * 24 * 3600)
    tasks.schedule_ticks(ladder)
    done = rounds.run_here(ladder.id, rounds=60)
    assert len(done.rounds) == 52 and done.finished
    assert tasks.tick(str(ladder.id)) == "ended"
    assert not PeriodicTask.objects.filter(name=f"competition {ladder.id} tick").exists()


def account(name: str, **flags: Any) -> tuple[User, Client]:
    user = User.objects.create(username=name, **flags)
    client = Client()
    client.force_login(user)
    return user, client


def test_stopping_frees_the_quota_slot(competitions: Competitions, settings: Any,
                                       sent: list[Any]):
    settings.TOURNAMENT_QUOTAS = {"games_per_day": 5_000, "running_ladders": 1,
                                  "running_competitions": 1, "shortest_tick_seconds": 60}
    owner, client = account("olga")
    ladder = {"name": "Ladder", "ruleset": "duel", "table": "2", "every": "60",
              "bots": "heuristic, random, nontrading, heuristic", "rules": ""}
    assert client.post(reverse("tournaments:new_format", args=["ladder"]), ladder
                       ).status_code == 302
    assert quotas.games_used(owner) == 2 * 1440
    again = client.post(reverse("tournaments:new_format", args=["ladder"]), ladder)
    assert again.status_code == 400 and "runs at most 1 ladder" in again.content.decode()
    (lid,) = competitions.ids()
    assert client.post(reverse("tournaments:stop", args=[lid])).status_code == 302
    assert quotas.running(owner, QuotaUse.Kind.LADDER) == 0
    assert quotas.games_used(owner) == 0  # its games a day count no more
    assert client.post(reverse("tournaments:new_format", args=["ladder"]), ladder
                       ).status_code == 302
    cup = {"name": "Cup", "ruleset": "duel", "table": "2", "cycles": "1",
           "bots": "heuristic, random, nontrading, heuristic, random", "rules": ""}
    assert client.post(reverse("tournaments:new_format", args=["round-robin"]), cup
                       ).status_code == 302
    cid = competitions.ids()[0]
    assert quotas.running(owner, QuotaUse.Kind.COMPETITION) == 1
    client.post(reverse("tournaments:stop", args=[cid]), {"reason": "never plays"})
    assert quotas.running(owner, QuotaUse.Kind.COMPETITION) == 0
    assert QuotaUse.objects.get(competition_id=cid).games == len(
        competitions.get(cid).rounds[0].games)  # only what it had paired counts


def test_a_league_with_live_tables_stopped_on_its_page(competitions: Competitions,
                                                       sent: list[Any], settings: Any):
    settings.PLAY_BOT_PACE_SECONDS = 0
    _, organiser = account("olga")
    _, player = account("alice")
    league = create("People's league", "league", {"divisions": 1, "moves": 0, "seasons": 1},
                    customize("duel", 2, SHORT), 2, ["heuristic@builtin", "random@builtin"],
                    organiser="user:olga",
                    live=LivePlay("duel", SHORT, move_seconds=60, game_seconds=0,
                                  fixture_hours=24, entries_open=True))
    assert player.post(reverse("tournaments:join", args=[league.id])).status_code == 302
    organiser.post(reverse("tournaments:start", args=[league.id]))
    rows = list(CompetitionTable.objects.filter(competition_id=league.id, round=0))
    assert rows and all(r.table.status == Table.Status.RUNNING for r in rows)
    page = reverse("tournaments:detail", args=[league.id])
    assert "Stop this competition" in organiser.get(page).content.decode()
    assert "Stop this competition" not in player.get(page).content.decode()

    before = events(competitions, league.id)
    stop = reverse("tournaments:stop", args=[league.id])
    assert player.post(stop, {"reason": "mine"}).status_code == 403  # not hers to stop
    assert Client().post(stop).status_code == 302  # signed out: to the sign-in page
    assert events(competitions, league.id) == before
    assert organiser.get(stop).status_code == 405
    assert organiser.post(stop, {"reason": "the venue closed"}).status_code == 302

    stopped = competitions.get(league.id)
    assert stopped.stopped is not None and stopped.stopped.by == "user:olga"
    for row in rows:  # closed as the platform closes an abandoned table
        table = Table.objects.get(pk=row.table_id)
        assert table.status == Table.Status.FINISHED
        last = games().record(table.game_id)[-1].event
        assert isinstance(last, GameStopped) and last.reason is StopReason.ABANDONED
    assert rounds.collect(league.id, tasks.send_deals) == 0  # none of them counts
    assert not CompetitionGame.objects.filter(competition_id=league.id).exists()
    text = html.unescape(organiser.get(page).content.decode())
    assert "Stopped by olga on " in text and ": the venue closed" in text
    assert "Stop this competition" not in text
    once = events(competitions, league.id)
    again = organiser.post(stop, follow=True)  # twice: refused with the reason
    assert "This competition has been stopped." in html.unescape(again.content.decode())
    assert events(competitions, league.id) == once
    organiser.cookies["django_language"] = "hu"
    assert "Leállította" in organiser.get(page).content.decode()


def test_staff_stop_any_and_a_waiting_one_takes_no_entries(competitions: Competitions,
                                                          sent: list[Any]):
    _, staff = account("arbiter", is_staff=True)
    _, ann = account("ann")
    swiss = create("Open Swiss", "swiss", {"rounds": 1}, ruleset_for("duel", 2), 2,
                   ["heuristic@builtin"], organiser="user:olga",
                   live=LivePlay("duel", {}, move_seconds=60, game_seconds=0,
                                 fixture_hours=24, entries_open=True))
    assert staff.post(reverse("tournaments:stop", args=[swiss.id]),
                      {"reason": "spam"}).status_code == 302
    stopped = competitions.get(swiss.id)
    assert stopped.stopped is not None and stopped.stopped.by == "user:arbiter"
    assert not stopped.entries_open
    ann.post(reverse("tournaments:join", args=[swiss.id]))
    assert competitions.get(swiss.id).entrants == ["heuristic@builtin"]
    with pytest.raises(CompetitionError):
        stopped.start()


def test_the_shell_stops_one_by_name(competitions: Competitions, sent: list[Any]):
    cup = create("Walk KO B", "round-robin", {"cycles": 1}, ruleset_for("duel", 2), 2,
                 BOTS5)
    out = StringIO()
    call_command("tournament", "stop", "walk ko b", "--reason", "wrong bots", stdout=out)
    assert "stopped by the operator on " in out.getvalue()
    assert ": wrong bots" in out.getvalue()
    stopped = competitions.get(cup.id)
    assert stopped.stopped is not None and stopped.stopped.by == OPERATOR
    out = StringIO()
    call_command("tournament", "list", stdout=out)
    assert out.getvalue().rstrip().endswith("stopped")
    with pytest.raises(CommandError, match="stopped"):
        call_command("tournament", "stop", str(cup.id)[:8], stdout=StringIO())
