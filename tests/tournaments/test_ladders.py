"""Ladders: ticks pair entrants close in conservative rating, every match stored once
under an id and seed that follow from the ladder, ratings re-rated from the stored
games alone give the ladder's numbers; a real worker runs ticks sent as tasks."""

from __future__ import annotations

import random
import time
from itertools import combinations

import pytest
from django_celery_beat.models import PeriodicTask
from hypothesis import given, settings
from hypothesis import strategies as st

from bohnanza_core.formats import last_meetings, vary_groups
from bohnanza_core.rulesets import Ruleset, ruleset_for
from config.celery import app as celery_app
from replays.store import games
from tournaments import tasks
from tournaments.core.competition import Competition, CompetitionError
from tournaments.core.games import play_deals, stored_results
from tournaments.core.ratings import rerate
from tournaments.core.rounds import run_here
from tournaments.core.store import Competitions, create
from tournaments.models import CompetitionGame

BOTS5 = ["heuristic@builtin", "random@builtin", "nontrading@builtin", "heuristic@builtin #2",
         "random@builtin #2"]


def new_ladder(name: str, ruleset: Ruleset, table: int, every: int,
               entrants: list[str]) -> Competition:
    """A ladder (``create`` with the ladder's schedule: a round every ``every`` s)."""
    return create(name, "ladder", {}, ruleset, table, entrants, every=every)


def _same_ratings(ladder: Competition) -> None:
    again = rerate(stored_results(ladder))
    assert again.ratings, "nothing was rated"
    assert {e: (r.mu, r.sigma) for e, r in again.ratings.items()} == {
        e: (mu, sigma) for e, (mu, sigma, games) in ladder.ratings.items() if games}


def test_ticks_pair_neighbours_in_rating_and_rerate_the_same(competitions: Competitions):
    ladder = new_ladder("Duel ladder", ruleset_for("duel", 2), 2, 60, BOTS5)
    before = ladder
    for _ in range(4):
        ranking = before.ranking()
        after = run_here(ladder.id, rounds=1)
        matches = after.rounds[len(before.rounds)].games
        assert len(matches) == 2  # 5 entrants, tables of 2: one sits out
        for match in matches:  # each table: neighbours in the ranking before the tick
            places = sorted(ranking.index(e) for e in match.seats)
            assert places[1] - places[0] == 1
        assert len(after.rating_history) == len(after.rounds) == len(after.results)
        before = after
    done = competitions.get(ladder.id)
    assert CompetitionGame.objects.filter(competition_id=ladder.id).count() == \
        done.games_done() == 8
    for tick, paired in enumerate(done.rounds):
        for index in range(len(paired.games)):
            assert games().game(done.game_id(tick, index)).finished
    assert play_deals(ladder.id, 0, [0]) == 0  # a redelivered match stores nothing
    assert CompetitionGame.objects.filter(competition_id=ladder.id).count() == 8
    _same_ratings(done)
    assert ladder.id in competitions.ids()


def test_a_newcomer_joins_from_the_next_tick(competitions: Competitions):
    ladder = new_ladder("Open", ruleset_for("duel", 2), 2, 60, BOTS5[:2])
    run_here(ladder.id, rounds=1)
    ladder = competitions.get(ladder.id)
    ladder.enter("nontrading@builtin")
    with pytest.raises(CompetitionError):
        ladder.enter("nontrading@builtin")
    competitions.save(ladder)
    ladder = run_here(ladder.id, rounds=3)
    assert 2 in {e for paired in ladder.rounds for match in paired.games for e in match.seats}
    _same_ratings(ladder)


@pytest.mark.parametrize("name, table, every, entrants", [
    ("", 2, 60, BOTS5), ("x" * 101, 2, 60, BOTS5), ("Bad", 3, 60, BOTS5),
    ("Bad", 2, 1, BOTS5), ("Bad", 2, 60, ["heuristic@builtin", "heuristic@builtin"]),
])
def test_a_refused_ladder_stores_nothing(competitions: Competitions, name, table, every,
                                         entrants):
    with pytest.raises(CompetitionError):
        new_ladder(name, ruleset_for("duel", 2), table, every, entrants)
    assert competitions.ids() == []


