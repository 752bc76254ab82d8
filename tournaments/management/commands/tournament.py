"""``manage.py tournament``: competitions of every format from the shell.

    manage.py tournament create --name "Spring Cup" --format round-robin \\
        --ruleset classic --table 4 --bots heuristic,nontrading,random,heuristic,heuristic \\
        [--rule draw_cards=3 ...] [--cycles N | --rounds N | --advance K | --deals N]
        [--here] [--no-wait]
    manage.py tournament create --format ladder --every 300 ...      (a ladder)
    manage.py tournament create --format league --divisions 2 --moves 1 --seasons 2 \\
        [--people ann,bob [--consented] [--open-entries --organiser ann] \\
         --move-seconds 60 --game-seconds 300 --fixture-hours 72] ...   (a league)
    manage.py tournament create --format swiss --rounds 3 --people ann ... \
        [--open-entries --organiser ann [--deadline ISO-8601, ahead, within 365 days] [--cap 16]] \
        [--absent clock | --absent heuristic --absence-seconds 120]   (people's Swiss)
    manage.py tournament list
    manage.py tournament show ID          (ID: the id, a unique start of it, or the name)
    manage.py tournament follow ID
    manage.py tournament start ID         (a competition waiting for entries)
    manage.py tournament join ID --bots cautious    (a ladder: more bots)
    manage.py tournament tick ID [--here] [--ticks N]   (a ladder's next round now)
    manage.py tournament stop ID [--reason TEXT]
    manage.py tournament resume [ID]
    manage.py tournament rerate ID
    manage.py tournament export ID [--out FILE.zip | --out -]

``create`` sends the first round to the Celery workers and follows the competition
with a progress bar until it ends (``--no-wait``: print the id and return; a ladder's
rounds come on its schedule, and games with people at their pace: neither is
followed); ``--here`` plays every game in this process instead,
without workers (a ladder: ``--ticks`` rounds). People named with ``--people`` are
invited and play at live tables once they accept (``--consented``: the operator states
they agreed elsewhere, and enters them at once). ``resume`` sends the open round's
missing games of one competition (or every unfinished one) again. ``stop`` stops a
running (or waiting) competition, ladder or league as the operator: no round is paired
after it, its live tables are closed and its standings are those of the games it had.
``rerate`` rates the competition again from its stored games alone (their ``GameEnded``
events) and compares with the ratings it recorded: exit status 1 if they differ.
``export`` writes every stored game of it as a zip of JSON Lines exports with an index
(docs/export.md).
"""

from __future__ import annotations

import sys
import time
from datetime import datetime
from typing import Any
from uuid import UUID

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction
from django.template.defaultfilters import floatformat

from bohnanza_core.errors import RulesetError
from bohnanza_core.formats import FORMATS, MAX_TICKS
from bohnanza_core.pairings import MAX_ENTRANTS, MAX_ROUNDS
from bohnanza_core.rulesets import customize, rule_overrides, ruleset_for
from tournaments import tasks
from tournaments.core import bottests, consent, quotas
from tournaments.core.competition import (
    CLOCK,
    OPERATOR,
    Competition,
    CompetitionError,
    LivePlay,
    SignUp,
)
from tournaments.core.entrants import display_name, entrants_for
from tournaments.core.export import file_name, games_zip
from tournaments.core.games import stored_results
from tournaments.core.progress import describe as describe_progress
from tournaments.core.progress import progress, stored_counts
from tournaments.core.ratings import rerate
from tournaments.core.rounds import run_here, stalled_since, stop
from tournaments.core.store import (
    MAX_FIXTURE_HOURS,
    MAX_GAME_SECONDS,
    MAX_MOVE_SECONDS,
    MIN_MOVE_SECONDS,
    CompetitionNotFound,
    competitions,
    create,
)

OPTIONS = {"cycles": 1, "rounds": 3, "advance": 1, "deals": 1, "divisions": 2, "moves": 1,
           "seasons": 1}
