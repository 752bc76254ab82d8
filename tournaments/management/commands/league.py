"""``manage.py league``: leagues from the shell.

    manage.py league create --name "Bean League" --ruleset duel --table 2 \\
        --bots heuristic,random,nontrading,heuristic,random,nontrading \\
        --divisions 3 --moves 1 --seasons 2 [--rule KEY=VALUE ...] [--here]
    manage.py league create --name "Club night" --ruleset duel --table 2 \\
        --people alice,bob --bots heuristic,random [--consented] [--move-seconds 60] \\
        [--game-seconds 300] [--fixture-hours 72] [--open-entries] [--organiser olga]
    manage.py league start ID
    manage.py league list
    manage.py league show ID

``create`` sends the first season's fixtures to the workers (``--here``: plays every
season in this process); ``show`` prints each season's divisions and moves, and who
was invited and what they answered. People (``--people``, usernames with an account,
as on the new league form) play their fixtures at live tables under the turn clock.
They are invited, as the form invites them: each enters by accepting on their
invitations page, and the league waits until its organiser (``--organiser``, a
username) starts it on its page, or ``start`` here does, with whoever has entered.
``--consented`` states that the people agreed elsewhere and enters them at once (the
operator's word; the web has no such box). ``--open-entries`` lets anyone join on the
league's page until the start. A league with people is never played ``--here``: its
live tables wait for the people. The command line counts against nobody's quotas: its
operator runs the workers.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.core.management.base import BaseCommand, CommandError, CommandParser

from bohnanza_core.errors import RulesetError
from bohnanza_core.pairings import MAX_ENTRANTS
from bohnanza_core.rulesets import customize, rule_overrides, ruleset_for
from tournaments import consent, tasks
from tournaments.competitions import CompetitionError, tournaments
from tournaments.entrants import display_name
from tournaments.league_live import schedule
from tournaments.league_runner import run_league_here, start_fixtures, stored_league_results
from tournaments.leagues import (
    MAX_FIXTURE_HOURS,
    MAX_GAME_SECONDS,
    MAX_MOVE_SECONDS,
    MIN_MOVE_SECONDS,
    League,
    LeagueNotFound,
    LivePlay,
    create_league,
    get_league,
    league_ids,
)
from tournaments.ratings import rerate
from tournaments.runner import entrants_for

MOVES = {1: "up", -1: "down", 0: ""}


def describe(league: League) -> str:
    """Every season's divisions, best first, with who went up and down."""
    lines = [f"{league.name} [{league.id}]",
             f"tables of {league.table}, {league.ruleset.name}, {league.divisions} divisions, "
             f"{league.moves} up and down; {len(league.results)}/{league.seasons} seasons"]
    for season in range(len(league.fixtures)):
        lines.append(f"\nseason {season + 1}")
        for d, rows in enumerate(league.standings(season)):
            lines.append(f"  division {d + 1}")
            lines += [f"    {display_name(r.entrant):<28} {r.games:>3} {r.points:>6.1f} "
                      f"{r.coins:>5} {MOVES[r.move]:<9} {r.entrant}" for r in rows]
    if league.invitations:
        lines += ["", "invitations"]
        lines += [f"  {display_name(e):<28} {status:<9} {e}"
                  for e, status in league.invitations.items()]
    if league.waiting:
        lines += ["", f"waiting for its first season: {len(league.entrants)} entered, "
                  f"{len(league.invited)} not answered yet"]
    if league.ratings:
        lines += ["", f"{'ratings':<28} {'games':>5} {'mu':>7} {'sigma':>6} {'rating':>7}  id"]
        for entrant, (mu, sigma, played) in sorted(
                league.ratings.items(), key=lambda item: (-(item[1][0] - 3 * item[1][1]),
                                                          item[0])):
            lines.append(f"{display_name(entrant):<28} {played:>5} {mu:>7.2f} {sigma:>6.2f} "
                         f"{mu - 3 * sigma:>7.2f}  {entrant}")
    return "\n".join(lines)