def test_only_a_ladder_has_a_schedule(competitions: Competitions):
    """A ladder's rounds come every so often (its schedule); another format's next
    round comes as soon as one ends, so neither is made without the other."""
    with pytest.raises(CompetitionError, match="a ladder plays a round every"):
        create("No schedule", "ladder", {}, ruleset_for("duel", 2), 2, BOTS5)
    with pytest.raises(CompetitionError, match="a ladder plays a round every"):
        create("Scheduled", "round-robin", {"cycles": 1}, ruleset_for("duel", 2), 2, BOTS5,
               every=60)
    assert competitions.ids() == []


def test_a_ladder_is_scheduled_on_the_beat(competitions: Competitions):
    ladder = new_ladder("Beat", ruleset_for("duel", 2), 2, 30, BOTS5)
    task = tasks.schedule_ticks(ladder)
    assert tasks.schedule_ticks(ladder).pk == task.pk
    assert task.task in celery_app.tasks and task.interval.every == 30
    assert PeriodicTask.objects.get(name=f"competition {ladder.id} tick"
                                    ).args == f'["{ladder.id}"]'


def test_a_worker_plays_ladder_ticks(worker: Competitions):
    ladder = new_ladder("Worker ladder", ruleset_for("duel", 2), 2, 60, BOTS5[:4])
    deadline = time.monotonic() + 120
    ticks = 0
    while ticks < 3 and time.monotonic() < deadline:
        current = worker.get(ladder.id)
        if current.open_round is None and len(current.rounds) == ticks:
            tasks.tick.delay(str(ladder.id))
            ticks += 1
        time.sleep(0.05)
    while time.monotonic() < deadline:
        done = worker.get(ladder.id)
        if len(done.results) == 3:
            break
        time.sleep(0.05)
    assert len(done.results) == 3 and done.games_done() == 6
    assert CompetitionGame.objects.filter(competition_id=ladder.id).count() == 6
    _same_ratings(done)


def test_the_shell_creates_joins_ticks_and_rerates_a_ladder(competitions: Competitions):
    from io import StringIO

    from django.core.management import call_command
    from django.core.management.base import CommandError

    out = StringIO()
    call_command("tournament", "create", "--format", "ladder", "--name", "Shell",
                 "--ruleset", "duel", "--table", "2", "--bots", "heuristic,random",
                 "--every", "60", stdout=out)
    lid = out.getvalue().split("\n", 1)[0].removeprefix("created ")
    assert PeriodicTask.objects.filter(name=f"competition {lid} tick").exists()
    call_command("tournament", "join", lid, "--bots", "nontrading", stdout=StringIO())
    # a bot entered already comes in as another copy, as on create
    call_command("tournament", "join", lid, "--bots", "random,random", stdout=StringIO())
    assert competitions.get(competitions.ids()[0]).entrants == [
        "heuristic@builtin", "random@builtin", "nontrading@builtin", "random@builtin #2",
        "random@builtin #3"]
    out = StringIO()
    call_command("tournament", "tick", lid, "--here", "--ticks", "2", stdout=out)
    assert "nontrading@builtin" in out.getvalue()
    out = StringIO()
    call_command("tournament", "rerate", lid, stdout=out)
    assert "the same ratings as recorded" in out.getvalue()
    assert competitions.get(competitions.ids()[0]).games_done() == 4  # 2 tables a tick
    with pytest.raises(CommandError):
        call_command("tournament", "create", "--format", "ladder", "--name", "Bad",
                     "--ruleset", "duel", "--table", "2", "--bots", "nosuchbot",
                     stdout=StringIO())
    call_command("tournament", "create", "--format", "round-robin", "--name", "Cup",
                 "--ruleset", "duel", "--table", "2", "--bots", "heuristic,random",
                 "--here", stdout=StringIO())
    with pytest.raises(CommandError, match="only a competition on a schedule"):
        call_command("tournament", "tick", "Cup", "--here", stdout=StringIO())


