"""People's tournaments (issue 28, item 9): a round robin, Swiss or knockout whose
entrants include accounts, each round's games with an account at them opened as live
tables with the competition's clock. Accounts enter themselves (a sign-up with a
deadline, a cap and a waiting list) or by an invitation; an absent player's seat is
played by the clock or handed to a bot, as the competition says. The tables are driven
here through ``play``'s own functions (the driver's ``next_step`` at a made-up time for
the bots and the clock, ``live.submit`` for the people present)."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from io import StringIO
from typing import Any
from uuid import UUID

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from bohnanza_core.bots import HeuristicBot
from bohnanza_core.bots.turns import fallback
from bohnanza_core.engine import awaiting
from bohnanza_core.errors import IllegalMove
from bohnanza_core.events import GameEnded, GameStopped, SeatHandedToBot
from bohnanza_core.formats import History
from bohnanza_core.games import Game
from bohnanza_core.pairings import MAX_ENTRANTS
from bohnanza_core.rulesets import customize
from bohnanza_core.views import view
from play import driver, live
from play.models import Table
from replays.store import games, loaded
from tournaments import tasks
from tournaments.core import consent
from tournaments.core.competition import (
    MAX_WAITING,
    Competition,
    CompetitionError,
    LivePlay,
    SignUp,
)
from tournaments.core.export import INDEX
from tournaments.core.games import play_deals
from tournaments.core.rounds import advance, start_due
from tournaments.core.store import Competitions, create
from tournaments.models import CompetitionGame, CompetitionTable

SHORT = {"beans": ["wax", "blue", "chili", "stink"]}
DUEL = customize("duel", 2, SHORT)
OPEN = LivePlay("duel", SHORT, move_seconds=5, game_seconds=0, fixture_hours=24,
                entries_open=True)
NOW = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
HOUR = timedelta(hours=1)


@pytest.fixture(autouse=True)
def fast_bots(settings: Any) -> Iterator[None]:
    settings.PLAY_BOT_PACE_SECONDS = 0
    loaded.clear()
    yield
    loaded.clear()


@pytest.fixture
def here(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """The workers' side played in this process: a round's bots-only deals are played
    and stored at once, and the competition moved on."""
    sent: list[tuple[int, int]] = []

    def send(competition_id: UUID, r: int, deals: Sequence[int]) -> None:
        for deal in deals:
            sent.append((r, deal))
            play_deals(competition_id, r, [deal])
        advance(competition_id, send)

    monkeypatch.setattr(tasks, "send_deals", send)
    return sent


def open_swiss(cap: int = 4, deadline: datetime | None = NOW + HOUR,
               bots: Sequence[str] = ("heuristic@builtin",), live: LivePlay = OPEN,
               now: datetime = NOW) -> Competition:
    User.objects.get_or_create(username="olga")
    return create("Open Swiss", "swiss", {"rounds": 2}, DUEL, 2, list(bots),
                  organiser="user:olga", live=live, sign_up=SignUp(deadline, cap), now=now)


def stored(competitions: Competitions, competition: Competition) -> Competition:
    consent.save(competitions, competition)
    return competitions.get(competition.id)


# -- the sign-up ---------------------------------------------------------------------------


def test_a_sign_up_closes_at_its_deadline(competitions: Competitions):
    swiss = open_swiss()
    assert swiss.signing_up(NOW) and not swiss.signing_up(NOW + HOUR)
    swiss.join("user:ann", NOW + HOUR / 2)
    with pytest.raises(CompetitionError, match="entered already"):  # a double sign-up
        swiss.join("user:ann", NOW + HOUR / 2)
    with pytest.raises(CompetitionError, match="closed at its deadline"):
        swiss.join("user:bob", NOW + HOUR)
    swiss = stored(competitions, swiss)  # the events say the same when read back
    assert swiss.entrants == ["heuristic@builtin", "user:ann"]
    assert swiss.sign_up == SignUp(NOW + HOUR, 4)
    with pytest.raises(CompetitionError, match="closed at its deadline"):
        swiss.join("user:bob", NOW + 2 * HOUR)
    swiss.leave("user:ann")  # withdrawing after the deadline, before the start: allowed
    assert stored(competitions, swiss).entrants == ["heuristic@builtin"]


def test_a_full_competition_keeps_a_waiting_list_and_fills_places_from_it(
        competitions: Competitions):
    swiss = open_swiss(cap=3)
    for name in ("ann", "bob", "cid", "dan"):
        swiss.join(f"user:{name}", NOW)
    assert swiss.entrants == ["heuristic@builtin", "user:ann", "user:bob"]
    assert swiss.waiting_list == ["user:cid", "user:dan"] and swiss.full
    with pytest.raises(CompetitionError, match="on the waiting list already"):
        swiss.join("user:cid", NOW)
    swiss = stored(competitions, swiss)
    assert swiss.waiting_list == ["user:cid", "user:dan"]
    swiss.leave("user:bob")  # a withdrawal: the first waiting takes the place
    assert swiss.entrants == ["heuristic@builtin", "user:ann", "user:cid"]
    assert swiss.waiting_list == ["user:dan"]
    swiss.leave("user:dan")  # off the waiting list
    swiss = stored(competitions, swiss)
    assert swiss.entrants == ["heuristic@builtin", "user:ann", "user:cid"]
    assert swiss.waiting_list == []
    with pytest.raises(CompetitionError, match="not entered"):
        swiss.leave("user:dan")
    # an invitation accepted while it is full waits its turn too
    swiss.join("user:eve", NOW)
    swiss.invite("user:fay")
    swiss.accept("user:fay")
    assert swiss.waiting_list == ["user:eve", "user:fay"]
    swiss.leave("user:ann")
    swiss = stored(competitions, swiss)
    assert swiss.entrants == ["heuristic@builtin", "user:cid", "user:eve"]
    assert swiss.waiting_list == ["user:fay"] and swiss.invitations == {"user:fay": "accepted"}


def test_the_waiting_list_is_bounded(competitions: Competitions):
    swiss = open_swiss(cap=2)
    swiss.join("user:ann", NOW)
    for n in range(MAX_WAITING):
        swiss.join(f"user:w{n}", NOW)
    with pytest.raises(CompetitionError, match="waiting list are full"):
        swiss.join("user:late", NOW)
    assert len(swiss.waiting_list) == MAX_WAITING


def test_a_sign_up_is_refused_when_it_cannot_be_kept(competitions: Competitions):
    User.objects.create_user("olga")
    closed = LivePlay("duel", SHORT, 5, 0, 24, False)
    cases = [
        (dict(live=closed, sign_up=SignUp(NOW + HOUR, 4)), "open for entries"),
        (dict(live=OPEN, sign_up=SignUp(NOW - HOUR, 4)), "must lie ahead"),
        (dict(live=OPEN, sign_up=SignUp(NOW + 400 * 24 * HOUR, 4)), "must lie ahead"),
        (dict(live=OPEN, sign_up=SignUp(NOW.replace(tzinfo=None) + HOUR, 4)), "must lie ahead"),
        (dict(live=OPEN, sign_up=SignUp(NOW + HOUR, 1)), "cap is 2 to"),
        (dict(live=OPEN, sign_up=SignUp(NOW + HOUR, MAX_ENTRANTS + 1)), "cap is 2 to"),
        (dict(live=LivePlay("duel", SHORT, 5, 0, 24, True, "nobody", 60)), "clock or a"),
        (dict(live=LivePlay("duel", SHORT, 5, 0, 24, True, "heuristic", 0)), "after 1 to"),
    ]
    for kwargs, reason in cases:
        with pytest.raises(CompetitionError, match=reason):
            create("Refused", "swiss", {"rounds": 1}, DUEL, 2, ["heuristic@builtin"],
                   organiser="user:olga", now=NOW, **kwargs)
    assert competitions.ids() == []


def test_the_pages_sign_up_withdraw_and_keep_the_waiting_list(competitions: Competitions,
                                                               here: Any):
    now = timezone.now()
    swiss = open_swiss(cap=3, deadline=now + HOUR, now=now)
    people = {name: User.objects.create_user(name) for name in ("ann", "bob", "cid")}
    client = Client()
    detail = reverse("tournaments:detail", args=[swiss.id])
    page = client.get(detail).content.decode()
    assert "1 of 3 places taken." in page and "Sign in to sign up." in page
    for name in ("ann", "bob", "cid"):
        client.force_login(people[name])
        answer = client.post(reverse("tournaments:join", args=[swiss.id]), follow=True)
        said = answer.content.decode()
    assert "you are number 1 on its waiting list" in said
    assert "You are number 1 on the waiting list" in said and "Leave the waiting list" in said
    client.post(reverse("tournaments:join", args=[swiss.id]))  # twice: refused, unchanged
    swiss = competitions.get(swiss.id)
    assert swiss.entrants == ["heuristic@builtin", "user:ann", "user:bob"]
    assert swiss.waiting_list == ["user:cid"]
    client.force_login(people["ann"])
    page = client.post(reverse("tournaments:leave", args=[swiss.id]), follow=True
                       ).content.decode()
    assert "You have left Open Swiss." in page and "Join the waiting list" in page
    swiss = competitions.get(swiss.id)
    assert swiss.entrants == ["heuristic@builtin", "user:bob", "user:cid"]
    assert swiss.waiting_list == []
    client.force_login(people["cid"])
    page = client.get(detail).content.decode()
    assert "Withdraw" in page and "Leave the waiting list" not in page


def test_the_first_round_starts_at_the_deadline_or_says_why_not(competitions: Competitions,
                                                                 here: Any):
    User.objects.create_user("olga")
    for name in ("ann", "bob"):
        User.objects.create_user(name)
    past = timezone.now() - 2 * HOUR  # a competition whose deadline has just passed
    swiss = open_swiss(cap=4, deadline=past + HOUR, now=past,
                       bots=("heuristic@builtin", "random@builtin"))
    swiss.join("user:ann", past)
    swiss = stored(competitions, swiss)
    client = Client()
    client.force_login(User.objects.get(username="bob"))
    said = client.post(reverse("tournaments:join", args=[swiss.id]), follow=True
                       ).content.decode()
    assert "The sign-up closed at its deadline." in said
    assert "user:bob" not in competitions.get(swiss.id).entrants
    # three entrants do not fill tables of two: it waits, and its page says why
    assert not start_due(competitions.get(swiss.id), tasks.send_deals)
    page = client.get(reverse("tournaments:detail", args=[swiss.id])).content.decode()
    assert "The first round cannot start with who has entered" in page
    assert competitions.get(swiss.id).waiting
    # the organiser invites bob; once he accepts, the next look starts it
    olga = Client()
    olga.force_login(User.objects.get(username="olga"))
    olga.post(reverse("tournaments:invite", args=[swiss.id]), {"people": "bob"})
    client.post(reverse("tournaments:accept", args=[swiss.id]))
    assert client.get(reverse("tournaments:detail", args=[swiss.id])).status_code == 200
    swiss = competitions.get(swiss.id)
    assert swiss.open_round == 0 and len(swiss.entrants) == 4
    live_rows = CompetitionTable.objects.filter(competition_id=swiss.id, round=0)
    assert sorted(r.index for r in live_rows) == [i for i in range(2)
                                                  if swiss.live_game(0, i)]
    assert not start_due(swiss, tasks.send_deals)  # started once


def test_the_shell_makes_a_peoples_swiss_with_a_sign_up(competitions: Competitions):
    User.objects.create_user("olga")
    deadline = (timezone.now() + HOUR).replace(microsecond=0)
    out = StringIO()
    call_command("tournament", "create", "--name", "Shell Swiss", "--format", "swiss",
                 "--ruleset", "duel", "--table", "2", "--bots", "heuristic", "--rounds", "2",
                 "--open-entries", "--organiser", "olga", "--deadline", deadline.isoformat(),
                 "--cap", "6", "--absent", "random", "--absence-seconds", "90", stdout=out)
    (cid,) = competitions.ids()
    swiss = competitions.get(cid)
    assert swiss.sign_up == SignUp(deadline, 6) and swiss.waiting
    assert swiss.live is not None and (swiss.live.absent, swiss.live.absence_seconds) == (
        "random", 90)
    with pytest.raises(CommandError, match="clock or a built-in bot"):
        call_command("tournament", "create", "--name", "No", "--format", "swiss",
                     "--ruleset", "duel", "--table", "2", "--bots", "heuristic",
                     "--rounds", "2", "--open-entries", "--organiser", "olga",
                     "--absent", "nobody", stdout=out)


# -- playing the rounds ---------------------------------------------------------------------


def drive(table_id: UUID, present: set[str], start: datetime) -> Game:
    """Play a live table to its end: the people in ``present`` by a heuristic choice
    submitted as them; for everyone else the driver moves (a bot, the clock, a bot
    that took an absent player's seat), its time going on 6 seconds each look that
    plays nothing."""
    now = start
    brains: dict[int, HeuristicBot] = {}
    for _ in range(20_000):
        table = Table.objects.get(pk=table_id)
        assert table.game_id is not None
        game = live.load(table.game_id, fresh=True)
        if game.state.finished:
            driver.next_step(table_id, now)  # marks the table finished: play tells
            return game
        _, played = driver.next_step(table_id, now)
        if played:
            continue
        number = awaiting(game.state)[0]
        seat = table.seats.get(number=number)
        if seat.bot or seat.user is None or seat.user.username not in present:
            now += timedelta(seconds=6)  # an absent player's clock runs out
            continue
        brain = brains.setdefault(number, HeuristicBot(number, f"{table_id}:{number}"))
        command = brain.act(view(game.state, number))
        if command is None or command.seat != number:
            command = fallback(game.state, number)
        actor = f"user:{seat.user.username}"
        try:
            live.submit(table_id, game.id, command, actor)
        except IllegalMove:
            live.submit(table_id, game.id, fallback(game.state, number), actor)
    raise AssertionError("the game did not end")


def test_a_peoples_swiss_is_played_round_after_round_the_clock_playing_the_absent(
        competitions: Competitions, here: list[tuple[int, int]]):
    """Ann (the organiser, entered by herself) and Bob (signed up) with two bots, at
    tables of two over two Swiss rounds: Ann plays her moves, Bob never comes, so the
    clock plays each of his; the second round is paired from the first's results."""
    for name in ("ann", "bob"):
        User.objects.create_user(name)
    swiss = create("People's Swiss", "swiss", {"rounds": 2}, DUEL, 2,
                   ["user:ann", "heuristic@builtin", "random@builtin"], organiser="user:ann",
                   live=OPEN)
    swiss.join("user:bob", timezone.now())
    swiss.start()
    swiss = stored(competitions, swiss)
    tasks.start(swiss)
    start = timezone.now()
    clocked = 0
    for r in range(2):
        swiss = competitions.get(swiss.id)
        assert swiss.open_round == r
        rows = list(CompetitionTable.objects.filter(competition_id=swiss.id, round=r))
        assert sorted(row.index for row in rows) == [
            i for i, p in enumerate(swiss.rounds[r].games)
            if {swiss.entrants[e] for e in p.seats} & {"user:ann", "user:bob"}]
        for row in rows:
            table = Table.objects.get(pk=row.table_id)
            assert table.move_seconds == 5 and table.absence_seconds == 0
            assert table.game_id == swiss.game_id(r, row.index)
            game = drive(row.table_id, {"ann"}, start)
            record = games().record(game.id)
            seats = [swiss.entrants[e] for e in swiss.rounds[r].games[row.index].seats]
            if "user:bob" in seats:
                bob = seats.index("user:bob")
                actors = {entry.actor for entry in record[1:] if entry.actor is not None
                          and getattr(entry.event, "seat", None) == bob}
                assert actors == {driver.CLOCK}  # every move of his: the clock's
                clocked += 1
            if "user:ann" in seats:
                ann = seats.index("user:ann")
                assert {entry.actor for entry in record[1:] if entry.actor is not None
                        and getattr(entry.event, "seat", None) == ann} == {"user:ann"}
            assert record[-1].event.seed == swiss.table_seed(r, row.index)
            assert CompetitionGame.objects.filter(game_id=game.id).count() == 1
    swiss = competitions.get(swiss.id)
    assert swiss.finished and clocked == 2
    # the second round was paired from the first's results: nobody meets again
    first = {frozenset(p.seats) for p in swiss.rounds[0].games}
    assert not first & {frozenset(p.seats) for p in swiss.rounds[1].games}
    after_first = History(4, 2, swiss.rounds[:1], swiss.results[:1], swiss.moves[:1])
    assert swiss.rules.next_round(after_first) == swiss.rounds[1]
    assert not Table.objects.filter(status=Table.Status.RUNNING).exists()
    assert {r for r, _ in here} <= {0, 1}  # the bots' own games went to the workers


def test_a_peoples_round_robin_hands_an_absent_players_seat_to_a_bot(
        competitions: Competitions, here: Any):
    """A round robin whose rule gives an absent player's seat to a bot after a minute:
    Bob never comes; his game is finished by the bot in his seat, his entrant still
    scored for it."""
    User.objects.create_user("bob")
    rules = LivePlay("duel", SHORT, 5, 0, 24, True, "heuristic", 60)
    robin = create("Bot stands in", "round-robin", {"cycles": 1}, DUEL, 2,
                   ["random@builtin"], live=rules)
    robin.join("user:bob", timezone.now())
    robin.start()
    robin = stored(competitions, robin)
    tasks.start(robin)
    start = timezone.now()
    for r in range(robin.rules.rounds_total(2, 2)):
        (row,) = CompetitionTable.objects.filter(competition_id=robin.id, round=r)
        table = Table.objects.get(pk=row.table_id)
        assert table.absence_seconds == 60 and table.replacement_bot == "heuristic"
        game = drive(row.table_id, set(), start)
        handed = [e for e in games().record(game.id) if isinstance(e.event, SeatHandedToBot)]
        assert len(handed) == 1 and handed[0].event.bot == "heuristic"
        assert handed[0].actor == "absence"
        start += timedelta(hours=1)
    robin = competitions.get(robin.id)
    assert robin.finished and [t.games for t in robin.tallies()] == [2, 2]


def test_the_bots_finish_a_game_every_person_at_it_is_absent_from(
        competitions: Competitions, here: Any):
    """A duel whose two people both stay away, under a rule that gives an absent
    player's seat to a bot: both seats are handed to it, and the bots play the game to
    its end by the rules (as the competition promised), not stopped as abandoned 0-0; the
    zip holds its full record, as any game that ended."""
    for name in ("ann", "bob"):
        User.objects.create_user(name)
    rules = LivePlay("duel", SHORT, 5, 0, 24, True, "heuristic", 60)
    robin = create("Nobody came", "round-robin", {"cycles": 1}, DUEL, 2, ["user:ann"],
                   organiser="user:ann", live=rules)
    robin.join("user:bob", timezone.now())
    robin.start()
    robin = stored(competitions, robin)
    tasks.start(robin)
    rounds = robin.rules.rounds_total(2, 2)
    start = timezone.now()
    for r in range(rounds):
        (row,) = CompetitionTable.objects.filter(competition_id=robin.id, round=r)
        game = drive(row.table_id, set(), start)
        record = games().record(game.id)
        handed = [e.event.seat for e in record if isinstance(e.event, SeatHandedToBot)]
        assert sorted(handed) == [0, 1]
        assert not any(isinstance(e.event, GameStopped) for e in record)
        assert isinstance(record[-1].event, GameEnded) and sum(record[-1].event.coins) > 0
        start += timedelta(hours=1)
    robin = competitions.get(robin.id)
    assert robin.finished and [t.games for t in robin.tallies()] == [rounds, rounds]
    answer = Client().get(reverse("tournaments:games_zip", args=[robin.id]))
    archive = zipfile.ZipFile(io.BytesIO(b"".join(answer.streaming_content)))
    lines = [json.loads(text) for text in archive.read(INDEX).decode().splitlines()]
    assert [line["perspective"] for line in lines] == ["everything"] * rounds


def test_a_peoples_knockout_seeds_each_live_game_of_a_match_apart(
        competitions: Competitions, here: Any):
    """A knockout's match plays one deal in every seat order; at live tables, the first
    game to end would reveal the deal the same people still play, so each has its own."""
    for name in ("ann", "bob"):
        User.objects.create_user(name)
    cup = create("People's cup", "knockout", {"advance": 1}, DUEL, 2,
                 ["user:ann", "heuristic@builtin", "random@builtin"], organiser="user:ann",
                 live=OPEN)
    cup.join("user:bob", timezone.now())
    cup.start()
    cup = stored(competitions, cup)
    tasks.start(cup)
    paired = cup.rounds[0].games
    live_games = [i for i in range(len(paired)) if cup.live_game(0, i)]
    assert live_games and len({paired[i].deal for i in live_games}) < len(live_games)
    seeds = {cup.table_seed(0, i) for i in live_games}
    assert len(seeds) == len(live_games)
    assert not seeds & {cup.seed(0, p.deal) for p in paired}
    assert CompetitionTable.objects.filter(competition_id=cup.id).count() == len(live_games)
    for row in CompetitionTable.objects.filter(competition_id=cup.id, round=0):
        game = drive(row.table_id, {"ann"}, timezone.now())
        assert games().record(game.id)[-1].event.seed == cup.table_seed(0, row.index)
    cup = competitions.get(cup.id)
    assert cup.open_round == 1  # the final, between those who went through
