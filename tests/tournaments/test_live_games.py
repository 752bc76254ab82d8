"""A competition with people (a league): they join while entries are open, their games
are played as live tables (driven here through play's own functions: the driver's
``next_step`` for the bots and the clock, ``live.submit`` for the people's moves), each
ended game goes into the competition once whoever notices it, and a game past its
deadline is stopped by the platform (``GameStopped``) and scored as it stood; bots-only
games still go to the workers' task."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any
from uuid import UUID

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from bohnanza_core.bots import HeuristicBot
from bohnanza_core.bots.turns import fallback
from bohnanza_core.commands import EndPlanting
from bohnanza_core.engine import awaiting
from bohnanza_core.errors import IllegalMove
from bohnanza_core.events import GameStopped, StopReason
from bohnanza_core.formats import Moves, tally
from bohnanza_core.games import Game
from bohnanza_core.rulesets import customize
from bohnanza_core.verify import verify_record
from bohnanza_core.views import view
from play import driver, live
from play.models import Table
from replays.store import games, loaded
from tournaments.core.competition import CompetitionError, LivePlay
from tournaments.core.games import play_deals, stored_results
from tournaments.core.ratings import rerate
from tournaments.core.rounds import advance, collect, start_round
from tournaments.core.store import Competitions, create
from tournaments.models import CompetitionGame, CompetitionTable

SHORT = {"beans": ["wax", "blue", "chili", "stink"]}
LIVE = LivePlay("duel", SHORT, move_seconds=60, game_seconds=0, fixture_hours=24,
                entries_open=True)
ONE_SEASON = {"divisions": 1, "moves": 0, "seasons": 1}
"""A league of one division and one season: every game in it."""


@pytest.fixture(autouse=True)
def fast_bots(settings: Any) -> Iterator[None]:
    settings.PLAY_BOT_PACE_SECONDS = 0
    loaded.clear()
    yield
    loaded.clear()


@contextmanager
def unheard() -> Iterator[None]:
    """``play``'s ``table_finished`` signal unheard by the competitions, as in a process
    where the table's end went unnoticed: the beat's look or a page view must notice it."""
    from play.signals import table_finished
    from tournaments.tasks import table_finished as record_result

    uid = "tournaments.table_finished"
    assert table_finished.disconnect(dispatch_uid=uid)
    try:
        yield
    finally:
        table_finished.connect(record_result, dispatch_uid=uid)


def play_out(table_id: UUID) -> Game:
    """Play a live table to its end: the bots and the clock through the driver, each
    person by a heuristic choice submitted as that person."""
    brains: dict[int, HeuristicBot] = {}
    for _ in range(20_000):
        table = Table.objects.get(pk=table_id)
        assert table.game_id is not None
        game = live.load(table.game_id, fresh=True)
        if game.state.finished:
            driver.next_step(table_id)  # the driver marks the table finished
            return game
        _, played = driver.next_step(table_id)
        if played:
            continue
        number = awaiting(game.state)[0]
        seat = table.seats.get(number=number)
        assert seat.user is not None, "a bot's turn is the driver's"
        brain = brains.setdefault(number, HeuristicBot(number, f"{table_id}:{number}"))
        command = brain.act(view(game.state, number))
        if command is None or command.seat != number:
            command = fallback(game.state, number)
        try:
            live.submit(table_id, game.id, command, f"user:{seat.user.username}")
        except IllegalMove:
            live.submit(table_id, game.id, fallback(game.state, number),
                        f"user:{seat.user.username}")
    raise AssertionError("the game did not end")


def test_people_and_bots_play_a_league_through_live_tables(competitions: Competitions):
    people = [User.objects.create_user(n) for n in ("olga", "alice", "bob")]
    league = create("People's league", "league", {"divisions": 2, "moves": 1, "seasons": 2},
                    customize("duel", 2, SHORT), 2, ["heuristic@builtin", "random@builtin"],
                    organiser="user:olga", live=LIVE)
    assert league.entries_open and not league.rounds
    client = Client()
    client.force_login(people[1])
    assert client.post(reverse("tournaments:join", args=[league.id])).status_code == 302
    client.force_login(people[2])
    client.post(reverse("tournaments:join", args=[league.id]))
    client.post(reverse("tournaments:leave", args=[league.id]))
    assert competitions.get(league.id).entrants == ["heuristic@builtin", "random@builtin",
                                                    "user:alice"]
    client.force_login(people[0])  # three entrants do not fill two divisions
    client.post(reverse("tournaments:start", args=[league.id]))
    assert competitions.get(league.id).entries_open
    client.force_login(people[2])
    client.post(reverse("tournaments:join", args=[league.id]))
    client.post(reverse("tournaments:start", args=[league.id]))  # not the organiser
    assert competitions.get(league.id).entries_open
    client.force_login(people[0])
    client.post(reverse("tournaments:start", args=[league.id]))
    league = competitions.get(league.id)
    assert not league.entries_open and league.rounds[0].divisions == ((0, 1), (2, 3))
    with pytest.raises(CompetitionError):
        league.join("user:olga")

    sent: list[tuple[int, int]] = []

    def workers(_: UUID, season: int, deals: Any) -> None:
        sent.extend((season, d) for d in deals)

    for season in range(2):
        league = competitions.get(league.id)
        rows = list(CompetitionTable.objects.filter(competition_id=league.id, round=season))
        live_games = [i for i in range(len(league.rounds[season].games))
                      if league.live_game(season, i)]
        assert sorted(r.index for r in rows) == live_games
        for row in rows:  # the game's seats, people seated, the league's id and seed
            table = row.table
            entrants = [league.entrants[e] for e in league.rounds[season].games[row.index].seats]
            assert [s.player() for s in table.seats.all()] == [
                e if e.startswith("user:") else f"bot:{e.split('@')[0]}" for e in entrants]
            assert table.game_id == league.game_id(season, row.index)
            assert table.move_seconds == 60 and table.overrides == SHORT
            # the organiser's table (its lobby line's host), not a seated bot account's
            assert table.created_by.get_username() == "olga"
            # its record names who sits where, by display names, and where it belongs
            start = games().started(table.game_id)
            assert list(start.seats) == league.seat_names(season, row.index)
            assert [start.tag(f"seat_{s}_entrant") for s in range(2)] == entrants
            assert (start.tag("round"), start.tag("table")) == (str(season + 1),
                                                                str(row.index + 1))
        if season == 0:  # the bots' division goes to the workers, as before
            start_round(league, workers)
            assert sent == [(0, 0), (0, 1)]
            for _, deal in sent:
                assert play_deals(league.id, 0, [deal]) == 1
                advance(league.id, workers)
            with pytest.raises(ValueError):
                play_deals(league.id, 0, [2])
        for n, row in enumerate(rows):
            noticed = ("signal", "beat", "page")[(2 * season + n) % 3]
            if noticed == "signal":  # play says the table finished: its result goes in
                game = play_out(row.table_id)
            else:
                with unheard():
                    game = play_out(row.table_id)
                if noticed == "beat":  # noticed by the beat's look at every table
                    assert collect(league.id, workers) == 1
                else:  # noticed by a view of the league's page (tables marked finished)
                    assert Client().get(reverse("tournaments:detail", args=[league.id])
                                        ).status_code == 200
            assert game.state.finished
            assert games().record(game.id)[-1].event.seed == league.seed(  # its seed
                season, league.rounds[season].games[row.index].deal)
            assert collect(league.id, workers) == 0  # the same game never counts twice
            stored = CompetitionGame.objects.get(competition_id=league.id, round=season,
                                                 index=row.index)
            assert stored.game_id == game.id and stored.ranks == list(game.state.result.ranks)
            assert Table.objects.get(pk=row.table_id).status == Table.Status.FINISHED

    league = competitions.get(league.id)
    assert league.finished
    assert CompetitionGame.objects.filter(competition_id=league.id).count() == 8
    top, bottom = league.divisions(0)
    assert league.moves[0] == Moves((bottom[0],), (top[-1],))
    assert league.rounds[1].divisions == ((top[0], bottom[0]), (top[1], bottom[1]))
    again = rerate(stored_results(league))
    assert {e: (again.of(e).mu, again.of(e).sigma) for e in league.entrants} == {
        e: league.ratings[e][:2] for e in league.entrants}
    for season in range(2):  # standings: each game's points from its stored result
        tallies = tally(len(league.entrants), [league.rounds[season]],
                        [league.results[season]])
        for division in league.divisions(season):
            assert sum(tallies[e].points for e in division) == 2 * 1.0  # two games, a
            assert {tallies[e].games for e in division} == {2}  # point each


def test_a_game_past_its_deadline_is_stopped_and_scored_as_it_stands(
        competitions: Competitions):
    User.objects.create_user("alice")
    league = create("Deadline", "league", ONE_SEASON, customize("duel", 2, SHORT), 2,
                    ["user:alice", "heuristic@builtin"], organiser="user:alice",
                    live=LivePlay("duel", SHORT, 60, 0, 1, False))
    start_round(league, lambda *_: None)
    start_round(league, lambda *_: None)  # again: no second table
    rows = list(CompetitionTable.objects.filter(competition_id=league.id))
    assert len(rows) == 2
    assert collect(league.id, lambda *_: None) == 0  # not over, not overdue
    later = max(r.deadline for r in rows) + timedelta(seconds=1)
    assert collect(league.id, lambda *_: None, now=later) == 2
    for row in rows:  # each game ended in the store by the platform's decision
        record = games().record(row.table.game_id)
        stopped = record[-1].event
        assert isinstance(stopped, GameStopped)
        assert stopped.reason is StopReason.DEADLINE and record[-1].actor == "competition"
        assert stopped.ranks == (1, 1)  # nobody has coins yet: a shared place
        assert verify_record(record).ok
        stored = CompetitionGame.objects.get(game_id=row.table.game_id)
        assert tuple(stored.ranks) == stopped.ranks
        # the table refuses any command now: the game is over
        game = live.load(row.table.game_id, fresh=True)
        seat = next(s for s in range(2) if game.holder(s) == "user:alice")
        with pytest.raises(IllegalMove, match="the game is over"):
            live.submit(row.table_id, game.id, EndPlanting(seat=seat), "user:alice",
                        person=True)
    assert collect(league.id, lambda *_: None, now=later) == 0  # stopped once only
    league = competitions.get(league.id)
    assert league.finished
    (division,) = league.divisions(0)
    tallies = league.tallies()
    assert [tallies[e].points for e in division] == [1.0, 1.0]
    assert {tallies[e].games for e in division} == {2}
    assert not Table.objects.filter(status=Table.Status.RUNNING).exists()
    # re-rated from the stored games (as they stood at the deadline): the same numbers
    again = rerate(stored_results(league))
    assert {e: (again.of(e).mu, again.of(e).sigma) for e in league.entrants} == {
        e: league.ratings[e][:2] for e in league.entrants}


def test_the_page_shows_a_person_their_games(competitions: Competitions):
    alice = User.objects.create_user("alice")
    league = create("Mine", "league", ONE_SEASON, customize("duel", 2, SHORT), 2,
                    ["user:alice", "heuristic@builtin"], organiser="user:alice",
                    live=LivePlay("duel", SHORT, 60, 0, 24, False))
    start_round(league, lambda *_: None)
    client = Client()
    page = client.get(reverse("tournaments:detail", args=[league.id])).content.decode()
    assert "Your games" not in page and "live table" in page
    client.force_login(alice)
    page = client.get(reverse("tournaments:detail", args=[league.id])).content.decode()
    tables = [r.table_id for r in CompetitionTable.objects.filter(competition_id=league.id)]
    assert "Your games" in page
    assert all(reverse("play:table", args=[t]) in page for t in tables)
    lobby = client.get(reverse("play:lobby")).content.decode()
    profile = client.get(reverse("play:profile", args=["alice"])).content.decode()
    for text in (lobby, profile):
        assert "Your tables" in text
        assert all(reverse("play:table", args=[t]) in text for t in tables)
    assert league.secret not in page


def test_a_competition_with_people_is_refused_without_live_play_or_with_foreign_bots(
        competitions: Competitions):
    User.objects.create_user("alice")
    ruleset = customize("duel", 2, SHORT)
    with pytest.raises(CompetitionError, match="needs a turn clock"):
        create("No clock", "league", ONE_SEASON, ruleset, 2,
               ["user:alice", "heuristic@builtin"], organiser="user:alice")
    with pytest.raises(CompetitionError, match="only built-in bots play at live tables"):
        create("Packaged", "league", ONE_SEASON, ruleset, 2, ["user:alice", "cautious@0.1.0"],
               organiser="user:alice", live=LIVE)
    with pytest.raises(CompetitionError, match="a turn clock of 5 to 3600 seconds"):
        create("Fast", "league", ONE_SEASON, ruleset, 2, ["user:alice", "heuristic@builtin"],
               organiser="user:alice", live=LivePlay("duel", SHORT, 1, 0, 24, False))
    assert competitions.ids() == []
    client = Client()
    client.force_login(User.objects.create_user("olga"))
    form = {"name": "Form", "ruleset": "duel", "table": "2", "bots": "heuristic",
            "people": "alice, nobody", "divisions": "1", "moves": "0", "seasons": "1",
            "rules": "", "move_seconds": "60", "game_seconds": "0", "fixture_hours": "24"}
    new = reverse("tournaments:new_format", args=["league"])
    answer = client.post(new, form)
    assert answer.status_code == 400 and "nobody" in answer.content.decode()
    answer = client.post(new, {**form, "people": "alice"})
    assert answer.status_code == 302
    assert not CompetitionTable.objects.exists()  # alice is invited: no table until she accepts
    client.force_login(User.objects.get(username="alice"))
    (lid,) = competitions.ids()
    client.post(reverse("tournaments:accept", args=[lid]))
    client.force_login(User.objects.get(username="olga"))
    client.post(reverse("tournaments:start", args=[lid]))
    (row, _) = CompetitionTable.objects.all()
    assert row.table.seats.filter(user__username="alice").exists()


def test_a_table_made_elsewhere_moves_before_anyone_opens_it(
        competitions: Competitions, settings: Any):
    """The worker makes a round's tables in its own process, after this web process
    started: the web process's sweep finds them, the bot to move first moves and the
    person to move first has their clock started, with nobody connected and no message
    between the processes."""
    from asgiref.sync import async_to_sync, sync_to_async

    from play import startup

    settings.PLAY_SWEEP_SECONDS = 0.05
    User.objects.create_user("alice")
    league = create("Swept", "league", ONE_SEASON, customize("duel", 2, SHORT), 2,
                    ["user:alice", "heuristic@builtin"], organiser="user:alice",
                    live=LivePlay("duel", SHORT, 60, 0, 24, False))

    def looks() -> dict[UUID, tuple[bool, int, bool]]:
        """Per live table: (a bot is awaited, stored version, clock deadline set)."""
        seen = {}
        for row in CompetitionTable.objects.filter(competition_id=league.id
                                                   ).select_related("table"):
            state = games().game(row.table.game_id).state
            first = row.table.seats.get(number=awaiting(state)[0])
            seen[row.table_id] = (first.is_bot, games().game(row.table.game_id).version,
                                  row.table.clock_deadline is not None)
        return seen

    async def body() -> tuple[dict[UUID, Any], dict[UUID, Any]]:
        startup._started.clear()
        try:
            await startup.pick_up_tables()  # the web process starts: no table yet
            assert not await sync_to_async(CompetitionTable.objects.exists)()
            # the worker (another process) makes the round's tables and tells nobody
            await sync_to_async(start_round)(league, lambda *_: None)
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


def test_the_shell_makes_a_league_with_people_as_the_page_does(competitions: Competitions):
    from io import StringIO

    from django.core.management import CommandError, call_command

    for name in ("olga", "alice", "bob"):
        User.objects.create_user(name)
    base = ["tournament", "create", "--format", "league", "--ruleset", "duel", "--table", "2",
            "--divisions", "1", "--moves", "0", "--rule", 'beans=["wax","blue","chili","stink"]']
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
    assert not CompetitionTable.objects.exists() and not competitions.ids()

    out = StringIO()  # the operator states that alice and bob agreed: entered at once
    call_command(*base, "--name", "Club night", "--people", "alice, bob", "--consented",
                 "--bots", "heuristic", "--move-seconds", "30", "--game-seconds", "0",
                 "--fixture-hours", "2", stdout=out)
    (lid,) = competitions.ids()
    league = competitions.get(lid)
    assert league.entrants == ["user:alice", "user:bob", "heuristic@builtin"]
    assert league.live == LivePlay("duel", SHORT, 30, 0, 2, False)
    assert "alice" in out.getvalue()
    rows = list(CompetitionTable.objects.filter(competition_id=lid))
    assert rows and len(rows) == len(league.rounds[0].games)  # every game has a person
    for row in rows:
        assert row.table.move_seconds == 30 and row.table.status == Table.Status.RUNNING
        people = {s.user.username for s in row.table.seats.all() if s.user is not None}
        assert people and people <= {"alice", "bob"}
    from django_celery_beat.models import PeriodicTask
    assert PeriodicTask.objects.filter(name=f"competition {lid} collect").exists()  # the beat

    call_command(*base, "--name", "Open night", "--people", "alice", "--open-entries",
                 "--organiser", "olga", stdout=StringIO())
    opened = competitions.get(next(i for i in competitions.ids() if i != lid))
    assert opened.entries_open and opened.organiser == "user:olga"
    assert opened.entrants == [] and opened.invited == ["user:alice"]
    client = Client()
    client.force_login(User.objects.get(username="bob"))
    client.post(reverse("tournaments:join", args=[opened.id]))
    client.force_login(User.objects.get(username="alice"))  # alice accepts her invitation
    client.post(reverse("tournaments:join", args=[opened.id]))
    client.force_login(User.objects.get(username="olga"))
    client.post(reverse("tournaments:start", args=[opened.id]))
    assert not competitions.get(opened.id).entries_open
    assert CompetitionTable.objects.filter(competition_id=opened.id).exists()


def test_the_live_part_of_a_league_follows_the_open_season(competitions: Competitions):
    """The fragment the competition's page fetches again when the lobby's socket speaks
    (and every few seconds): the signed-in person's games still to play, nothing for
    anyone else; a game ended leaves it and its result reaches the standings, and the
    next season's tables come in (the fragment's view moves the league on, as the
    page's does, here without play's word that the tables finished)."""
    alice = User.objects.create_user("alice")
    league = create("Fragment", "league", {"divisions": 1, "moves": 0, "seasons": 2},
                    customize("duel", 2, SHORT), 2, ["user:alice", "heuristic@builtin"],
                    organiser="user:alice", live=LivePlay("duel", SHORT, 60, 0, 24, False))
    start_round(league, lambda *_: None)
    url = reverse("tournaments:live", args=[league.id])
    visitor = Client().get(url).content.decode()
    assert "Your games" not in visitor and "Season 1 (running)" in visitor  # signed out
    client = Client()
    client.force_login(alice)
    page = client.get(reverse("tournaments:detail", args=[league.id])).content.decode()
    assert 'class="competition-live"' in page and "js/competition_live.js" in page
    assert f'data-url="{url}"' in page and 'data-socket="/ws/lobby/"' in page
    rows = sorted(CompetitionTable.objects.filter(competition_id=league.id, round=0),
                  key=lambda r: r.index)
    mine = client.get(url).content.decode()
    assert all(reverse("play:table", args=[r.table_id]) in mine for r in rows)
    games_played = re.compile(r"<tr><td>\d+</td><td>.*?</td><td>(\d+)</td>")
    assert set(games_played.findall(mine)) == {"0"}
    with unheard():
        play_out(rows[0].table_id)
    mine = client.get(url).content.decode()
    assert reverse("play:table", args=[rows[0].table_id]) not in mine
    assert sorted(games_played.findall(mine)) == ["1", "1"]  # the standings moved
    assert reverse("play:table", args=[rows[1].table_id]) in mine
    with unheard():
        play_out(rows[1].table_id)
    assert competitions.get(league.id).open_round == 0  # nobody noticed yet
    mine = client.get(url).content.decode()
    assert competitions.get(league.id).open_round == 1
    later = CompetitionTable.objects.filter(competition_id=league.id, round=1)
    assert later.count() == 2
    assert all(reverse("play:table", args=[r.table_id]) in mine for r in later)
    assert not any(reverse("play:table", args=[r.table_id]) in mine for r in rows)
    assert league.secret not in mine
