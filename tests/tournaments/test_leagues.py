"""Leagues: seasons of round-robin divisions; at a season's end the top of each lower
division goes up and the bottom of each higher one down, as the standings rebuilt
from the stored results say; every game stored once; refusals store nothing."""

from __future__ import annotations

import re
import time
from itertools import combinations
from typing import Any

import pytest

from bohnanza_core.formats import Tally, tally
from bohnanza_core.rulesets import Ruleset, ruleset_for
from replays.store import games
from tournaments.core.competition import Competition, CompetitionError
from tournaments.core.games import play_deals
from tournaments.core.rounds import run_here
from tournaments.core.store import Competitions, create
from tournaments.models import CompetitionGame

BOTS6 = ["heuristic@builtin", "random@builtin", "nontrading@builtin", "heuristic@builtin #2",
         "random@builtin #2", "nontrading@builtin #2"]


def new_league(name: str, ruleset: Ruleset, table: int, divisions: int, moves: int,
               seasons: int, entrants: list[str], **kwargs: Any) -> Competition:
    """A league (``create`` with the league's options)."""
    return create(name, "league", {"divisions": divisions, "moves": moves, "seasons": seasons},
                  ruleset, table, entrants, **kwargs)


def season_tallies(league: Competition, season: int) -> list[Tally]:
    """Every entrant's games, points and coins of one season (by entrant index)."""
    return tally(len(league.entrants), [league.rounds[season]], [league.results[season]])


def move(league: Competition, season: int, entrant: int) -> int:
    """1: went up at the season's end, -1: down, 0: stayed."""
    moved = league.moves[season]
    return 1 if entrant in moved.promoted else -1 if entrant in moved.relegated else 0


def test_a_season_ends_with_the_right_promotions_and_relegations(competitions: Competitions):
    league = new_league("Duel league", ruleset_for("duel", 2), 2, 3, 1, 2, BOTS6)
    assert league.rounds[0].divisions == ((0, 1), (2, 3), (4, 5))
    done = run_here(league.id)
    assert done.finished and done.finished_recorded and len(done.results) == 2
    for season in range(2):
        # each division of two plays a round robin of both seat orders, and nobody
        # plays outside their division
        paired = done.rounds[season]
        for division in paired.divisions:
            fixtures = [g.seats for g in paired.games if set(g.seats) <= set(division)]
            assert sorted(fixtures) == sorted([tuple(division), tuple(division[::-1])])
        assert len(paired.games) == 2 * len(paired.divisions)
        top, middle, bottom = done.divisions(season)
        tallies = season_tallies(done, season)
        for division in (top, middle, bottom):  # standings by points, then coins
            keys = [(-tallies[e].points, -tallies[e].coins) for e in division]
            assert keys == sorted(keys)
        if season == 1:  # the last season: no next one to move to, nobody moves
            assert done.moves[season].promoted == done.moves[season].relegated == ()
            assert {move(done, season, e) for e in range(6)} == {0}
            continue
        assert done.moves[season].promoted == (middle[0], bottom[0])
        assert done.moves[season].relegated == (top[-1], middle[-1])
        assert [move(done, season, e) for e in top] == [0, -1]
        assert [move(done, season, e) for e in bottom] == [1, 0]
    # the second season's divisions are the first's after its moves
    (top, middle, bottom) = done.divisions(0)
    assert done.rounds[1].divisions == ((top[0], middle[0]), (top[1], bottom[0]),
                                        (middle[1], bottom[1]))
    assert CompetitionGame.objects.filter(competition_id=league.id).count() == \
        done.games_done() == 12
    assert games().game(done.game_id(1, 5)).finished
    assert play_deals(league.id, 0, [0]) == 0  # a redelivery stores nothing
    assert CompetitionGame.objects.filter(competition_id=league.id).count() == 12


def test_points_follow_the_ranks(competitions: Competitions):
    league = run_here(new_league(
        "Three", ruleset_for("classic", 3), 3, 1, 0, 1, BOTS6[:4]).id)
    (division,) = league.divisions(0)
    tallies = season_tallies(league, 0)
    # C(4,3) groups x 3 seat rotations; each game shares out 3 points (one a pair)
    assert len(list(combinations(range(4), 3))) * 3 == league.games_done() == 12
    assert sum(tallies[e].points for e in division) == 12 * 3
    assert {tallies[e].games for e in division} == {9}
    assert league.moves[0].promoted == league.moves[0].relegated == ()


