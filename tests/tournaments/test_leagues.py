"""Leagues: seasons of round-robin divisions; at a season's end the top of each lower
division goes up and the bottom of each higher one down, as the standings rebuilt
from the stored results say; every fixture stored once; refusals store nothing."""

from __future__ import annotations

import time
from itertools import combinations

import pytest

from bohnanza_core.rulesets import ruleset_for
from replays.store import games
from tournaments import tasks
from tournaments.competitions import CompetitionError, Tournaments
from tournaments.league_runner import play_fixture, run_league_here
from tournaments.leagues import create_league, get_league, league_game_id, league_ids
from tournaments.models import LeagueGame

BOTS6 = ["heuristic@builtin", "random@builtin", "nontrading@builtin", "heuristic@builtin #2",
         "random@builtin #2", "nontrading@builtin #2"]


def test_a_season_ends_with_the_right_promotions_and_relegations(competitions: Tournaments):
    league = create_league("Duel league", ruleset_for("duel", 2), 2, 3, 1, 2, BOTS6)
    assert league.season_divisions[0] == [[0, 1], [2, 3], [4, 5]]
    done = run_league_here(league.id)
    assert done.finished and len(done.results) == 2
    for season in range(2):
        # each division of two plays a round robin of both seat orders
        for d, division in enumerate(done.season_divisions[season]):
            fixtures = [f.seats for f in done.fixtures[season] if f.division == d]
            assert sorted(fixtures) == sorted([tuple(division), tuple(division[::-1])])
        standings = done.standings(season)
        top, middle, bottom = (
            [done.entrants.index(r.entrant) for r in division] for division in standings)
        promoted, relegated = done.moved[season]
        assert promoted == [middle[0], bottom[0]]
        assert relegated == [top[-1], middle[-1]]
        for division in standings:  # standings by points, then coins
            keys = [(-r.points, -r.coins) for r in division]
            assert keys == sorted(keys)
        assert [r.move for r in standings[0]] == [0, -1]
        assert [r.move for r in standings[2]] == [1, 0]
    # the second season's divisions are the first's after its moves
    (top, middle, bottom) = (
        [done.entrants.index(r.entrant) for r in division] for division in done.standings(0))
    assert done.season_divisions[1] == [[top[0], middle[0]], [top[1], bottom[0]],
                                        [middle[1], bottom[1]]]
    assert LeagueGame.objects.filter(league_id=league.id).count() == done.games_done() == 12
    assert games().game(league_game_id(league.id, 1, 5)).finished
    assert play_fixture(league.id, 0, 0) == 0  # a redelivery stores nothing
    assert LeagueGame.objects.filter(league_id=league.id).count() == 12


def test_points_follow_the_ranks(competitions: Tournaments):
    league = run_league_here(create_league(
        "Three", ruleset_for("classic", 3), 3, 1, 0, 1, BOTS6[:4]).id)
    (division,) = league.standings(0)
    # C(4,3) groups x 3 seat rotations; each game shares out 3 points (one a pair)
    assert len(list(combinations(range(4), 3))) * 3 == league.games_done() == 12
    assert sum(r.points for r in division) == 12 * 3
    assert {r.games for r in division} == {9} and all(r.move == 0 for r in division)


@pytest.mark.parametrize("table, divisions, moves, seasons, entrants", [
    (2, 4, 1, 1, BOTS6), (2, 3, 0, 1, BOTS6), (2, 3, 2, 1, BOTS6), (3, 1, 0, 1, BOTS6[:2]),
    (2, 1, 0, 21, BOTS6), (2, 9, 1, 1, BOTS6), (2, 2, 1, 1, BOTS6[:5] + BOTS6[:1]),
])
def test_a_refused_league_stores_nothing(competitions: Tournaments, table, divisions, moves,
                                         seasons, entrants):
    with pytest.raises(CompetitionError):
        create_league("Bad", ruleset_for("duel" if table == 2 else "classic", table), table,
                      divisions, moves, seasons,
                      entrants)
    assert league_ids() == []


def test_a_worker_plays_a_league_to_its_end(worker: Tournaments):
    league = create_league("Worker league", ruleset_for("duel", 2), 2, 2, 1, 2, BOTS6[:4])
    tasks.dispatch_fixtures(league.id, 0, range(len(league.fixtures[0])))
    deadline = time.monotonic() + 120
    while not get_league(league.id).finished:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert LeagueGame.objects.filter(league_id=league.id).count() == 8


def test_the_shell_and_the_pages_show_a_league(competitions: Tournaments):
    from io import StringIO

    from django.core.management import call_command
    from django.test import Client
    from django.urls import reverse

    out = StringIO()
    call_command("league", "create", "--name", "Shell league", "--ruleset", "duel",
                 "--table", "2", "--bots", "heuristic,random,nontrading,heuristic",
                 "--divisions", "2", "--moves", "1", "--seasons", "2", "--here", stdout=out)
    (lid,) = league_ids()
    league = get_league(lid)
    assert league.finished and "season 2" in out.getvalue()
    client = Client()
    page = client.get(reverse("tournaments:league", args=[lid])).content.decode()
    assert page.count("promoted") == 2 and page.count("relegated") == 2  # one each season
    assert league.secret not in page
    assert str(league_game_id(lid, 1, 0)) in page
    assert "Shell league" in client.get(reverse("tournaments:leagues")).content.decode()
    assert client.get(reverse("tournaments:league", args=[league_game_id(lid, 0, 0)])
                      ).status_code == 404


