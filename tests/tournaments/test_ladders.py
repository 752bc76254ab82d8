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

from bohnanza_core.rulesets import ruleset_for
from config.celery import app as celery_app
from replays.store import games
from tournaments import tasks
from tournaments.competitions import CompetitionError, Tournaments, tournaments
from tournaments.ladder_runner import (
    play_match,
    run_ticks_here,
    schedule,
    stored_ladder_results,
)
from tournaments.ladders import (
    Ladder,
    create_ladder,
    get_ladder,
    ladder_game_id,
    ladder_ids,
    last_meetings,
    vary_groups,
)
from tournaments.models import LadderGame
from tournaments.ratings import rerate

BOTS5 = ["heuristic@builtin", "random@builtin", "nontrading@builtin", "heuristic@builtin #2",
         "random@builtin #2"]


def _same_ratings(ladder: Ladder) -> None:
    again = rerate(stored_ladder_results(ladder))
    assert again.ratings, "nothing was rated"
    assert {e: (r.mu, r.sigma) for e, r in again.ratings.items()} == {
        e: (mu, sigma) for e, (mu, sigma, games) in ladder.ratings.items() if games}


def test_ticks_pair_neighbours_in_rating_and_rerate_the_same(competitions: Tournaments):
    ladder = create_ladder("Duel ladder", ruleset_for("duel", 2), 2, 60, BOTS5)
    before = ladder
    for _ in range(4):
        ranking = before.ranking()
        after = run_ticks_here(ladder.id, 1)
        matches = after.ticks[len(before.ticks)]
        assert len(matches) == 2  # 5 entrants, tables of 2: one sits out
        for seats in matches:  # each table: neighbours in the ranking before the tick
            places = sorted(ranking.index(e) for e in seats)
            assert places[1] - places[0] == 1
        assert len(after.history) == len(after.ticks) == len(after.results)
        before = after
    done = get_ladder(ladder.id)
    assert LadderGame.objects.filter(ladder_id=ladder.id).count() == done.games_done() == 8
    for match in range(8):
        assert games().game(ladder_game_id(ladder.id, match)).finished
    assert play_match(ladder.id, 0) == 0  # a redelivered match stores nothing
    assert LadderGame.objects.filter(ladder_id=ladder.id).count() == 8
    _same_ratings(done)
    assert ladder.id in ladder_ids()


def test_a_newcomer_joins_from_the_next_tick(competitions: Tournaments):
    ladder = create_ladder("Open", ruleset_for("duel", 2), 2, 60, BOTS5[:2])
    run_ticks_here(ladder.id, 1)
    ladder = get_ladder(ladder.id)
    ladder.join("nontrading@builtin")
    with pytest.raises(CompetitionError):
        ladder.join("nontrading@builtin")
    tournaments().save(ladder)
    ladder = run_ticks_here(ladder.id, 3)
    assert 2 in {e for matches in ladder.ticks for seats in matches for e in seats}
    _same_ratings(ladder)


@pytest.mark.parametrize("name, table, interval, entrants", [
    ("", 2, 60, BOTS5), ("x" * 101, 2, 60, BOTS5), ("Bad", 3, 60, BOTS5),
    ("Bad", 2, 1, BOTS5), ("Bad", 2, 60, ["heuristic@builtin", "heuristic@builtin"]),
])
def test_a_refused_ladder_stores_nothing(competitions: Tournaments, name, table, interval,
                                         entrants):
    with pytest.raises(CompetitionError):
        create_ladder(name, ruleset_for("duel", 2), table, interval, entrants)
    assert ladder_ids() == []


def test_a_ladder_is_scheduled_on_the_beat(competitions: Tournaments):
    ladder = create_ladder("Beat", ruleset_for("duel", 2), 2, 30, BOTS5)
    task = schedule(ladder)
    assert schedule(ladder).pk == task.pk
    assert task.task in celery_app.tasks and task.interval.every == 30
    assert PeriodicTask.objects.get(name=f"ladder {ladder.id}").args == f'["{ladder.id}"]'