@pytest.mark.parametrize("table, divisions, moves, seasons, entrants", [
    (2, 4, 1, 1, BOTS6), (2, 3, 0, 1, BOTS6), (2, 3, 2, 1, BOTS6), (3, 1, 0, 1, BOTS6[:2]),
    (2, 1, 0, 21, BOTS6), (2, 9, 1, 1, BOTS6), (2, 2, 1, 1, BOTS6[:5] + BOTS6[:1]),
])
def test_a_refused_league_stores_nothing(competitions: Competitions, table, divisions, moves,
                                         seasons, entrants):
    with pytest.raises(CompetitionError):
        new_league("Bad", ruleset_for("duel" if table == 2 else "classic", table), table,
                      divisions, moves, seasons, entrants)
    assert competitions.ids() == []


def test_the_shell_and_the_pages_show_a_league(competitions: Competitions):
    from io import StringIO

    from django.core.management import call_command
    from django.test import Client
    from django.urls import reverse

    out = StringIO()
    call_command("tournament", "create", "--format", "league", "--name", "Shell league",
                 "--ruleset", "duel", "--table", "2",
                 "--bots", "heuristic,random,nontrading,heuristic",
                 "--divisions", "2", "--moves", "1", "--seasons", "2", "--here", stdout=out)
    (lid,) = competitions.ids()
    league = competitions.get(lid)
    assert league.finished and "season 2" in out.getvalue()
    # each season's divisions: an entrant's games, points and coins of that season, its
    # move, its id
    shown = out.getvalue()
    for season in range(2):
        part = shown.split(f"season {season + 1}\n")[1].split("season ")[0]
        tallies = tally(4, [league.rounds[season]], [league.results[season]])
        for d, division in enumerate(league.divisions(season)):
            rows = part.split(f"division {d + 1}\n")[1].splitlines()[:2]
            for row, e in zip(rows, division, strict=True):
                t = tallies[e]  # two games a season, both seat orders of the division
                word = {1: "up", -1: "down", 0: ""}[move(league, season, e)]
                assert f"   2 {t.points:>6.1f} {t.coins:>5} {word:<5} " in row, row
                assert row.endswith(f" {league.entrants[e]}"), row
    client = Client()
    page = client.get(reverse("tournaments:detail", args=[lid])).content.decode()
    # the first season's moves; the last season's none (there is no next one)
    assert page.count("promoted") == 1 and page.count("relegated") == 1
    assert league.secret not in page
    assert str(league.game_id(1, 0)) in page
    listed = client.get(reverse("tournaments:list") + "?format=league").content.decode()
    assert "Shell league" in listed
    # the leagues' old addresses lead to the same pages
    old = client.get(reverse("tournaments:league", args=[lid]))
    assert old.status_code == 301
    assert old["Location"] == reverse("tournaments:detail", args=[lid])
    assert client.get(reverse("tournaments:leagues"))["Location"] == (
        reverse("tournaments:list") + "?format=league")
    assert client.get(reverse("tournaments:detail", args=[league.game_id(0, 0)])
                      ).status_code == 404  # a game's id is no competition's


def test_a_league_made_on_the_page_is_played_by_a_worker(worker: Competitions):
    from django.contrib.auth.models import User
    from django.test import Client
    from django.urls import reverse

    client = Client()
    new = reverse("tournaments:new_format", args=["league"])
    form = {"name": "Page league", "ruleset": "duel", "table": "2",
            "bots": "heuristic, random, nontrading, heuristic", "divisions": "2",
            "moves": "1", "seasons": "1", "rules": ""}
    assert client.post(new, form).status_code == 302
    assert worker.ids() == []  # signed out: to the sign-in page, nothing stored
    client.force_login(User.objects.create(username="organiser"))
    for bad in ({"divisions": "3"}, {"moves": "2"}, {"seasons": "21"}, {"table": "3"},
                {"bots": "nosuchbot"}, {"rules": "no_such_rule=1"}):
        assert client.post(new, {**form, **bad}).status_code == 400
    assert worker.ids() == []
    answer = client.post(new, form)
    (lid,) = worker.ids()
    assert answer["Location"] == reverse("tournaments:detail", args=[lid])
    deadline = time.monotonic() + 60
    while not worker.get(lid).finished:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    page = client.get(answer["Location"]).content.decode()
    # one season, the last: nobody is marked promoted or relegated
    assert page.count("promoted") == 0 and page.count("relegated") == 0


