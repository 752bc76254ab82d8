"""An entrant's statistics page: every finished public game of a bot version or a
person, summed by the database per ruleset, table size and seat, with the same
intervals as a competition's statistics."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from bohnanza_core.games import Games
from bohnanza_core.ratings import entrant_statistics, seat_results
from replays.store import games, reset_games
from tests.factories import bot_game, running_game
from tournaments.entrant_views import seat_sums


def results_of(games: list, player: str) -> list:
    out = []
    for game in games:
        result = game.state.result
        names = [player if p == player else f"other{s}" for s, p in enumerate(game.players)]
        out += seat_results(names, result.coins, result.winners)
    return [r for r in out if r.entrant == player]


@pytest.fixture
def store(db: None) -> Iterator[Games]:
    reset_games()
    yield games()
    reset_games()


def rotated(n: int) -> tuple[str, ...]:
    bots = ("heuristic", "random", "random")
    return bots[n % 3:] + bots[:n % 3]


@pytest.fixture
def played(store: Games) -> dict[str, list]:
    return {
        "classic3": [bot_game(f"ep-{n}", bots=rotated(n),
                              players=tuple(f"bot:{b}@builtin" for b in rotated(n)))
                     for n in range(6)],
        "copy": [bot_game("ep-copy", bots=("heuristic", "heuristic", "random"),
                          players=("bot:heuristic@builtin", "bot:heuristic@builtin #2",
                                   "bot:random@builtin"))],
        "live": [bot_game("ep-live", ruleset="finnish", bots=("heuristic", "random"),
                          players=("bot:heuristic", "user:ann"))],
        "private": [bot_game("ep-private", bots=("heuristic", "random", "random"),
                             players=("bot:heuristic@builtin", "user:ann", "bot:x@1"),
                             private=True)],
        "running": [running_game("ep-running", players=("bot:heuristic@builtin", "user:ann",
                                                         "user:bob"), commands=3)],
    }


def test_sums_count_every_finished_public_game_of_the_bot_version(played: dict) -> None:
    sums = seat_sums("heuristic@builtin")
    assert set(sums) == {("classic", 3), ("finnish", 2)}  # not the private or running one
    classic = sums[("classic", 3)]
    # Six games in every seat by rotation, plus the game where two copies sat.
    assert sum(m.games for m in classic.values()) == 6 + 2
    assert sums[("finnish", 2)][0].games == 1  # a live table's built-in bot counts


def test_the_page_shows_the_same_figures_as_a_competitions_statistics(
        client: Client, played: dict) -> None:
    player = "bot:heuristic@builtin"
    expected = {s.entrant: s for s in entrant_statistics(
        results_of(played["classic3"], player))}[player]
    # The copy's game: both copies are the same bot version.
    copy = played["copy"][0].state.result
    extra = seat_results(["h", "h2", "r"], copy.coins, copy.winners)[:2]
    page = client.get(reverse("tournaments:entrant", args=["heuristic@builtin"]))
    assert page.status_code == 200
    text = page.content.decode()
    assert "9 finished public games" in text
    assert "classic</span> · 3 players" in text and "finnish</span> · 2 players" in text
    coins = (sum(r.coins for r in results_of(played["classic3"], player))
             + sum(r.coins for r in extra)) / 8
    # the interval of 8 games' coins is wider than 4: left out (it says nothing yet)
    assert f"<td>8</td>\n      <td>{coins:.2f}</td>" in text
    assert expected.games == 6


def test_a_persons_page_and_bad_names(client: Client, played: dict) -> None:
    User.objects.create_user("ann")
    page = client.get(reverse("tournaments:entrant", args=["user:ann"])).content.decode()
    assert "1 finished public game on" in page  # the private one does not count
    assert "finnish" in page and "classic" not in page
    User.objects.create_user("newcomer")
    newcomer = client.get(reverse("tournaments:entrant", args=["user:newcomer"]))
    assert newcomer.status_code == 200
    assert "No finished public game yet." in newcomer.content.decode()
    assert client.get(reverse("tournaments:entrant", args=["random@builtin"])).status_code == 200
    # Nobody: no account, no built-in bot of that name, no game.
    for nobody in ("user:nobody", "nobody@builtin"):
        assert client.get(reverse("tournaments:entrant", args=[nobody])).status_code == 404
    for bad in ["x" * 200, "no-at-sign", "user:", "a@b%20%232", "bot:heuristic@builtin"]:
        assert client.get(f"/tournaments/entrants/{bad}/").status_code == 404, bad
    profile = client.get(reverse("play:profile", args=["ann"])).content.decode()
    assert reverse("tournaments:entrant", args=["user:ann"]) in profile