class Command(BaseCommand):
    help = "Create, list, show and re-rate leagues."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        create = sub.add_parser("create", help="create a league and play it")
        create.add_argument("--name", required=True)
        create.add_argument("--ruleset", required=True)
        create.add_argument("--table", type=int, required=True)
        create.add_argument("--bots", default="", help="comma-separated bot names")
        create.add_argument("--people", default="", help="comma-separated usernames, "
                            "invited: they play their fixtures at live tables once they "
                            "accept")
        create.add_argument("--consented", action="store_true",
                            help="the people agreed elsewhere: enter them at once instead "
                            "of inviting them")
        create.add_argument("--open-entries", action="store_true",
                            help="people join on the league's page until the organiser "
                            "starts it")
        create.add_argument("--organiser", default="", help="the username who organises it "
                            "(starts a league open for entries on its page)")
        create.add_argument("--move-seconds", type=int, default=60,
                            help=f"live tables' turn clock ({MIN_MOVE_SECONDS}-"
                            f"{MAX_MOVE_SECONDS} s a move)")
        create.add_argument("--game-seconds", type=int, default=300,
                            help=f"live tables' bank (0-{MAX_GAME_SECONDS} s a game)")
        create.add_argument("--fixture-hours", type=int, default=72,
                            help=f"hours to play a live fixture (1-{MAX_FIXTURE_HOURS}); "
                            "one not over by then is scored as it stands")
        create.add_argument("--divisions", type=int, default=2)
        create.add_argument("--moves", type=int, default=1)
        create.add_argument("--seasons", type=int, default=1)
        create.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE")
        create.add_argument("--here", action="store_true", help="play it in this process")
        sub.add_parser("start", help="start a waiting league's first season with whoever "
                       "has entered (unanswered invitations expire)").add_argument(
                           "id", type=UUID)
        sub.add_parser("list", help="the leagues")
        sub.add_parser("show").add_argument("id", type=UUID)
        sub.add_parser("rerate", help="rate the stored games again and compare (exit 1 if "
                       "they differ)").add_argument("id", type=UUID)

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            if options["action"] == "create":
                self._create(options)
            elif options["action"] == "list":
                for lid in league_ids():
                    league = get_league(lid)
                    self.stdout.write(f"{lid}  {league.name}  {len(league.results)}/"
                                      f"{league.seasons} seasons")
            elif options["action"] == "rerate":
                self._rerate(get_league(options["id"]))
            elif options["action"] == "start":
                self._start(options["id"])
            else:
                self.stdout.write(describe(get_league(options["id"])))
        except (CompetitionError, RulesetError, LeagueNotFound) as refused:
            raise CommandError(str(refused)) from None

    def _rerate(self, league: League) -> None:
        again = rerate(stored_league_results(league))
        differ = [e for e in league.entrants if e in league.ratings
                  and (again.of(e).mu, again.of(e).sigma) != league.ratings[e][:2]]
        differ += [e for e in again.ratings if e not in league.ratings]
        for entrant, rating in again.leaderboard():
            self.stdout.write(f"{display_name(entrant):<28} {rating.mu:>7.3f} "
                              f"{rating.sigma:>6.3f} {rating.conservative:>7.3f}  {entrant}")
        if differ:
            raise CommandError(f"re-rated from the stored games, these differ from the "
                               f"league's ratings: {', '.join(differ)}")
        self.stdout.write("the same as the league's ratings")

    def _start(self, league_id: UUID) -> None:
        league = get_league(league_id)
        league.start_first_season()
        consent.save(tournaments(), league)
        start_fixtures(league, tasks.dispatch_fixtures)
        self.stdout.write(describe(league))

    def _create(self, options: dict[str, Any]) -> None:
        table = options["table"]
        ruleset = (customize(options["ruleset"], table, rule_overrides(options["rule"]))
                   if options["rule"] else ruleset_for(options["ruleset"], table))
        names = [n.strip() for n in options["bots"].split(",") if n.strip()]
        named = consent.named_people(options["people"][:MAX_ENTRANTS * 151])
        organiser = options["organiser"].strip()
        if organiser:
            if "," in organiser:
                raise CommandError("one --organiser")
            (created_by,) = consent.named_people(organiser)
        elif options["open_entries"]:
            raise CommandError("--open-entries needs an --organiser, who starts the league "
                               "on its page")
        else:
            created_by = "cli"
        people = consent.sort_people(named, created_by, consented=options["consented"])
        live = None
        if named or options["open_entries"]:
            if options["here"]:
                raise CommandError("a league with people is played at live tables, not "
                                   "--here")
            live = LivePlay(options["ruleset"], rule_overrides(options["rule"])
                            if options["rule"] else {}, options["move_seconds"],
                            options["game_seconds"], options["fixture_hours"],
                            options["open_entries"])
        league = create_league(options["name"], ruleset, table, options["divisions"],
                               options["moves"], options["seasons"],
                               people.entered + entrants_for(names[:MAX_ENTRANTS + 1]),
                               created_by=created_by, live=live, invited=people.invited,
                               consented=options["consented"])
        if league.live is not None:
            schedule(league)
        if options["here"]:
            league = run_league_here(league.id)
        else:
            start_fixtures(league, tasks.dispatch_fixtures)
        self.stdout.write(f"{league.id}\n{describe(league)}")