def test_the_ladder_pages_create_rank_and_chart(competitions: Competitions):
    from django.contrib.auth.models import User
    from django.test import Client
    from django.urls import reverse

    client = Client()
    new = reverse("tournaments:new_format", args=["ladder"])
    form = {"name": "Page ladder", "ruleset": "duel", "table": "2",
            "bots": "heuristic, random, nontrading", "every": "60", "rules": ""}
    assert client.post(new, form).status_code == 302
    assert competitions.ids() == []  # signed out: to the sign-in page, nothing stored
    client.force_login(User.objects.create(username="organiser"))
    for bad in ({"every": "1"}, {"bots": "nosuchbot"}, {"table": "3"},
                {"rules": "no_such_rule=1"}, {"name": ""}):
        assert client.post(new, {**form, **bad}).status_code == 400
    assert competitions.ids() == []
    answer = client.post(new, form)
    (lid,) = competitions.ids()
    assert answer["Location"] == reverse("tournaments:detail", args=[lid])
    assert PeriodicTask.objects.filter(name=f"competition {lid} tick").exists()
    page = client.get(answer["Location"]).content.decode()
    assert "No tick has ended yet." in page and "<svg" not in page
    ladder = run_here(lid, rounds=3)
    page = client.get(answer["Location"]).content.decode()
    assert page.count('class="series"') == 3 and "heuristic@builtin" in page
    assert ladder.secret not in page
    for index in range(len(ladder.rounds[2].games)):  # the last tick's games
        assert str(ladder.game_id(2, index)) in page
    listed = client.get(reverse("tournaments:list") + "?format=ladder").content.decode()
    assert "Page ladder" in listed
    # the ladders' old addresses lead to the same pages
    old = client.get(reverse("tournaments:ladder", args=[lid]))
    assert old.status_code == 301 and old["Location"] == answer["Location"]
    old = client.get(reverse("tournaments:ladders"))
    assert old.status_code == 301 and old["Location"] == reverse("tournaments:list") + \
        "?format=ladder"
    assert client.get(reverse("tournaments:detail", args=[ladder.game_id(0, 0)])
                      ).status_code == 404  # a game's id is no competition's


@settings(max_examples=60, deadline=None)
@given(k=st.integers(3, 5), extra=st.integers(0, 15), seed=st.integers(0, 2**32))
def test_groups_vary_until_every_pair_close_in_rating_meets(k: int, extra: int,
                                                            seed: int) -> None:
    """Ratings held still (the same ranking tick after tick, as when they are close):
    within 6n ticks every two entrants fewer than k places apart in the ranking share a
    table, and no tick repeats the last tick's tables while another group is possible."""
    n = k + extra
    ranking = list(range(n))
    ticks: list[list[tuple[int, ...]]] = []
    met: set[frozenset[int]] = set()
    close = {frozenset((a, b)) for a in range(n) for b in range(a + 1, min(n, a + k))}
    rng = random.Random(seed)
    for tick in range(6 * n):
        start = tick % (n % k + 1)
        order = ranking[start:start + (n // k) * k]
        groups = vary_groups(order if tick % 2 == 0 else order[::-1], k,
                             last_meetings(ticks), {frozenset(m) for m in ticks[-1]}
                             if ticks else set(), rng)
        assert sorted(e for g in groups for e in g) == sorted(order)
        assert all(len(g) == k for g in groups)
        if ticks and len(order) > k:  # the first table differs from every last table
            assert frozenset(groups[0]) not in {frozenset(m) for m in ticks[-1]}
        ticks.append([tuple(g) for g in groups])
        met |= {frozenset(p) for g in groups for p in combinations(g, 2)}
        if close <= met:
            break
    assert close <= met, sorted(tuple(sorted(p)) for p in close - met)


def test_a_ladder_of_tables_of_four_varies_its_groups(competitions: Competitions):
    ladder = new_ladder("Four", ruleset_for("classic", 4), 4, 60,
                           [*BOTS5, "nontrading@builtin #2", "heuristic@builtin #3",
                            "random@builtin #3"])
    tables = []
    for _ in range(3):  # no result ever ends a tick here: the ranking stays as it is
        paired = ladder.rules.next_round(ladder.history())
        assert paired is not None
        assert sorted(e for m in paired.games for e in m.seats) == list(range(8))
        tables.append({frozenset(m.seats) for m in paired.games})
        ladder.rounds.append(paired)
    assert tables[0] != tables[1] and tables[1] != tables[2]
    assert tables[0] == {frozenset(range(4)), frozenset(range(4, 8))}  # at first: neighbours
