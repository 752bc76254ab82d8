"""``manage.py ladder``: ladders from the shell.

    manage.py ladder create --name "Duel ladder" --ruleset duel --table 2 \\
        --bots heuristic,random,nontrading [--rule KEY=VALUE ...] [--every SECONDS]
    manage.py ladder join ID --bots cautious
    manage.py ladder tick ID [--here] [--ticks N]
    manage.py ladder list
    manage.py ladder show ID
    manage.py ladder rerate ID

``create`` stores the ladder and its periodic tick on the beat (django-celery-beat);
``tick`` sends one tick to the workers now (``--here``: plays ``--ticks`` ticks in this
process instead). ``rerate`` rates the ladder again from its stored games alone and
compares with what it recorded: exit status 1 if they differ.
"""

from __future__ import annotations

import sys
from typing import Any
from uuid import UUID

from django.core.management.base import BaseCommand, CommandError, CommandParser

from bohnanza_core.errors import RulesetError
from bohnanza_core.pairings import MAX_ENTRANTS
from bohnanza_core.rulesets import customize, rule_overrides, ruleset_for
from tournaments import tasks
from tournaments.competitions import CompetitionError, tournaments
from tournaments.entrants import display_name
from tournaments.ladder_runner import run_ticks_here, schedule, stored_ladder_results
from tournaments.ladders import (
    MAX_TICKS,
    Ladder,
    LadderNotFound,
    create_ladder,
    get_ladder,
    ladder_ids,
)
from tournaments.ratings import rerate
from tournaments.runner import entrants_for


def describe(ladder: Ladder) -> str:
    """The ladder's ranking by conservative rating, as a table."""
    ruleset = ladder.ruleset
    house = f": {', '.join(ruleset.house_rules)}" if ruleset.house_rules else ""
    lines = [f"{ladder.name} [{ladder.id}]",
             f"tables of {ladder.table}, {ruleset.name}{house}, a tick every "
             f"{ladder.interval} s; {len(ladder.results)} ticks, {ladder.games_done()} games",
             "", f"{'#':>3} {'entrant':<28} {'games':>5} {'mu':>7} {'sigma':>6} {'rating':>7}"
             "  id"]
    for place, e in enumerate(ladder.ranking(), 1):
        entrant = ladder.entrants[e]
        mu, sigma, played = ladder.ratings.get(entrant, (25.0, 25.0 / 3, 0))
        lines.append(f"{place:>3} {display_name(entrant):<28} {played:>5} {mu:>7.2f} "
                     f"{sigma:>6.2f} {mu - 3 * sigma:>7.2f}  {entrant}")
    return "\n".join(lines)


class Command(BaseCommand):
    help = "Create, join, tick, show and re-rate ladders between bots."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        create = sub.add_parser("create", help="create a ladder and schedule its ticks")
        create.add_argument("--name", required=True)
        create.add_argument("--ruleset", required=True)
        create.add_argument("--table", type=int, required=True)
        create.add_argument("--bots", required=True, help="comma-separated bot names")
        create.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE")
        create.add_argument("--every", type=int, default=300, help="seconds between ticks")
        join = sub.add_parser("join", help="enter more bots")
        join.add_argument("id", type=UUID)
        join.add_argument("--bots", required=True)
        tick = sub.add_parser("tick", help="run a tick now")
        tick.add_argument("id", type=UUID)
        tick.add_argument("--here", action="store_true", help="play it in this process")
        tick.add_argument("--ticks", type=int, default=1)
        sub.add_parser("list", help="the ladders")
        for name in ("show", "rerate"):
            sub.add_parser(name).add_argument("id", type=UUID)

    def handle(self, *args: Any, **options: Any) -> None:
        action = options["action"]
        try:
            if action == "create":
                self._create(options)
            elif action == "list":
                for lid in ladder_ids():
                    ladder = get_ladder(lid)
                    self.stdout.write(f"{lid}  {ladder.name}  {len(ladder.entrants)} entrants, "
                                      f"{ladder.games_done()} games")
            elif action == "join":
                ladder = get_ladder(options["id"])
                for entrant in entrants_for(self._names(options["bots"])):
                    ladder.join(entrant)
                tournaments().save(ladder)
                self.stdout.write(describe(ladder))
            elif action == "tick":
                self._tick(options)
            elif action == "show":
                self.stdout.write(describe(get_ladder(options["id"])))
            else:
                self._rerate(options["id"])
        except (CompetitionError, RulesetError, LadderNotFound) as refused:
            raise CommandError(str(refused)) from None

    @staticmethod
    def _names(text: str) -> list[str]:
        return [n.strip() for n in text.split(",") if n.strip()][:MAX_ENTRANTS + 1]

    def _create(self, options: dict[str, Any]) -> None:
        table = options["table"]
        ruleset = (customize(options["ruleset"], table, rule_overrides(options["rule"]))
                   if options["rule"] else ruleset_for(options["ruleset"], table))
        ladder = create_ladder(options["name"], ruleset, table, options["every"],
                               entrants_for(self._names(options["bots"])),
                               created_by="cli")
        schedule(ladder)
        self.stdout.write(f"{ladder.id}\n{describe(ladder)}")

    def _tick(self, options: dict[str, Any]) -> None:
        if not 1 <= options["ticks"] <= MAX_TICKS:
            raise CommandError(f"--ticks from 1 to {MAX_TICKS}")
        if options["here"]:
            self.stdout.write(describe(run_ticks_here(options["id"], options["ticks"])))
        else:
            get_ladder(options["id"])
            tasks.ladder_tick.delay(str(options["id"]))
            self.stdout.write("sent to the workers")

    def _rerate(self, ladder_id: UUID) -> None:
        ladder = get_ladder(ladder_id)
        again = rerate(stored_ladder_results(ladder))
        differ = [e for e in ladder.entrants if ladder.ratings.get(e, (25.0, 25.0 / 3, 0))[2]
                  and (again.of(e).mu, again.of(e).sigma) != ladder.ratings[e][:2]]
        for entrant in ladder.entrants:
            r = again.of(entrant)
            self.stdout.write(f"{display_name(entrant):<28} {r.mu:>7.3f} {r.sigma:>6.3f} "
                              f"{r.conservative:>7.3f}  {entrant}")
        if differ:
            self.stderr.write(f"differ from the recorded ratings: {', '.join(differ)}")
            sys.exit(1)
        self.stdout.write("the same as the ladder's ratings")
