"""A league with people: they join while entries are open, their fixtures are played
as live tables (driven here through play's own functions: the driver's ``next_step``
for the bots and the clock, ``live.submit`` for the people's moves), each ended game
goes into the league once whoever notices it, and a fixture past its deadline is
scored as it stands; bots-only fixtures still go to the workers' task."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from datetime import timedelta
from typing import Any
from uuid import UUID

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from bohnanza_core.bots import HeuristicBot
from bohnanza_core.engine import awaiting
from bohnanza_core.errors import IllegalMove
from bohnanza_core.games import Game
from bohnanza_core.rulesets import customize
from bohnanza_core.simulator import fallback
from bohnanza_core.views import view
from play import driver, live
from play.models import Table
from replays.store import games
from tournaments.competitions import CompetitionError, Tournaments
from tournaments.league_live import collect, forfeit_result
from tournaments.league_runner import (
    advance,
    play_fixture,
    start_fixtures,
    stored_league_results,
)
from tournaments.leagues import (
    LivePlay,
    create_league,
    get_league,
    league_game_id,
    league_ids,
)
from tournaments.models import LeagueGame, LeagueTable
from tournaments.ratings import rerate

SHORT = {"beans": ["wax", "blue", "chili", "stink"]}
LIVE = LivePlay("duel", SHORT, move_seconds=60, game_seconds=0, fixture_hours=24,
                entries_open=True)


@pytest.fixture(autouse=True)
def fast_bots(settings: Any) -> Iterator[None]:
    settings.PLAY_BOT_PACE_SECONDS = 0
    live._cache.clear()
    yield
    live._cache.clear()


def play_out(table_id: UUID) -> Game:
    """Play a live table to its end: the bots and the clock through the driver, each
    person by a heuristic choice submitted as that person."""
    brains: dict[int, HeuristicBot] = {}
    for _ in range(20_000):
        table = Table.objects.get(pk=table_id)
        assert table.game_id is not None
        game = live.load(table.game_id, fresh=True)
        if game.table.finished:
            driver.next_step(table_id)  # the driver marks the table finished
            return game
        _, played = driver.next_step(table_id)
        if played:
            continue
        number = awaiting(game.table)[0]
        seat = table.seats.get(number=number)
        assert seat.user is not None, "a bot's turn is the driver's"
        brain = brains.setdefault(number, HeuristicBot(number, f"{table_id}:{number}"))
        command = brain.act(view(game.table, number))
        if command is None or command.seat != number:
            command = fallback(game.table, number)
        try:
            live.submit(table_id, game.id, command, f"user:{seat.user.username}")
        except IllegalMove:
            live.submit(table_id, game.id, fallback(game.table, number),
                        f"user:{seat.user.username}")
    raise AssertionError("the game did not end")


def test_people_and_bots_play_a_league_through_live_tables(competitions: Tournaments):
    people = [User.objects.create_user(n) for n in ("olga", "alice", "bob")]
    league = create_league("People's league", customize("duel", 2, SHORT), 2, 2, 1, 2,
                           ["heuristic@builtin", "random@builtin"], created_by="user:olga",
                           live=LIVE)
    assert league.entries_open and not league.fixtures
    client = Client()
    client.force_login(people[1])
    assert client.post(reverse("tournaments:join_league", args=[league.id])).status_code == 302
    client.force_login(people[2])
    client.post(reverse("tournaments:join_league", args=[league.id]))
    client.post(reverse("tournaments:leave_league", args=[league.id]))
    assert get_league(league.id).entrants == ["heuristic@builtin", "random@builtin",
                                              "user:alice"]
    client.force_login(people[0])  # three entrants do not fill two divisions
    client.post(reverse("tournaments:start_league", args=[league.id]))
    assert get_league(league.id).entries_open
    client.force_login(people[2])
    client.post(reverse("tournaments:join_league", args=[league.id]))
    client.post(reverse("tournaments:start_league", args=[league.id]))  # not the organiser
    assert get_league(league.id).entries_open
    client.force_login(people[0])
    client.post(reverse("tournaments:start_league", args=[league.id]))
    league = get_league(league.id)
    assert not league.entries_open and league.season_divisions[0] == [[0, 1], [2, 3]]
    with pytest.raises(CompetitionError):
        league.join("user:olga")

    sent: list[tuple[int, int]] = []

    def workers(_: UUID, season: int, fixtures: Any) -> None:
        sent.extend((season, f) for f in fixtures)

    for season in range(2):
        league = get_league(league.id)
        rows = list(LeagueTable.objects.filter(league_id=league.id, season=season))
        live_fixtures = [f for f in range(len(league.fixtures[season]))
                         if league.live_fixture(season, f)]
        assert sorted(r.fixture for r in rows) == live_fixtures
        for row in rows:  # the fixture's seats, people seated, the league's id and seed
            table = row.table
            entrants = [league.entrants[e] for e in league.fixtures[season][row.fixture].seats]
            assert [s.player() for s in table.seats.all()] == [
                e if e.startswith("user:") else f"bot:{e.split('@')[0]}" for e in entrants]
            assert table.game_id == league_game_id(league.id, season, row.fixture)
            assert table.move_seconds == 60 and table.overrides == SHORT
        if season == 0:  # the bots' division goes to the workers, as before
            start_fixtures(league, workers)
            assert sent == [(0, 0), (0, 1)]
            for _, fixture in sent:
                assert play_fixture(league.id, 0, fixture) == 1
                advance(league.id, workers)
            with pytest.raises(ValueError):
                play_fixture(league.id, 0, 2)
        for n, row in enumerate(rows):
            game = play_out(row.table_id)
            assert game.table.finished
            if n % 2:  # noticed by the beat's look at every table
                assert collect(league.id, workers) == 1
            else:  # noticed by a view of the league's page (tables marked finished)
                assert Client().get(reverse("tournaments:league", args=[league.id])
                                    ).status_code == 200
                assert collect(league.id, workers) == 0
            assert collect(league.id, workers) == 0  # the same game never counts twice
            stored = LeagueGame.objects.get(league_id=league.id, season=season,
                                            fixture=row.fixture)
            assert stored.game_id == game.id and stored.ranks == list(game.table.result.ranks)
            assert Table.objects.get(pk=row.table_id).status == Table.Status.FINISHED

    league = get_league(league.id)
    assert league.finished and LeagueGame.objects.filter(league_id=league.id).count() == 8
    top, bottom = ([league.entrants.index(r.entrant) for r in d] for d in league.standings(0))
    assert league.moved[0] == ([bottom[0]], [top[-1]])
    assert league.season_divisions[1] == [[top[0], bottom[0]], [top[1], bottom[1]]]
    again = rerate(stored_league_results(league))
    assert {e: (again.of(e).mu, again.of(e).sigma) for e in league.entrants} == {
        e: league.ratings[e][:2] for e in league.entrants}
    for season in range(2):  # standings: each fixture's points from its stored result
        for division in league.standings(season):
            assert sum(r.points for r in division) == 2 * 1.0  # two games, a point each
            assert {r.games for r in division} == {2}


def test_a_fixture_past_its_deadline_is_scored_as_it_stands(competitions: Tournaments):
    User.objects.create_user("alice")
    league = create_league("Deadline", customize("duel", 2, SHORT), 2, 1, 0, 1,
                           ["user:alice", "heuristic@builtin"], created_by="user:alice",
                           live=LivePlay("duel", SHORT, 60, 0, 1, False))
    start_fixtures(league, lambda *_: None)
    start_fixtures(league, lambda *_: None)  # again: no second table
    rows = list(LeagueTable.objects.filter(league_id=league.id))
    assert len(rows) == 2
    assert collect(league.id, lambda *_: None) == 0  # not over, not overdue
    game = games().game(rows[0].table.game_id)
    assert forfeit_result(game).ranks == (1, 1)  # nobody has coins yet: a shared place
    later = max(r.deadline for r in rows) + timedelta(seconds=1)
    assert collect(league.id, lambda *_: None, now=later) == 2
    league = get_league(league.id)
    assert league.finished
    (division,) = league.standings(0)
    assert [r.points for r in division] == [1.0, 1.0] and {r.games for r in division} == {2}
    assert not Table.objects.filter(status=Table.Status.RUNNING).exists()
    # re-rated from the stored games (as they stood at the deadline): the same numbers
    again = rerate(stored_league_results(league))
    assert {e: (again.of(e).mu, again.of(e).sigma) for e in league.entrants} == {
        e: league.ratings[e][:2] for e in league.entrants}


def test_the_league_page_shows_a_person_their_fixtures(competitions: Tournaments):
    alice = User.objects.create_user("alice")
    league = create_league("Mine", customize("duel", 2, SHORT), 2, 1, 0, 1,
                           ["user:alice", "heuristic@builtin"], created_by="user:alice",
                           live=LivePlay("duel", SHORT, 60, 0, 24, False))
    start_fixtures(league, lambda *_: None)
    client = Client()
    page = client.get(reverse("tournaments:league", args=[league.id])).content.decode()
    assert "Your fixtures" not in page and "live table" in page
    client.force_login(alice)
    page = client.get(reverse("tournaments:league", args=[league.id])).content.decode()
    tables = [r.table_id for r in LeagueTable.objects.filter(league_id=league.id)]
    assert "Your fixtures" in page
    assert all(reverse("play:table", args=[t]) in page for t in tables)
    lobby = client.get(reverse("play:lobby")).content.decode()
    profile = client.get(reverse("play:profile", args=["alice"])).content.decode()
    for text in (lobby, profile):
        assert "Your tables" in text
        assert all(reverse("play:table", args=[t]) in text for t in tables)
    assert league.secret not in page


def test_a_league_with_people_is_refused_without_live_play_or_with_foreign_bots(
        competitions: Tournaments):
    User.objects.create_user("alice")
    ruleset = customize("duel", 2, SHORT)
    with pytest.raises(CompetitionError):
        create_league("No clock", ruleset, 2, 1, 0, 1, ["user:alice", "heuristic@builtin"])
    with pytest.raises(CompetitionError):
        create_league("Packaged", ruleset, 2, 1, 0, 1, ["user:alice", "cautious@0.1.0"],
                      live=LIVE)
    with pytest.raises(CompetitionError):
        create_league("Fast", ruleset, 2, 1, 0, 1, ["user:alice", "heuristic@builtin"],
                      live=LivePlay("duel", SHORT, 1, 0, 24, False))
    client = Client()
    client.force_login(User.objects.create_user("olga"))
    form = {"name": "Form", "ruleset": "duel", "table": "2", "bots": "heuristic",
            "people": "alice, nobody", "divisions": "1", "moves": "0", "seasons": "1",
            "rules": "", "move_seconds": "60", "game_seconds": "0", "fixture_hours": "24"}
    answer = client.post(reverse("tournaments:new_league"), form)
    assert answer.status_code == 400 and "nobody" in answer.content.decode()
    answer = client.post(reverse("tournaments:new_league"), {**form, "people": "alice"})
    assert answer.status_code == 302
    assert not LeagueTable.objects.exists()  # alice is invited: no table until she accepts
    client.force_login(User.objects.get(username="alice"))
    (lid,) = league_ids()
    client.post(reverse("tournaments:accept_invitation", args=[lid]))
    client.force_login(User.objects.get(username="olga"))
    client.post(reverse("tournaments:start_league", args=[lid]))
    (row, _) = LeagueTable.objects.all()
    assert row.table.seats.filter(user__username="alice").exists()



def test_a_fixture_table_made_elsewhere_moves_before_anyone_opens_it(
        competitions: Tournaments, settings: Any):
    """The worker makes a season's tables in its own process, after this web process
    started: the web process's sweep finds them, the bot to move first moves and the
    person to move first has their clock started, with nobody connected and no message
    between the processes."""
    from asgiref.sync import async_to_sync, sync_to_async

    from play import startup

    settings.PLAY_SWEEP_SECONDS = 0.05
    User.objects.create_user("alice")
    league = create_league("Swept", customize("duel", 2, SHORT), 2, 1, 0, 1,
                           ["user:alice", "heuristic@builtin"], created_by="user:alice",
                           live=LivePlay("duel", SHORT, 60, 0, 24, False))

    def looks() -> dict[UUID, tuple[bool, int, bool]]:
        """Per fixture table: (a bot is awaited, stored version, clock deadline set)."""
        seen = {}
        for row in LeagueTable.objects.filter(league_id=league.id).select_related("table"):
            state = games().game(row.table.game_id).table
            first = row.table.seats.get(number=awaiting(state)[0])
            seen[row.table_id] = (first.is_bot, games().game(row.table.game_id).version,
                                  row.table.clock_deadline is not None)
        return seen

    async def body() -> tuple[dict[UUID, Any], dict[UUID, Any]]:
        startup._started.clear()
        try:
            await startup.pick_up_tables()  # the web process starts: no table yet
            assert not await sync_to_async(LeagueTable.objects.exists)()
            # the worker (another process) makes the fixtures' tables and tells nobody
            await sync_to_async(start_fixtures)(league, lambda *_: None)
            made = await sync_to_async(looks)()
            later = made
            for _ in range(250):
                await asyncio.sleep(0.02)
                later = await sync_to_async(looks)()
                if all(later[t][1] > made[t][1] if made[t][0] else later[t][2]
                       for t in made):
                    break
            return made, later
        finally:
            await driver.stop_all()
            startup._started.clear()

    made, later = async_to_sync(body)()
    assert sorted(bot for bot, _, _ in made.values()) == [False, True]
    assert not any(clocked for _, _, clocked in made.values())
    for table_id, (bot, version, _) in made.items():
        if bot:
            assert later[table_id][1] > version, "the bot to move first never moved"
        else:
            assert later[table_id][2], "the person's clock never started"


def test_the_shell_makes_a_league_with_people_as_the_page_does(competitions: Tournaments):
    from io import StringIO

    from django.core.management import CommandError, call_command

    for name in ("olga", "alice", "bob"):
        User.objects.create_user(name)
    base = ["league", "create", "--ruleset", "duel", "--table", "2", "--divisions", "1",
            "--moves", "0", "--rule", 'beans=["wax","blue","chili","stink"]']
    refusals = [
        (["--name", "Ghost", "--people", "alice,nobody", "--bots", "heuristic"], "nobody"),
        (["--name", "Here", "--people", "alice", "--bots", "heuristic", "--here"], "--here"),
        (["--name", "Fast", "--people", "alice", "--bots", "heuristic",
          "--move-seconds", "1"], "turn clock"),
        (["--name", "Foreign", "--people", "alice", "--bots", "cautious"], "cautious"),
        (["--name", "Open", "--people", "alice", "--open-entries"], "--organiser"),
        (["--name", "Two", "--people", "alice", "--open-entries",
          "--organiser", "olga,bob"], "one --organiser"),
    ]
    for extra, reason in refusals:
        with pytest.raises(CommandError, match=reason):
            call_command(*base, *extra, stdout=StringIO())
    assert not LeagueTable.objects.exists() and not league_ids()

    out = StringIO()  # the operator states that alice and bob agreed: entered at once
    call_command(*base, "--name", "Club night", "--people", "alice, bob", "--consented",
                 "--bots", "heuristic", "--move-seconds", "30", "--game-seconds", "0",
                 "--fixture-hours", "2", stdout=out)
    (lid,) = league_ids()
    league = get_league(lid)
    assert league.entrants == ["user:alice", "user:bob", "heuristic@builtin"]
    assert league.live == LivePlay("duel", SHORT, 30, 0, 2, False)
    assert "alice" in out.getvalue()
    rows = list(LeagueTable.objects.filter(league_id=lid))
    assert rows and len(rows) == len(league.fixtures[0])  # every fixture has a person
    for row in rows:
        assert row.table.move_seconds == 30 and row.table.status == Table.Status.RUNNING
        people = {s.user.username for s in row.table.seats.all() if s.user is not None}
        assert people and people <= {"alice", "bob"}
    from django_celery_beat.models import PeriodicTask
    assert PeriodicTask.objects.filter(name=f"league {lid}").exists()  # the beat collects

    call_command(*base, "--name", "Open night", "--people", "alice", "--open-entries",
                 "--organiser", "olga", stdout=StringIO())
    opened = get_league(next(i for i in league_ids() if i != lid))
    assert opened.entries_open and opened.created_by == "user:olga"
    assert opened.entrants == [] and opened.invited == ["user:alice"]
    client = Client()
    client.force_login(User.objects.get(username="bob"))
    client.post(reverse("tournaments:join_league", args=[opened.id]))
    client.force_login(User.objects.get(username="alice"))  # alice accepts her invitation
    client.post(reverse("tournaments:join_league", args=[opened.id]))
    client.force_login(User.objects.get(username="olga"))
    client.post(reverse("tournaments:start_league", args=[opened.id]))
    assert not get_league(opened.id).entries_open
    assert LeagueTable.objects.filter(league_id=opened.id).exists()



def test_the_live_part_of_a_league_follows_the_open_season(competitions: Tournaments):
    """The fragment the league's page fetches again when the lobby's socket speaks
    (and every few seconds): the signed-in person's fixtures still to play, nothing for
    anyone else; a fixture ended leaves it and its result reaches the standings, and the
    next season's tables come in (the fragment's view moves the league on, as the
    page's does)."""
    alice = User.objects.create_user("alice")
    league = create_league("Fragment", customize("duel", 2, SHORT), 2, 1, 0, 2,
                           ["user:alice", "heuristic@builtin"], created_by="user:alice",
                           live=LivePlay("duel", SHORT, 60, 0, 24, False))
    start_fixtures(league, lambda *_: None)
    url = reverse("tournaments:league_live", args=[league.id])
    visitor = Client().get(url).content.decode()
    assert "Your fixtures" not in visitor and "Season 1 (running)" in visitor  # signed out
    client = Client()
    client.force_login(alice)
    page = client.get(reverse("tournaments:league", args=[league.id])).content.decode()
    assert 'class="league-live"' in page and "js/league.js" in page
    assert f'data-url="{url}"' in page and 'data-socket="/ws/lobby/"' in page
    rows = sorted(LeagueTable.objects.filter(league_id=league.id, season=0),
                  key=lambda r: r.fixture)
    mine = client.get(url).content.decode()
    assert all(reverse("play:table", args=[r.table_id]) in mine for r in rows)
    games_played = re.compile(r"<tr><td>\d+</td><td>.*?</td><td>(\d+)</td>")
    assert set(games_played.findall(mine)) == {"0"}
    play_out(rows[0].table_id)
    mine = client.get(url).content.decode()
    assert reverse("play:table", args=[rows[0].table_id]) not in mine
    assert sorted(games_played.findall(mine)) == ["1", "1"]  # the standings moved
    assert reverse("play:table", args=[rows[1].table_id]) in mine
    play_out(rows[1].table_id)
    mine = client.get(url).content.decode()
    assert get_league(league.id).open_season == 1
    later = LeagueTable.objects.filter(league_id=league.id, season=1)
    assert later.count() == 2
    assert all(reverse("play:table", args=[r.table_id]) in mine for r in later)
    assert not any(reverse("play:table", args=[r.table_id]) in mine for r in rows)
    assert league.secret not in mine