"""Every format's options, and each one's default."""
BAR = 30
PODIUM_RULES = {"points": "by points, then coins, then entry order",
                "swiss": "by points, then Buchholz, then coins, then entry order",
                "final": "by the final table's match",
                "division": "by the last season's divisions, the first at the top",
                "rating": "by rating"}
"""What each format's podium is decided by, as the shell says it."""
MOVED = {1: "up", -1: "down", 0: ""}


def progress_bar(competition: Competition) -> str:
    """Games stored of those planned, game by game (a round's count as each is stored),
    the rate and the time left at it, and since when the competition is stalled if it
    is (``rounds.watch``)."""
    p = progress(competition)
    rate = describe_progress(p)
    if competition.games_total() is None:
        return f"{p.stored} games, {len(competition.results)} rounds" + (
            f", {rate}" if rate else "")
    filled = BAR * p.stored // p.planned if p.planned and not p.finished else BAR
    stalled = None if competition.ended else stalled_since(competition)
    state = ("finished" if competition.finished else "stopped" if competition.stopped else
             f"round {len(competition.rounds)}, stalled since {stalled:%H:%M:%S} UTC"
             if stalled else f"round {len(competition.rounds)}")
    return (f"[{'#' * filled}{'.' * (BAR - filled)}] {p.stored}/{p.planned} games, {state}"
            + (f", {rate}" if rate and not p.finished else ""))


def shown(value: float, places: int) -> str:
    """A figure rounded as the competition's page rounds it (Django's ``floatformat``:
    half up, 10.625 is 10.63; Python's ``format`` rounds the binary value half to even,
    10.62), never localized: the shell and the page agree."""
    return str(floatformat(value, f"{places}u"))


def tiebreak_column(competition: Competition) -> tuple[str, list[str]] | None:
    """The standings' tie-break column of the competition's format, headed and in
    entry order: a Swiss's Buchholz, a knockout's round reached (``final``, ``round
    N``); None for the others, whose order points and coins say alone."""
    if competition.rules.podium_rule == "swiss":
        return "buchholz", [shown(b, 1) for b in competition.buchholz()]
    if competition.rules.podium_rule == "final":
        return "reached", [
            "" if r < 0 else "final" if len(competition.rounds[r].games) == competition.table
            else f"round {r + 1}" for r, _row in competition.last_matches()]
    return None


