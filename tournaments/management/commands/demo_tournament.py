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
from tournaments.core.entrants import display_name, entrants_for
from tournaments.core.rounds import run_here
from tournaments.core.store import competitions, create

NAME = "Demo Cup"
BOTS = ("heuristic", "nontrading", "random", "heuristic", "nontrading")


class Command(BaseCommand):
    help = "Store a finished demo competition (only when there is none)."

    def handle(self, *args: Any, **options: Any) -> None:
        if competitions().ids(limit=1):
            self.stdout.write("demo: a competition exists already; nothing added")
            return
        cup = create(NAME, "round-robin", {"cycles": 1}, ruleset_for("classic", 4), 4,
                     entrants_for(BOTS), organiser="demo")
        done = run_here(cup.id)
        leader = done.standings()[0]
        self.stdout.write(f"demo: {NAME} {cup.id}: {done.games_done()} games, won by "
                          f"{display_name(done.entrants[leader.entrant])} with "
                          f"{leader.points:g} points")
