"""Games for tests: real bot games played through the platform's event store."""

from __future__ import annotations

from collections.abc import Sequence

from bohnanza_core import ruleset_for
from bohnanza_core.games import Game, play_bot_game
from bohnanza_core.simulator import seat_names
from replays.store import games

LINEUP = ("heuristic", "nontrading", "random")


def bot_game(
    seed: str = "test-game",
    *,
    ruleset: str = "classic",
    bots: Sequence[str] = LINEUP,
    players: Sequence[str] | None = None,
    private: bool = False,
    tournament: str | None = None,
) -> Game:
    """A finished game between bots, stored command by command. ``players`` names who
    sits in each seat (``user:ann``...) when a test needs people at the table."""
    return play_bot_game(games(), ruleset_for(ruleset, len(bots)), list(bots), seed,
                         players=players, private=private, tournament=tournament)


def running_game(
    seed: str = "test-running",
    *,
    players: Sequence[str] = ("user:ann", "user:bob", "user:cy"),
    private: bool = False,
    commands: int = 0,
) -> Game:
    """A game that has only been dealt (and, with ``commands``, had that many of the
    first legal moves played): its secrets are still secret."""
    from bohnanza_core import awaiting, legal_commands
    from bohnanza_core.engine import OfferShape

    store = games()
    game = store.start(ruleset_for("classic", len(players)), seat_names(["player"] * len(players)),
                       seed, players=list(players), private=private)
    for _ in range(commands):
        seat = awaiting(game.state)[0]
        move = next(m for m in legal_commands(game.state, seat) if not isinstance(m, OfferShape))
        store.play_on(game, move, players[seat])
    return game