def describe(competition: Competition) -> str:
    """The competition as the shell shows it: its standings (a ladder: its ranking; a
    league: each season's divisions), its invitations, its ratings."""
    ruleset = competition.ruleset
    house = f": {', '.join(ruleset.house_rules)}" if ruleset.house_rules else ""
    every = f", a round every {competition.every} s" if competition.every else ""
    lines = [f"{competition.name} [{competition.id}]",
             f"{competition.format}, tables of {competition.table}, {ruleset.name}{house}"
             f"{every}", progress_bar(competition), ""]
    stop = competition.stopped
    if stop is not None:
        who = display_name(stop.by) if stop.by != OPERATOR else "the operator"
        lines[-1:] = [f"stopped by {who} on {stop.at:%Y-%m-%d %H:%M} UTC"
                      + (f": {stop.reason}" if stop.reason else ""), ""]
    podium = competition.podium()
    if podium is not None:
        places = ", ".join(f"{n}. {display_name(competition.entrants[e])}"
                           for n, e in enumerate(podium.places, 1))
        lines += [f"podium ({PODIUM_RULES[podium.rule]}): {places}", ""]
    if competition.format == "league":
        for season in range(len(competition.rounds)):
            lines.append(f"season {season + 1}")
            # The season's own games, points and coins (not every season's so far).
            tallies = competition.tallies(season)
            for d, division in enumerate(competition.divisions(season)):
                lines.append(f"  division {d + 1}")
                for e in division:
                    move = competition.moved(season, e)
                    t = tallies[e]
                    lines.append(f"    {display_name(competition.entrants[e]):<28} {t.games:>3} "
                                 f"{shown(t.points, 1):>6} {t.coins:>5} {MOVED[move]:<5} "
                                 f"{competition.entrants[e]}")
    elif not competition.continuous:
        # In the podium's order, with the tie-break its rule reads (a Swiss's Buchholz,
        # the round a knockout's entrant reached), as the page shows them.
        tiebreaks = tiebreak_column(competition)
        head = f" {tiebreaks[0]:>9}" if tiebreaks else ""
        lines.append(f"{'#':>3} {'entrant':<28} {'games':>5} {'points':>7}{head} "
                     f"{'avg coins':>9} {'wins':>6} {'rating':>7}  id")
        for place, s in enumerate(competition.standings(), 1):
            entrant = competition.entrants[s.entrant]
            rating = competition.rating(entrant)
            average = s.coins / s.games if s.games else 0.0
            extra = f" {tiebreaks[1][s.entrant]:>9}" if tiebreaks else ""
            lines.append(f"{place:>3} {display_name(entrant):<28} {s.games:>5} "
                         f"{shown(s.points, 1):>7}{extra} {shown(average, 2):>9} "
                         f"{shown(s.wins, 1):>6} {shown(rating.conservative, 2):>7}  {entrant}")
    if competition.continuous or competition.format == "league":
        lines += ["", f"{'#':>3} {'entrant':<28} {'games':>5} {'mu':>7} {'sigma':>6} "
                  f"{'rating':>7}  id"]
        for place, e in enumerate(competition.ranking(), 1):
            entrant = competition.entrants[e]
            mu, sigma, played = competition.ratings.get(entrant, (25.0, 25.0 / 3, 0))
            lines.append(f"{place:>3} {display_name(entrant):<28} {played:>5} "
                         f"{shown(mu, 2):>7} {shown(sigma, 2):>6} "
                         f"{shown(mu - 3 * sigma, 2):>7}  {entrant}")
    if competition.invitations:
        lines += ["", "invitations"]
        lines += [f"  {display_name(e):<28} {status:<9} {e}"
                  for e, status in competition.invitations.items()]
    if competition.waiting and not competition.continuous:
        lines += ["", f"waiting for its first round: {len(competition.entrants)} entered, "
                  f"{len(competition.invited)} not answered yet"]
    return "\n".join(lines)


def find(text: str) -> Competition:
    """The competition a command names: its id, a unique start of its id (at least 4
    characters), or its name in any case ("walk ko b" for "Walk KO B"), if no other
    has it; of names differing only in case, the one written exactly."""
    app = competitions()
    text = text.strip()[:200]
    try:
        return app.get(UUID(text))
    except ValueError:
        pass
    except CompetitionNotFound:
        raise CommandError(f"no competition {text!r}") from None
    found = [cid for cid in app.ids(limit=10_000)
             if len(text) >= 4 and str(cid).startswith(text.lower())]
    if not found:
        named = [(cid, app.get(cid).name) for cid in app.ids(limit=10_000)]
        found = [cid for cid, name in named if name.casefold() == text.casefold()]
        exact = [cid for cid, name in named if name == text]
        if len(found) > 1 and len(exact) == 1:
            found = exact
    if len(found) != 1:
        raise CommandError(f"no competition {text!r}" if not found else
                           f"{len(found)} competitions are {text!r}: give more of the id")
    return app.get(found[0])


