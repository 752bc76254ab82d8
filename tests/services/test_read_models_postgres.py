"""The read models take the longest value the platform stores, on PostgreSQL, which
refuses a text longer than its column where SQLite keeps it (issue 26, finding 3).

The platform runs here on a PostgreSQL schema of its own (``postgres_default``): every
value goes in the way it comes in, at its bound, and is projected after each save, then
rebuilt from the events alone:

- a person with the longest username Django takes, who starts a table (still running)
  and plays another to its end, seated as ``user:<150 characters>``;
- seven people with the longest usernames sharing a win at the largest table, each seat
  named with the longest seat name, in a competition with the longest name: the
  longest winners' text;
- a competition of the longest-named bot at its longest version, entered as often as a
  competition allows, so that its last copy has the longest entrant id;
- a seat handed to a bot with the longest name the game takes.

Each game is then on the game list and on its people's "My games", and so is a game
stored after them (on the old columns the list stopped at the first such value for
good); no projection failed and the health check says so.

And a value PostgreSQL does refuse (a projection's bug) skips that event alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any
from uuid import UUID

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.core.management import call_command
from django.test import Client

from bohnanza_core.bots import HeuristicBot
from bohnanza_core.bots.registry import (
    ENTRANT_MAX,
    MAX_NAME,
    MAX_VERSION,
    RegisteredBot,
    refresh,
    registry,
)
from bohnanza_core.bots.turns import fallback
from bohnanza_core.commands import HandSeatToBot
from bohnanza_core.engine import BOT_NAME_MAX, SEAT_NAME_MAX, awaiting
from bohnanza_core.errors import IllegalMove
from bohnanza_core.events import Handover
from bohnanza_core.games import TOURNAMENT_NAME_MAX, Game, play_bot_game
from bohnanza_core.pairings import MAX_ENTRANTS
from bohnanza_core.rulesets import MAX_PLAYERS, customize
from bohnanza_core.views import view
from play import driver, live
from play.models import Table
from play.tables import create_table, start
from replays import projections
from replays.models import GameSummary, ProjectionFailure, SeatSummary
from replays.names import BOT, PERSON, PLAYER_MAX, USERNAME_MAX, WINNERS_MAX
from replays.projections import rebuild
from replays.store import games, loaded, reset_games
from tests.services.conftest import postgres_default
from tournaments.core.entrants import entrants_for
from tournaments.core.rounds import run_here
from tournaments.core.store import create, reset_competitions
from tournaments.models import CompetitionGame

SHORT = {"beans": ["wax", "blue", "chili", "stink"]}
"""House rules of a short game: four kinds of bean."""

SHARED_WIN = customize("finnish", MAX_PLAYERS, {"beans": ["coffee", "wax", "blue"],
                                                "deal": [0], "ends_on_run_out": 1})
"""The preset that seats the most players and shares a tied win (finnish, 2-7), with
house rules under which nobody earns a coin: with the seed below every seat ties at 0."""
SHARED_WIN_SEED = "tie-1"


def username(letter: str) -> str:
    """The longest username Django takes."""
    return letter * USERNAME_MAX


def seat_name(number: int) -> str:
    """The longest seat name, one for each seat."""
    return f"{number}" + "W" * (SEAT_NAME_MAX - 1)


@pytest.fixture
def platform(django_db_blocker: Any, settings: Any) -> Iterator[None]:
    settings.PLAY_BOT_PACE_SECONDS = 0
    with postgres_default("read_models", django_db_blocker):
        reset_games()
        reset_competitions()
        loaded.clear()
        cache.clear()
        yield
        refresh()
        loaded.clear()
        reset_competitions()
        reset_games()


def play_out(table_id: UUID) -> Game:
    """Play a live table to its end: the bots through the driver, each person by a
    heuristic choice submitted as that person (as their connection would)."""
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
        seat = table.seats.select_related("user").get(number=number)
        assert seat.user is not None, "a bot's turn is the driver's"
        brain = brains.setdefault(number, HeuristicBot(number, f"{table_id}:{number}"))
        command = brain.act(view(game.state, number))
        if command is None or command.seat != number:
            command = fallback(game.state, number)
        actor = f"{PERSON}{seat.user.username}"
        try:
            live.submit(table_id, game.id, command, actor)
        except IllegalMove:
            live.submit(table_id, game.id, fallback(game.state, number), actor)
    raise AssertionError("the game did not end")


GAME_LINK = re.compile(r"/replays/games/([0-9a-f-]{36})/")


def listed(client: Client, path: str) -> set[str]:
    """Every game a list page links to, over all its pages."""
    found: set[str] = set()
    for page in range(1, 100):
        answer = client.get(path, {"page": page})
        if answer.status_code == 404:
            return found
        assert answer.status_code == 200, answer.content[:500]
        found |= set(GAME_LINK.findall(answer.content.decode()))
    raise AssertionError("too many pages")


def rows() -> dict[str, Any]:
    """Every row of the game list, comparable."""
    return {str(game["game_id"]): {**game, "seats": list(
        SeatSummary.objects.filter(game_id=game["game_id"]).order_by("seat").values(
            "seat", "name", "player", "coins", "rank", "winner", "handed_to"))}
        for game in GameSummary.objects.order_by("game_id").values()}


def test_the_longest_values_are_listed_on_postgresql(platform: None) -> None:
    # A person with the longest username starts a table, and plays another to its end.
    longest = User.objects.create_user(username("a"))
    player = f"{PERSON}{longest.username}"
    assert len(player) == PLAYER_MAX
    waiting = create_table(longest, "classic", 3, seats=["open", "heuristic", "random"])
    running = start(waiting, longest).game_id
    played = create_table(longest, "duel", 2, seats=["open", "heuristic"], overrides=SHORT)
    finished = play_out(start(played, longest).id)

    # Seven people with the longest usernames share a win, under the longest names.
    people = [User.objects.create_user(username(letter)) for letter in "bcdefgh"]
    shared = play_bot_game(
        games(), SHARED_WIN, ["nontrading"] * MAX_PLAYERS, SHARED_WIN_SEED,
        seats=[seat_name(n) for n in range(MAX_PLAYERS)],
        players=[f"{PERSON}{person.username}" for person in people],
        tournament="T" * TOURNAMENT_NAME_MAX)
    assert shared.state.result is not None
    assert len(shared.state.result.winners) == MAX_PLAYERS  # the premise: all seven won

    # The longest bot, at its longest version, entered as often as allowed.
    bot = "b" * MAX_NAME
    registry()[bot] = RegisteredBot(bot, "v" * MAX_VERSION, HeuristicBot, "the test")
    entrants = entrants_for([bot] * MAX_ENTRANTS)
    assert len(entrants[-1]) == ENTRANT_MAX
    cup = create("C" * TOURNAMENT_NAME_MAX, "swiss", {"rounds": 1}, customize("classic", 4, SHORT),
                 4, entrants)
    run_here(cup.id)
    cup_games = {str(row.game_id) for row in CompetitionGame.objects.filter(competition_id=cup.id)}
    assert len(cup_games) == MAX_ENTRANTS // 4

    # A seat handed to a bot with the longest name the game takes.
    handed = games().start(SHARED_WIN, [seat_name(n) for n in range(3)],
                           players=[player, f"{BOT}heuristic", f"{BOT}random"], actor=player)
    games().play_on(handed, HandSeatToBot(0, "h" * BOT_NAME_MAX, Handover.LEFT), player)

    # A game stored after all of them.
    ann = User.objects.create_user("ann")
    later = play_bot_game(games(), customize("duel", 2, SHORT), ["heuristic", "random"],
                          "later", players=[f"{PERSON}ann", f"{BOT}random"])

    # Every one is listed, whole.
    seats = SeatSummary.objects.filter(player=player)
    assert {str(s.game_id) for s in seats} == {str(running), str(finished.id), str(handed.id)}
    shared_row = GameSummary.objects.get(pk=shared.id)
    assert len(shared_row.winners) == WINNERS_MAX
    assert shared_row.tournament == "T" * TOURNAMENT_NAME_MAX
    assert shared_row.ruleset == "finnish (house rules)"
    assert [s.name for s in shared_row.seats.all()] == [seat_name(n) for n in range(7)]
    assert SeatSummary.objects.filter(player=f"{BOT}{entrants[-1]}").count() == 1
    assert SeatSummary.objects.get(game_id=handed.id, seat=0).handed_to == "h" * BOT_NAME_MAX
    assert GameSummary.objects.get(pk=finished.id).status == GameSummary.Status.FINISHED
    assert GameSummary.objects.get(pk=running).started_by == player
    assert GameSummary.objects.get(pk=later.id).status == GameSummary.Status.FINISHED
    assert not ProjectionFailure.objects.exists()

    # ... on the pages: the game list, and each person's "My games".
    everything = {str(running), str(finished.id), str(shared.id), str(handed.id),
                  str(later.id), *cup_games}
    client = Client()
    assert listed(client, "/replays/games/") == everything
    client.force_login(longest)
    assert listed(client, "/replays/mine/") == {str(running), str(finished.id), str(handed.id)}
    client.force_login(people[-1])
    assert listed(client, "/replays/mine/") == {str(shared.id)}
    client.force_login(ann)
    assert listed(client, "/replays/mine/") == {str(later.id)}
    health = Client().get("/health/")
    assert health.status_code == 200 and health.json()["ok"] is True

    # Rebuilt from the events alone, in one batch, the list is the same.
    incremental = rows()
    rebuild()
    assert rows() == incremental
    call_command("rebuild_read_models", verbosity=0)
    assert rows() == incremental


def test_a_value_postgresql_refuses_is_skipped_and_the_list_goes_on(
        platform: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """A value longer than its column, as a projection with a bug would write: the
    refusal (``StringDataRightTruncation``, in the transaction of the catch-up after a
    save) skips that event alone; the game before, the one after and the bad game's own
    start are listed, and the failure is told until a rebuild applies it."""
    real = projections.winners_text

    def overlong(names: Sequence[str]) -> str:
        return "W" * (WINNERS_MAX + 1) if names[0].startswith("Overlong") else real(names)

    monkeypatch.setattr(projections, "winners_text", overlong)
    rules, bots = customize("duel", 2, SHORT), ["heuristic", "random"]
    before = play_bot_game(games(), rules, bots, "pg-before")
    bad = play_bot_game(games(), rules, bots, "pg-bad", seats=["Overlong 1", "Overlong 2"])
    after = play_bot_game(games(), rules, bots, "pg-after")

    assert GameSummary.objects.get(pk=before.id).status == GameSummary.Status.FINISHED
    assert GameSummary.objects.get(pk=bad.id).status == GameSummary.Status.RUNNING
    assert GameSummary.objects.get(pk=after.id).status == GameSummary.Status.FINISHED
    failure = ProjectionFailure.objects.get()
    assert (failure.game_id, failure.version, failure.event) == (bad.id, bad.version,
                                                                 "GameEnded")
    assert "value too long" in failure.error
    health = Client().get("/health/")
    assert health.status_code == 503 and health.json()["projections"]["GameList"]["failed"] == 1

    monkeypatch.undo()  # the fix
    rebuild()
    assert GameSummary.objects.get(pk=bad.id).status == GameSummary.Status.FINISHED
    assert not ProjectionFailure.objects.exists()
    assert Client().get("/health/").status_code == 200
