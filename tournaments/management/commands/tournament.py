"""``manage.py tournament``: competitions from the shell.

    manage.py tournament create --name "Spring Cup" --format round-robin \\
        --ruleset classic --table 4 --bots heuristic,nontrading,random,heuristic,heuristic \\
        [--rule draw_cards=3 ...] [--cycles N | --rounds N | --advance K | --deals N] \\
        [--here] [--no-wait]
    manage.py tournament list
    manage.py tournament show ID
    manage.py tournament follow ID
    manage.py tournament resume [ID]
    manage.py tournament rerate ID

``create`` sends the first round to the Celery workers and follows the competition
with a progress bar until it ends (``--no-wait``: print the id and return);
``--here`` plays every game in this process instead, without workers. ``resume`` sends
the current round's missing games of one competition (or every unfinished one) again.
``rerate`` rates the competition again from its stored games alone (their ``GameEnded``
events) and compares with the ratings it recorded: exit status 1 if they differ.
"""

from __future__ import annotations

import sys
import time
from typing import Any
from uuid import UUID

from django.core.management.base import BaseCommand, CommandError, CommandParser

from bohnanza_core.errors import RulesetError
from bohnanza_core.pairings import MAX_ENTRANTS, MAX_ROUNDS
from bohnanza_core.rulesets import customize, rule_overrides, ruleset_for
from tournaments import tasks
from tournaments.competitions import (
    FORMATS,
    CompetitionError,
    Tournament,
    TournamentNotFound,
    tournaments,
)
from tournaments.entrants import display_name
from tournaments.ratings import rerate
from tournaments.runner import entrants_for, run_here, stored_results

OPTION_OF = {"round-robin": "cycles", "swiss": "rounds", "knockout": "advance",
             "duplicate": "deals"}
DEFAULT = {"cycles": 1, "rounds": 3, "advance": 1, "deals": 1}
BAR = 30


def progress_bar(tournament: Tournament) -> str:
    done, total = tournament.games_done(), tournament.games_total()
    filled = BAR * done // total if total else BAR
    state = "finished" if tournament.finished else f"round {len(tournament.rounds)}"
    return f"[{'#' * filled}{'.' * (BAR - filled)}] {done}/{total} games, {state}"


def describe(tournament: Tournament) -> str:
    ruleset = tournament.ruleset
    house = f": {', '.join(ruleset.house_rules)}" if ruleset.house_rules else ""
    lines = [f"{tournament.name} [{tournament.id}]",
             f"{tournament.format}, tables of {tournament.table}, {ruleset.name}{house}",
             progress_bar(tournament), "",
             f"{'#':>3} {'entrant':<28} {'games':>5} {'points':>7} {'avg coins':>9} "
             f"{'wins':>6} {'rating':>7}  id"]
    for place, s in enumerate(tournament.standings(), 1):
        mu, sigma, _ = tournament.ratings.get(s.entrant, (25.0, 25.0 / 3, 0))
        lines.append(f"{place:>3} {display_name(s.entrant):<28} {s.games:>5} {s.points:>7.1f} "
                     f"{s.average_coins:>9.2f} {s.wins:>6.1f} {mu - 3 * sigma:>7.2f}  "
                     f"{s.entrant}")
    return "\n".join(lines)