def test_a_league_keeps_ratings_that_its_stored_games_give_again(competitions: Competitions,
                                                                 monkeypatch):
    from io import StringIO

    from django.core.management import call_command
    from django.core.management.base import CommandError
    from django.test import Client
    from django.urls import reverse

    from tournaments.core.games import stored_results
    from tournaments.core.ratings import rerate

    league = run_here(new_league("Rated", ruleset_for("duel", 2), 2, 2, 1, 2,
                                    BOTS6[:4]).id)
    assert set(league.ratings) == set(BOTS6[:4])
    assert {games for _, _, games in league.ratings.values()} == {4}  # two a season
    again = rerate(stored_results(league))
    for entrant, (mu, sigma, games_played) in league.ratings.items():
        assert (again.of(entrant).mu, again.of(entrant).sigma) == (mu, sigma)
        assert again.games[entrant] == games_played
    # the ratings after the first season alone were recorded then, and differ
    first = rerate(stored_results(league)[:4])
    assert any(first.of(e).mu != league.ratings[e][0] for e in BOTS6[:4])
    out = StringIO()
    call_command("tournament", "rerate", str(league.id), stdout=out)
    assert "the same ratings as recorded" in out.getvalue()
    page = Client().get(reverse("tournaments:detail", args=[league.id])).content.decode()
    for season in range(2):  # each season's table: the ratings after that season
        after = rerate(stored_results(league)[:4 * (season + 1)])
        assert league.rating(BOTS6[0], season) == after.of(BOTS6[0])
        assert f"{after.of(BOTS6[0]).conservative:.2f}" in page
    # ratings that the stored games do not give again are reported (exit 1)
    import tournaments.management.commands.tournament as command

    league.ratings[BOTS6[0]] = (1.0, 1.0, 4)
    monkeypatch.setattr(command, "find", lambda _text: league)
    with pytest.raises(CommandError):
        call_command("tournament", "rerate", str(league.id), stdout=StringIO())


def test_the_league_summary_counts_in_the_singular_and_the_plural(competitions: Competitions):
    """One division, one season, a one-hour game: "1 division", never "1 divisions",
    in English and through the catalogues' plural forms."""
    from django.conf import settings
    from django.contrib.auth.models import User
    from django.test import Client
    from django.urls import reverse

    from tournaments.core.competition import LivePlay

    User.objects.create_user("alice")
    one = new_league("Single", ruleset_for("duel", 2), 2, 1, 0, 1,
                        ["user:alice", "heuristic@builtin"], organiser="user:alice",
                        live=LivePlay("duel", {}, 60, 1, 1, False))
    two = new_league("Double", ruleset_for("duel", 2), 2, 2, 1, 2, BOTS6[:4])

    def summary(league_id: object, language: str = "en") -> str:
        """What the league's page says of it: its lede, how its live games are played,
        and its divisions and seasons (the first paragraph of its seasons)."""
        client = Client()
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
        page = client.get(reverse("tournaments:detail", args=[league_id])).content.decode()
        said = re.findall(r'<p class="(?:lede|live-play)">.*?</p>', page, re.S)
        seasons = page[page.index('class="competition-live"'):]
        return " ".join([*said, seasons[seasons.index("<p>"):].split("</p>")[0]])

    text = summary(one.id)
    assert "1 division," in text and "0 of 1 season played." in text
    assert "60 seconds a move, a bank of 1 second, 1 hour to finish;" in text
    assert "1 divisions" not in text and "1 seasons" not in text and "1 hours" not in text
    text = summary(two.id)
    assert "2 divisions," in text and "0 of 2 seasons played." in text
    assert "1 sarja," in summary(one.id, "fi") and "2 sarjaa," in summary(two.id, "fi")
    assert "1 tunti aikaa" in summary(one.id, "fi")
