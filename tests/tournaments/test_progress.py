"""Progress game by game (issue 28, item 3): games stored of those planned, the rate
and the estimated end, on the page, its JSON and the command's bar; a one-round
competition moves from its first game."""

from __future__ import annotations

from datetime import timedelta

from django.test import Client
from django.urls import reverse

from bohnanza_core.rulesets import ruleset_for
from tournaments.core.games import play_deals
from tournaments.core.progress import progress
from tournaments.core.rounds import run_here
from tournaments.core.store import create
from tournaments.management.commands.tournament import progress_bar

BOTS3 = ["heuristic@builtin", "random@builtin", "nontrading@builtin"]


def test_a_one_round_competition_moves_with_each_game_stored(competitions):
    # a Swiss of one round: 2 tables, 2 games, all in the one round
    c = create("One round", "swiss", {"rounds": 1}, ruleset_for("classic", 3), 3,
               [*BOTS3, "heuristic@builtin #2", "random@builtin #2", "nontrading@builtin #2"])
    assert len(c.rounds[0].games) == 2
    before = progress(c)
    assert (before.stored, before.planned, before.percent, before.rate) == (0, 2, 0, None)
    assert "0/2 games" in progress_bar(c)
    play_deals(c.id, 0, [c.rounds[0].games[0].deal])
    c = competitions.get(c.id)
    assert c.open_round == 0 and c.games_done() == 0  # the round has not ended...
    later = c.paired_at[0] + timedelta(seconds=30)
    p = progress(c, later)
    assert (p.stored, p.planned, p.percent) == (1, 2, 50)  # ...but the bar moved
    assert p.rate == 2.0  # one game in 30 s
    assert p.remaining == timedelta(seconds=30) and p.eta == later + timedelta(seconds=30)
    bar = progress_bar(c)
    assert "1/2 games, round 1" in bar and "games/min" in bar and "left" in bar
    answer = Client().get(reverse("tournaments:progress", args=[c.id])).json()
    assert (answer["done"], answer["total"], answer["percent"]) == (1, 2, 50)
    assert answer["rate"] > 0 and answer["eta"] and "games a minute" in answer["pace"]
    page = Client().get(reverse("tournaments:detail", args=[c.id])).content.decode()
    assert 'value="1"' in page and "games a minute" in page


def test_a_finished_competition_says_its_rate_and_no_time_left(competitions):
    c = create("Done", "round-robin", {"cycles": 1}, ruleset_for("classic", 3), 3, BOTS3)
    done = run_here(c.id)
    p = progress(done, done.finished_at + timedelta(hours=5))
    assert (p.stored, p.planned, p.percent, p.eta, p.remaining) == (3, 3, 100, None, None)
    assert p.rate is not None and p.rate > 0  # measured up to its end, not to now
    assert p.rate == progress(done, done.finished_at).rate
    assert "3/3 games, finished" in progress_bar(done)


def test_a_running_ladders_progress_has_no_total_and_no_percent(competitions):
    """A ladder plays on until its last tick: 0 of 0 games is no "100 percent"."""
    ladder = create("Ladder", "ladder", {}, ruleset_for("duel", 2), 2,
                    ["heuristic@builtin", "random@builtin"], every=300)
    answer = Client().get(reverse("tournaments:progress", args=[ladder.id])).json()
    assert (answer["done"], answer["total"], answer["percent"]) == (0, None, None)
    assert answer["text"] == "0 games stored" and not answer["finished"]