class Command(BaseCommand):
    help = "Create, follow, show and resume competitions between bots."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        create = sub.add_parser("create", help="create a competition and run it")
        create.add_argument("--name", required=True)
        create.add_argument("--format", required=True, choices=FORMATS)
        create.add_argument("--ruleset", required=True)
        create.add_argument("--table", type=int, required=True, help="players at each table")
        create.add_argument("--bots", required=True,
                            help="the entrants, comma-separated bot names (a name again: "
                                 "another entrant of that bot)")
        create.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE")
        for option in DEFAULT:
            create.add_argument(f"--{option}", type=int)
        create.add_argument("--here", action="store_true",
                            help="play every game in this process, without workers")
        create.add_argument("--no-wait", action="store_true",
                            help="send the first round to the workers and return")
        sub.add_parser("list", help="the newest competitions")
        for name, text in (("show", "standings and ratings"),
                           ("follow", "a progress bar until it ends")):
            sub.add_parser(name, help=text).add_argument("id")
        sub.add_parser("resume", help="send missing games again").add_argument("id", nargs="?")
        sub.add_parser("rerate", help="re-rate from the stored games and compare"
                       ).add_argument("id")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            getattr(self, f"_{options['action']}")(options)
        except (CompetitionError, RulesetError, TournamentNotFound) as refused:
            raise CommandError(str(refused)) from None

    def _tournament(self, text: str) -> Tournament:
        try:
            return tournaments().get_tournament(UUID(text))
        except ValueError:
            raise CommandError(f"no tournament {text!r}") from None

    def _create(self, options: dict[str, Any]) -> None:
        fmt = options["format"]
        option = OPTION_OF[fmt]
        value = options[option] if options[option] is not None else DEFAULT[option]
        if not 1 <= value <= MAX_ROUNDS:
            raise CommandError(f"--{option}: 1 to {MAX_ROUNDS}")
        others = [o for o in DEFAULT if o != option and options[o] is not None]
        if others:
            raise CommandError(f"a {fmt} competition takes --{option}, not --{others[0]}")
        names = [n.strip() for n in options["bots"].split(",") if n.strip()]
        if len(names) > MAX_ENTRANTS:
            raise CommandError(f"at most {MAX_ENTRANTS} entrants")
        table = options["table"]
        ruleset = (customize(options["ruleset"], table, rule_overrides(options["rule"]))
                   if options["rule"] else ruleset_for(options["ruleset"], table))
        tournament = tournaments().create(options["name"], fmt, ruleset, table,
                                          {option: value}, entrants_for(names),
                                          created_by="shell")
        self.stdout.write(f"created {tournament.id}: {tournament.games_total()} games")
        if options["here"]:
            done = run_here(tournament.id, on_deal=self._bar)
            self._bar(done, end=True)
            self.stdout.write(describe(done))
            return
        tasks.start(tournament.id)
        if not options["no_wait"]:
            self._follow({"id": str(tournament.id)})

    def _bar(self, tournament: Tournament, end: bool = False) -> None:
        self.stdout.write("\r" + progress_bar(tournament), ending="\n" if end else "")
        self.stdout.flush()

    def _follow(self, options: dict[str, Any]) -> None:
        tournament = self._tournament(options["id"])
        while not tournament.finished:
            self._bar(tournament)
            time.sleep(0.5)
            tournament = self._tournament(options["id"])
        self._bar(tournament, end=True)
        self.stdout.write(describe(tournament))

    def _list(self, options: dict[str, Any]) -> None:
        app = tournaments()
        for tid in app.ids():
            t = app.get_tournament(tid)
            self.stdout.write(f"{t.id}  {t.name:<30} {t.format:<11} "
                              f"{t.games_done():>6}/{t.games_total():<6} "
                              f"{'finished' if t.finished else 'running'}")

    def _show(self, options: dict[str, Any]) -> None:
        self.stdout.write(describe(self._tournament(options["id"])))

    def _rerate(self, options: dict[str, Any]) -> None:
        tournament = self._tournament(options["id"])
        again = rerate(stored_results(tournament))
        differ = [e for e in tournament.entrants
                  if (again.of(e).mu, again.of(e).sigma) != tournament.ratings.get(e, (
                      again.of(e).mu, again.of(e).sigma, 0))[:2]]
        for entrant, rating in again.leaderboard():
            self.stdout.write(f"{display_name(entrant):<28} mu {rating.mu:7.3f} sigma "
                              f"{rating.sigma:6.3f} conservative {rating.conservative:7.3f}"
                              f"  {entrant}")
        if differ:
            raise CommandError(f"re-rated from the stored games, these differ from the "
                               f"recorded ratings: {', '.join(differ)}")
        self.stdout.write(f"the same ratings as recorded, from "
                          f"{tournament.games_done()} stored games")

    def _resume(self, options: dict[str, Any]) -> None:
        app = tournaments()
        ids = [self._tournament(options["id"]).id] if options["id"] else app.ids()
        for tid in ids:
            if not app.get_tournament(tid).finished:
                sent = tasks.resume.delay(str(tid))
                self.stdout.write(f"resumed {tid} ({sent.id})")
        sys.stdout.flush()
