"""``manage.py demo``: fill an empty platform with things to look at.

Demo accounts (password ``bohnanza``; ``arbiter`` is staff), and games stored command
by command in the event store: bot games under every ruleset, games where demo
accounts sit (so they can open them as players and dispute them), a private one, and
one still running; and a live table where ``ann`` plays three bots, waiting for her to
start it. Run twice, it adds nothing: the demo is there once (the waiting table is made
again once it has started).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from bohnanza_core import ruleset_for
from bohnanza_core.engine import OfferShape, awaiting, legal_commands
from bohnanza_core.games import play_bot_game
from bohnanza_core.simulator import seat_names
from play.models import Table
from play.tables import create_table
from replays.store import games

PASSWORD = "bohnanza"
ACCOUNTS = (("ann", False), ("bob", False), ("cy", False), ("arbiter", True))

# (ruleset, bots, who sits, private)
BOT_GAMES: tuple[tuple[str, tuple[str, ...], tuple[str, ...] | None, bool], ...] = (
    ("classic", ("heuristic", "nontrading", "random", "heuristic"), None, False),
    ("classic", ("heuristic", "heuristic", "nontrading"), None, False),
    ("amigo-en", ("heuristic", "random", "nontrading", "heuristic", "random"), None, False),
    ("rio-grande", ("heuristic", "nontrading", "random"), None, False),
    ("rio-grande", ("heuristic",) * 6, None, False),
    ("finnish", ("heuristic", "nontrading", "heuristic", "random"), None, False),
    ("duel", ("heuristic", "nontrading"), None, False),
    ("classic", ("heuristic", "nontrading", "random"),
     ("user:ann", "bot:nontrading", "bot:random"), False),
    ("classic", ("heuristic", "heuristic", "nontrading", "random"),
     ("user:bob", "user:ann", "bot:nontrading", "bot:random"), False),
    ("classic", ("heuristic", "random", "nontrading"),
     ("user:ann", "bot:random", "bot:nontrading"), True),
)


class Command(BaseCommand):
    help = "Create demo accounts and store demo games (only into an empty store)."

    def waiting_table(self) -> None:
        """A live table waiting for the visitor: ann (sign in as her) against three
        bots, ready to start; one at a time, made again once it has started."""
        ann = get_user_model().objects.get(username="ann")
        if Table.objects.filter(created_by=ann, status=Table.Status.OPEN).exists():
            return
        table = create_table(ann, "classic", 4,
                             seats=["open", "heuristic", "nontrading", "random"])
        self.stdout.write(f"demo: a table waits for ann against three bots: "
                          f"/play/tables/{table.id}/")

    def handle(self, *args: Any, **options: Any) -> None:
        users = get_user_model()
        for name, staff in ACCOUNTS:
            if not users.objects.filter(username=name).exists():
                users.objects.create_user(name, password=PASSWORD, is_staff=staff)
        self.waiting_table()
        store = games()
        if store.recorder.max_notification_id():
            self.stdout.write("demo: the store already holds games; nothing added")
            return
        for name, bots, players, private in BOT_GAMES:
            ruleset = ruleset_for(name, len(bots))
            seats = None
            if players is not None:
                seats = [p.split(":", 1)[1].capitalize() if p.startswith("user:")
                         else f"{p.split(':', 1)[1]} {n + 1}" for n, p in enumerate(players)]
            game = play_bot_game(store, ruleset, list(bots), seats=seats, players=players,
                                 private=private)
            self.stdout.write(f"demo: stored {name} game {game.id} ({game.version} events)")
        running = store.start(ruleset_for("classic", 3), seat_names(["player"] * 3),
                              players=["user:ann", "user:bob", "user:cy"])
        for _ in range(25):
            seat = awaiting(running.state)[0]
            move = next(m for m in legal_commands(running.state, seat)
                        if not isinstance(m, OfferShape))
            store.play_on(running, move, running.players[seat])
        self.stdout.write(f"demo: a game still running: {running.id}")
        self.stdout.write(f"demo: accounts {', '.join(n for n, _ in ACCOUNTS)} "
                          f"(password {PASSWORD!r}; arbiter is staff)")