def test_a_league_made_on_the_page_is_played_by_a_worker(worker: Tournaments):
    from django.contrib.auth.models import User
    from django.test import Client
    from django.urls import reverse

    client = Client()
    form = {"name": "Page league", "ruleset": "duel", "table": "2",
            "bots": "heuristic, random, nontrading, heuristic", "divisions": "2",
            "moves": "1", "seasons": "1", "rules": ""}
    assert client.post(reverse("tournaments:new_league"), form).status_code == 302
    assert league_ids() == []  # signed out: to the sign-in page, nothing stored
    client.force_login(User.objects.create(username="organiser"))
    for bad in ({"divisions": "3"}, {"moves": "2"}, {"seasons": "21"}, {"table": "3"},
                {"bots": "nosuchbot"}, {"rules": "no_such_rule=1"}):
        assert client.post(reverse("tournaments:new_league"), {**form, **bad}).status_code == 400
    assert league_ids() == []
    answer = client.post(reverse("tournaments:new_league"), form)
    (lid,) = league_ids()
    assert answer["Location"] == reverse("tournaments:league", args=[lid])
    deadline = time.monotonic() + 60
    while not get_league(lid).finished:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    page = client.get(answer["Location"]).content.decode()
    assert page.count("promoted") == 1 and page.count("relegated") == 1


def test_a_league_keeps_ratings_that_its_stored_games_give_again(competitions: Tournaments,
                                                                 monkeypatch):
    from io import StringIO

    from django.core.management import call_command
    from django.core.management.base import CommandError
    from django.test import Client
    from django.urls import reverse

    from tournaments.league_runner import stored_league_results
    from tournaments.ratings import rerate

    league = run_league_here(create_league("Rated", ruleset_for("duel", 2), 2, 2, 1, 2,
                                           BOTS6[:4]).id)
    assert set(league.ratings) == set(BOTS6[:4])
    assert {games for _, _, games in league.ratings.values()} == {4}  # two a season
    again = rerate(stored_league_results(league))
    for entrant, (mu, sigma, games_played) in league.ratings.items():
        assert (again.of(entrant).mu, again.of(entrant).sigma) == (mu, sigma)
        assert again.games[entrant] == games_played
    # the ratings after the first season alone were recorded then, and differ
    first = rerate(stored_league_results(league)[:4])
    assert any(first.of(e).mu != league.ratings[e][0] for e in BOTS6[:4])
    out = StringIO()
    call_command("league", "rerate", str(league.id), stdout=out)
    assert "the same as the league's ratings" in out.getvalue()
    page = Client().get(reverse("tournaments:league", args=[league.id])).content.decode()
    for season in range(2):  # each season's table: the ratings after that season
        after = rerate(stored_league_results(league)[:4 * (season + 1)])
        assert league.rating(BOTS6[0], season) == after.of(BOTS6[0])
        assert f"{after.of(BOTS6[0]).conservative:.2f}" in page
    # ratings that the stored games do not give again are reported (exit 1)
    import tournaments.management.commands.league as command

    league.ratings[BOTS6[0]] = (1.0, 1.0, 4)
    monkeypatch.setattr(command, "get_league", lambda _id: league)
    with pytest.raises(CommandError):
        call_command("league", "rerate", str(league.id), stdout=StringIO())


def test_the_league_summary_counts_in_the_singular_and_the_plural(competitions: Tournaments):
    """One division, one season, a one-hour fixture: "1 division", never "1 divisions",
    in English and through the catalogues' plural forms."""
    from django.conf import settings
    from django.contrib.auth.models import User
    from django.test import Client
    from django.urls import reverse

    from tournaments.leagues import LivePlay

    User.objects.create_user("alice")
    one = create_league("Single", ruleset_for("duel", 2), 2, 1, 0, 1,
                        ["user:alice", "heuristic@builtin"], created_by="user:alice",
                        live=LivePlay("duel", {}, 60, 1, 1, False))
    two = create_league("Double", ruleset_for("duel", 2), 2, 2, 1, 2, BOTS6[:4])

    def lede(league_id: object, language: str = "en") -> str:
        """The summary at the top of the league's page (its two first paragraphs)."""
        client = Client()
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
        page = client.get(reverse("tournaments:league", args=[league_id])).content.decode()
        return " ".join(page[page.index('<p class="lede">'):].split("</p>")[:2])

    text = lede(one.id)
    assert "1 division," in text and "0 of 1 season played." in text
    assert "60 seconds a move, a bank of 1 second, 1 hour to finish;" in text
    assert "1 divisions" not in text and "1 seasons" not in text and "1 hours" not in text
    text = lede(two.id)
    assert "2 divisions," in text and "0 of 2 seasons played." in text
    assert "1 sarja," in lede(one.id, "fi") and "2 sarjaa," in lede(two.id, "fi")
    assert "1 tunti aikaa" in lede(one.id, "fi")
