"""``manage.py demo_tournament``: a finished competition to look at, played here.

Run by ``python3 run.py start`` after ``manage.py demo`` (which lives in the ``play``
app): a round robin of five bot entrants at tables of four under ``classic``, every
game stored and replayable. Only into a platform without competitions: run twice, it
adds nothing.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from bohnanza_core.rulesets import ruleset_for
from tournaments.competitions import tournaments
from tournaments.entrants import display_name
from tournaments.runner import entrants_for, run_here

NAME = "Demo Cup"
BOTS = ("heuristic", "nontrading", "random", "heuristic", "nontrading")


class Command(BaseCommand):
    help = "Store a finished demo competition (only when there is none)."

    def handle(self, *args: Any, **options: Any) -> None:
        app = tournaments()
        if app.ids(limit=1):
            self.stdout.write("demo: a competition exists already; nothing added")
            return
        cup = app.create(NAME, "round-robin", ruleset_for("classic", 4), 4, {"cycles": 1},
                         entrants_for(BOTS), created_by="demo")
        done = run_here(cup.id)
        leader = done.standings()[0]
        self.stdout.write(f"demo: {NAME} {cup.id}: {done.games_done()} games, "
                          f"won by {display_name(leader.entrant)} with {leader.points:g} points")