def test_a_worker_plays_ladder_ticks(worker: Tournaments):
    ladder = create_ladder("Worker ladder", ruleset_for("duel", 2), 2, 60, BOTS5[:4])
    deadline = time.monotonic() + 120
    ticks = 0
    while ticks < 3 and time.monotonic() < deadline:
        current = get_ladder(ladder.id)
        if current.open_tick is None and len(current.ticks) == ticks:
            tasks.ladder_tick.delay(str(ladder.id))
            ticks += 1
        time.sleep(0.05)
    while time.monotonic() < deadline:
        done = get_ladder(ladder.id)
        if len(done.results) == 3:
            break
        time.sleep(0.05)
    assert len(done.results) == 3 and done.games_done() == 6
    assert LadderGame.objects.filter(ladder_id=ladder.id).count() == 6
    _same_ratings(done)


def test_the_shell_creates_joins_ticks_and_rerates_a_ladder(competitions: Tournaments):
    from io import StringIO

    from django.core.management import call_command
    from django.core.management.base import CommandError

    out = StringIO()
    call_command("ladder", "create", "--name", "Shell", "--ruleset", "duel", "--table", "2",
                 "--bots", "heuristic,random", "--every", "60", stdout=out)
    lid = out.getvalue().split("\n", 1)[0]
    assert PeriodicTask.objects.filter(name=f"ladder {lid}").exists()
    call_command("ladder", "join", lid, "--bots", "nontrading", stdout=StringIO())
    out = StringIO()
    call_command("ladder", "tick", lid, "--here", "--ticks", "2", stdout=out)
    assert "nontrading@builtin" in out.getvalue()
    out = StringIO()
    call_command("ladder", "rerate", lid, stdout=out)
    assert "the same as the ladder's ratings" in out.getvalue()
    assert get_ladder(ladder_ids()[0]).games_done() == 2
    with pytest.raises(CommandError):
        call_command("ladder", "create", "--name", "Bad", "--ruleset", "duel", "--table",
                     "2", "--bots", "nosuchbot", stdout=StringIO())


def test_the_ladder_pages_create_rank_and_chart(competitions: Tournaments):
    from django.contrib.auth.models import User
    from django.test import Client
    from django.urls import reverse

    client = Client()
    form = {"name": "Page ladder", "ruleset": "duel", "table": "2",
            "bots": "heuristic, random, nontrading", "every": "60", "rules": ""}
    assert client.post(reverse("tournaments:new_ladder"), form).status_code == 302
    assert ladder_ids() == []  # signed out: to the sign-in page, nothing stored
    client.force_login(User.objects.create(username="organiser"))
    for bad in ({"every": "1"}, {"bots": "nosuchbot"}, {"table": "3"},
                {"rules": "no_such_rule=1"}, {"name": ""}):
        assert client.post(reverse("tournaments:new_ladder"), {**form, **bad}).status_code == 400
    assert ladder_ids() == []
    answer = client.post(reverse("tournaments:new_ladder"), form)
    (lid,) = ladder_ids()
    assert answer["Location"] == reverse("tournaments:ladder", args=[lid])
    assert PeriodicTask.objects.filter(name=f"ladder {lid}").exists()
    page = client.get(answer["Location"]).content.decode()
    assert "No tick has ended yet." in page and "<svg" not in page
    ladder = run_ticks_here(lid, 3)
    page = client.get(answer["Location"]).content.decode()
    assert page.count('class="series"') == 3 and "heuristic@builtin" in page
    assert ladder.secret not in page
    for match in range(ladder.first_match(2), ladder.games_done()):
        assert str(ladder_game_id(lid, match)) in page
    assert "Page ladder" in client.get(reverse("tournaments:ladders")).content.decode()
    assert client.get(reverse("tournaments:ladder", args=[ladder_game_id(lid, 0)])
                      ).status_code == 404
    tournament_page = f"/tournaments/{lid}/"  # a ladder's id is no competition's
    assert client.get(tournament_page).status_code == 404


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


def test_a_ladder_of_tables_of_four_varies_its_groups(competitions: Tournaments):
    ladder = create_ladder("Four", ruleset_for("classic", 4), 4, 60,
                           [*BOTS5, "nontrading@builtin #2", "heuristic@builtin #3",
                            "random@builtin #3"])
    tables = []
    for _ in range(3):  # no result ever ends a tick here: the ranking stays as it is
        matches = ladder.next_matches()
        assert sorted(e for m in matches for e in m) == list(range(8))
        tables.append({frozenset(m) for m in matches})
        ladder.ticks.append(matches)
    assert tables[0] != tables[1] and tables[1] != tables[2]
    assert tables[0] == {frozenset(range(4)), frozenset(range(4, 8))}  # at first: neighbours