class Command(BaseCommand):
    help = "Create, follow, show, tick, resume and re-rate competitions of every format."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        new = sub.add_parser("create", help="create a competition and run it")
        new.add_argument("--name", required=True)
        new.add_argument("--format", required=True, choices=list(FORMATS))
        new.add_argument("--ruleset", required=True)
        new.add_argument("--table", type=int, required=True, help="players at each table")
        new.add_argument("--bots", default="",
                         help="the bot entrants, comma-separated names (a name again: "
                              "another entrant of that bot)")
        new.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE")
        for option in OPTIONS:
            new.add_argument(f"--{option}", type=int)
        new.add_argument("--every", type=int, default=0,
                         help="a ladder: seconds between its rounds (default 300)")
        new.add_argument("--people", default="",
                         help="comma-separated usernames, invited: they play their games "
                              "at live tables once they accept")
        new.add_argument("--consented", action="store_true",
                         help="the people agreed elsewhere: enter them at once instead of "
                              "inviting them")
        new.add_argument("--open-entries", action="store_true",
                         help="people join on its page until the organiser starts it")
        new.add_argument("--organiser", default="",
                         help="the username who organises it (starts it on its page)")
        new.add_argument("--move-seconds", type=int, default=60,
                         help=f"live tables' turn clock ({MIN_MOVE_SECONDS}-"
                              f"{MAX_MOVE_SECONDS} s a move)")
        new.add_argument("--game-seconds", type=int, default=300,
                         help=f"live tables' bank (0-{MAX_GAME_SECONDS} s a game)")
        new.add_argument("--fixture-hours", type=int, default=72,
                         help=f"hours to play a live game (1-{MAX_FIXTURE_HOURS}); one not "
                              "over by then is scored as it stands")
        new.add_argument("--absent", default=CLOCK,
                         help="what plays an absent player's seat: clock (its default "
                              "moves: a forfeit) or a built-in bot's name")
        new.add_argument("--absence-seconds", type=int, default=120,
                         help="with --absent BOT: seconds away before the bot takes the seat")
        new.add_argument("--deadline", type=datetime.fromisoformat, default=None,
                         help="with --open-entries: the sign-up's deadline (ISO 8601 with "
                              "its offset), when the first round starts")
        new.add_argument("--cap", type=int, default=None,
                         help="with --open-entries: the most entrants; more go on a waiting "
                              "list")
        new.add_argument("--here", action="store_true",
                         help="play every game in this process, without workers")
        new.add_argument("--ticks", type=int, default=1, help="with --here, a ladder's rounds")
        new.add_argument("--no-wait", action="store_true",
                         help="send the first round to the workers and return")
        sub.add_parser("list", help="the newest competitions")
        for name, text in (("show", "standings and ratings"),
                           ("follow", "a progress bar until it ends"),
                           ("start", "start a competition waiting for entries: unanswered "
                                     "invitations expire"),
                           ("rerate", "re-rate from the stored games and compare")):
            sub.add_parser(name, help=text).add_argument("id")
        join = sub.add_parser("join", help="enter more bots (a ladder)")
        join.add_argument("id")
        join.add_argument("--bots", required=True)
        tick = sub.add_parser("tick", help="a ladder's next round now")
        tick.add_argument("id")
        tick.add_argument("--here", action="store_true", help="play it in this process")
        tick.add_argument("--ticks", type=int, default=1)
        sub.add_parser("resume", help="send missing games again").add_argument("id", nargs="?")
        stop = sub.add_parser("stop", help="stop a running (or waiting) competition, ladder "
                                           "or league now")
        stop.add_argument("id")
        stop.add_argument("--reason", default="", help="why, shown on its page")
        export = sub.add_parser("export", help="every stored game of it as a zip of JSON "
                                               "Lines exports, with an index")
        export.add_argument("id")
        export.add_argument("--out", default="",
                            help="the zip file to write (default: NAME-ID.zip here; '-': "
                                 "standard output)")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            getattr(self, f"_{options['action']}")(options)
        except (CompetitionError, RulesetError, CompetitionNotFound) as refused:
            raise CommandError(str(refused)) from None

    @staticmethod
    def _names(text: str) -> list[str]:
        return [n.strip() for n in text.split(",") if n.strip()][:MAX_ENTRANTS + 1]

    def _create(self, options: dict[str, Any]) -> None:
        fmt = options["format"]
        wanted = FORMATS[fmt].parameters
        chosen = {o: options[o] if options[o] is not None else OPTIONS[o] for o in wanted}
        others = [o for o in OPTIONS if o not in wanted and options[o] is not None]
        if others:
            raise CommandError(f"a {fmt} takes {', '.join('--' + o for o in wanted) or 'none'}"
                               f", not --{others[0]}")
        for option, value in chosen.items():
            lowest = 0 if option == "moves" else 1  # a league may move nobody
            if not lowest <= value <= MAX_ROUNDS:
                raise CommandError(f"--{option}: {lowest} to {MAX_ROUNDS}")
        every = options["every"] or (300 if FORMATS[fmt].continuous else 0)
        table = options["table"]
        overrides = rule_overrides(options["rule"]) if options["rule"] else {}
        ruleset = (customize(options["ruleset"], table, overrides) if overrides
                   else ruleset_for(options["ruleset"], table))
        named = consent.named_people(options["people"][:MAX_ENTRANTS * 151])
        organiser = options["organiser"].strip()
        if organiser:
            if "," in organiser:
                raise CommandError("one --organiser")
            (organiser,) = consent.named_people(organiser)
        elif options["open_entries"]:
            raise CommandError("--open-entries needs an --organiser, who starts it on its "
                               "page")
        else:
            organiser = "shell"
        people = consent.sort_people(named, organiser, consented=options["consented"])
        live = None
        if named or options["open_entries"]:
            if options["here"]:
                raise CommandError("people play at live tables, not --here")
            absent = options["absent"]
            live = LivePlay(options["ruleset"], overrides, options["move_seconds"],
                            options["game_seconds"], options["fixture_hours"],
                            options["open_entries"], absent,
                            0 if absent == CLOCK else options["absence_seconds"])
        sign_up = None
        if options["deadline"] is not None or options["cap"] is not None:
            sign_up = SignUp(options["deadline"], options["cap"] or MAX_ENTRANTS)
        competition = create(options["name"], fmt, chosen, ruleset, table,
                             people.entered + entrants_for(self._names(options["bots"])),
                             organiser=organiser, every=every, live=live,
                             invited=people.invited, sign_up=sign_up,
                             consented=options["consented"])
        total = competition.games_total()
        self.stdout.write(f"created {competition.id}"
                          + (f": {total} games" if total is not None else ""))
        if options["here"]:
            done = run_here(competition.id, rounds=self._ticks(options),
                            on_deal=self._bar)
            self._bar(done, end=True)
            self.stdout.write(describe(done))
            return
        tasks.start(competition)
        # Not followed: a ladder (it never ends), one waiting for its first round, and
        # one with people at live tables (its games take hours, at the people's pace).
        if (competition.continuous or competition.waiting or competition.live is not None
                or options["no_wait"]):
            self.stdout.write(describe(competition))
            return
        self._follow({"id": str(competition.id)})

    @staticmethod
    def _ticks(options: dict[str, Any]) -> int:
        if not 1 <= options["ticks"] <= MAX_TICKS:
            raise CommandError(f"--ticks from 1 to {MAX_TICKS}")
        return int(options["ticks"])

    def _bar(self, competition: Competition, end: bool = False) -> None:
        self.stdout.write("\r" + progress_bar(competition), ending="\n" if end else "")
        self.stdout.flush()

    def _follow(self, options: dict[str, Any]) -> None:
        competition = find(options["id"])
        while not competition.ended and not competition.continuous:
            self._bar(competition)
            time.sleep(0.5)
            competition = find(str(competition.id))
        self._bar(competition, end=True)
        self.stdout.write(describe(competition))

    def _list(self, options: dict[str, Any]) -> None:
        app = competitions()
        found = [app.get(cid) for cid in app.ids()]
        counts = stored_counts(c.id for c in found)
        for c in found:
            total = c.games_total()
            stalled = None if c.ended else stalled_since(c)
            state = ("finished" if c.finished else "stopped" if c.stopped
                     else "waiting" if c.waiting and not c.continuous
                     else f"stalled since {stalled:%Y-%m-%d %H:%M:%S} UTC" if stalled
                     else "running")
            self.stdout.write(f"{c.id}  {c.name:<30} {c.format:<11} "
                              f"{counts.get(c.id, 0):>6}/{total if total is not None else '-':<6} "
                              f"{state}")

    def _show(self, options: dict[str, Any]) -> None:
        self.stdout.write(describe(find(options["id"])))

    def _start(self, options: dict[str, Any]) -> None:
        competition = find(options["id"])
        competition.start()
        consent.save(competitions(), competition)
        tasks.start(competition)
        self.stdout.write(describe(competition))

    def _stop(self, options: dict[str, Any]) -> None:
        """The operator stops it (``rounds.stop``): staff's right, named ``operator``."""
        competition = stop(find(options["id"]).id, OPERATOR, options["reason"], staff=True)
        self.stdout.write(describe(competition))

    def _join(self, options: dict[str, Any]) -> None:
        competition = find(options["id"])
        # A bot entered already comes in as another copy ("#2"), as on create.
        for entrant in entrants_for(self._names(options["bots"]), competition.entrants):
            competition.enter(entrant)
        with transaction.atomic():
            quotas.entries_changed(competition, operator=True)
            competitions().save(competition)
        self.stdout.write(describe(competition))

    def _tick(self, options: dict[str, Any]) -> None:
        competition = find(options["id"])
        if not competition.continuous:
            raise CommandError("only a competition on a schedule (a ladder) ticks")
        if options["here"]:
            self.stdout.write(describe(run_here(competition.id, rounds=self._ticks(options))))
        else:
            tasks.tick.delay(str(competition.id))
            self.stdout.write("sent to the workers")

    def _rerate(self, options: dict[str, Any]) -> None:
        competition = find(options["id"])
        again = rerate(stored_results(competition))
        differ = [e for e in competition.entrants
                  if competition.ratings.get(e, (0.0, 0.0, 0))[2]
                  and (again.of(e).mu, again.of(e).sigma) != competition.ratings[e][:2]]
        differ += [e for e in again.ratings if not competition.ratings.get(e, (0, 0, 0))[2]]
        for entrant, rating in again.leaderboard():
            self.stdout.write(f"{display_name(entrant):<28} mu {rating.mu:7.3f} sigma "
                              f"{rating.sigma:6.3f} conservative {rating.conservative:7.3f}"
                              f"  {entrant}")
        if differ:
            raise CommandError(f"re-rated from the stored games, these differ from the "
                               f"recorded ratings: {', '.join(differ)}")
        self.stdout.write(f"the same ratings as recorded, from "
                          f"{competition.games_done()} stored games")

    def _export(self, options: dict[str, Any]) -> None:
        """Every stored game as a zip (``tournaments.core.export``), written as it is
        made, game by game: nothing but one game is held in memory."""
        competition = find(options["id"])
        out = options["out"] or file_name(competition)
        written = 0
        if out == "-":
            for chunk in games_zip(competition):
                sys.stdout.buffer.write(chunk)
            sys.stdout.buffer.flush()
            return
        with open(out, "wb") as target:
            for chunk in games_zip(competition):
                target.write(chunk)
                written += len(chunk)
        stored = progress(competition).stored
        self.stdout.write(f"{out}: {stored} games, {written:,} bytes")

    def _resume(self, options: dict[str, Any]) -> None:
        app = competitions()
        ids = [find(options["id"]).id] if options["id"] else app.ids()
        for cid in ids:
            competition = app.get(cid)
            if not competition.finished:
                if not competition.continuous:  # one stored before the beat watched them
                    tasks.schedule_watch(competition)
                sent = tasks.resume.delay(str(cid))
                self.stdout.write(f"resumed {cid} ({sent.id})")
        if options["id"]:
            return
        for tid in bottests.ids():  # a bot test whose job was lost with its worker
            if not bottests.get(tid).decided:
                job = tasks.bot_test.delay(str(tid))
                self.stdout.write(f"resumed bot test {tid} ({job.id})")
