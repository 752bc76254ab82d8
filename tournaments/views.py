"""The competitions' pages, one set for every format: the list, a new competition (the
format chosen first, then one field per option of it), one competition, the part of it
that changes as games are played (fetched again by the page), its progress as JSON,
the changes a signed-in person makes (join, leave, start, invite, accept, decline;
stop: its organiser or staff) and a person's invitations.

One competition's page shows what its format has: standings, statistics and rounds
(round robin, Swiss, knockout, duplicate), a ranking with its rating history (a
ladder), every season's divisions (a league); while it waits for its first round, who
has entered and (its organiser) who was invited and what they answered.

Everything shown is built from the competition's events and its games' results: the
secret the seeds derive from never reaches a page. A new competition needs an account
(its games cost the workers' time) within its quotas (``tournaments.core.quotas``); a
refusal stores nothing. People are entered only by their consent
(``tournaments.core.consent``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any
from uuid import UUID

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.db import transaction
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseForbidden,
    JsonResponse,
    StreamingHttpResponse,
)
from django.http.response import HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.cache import get_conditional_response, patch_cache_control
from django.utils.translation import get_language, gettext_lazy, ngettext
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe
from eventsourcing.persistence import IntegrityError

from bohnanza_core.bots.registry import registry
from bohnanza_core.errors import RulesetError
from bohnanza_core.formats import FORMATS, Result
from bohnanza_core.pairings import MAX_ENTRANTS
from bohnanza_core.ratings import entrant_statistics, seat_results
from bohnanza_core.rulesets import rule_overrides
from replays.caching import ANSWER_MAX_AGE, NOT_CACHED, PAGE_MAX_AGE, Policy, answer, release
from replays.table import bot_accounts
from tournaments import tasks
from tournaments.charts import rating_chart
from tournaments.core import consent, quotas, rounds, workers
from tournaments.core.competition import (
    CLOCK,
    MAX_STOP_REASON,
    OPERATOR,
    Competition,
    CompetitionError,
    LivePlay,
    SignUp,
)
from tournaments.core.entrants import person_entrant, username_of
from tournaments.core.errors import worded
from tournaments.core.export import file_name
from tournaments.core.export import games_zip as games_zip_of
from tournaments.core.games import results_so_far
from tournaments.core.progress import progress, stored_counts
from tournaments.core.store import CompetitionNotFound, competitions, create
from tournaments.forms import (
    FORMAT_LEDES,
    FORMAT_NAMES,
    LIVE_LADDER,
    MAX_PEOPLE_TEXT,
    TAKES_PEOPLE,
    Invite,
    NewCompetition,
    requested,
)
from tournaments.models import CompetitionGame, CompetitionTable, Invitation
from tournaments.zones import when

SHOWN_GAMES = 500
"""Games of one round listed on the page; a round robin round of 20 entrants has more."""
LISTED = 50
"""Competitions the list shows, newest first."""
INVITATIONS_SHOWN = 100
"""Invitations listed at most: a person's open ones first, then the latest answered."""


def kind_of(competition: Competition) -> str:
    """Which part of the page shows it: ``league`` (seasons of divisions), ``ladder`` (a
    ranking on a schedule) or ``rounds`` (standings and rounds)."""
    if competition.format == "league":
        return "league"
    return "ladder" if competition.continuous else "rounds"


def summary(c: Competition, stored: int | None = None) -> dict[str, Any]:
    """What a page says of a competition at a glance (``stored``: its games stored, if
    counted already): its progress game by game."""
    total = c.games_total()
    p = progress(c, stored=stored)
    done = p.stored
    ruleset = c.ruleset
    out = {"id": c.id, "name": c.name, "format": FORMAT_NAMES.get(c.format, c.format),
            "format_id": c.format, "kind": kind_of(c), "options": c.options,
            "ruleset": ruleset.name, "house_rules": list(ruleset.house_rules),
            "table": c.table, "entrants": len(c.entrants), "done": done, "total": total,
            "percent": p.percent, "finished": c.finished, "rate": p.rate,
            "eta": p.eta, "remaining": p.remaining,
            "rounds": len(c.results), "every": c.every, "live": c.live,
            "entries_open": c.entries_open,
            "waiting": c.waiting and not c.continuous and c.stopped is None,
            "rated": bool(c.ratings), "ended": c.ended, "stopped": _stopped(c),
            "stalled": None if c.ended else rounds.stalled_since(c),
            "organiser_name": username_of(c.organiser or "") or _("the platform's operator")}
    out["status"] = status_text(out)
    return out


def status_text(c: dict[str, Any]) -> str:
    """Where a competition stands, in words: finished, waiting, stalled since when (the
    platform is sending its missing games again), or running."""
    if c["finished"]:
        return _("finished")
    if c["stopped"] is not None:
        return _("stopped")
    if c["waiting"]:
        return _("waiting for entries")
    if c["stalled"] is not None:
        return _("stalled since %(time)s: its missing games are being sent again") % {
            "time": when(c["stalled"])}
    return _("running")


def _stopped(c: Competition) -> dict[str, Any] | None:
    """Who stopped the competition (a username, or the platform's operator), when and
    why; None if nobody did."""
    stop = c.stopped
    if stop is None:
        return None
    who = username_of(stop.by) if stop.by != OPERATOR else None
    return {"by": who or _("the platform's operator"), "at": stop.at, "reason": stop.reason}


def _get(competition_id: UUID) -> Competition:
    try:
        return competitions().get(competition_id)
    except CompetitionNotFound:
        raise Http404(_("No such competition.")) from None


def _me(request: HttpRequest) -> str | None:
    return (person_entrant(request.user.get_username()) if request.user.is_authenticated
            else None)


# -- the list and a new competition ------------------------------------------------


@require_safe
def competition_list(request: HttpRequest) -> HttpResponse:
    """Every competition, newest first (``?format=``: one format's)."""
    app = competitions()
    chosen = request.GET.get("format", "")
    ids = app.ids(limit=LISTED if chosen not in FORMATS else 1000)
    found = []
    for cid in ids:
        competition = app.get(cid)
        if chosen in FORMATS and competition.format != chosen:
            continue
        found.append(competition)
        if len(found) >= LISTED:
            break
    counts = stored_counts(c.id for c in found)
    rows = [summary(c, counts.get(c.id, 0)) for c in found]
    return render(request, "tournaments/list.html", {
        "rows": rows, "formats": FORMAT_NAMES, "chosen": chosen if chosen in FORMATS else ""})


@login_required
@require_safe
def choose_format(request: HttpRequest) -> HttpResponse:
    """The formats, each with a line of what it is: a new competition starts here."""
    return render(request, "tournaments/choose.html", {
        "formats": [{"id": f, "name": FORMAT_NAMES[f], "lede": FORMAT_LEDES[f]}
                    for f in FORMATS]})


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def new_competition(request: HttpRequest, format: str) -> HttpResponse:
    if format not in FORMATS:
        raise Http404(_("No such format."))
    form = NewCompetition(format, request.POST if request.method == "POST" else None)
    problems: list[str] = []
    if request.method == "POST" and form.is_valid():
        try:
            competition = _create(request, form)
        except (CompetitionError, RulesetError) as refused:
            problems.append(worded(refused))
        else:
            tasks.start(competition)
            return redirect("tournaments:detail", competition_id=competition.id)
    status = 400 if request.method == "POST" else 200
    return render(request, "tournaments/new.html", {
        "form": form, "problems": problems, "bots": list(registry().values()),
        "format": FORMAT_NAMES[format], "lede": FORMAT_LEDES[format]}, status=status)


def _create(request: HttpRequest, form: NewCompetition) -> Competition:
    """The competition the form asks for, made for the signed-in organiser within their
    quotas; the people they name are invited (the organiser themselves entered)."""
    data = form.cleaned_data
    ruleset, bots = requested(data)
    me = person_entrant(request.user.get_username())
    live = None
    people = consent.People([], [])
    sign_up = None
    if form.format in TAKES_PEOPLE:
        people = consent.sort_people(consent.named_people(data["people"]), me)
        if people.entered or people.invited or data["open_entries"]:
            live = _live_play(data, data["open_entries"])
        if data["deadline"] is not None or data["cap"] is not None:
            if not data["open_entries"]:
                raise CompetitionError(_("A sign-up deadline or cap needs the competition "
                                         "open for entries."))
            sign_up = SignUp(data["deadline"], data["cap"] or MAX_ENTRANTS)
    elif form.format == LIVE_LADDER and data["live_tables"]:
        live = _live_play(data, False)
    with quotas.creating(request.user) as admit:
        return create(data["name"], form.format, form.options(), ruleset, data["table"],
                      people.entered + bots, organiser=me, every=data.get("every") or 0,
                      live=live, invited=people.invited, sign_up=sign_up, admit=admit)


def _live_play(data: dict[str, Any], open_entries: bool) -> LivePlay:
    """How the form's live games are played: their clock, hours, and an absent player's
    fate (CompetitionError where the form left one out)."""
    if None in (data["move_seconds"], data["game_seconds"], data["fixture_hours"]):
        raise CompetitionError(_("Games with people need a turn clock, a bank and "
                                 "hours to play them."))
    absent = data["absent"] or CLOCK
    if absent != CLOCK and data["absence_seconds"] is None:
        raise CompetitionError(_("Say how long a player may be away before a bot "
                                 "takes their seat."))
    lines = [line.strip() for line in data["rules"].splitlines() if line.strip()]
    return LivePlay(data["ruleset"], rule_overrides(lines) if lines else {},
                    data["move_seconds"], data["game_seconds"], data["fixture_hours"],
                    open_entries, absent, 0 if absent == CLOCK else data["absence_seconds"])


# -- one competition ------------------------------------------------------------------


def _round_number(request: HttpRequest, rounds_paired: int) -> int:
    """The round the page shows (?round=, from 1), the last one by default."""
    text = request.GET.get("round", "")
    if text.isascii() and text.isdigit() and 0 < len(text) <= 3 and (
            1 <= int(text) <= rounds_paired):
        return int(text) - 1
    return max(rounds_paired - 1, 0)


def _seats(c: Competition, seats: tuple[int, ...], row: CompetitionGame | None
           ) -> list[dict[str, Any]]:
    return [{"entrant": c.entrants[e], "coins": row.coins[s] if row else None,
             "won": bool(row and s in row.winners)} for s, e in enumerate(seats)]


def _games(c: Competition, r: int, me: str | None) -> list[dict[str, Any]]:
    """Round ``r``'s games (at most :data:`SHOWN_GAMES`): each its seats, its result
    once stored, its replay or live table and deadline, and whether ``me`` plays it."""
    return _listed(c, [(r, i) for i in range(min(len(c.rounds[r].games), SHOWN_GAMES))], me)


def _listed(c: Competition, places: list[tuple[int, int]], me: str | None
            ) -> list[dict[str, Any]]:
    """The games at ``places`` ((round, index) pairs, at most :data:`SHOWN_GAMES`), as
    :func:`_games` shows them."""
    rounds = {r for r, _ in places}
    wanted = set(places)
    stored = {(row.round, row.index): row for row in CompetitionGame.objects.filter(
        competition_id=c.id, round__in=rounds)
        .only("game_id", "round", "index", "coins", "winners")
        if (row.round, row.index) in wanted}
    tables = {(row.round, row.index): row for row in CompetitionTable.objects.filter(
        competition_id=c.id, round__in=rounds)} if c.live else {}
    shown = []
    for r, i in places:
        pairing = c.rounds[r].games[i]
        row = stored.get((r, i))
        table = tables.get((r, i))
        shown.append({
            "round": r + 1, "number": i + 1, "deal": pairing.deal + 1,
            "seats": _seats(c, pairing.seats, row),
            "game_id": c.game_id(r, i) if row else None,
            "table": table.table_id if table else None,
            "deadline": table.deadline if table else None,
            "mine": me is not None and me in [c.entrants[e] for e in pairing.seats]})
    return shown


def _entrant_number(request: HttpRequest, entrants: int) -> int | None:
    """The entrant the games are filtered by (?entrant=, its number from 1), or None."""
    text = request.GET.get("entrant", "")
    if text.isascii() and text.isdigit() and 0 < len(text) <= 3 and 1 <= int(text) <= entrants:
        return int(text) - 1
    return None


def _games_of(c: Competition, entrant: int, me: str | None) -> tuple[list[dict[str, Any]],
                                                                      int]:
    """Every game of one entrant, round by round (at most :data:`SHOWN_GAMES`), and how
    many more there are."""
    places = [(r, i) for r, paired in enumerate(c.rounds)
              for i, pairing in enumerate(paired.games) if entrant in pairing.seats]
    return _listed(c, places[:SHOWN_GAMES], me), max(0, len(places) - SHOWN_GAMES)


PODIUM_RULES = {
    "points": gettext_lazy("By points, then coins, then entry order, over every game."),
    "swiss": gettext_lazy("By points, then Buchholz (the points of everyone met), then "
                          "coins, then entry order: the Swiss tie-breaks."),
    "final": gettext_lazy("By the final table's match: points, then coins, then seed; "
                          "the others by the round they went out in."),
    "division": gettext_lazy("By the last season's divisions, the first at the top: "
                             "each by points, then coins, then the season's seeding (a "
                             "first division of two leaves third place to the second "
                             "division's winner)."),
    "rating": gettext_lazy("By rating (mu - 3 sigma): a ladder runs on."),
}
"""What each format's podium is decided by (``Format.podium_rule``)."""


def _podium(c: Competition) -> dict[str, Any] | None:
    podium = c.podium()
    if podium is None:
        return None
    return {"places": [{"place": n, "entrant": c.entrants[e]}
                       for n, e in enumerate(podium.places, 1)],
            "rule": PODIUM_RULES.get(podium.rule, podium.rule)}


def _bracket(c: Competition) -> list[dict[str, Any]]:
    """A knockout's rounds, each its tables with who went through (the running round's
    as its games come in); [] for another format."""
    if not c.rounds:
        return []
    results: list[Sequence[Result | None]] = [*c.results]
    if c.open_round is not None:
        results.append(results_so_far(c, c.open_round))
    elif len(c.results) < len(c.rounds):  # stopped: its open round's games by then
        results.append(c.so_far(len(c.results)))
    rounds = c.bracket(results)
    last = len(rounds) - 1
    # A table's match is games t*k to (t+1)*k of its round: the games list, the zip and
    # each game's tags number the games, so the bracket names them too.
    k = c.table
    return [{"number": r + 1, "final": r == last and len(c.rounds[r].games) == c.table,
             "tables": [{"number": t + 1, "played": match.played,
                         "first": t * k + 1, "last": (t + 1) * k,
                         "rows": [{"entrant": c.entrants[row.entrant], "points": row.points,
                                   "coins": row.coins, "through": row.through}
                                  for row in match.rows]}
                        for t, match in enumerate(matches)]}
            for r, matches in enumerate(rounds)]


STANDINGS_ORDERS = {
    "points": gettext_lazy("The standings are in the podium's order: points, then "
                           "coins, then entry order."),
    "swiss": gettext_lazy("The standings are in the podium's order: points, then "
                          "Buchholz (the points of everyone met, once a game), then coins, "
                          "then entry order."),
    "final": gettext_lazy("The standings are in the podium's order: the round each "
                          "entrant reached, later first (the final's table by its match); "
                          "within a round, the points and coins of the last match played, "
                          "then seed. The Points column counts every game, so it need not "
                          "fall in order."),
}
"""What the standings table of each format is ordered by: its podium's rule
(``Competition.standings``), said in words beside it."""


def _round_name(c: Competition, r: int) -> str:
    """A round as a knockout's bracket names it: "Final" for the last table, else
    "Round N"."""
    if len(c.rounds[r].games) == c.table:
        return _("Final")
    return _("Round %(n)s") % {"n": r + 1}


def _standings(c: Competition) -> list[dict[str, Any]]:
    """Every entrant in the order of the format's own rule (the podium's), with the
    tie-breaks that rule reads: a Swiss's Buchholz, a knockout's round reached and last
    match, so an organiser can check the podium against the table."""
    rule = c.rules.podium_rule
    extra = c.buchholz() if rule == "swiss" else []
    last = c.last_matches() if rule == "final" else []
    rows = []
    for row in c.standings():
        entrant = c.entrants[row.entrant]
        rating = c.rating(entrant)
        shown: dict[str, Any] = {
            "entrant": entrant, "games": row.games, "points": row.points,
            "average_coins": row.coins / row.games if row.games else 0.0,
            "wins": row.wins, "conservative": rating.conservative}
        if extra:
            shown["buchholz"] = extra[row.entrant]
        if last:
            reached, match = last[row.entrant]
            shown["reached"] = _round_name(c, reached) if reached >= 0 else ""
            shown["match"] = match
        rows.append(shown)
    return rows


def _statistics(c: Competition) -> list[dict[str, Any]]:
    """Per entrant: average coins and win rate with their 95% intervals, overall and by
    seat (seats from 1), from the results the competition recorded."""
    results = [r for paired, ended in zip(c.rounds, c.results, strict=False)
               for pairing, result in zip(paired.games, ended, strict=True)
               for r in seat_results([c.entrants[e] for e in pairing.seats], result.coins,
                                     result.winners)]
    return [{"entrant": s.entrant, "games": s.games, "coins": s.coins, "wins": s.win_rate,
             "seats": [{"seat": seat + 1, "games": games, "wins": wins}
                       for seat, games, _coins, wins in s.by_seat]}
            for s in sorted(entrant_statistics(results), key=lambda s: -s.win_rate.value)]


def _ranking(c: Competition) -> list[dict[str, Any]]:
    rows = []
    for e in c.ranking():
        entrant = c.entrants[e]
        mu, sigma, games = c.ratings.get(entrant, (25.0, 25.0 / 3, 0))
        rows.append({"entrant": entrant, "games": games, "mu": mu, "sigma": sigma,
                     "conservative": mu - 3 * sigma})
    return rows


def _seasons(c: Competition, me: str | None) -> list[dict[str, Any]]:
    """Every season newest first: each division's standings (a running season's as its
    games are played) with its games."""
    seasons = []
    for season in range(len(c.rounds) - 1, -1, -1):
        ended = season < len(c.results)
        results = (c.results[season] if ended else c.so_far(season) if c.stopped
                   else results_so_far(c, season))
        tallies = c.tallies(season, results)
        games = _games(c, season, me)
        divisions = []
        for d, ranked in enumerate(c.divisions(season, results)):
            rows = [{"entrant": c.entrants[e], "games": tallies[e].games,
                     "points": tallies[e].points, "coins": tallies[e].coins,
                     "move": c.moved(season, e), "rating": c.rating(c.entrants[e], season)}
                    for e in ranked]
            divisions.append({"number": d + 1, "rows": rows, "games": [
                g for i, g in enumerate(games) if c.rounds[season].division_of(i) == d]})
        seasons.append({"number": season + 1, "divisions": divisions, "ended": ended})
    return seasons


def _mine(c: Competition, me: str | None) -> list[dict[str, Any]]:
    """The games ``me`` is still to play at a live table, in the open round."""
    r = c.open_round
    if me is None or r is None or c.live is None:
        return []
    return [g for g in _games(c, r, me) if g["mine"] and g["table"] and not g["game_id"]]


def _moved_on(competition: Competition) -> Competition:
    """The competition after the cheap look at its live tables a page view makes (its
    first round started at its sign-up's deadline; ended or overdue games go in, and
    the competition moves on)."""
    if rounds.start_due(competition, tasks.send_deals):
        return _get(competition.id)
    if (competition.live is not None and competition.open_round is not None
            and rounds.collect(competition.id, tasks.send_deals, marked_only=True)):
        return _get(competition.id)
    return competition


def _bot_accounts(c: Competition) -> frozenset[str]:
    """The competition's people (entered, waiting or invited) that are bot accounts, in
    one lookup for the page (``replays.table.bot_accounts``): the page marks them as
    bots (``{{ id|entrant:bots }}``) wherever they appear."""
    return bot_accounts([*c.entrants, *c.waiting_list, *c.invitations])


def _live_part(request: HttpRequest, c: Competition) -> dict[str, Any]:
    """What the part of the page that changes as games are played shows."""
    me = _me(request)
    context: dict[str, Any] = {"c": summary(c), "mine": _mine(c, me), "bots": _bot_accounts(c)}
    context["pace"] = pace_text(context["c"])
    kind = kind_of(c)
    if kind == "league":
        context["seasons"] = _seasons(c, me)
    elif kind == "ladder":
        context.update(ranking=_ranking(c), chart=rating_chart(c))
        if c.results:
            context.update(tick=len(c.results), games=_games(c, len(c.results) - 1, me))
    else:
        shown = _round_number(request, len(c.rounds))
        entrant = _entrant_number(request, len(c.entrants))
        rule = c.rules.podium_rule
        context.update(standings=_standings(c), statistics=_statistics(c),
                       tiebreak=rule if rule in ("swiss", "final") else "",
                       standings_order=STANDINGS_ORDERS.get(rule, ""),
                       round_numbers=range(1, len(c.rounds) + 1), shown=shown + 1,
                       games=_games(c, shown, me) if c.rounds else [],
                       more=max(0, len(c.rounds[shown].games) - SHOWN_GAMES)
                       if c.rounds else 0, bracket=_bracket(c),
                       entrant_choices=list(enumerate(c.entrants, 1)))
        if entrant is not None and c.rounds:
            games, more = _games_of(c, entrant, me)
            context.update(games=games, more=more, filtered=entrant + 1,
                           filtered_entrant=c.entrants[entrant])
    context["podium"] = _podium(c)
    # A running competition's games wait for the workers: the page says when they are
    # away (tournaments.core.workers), as /health/ does.
    context["workers"] = None if c.finished else workers.workers(c.id)
    if c.rounds:
        context["download_url"] = reverse("tournaments:games_zip", args=[c.id])
    return context


def _entries(c: Competition, me: str | None) -> dict[str, Any]:
    """What the page says of the entries while it waits for its first round: the
    sign-up (its deadline, places taken of its cap), the waiting list and ``me``'s place
    on it, and, once the deadline has passed without a start, why it cannot start."""
    now = timezone.now()
    refused = ""
    if c.waiting and not c.continuous and c.sign_up_closed(now):
        try:
            c.check_entrants()
        except CompetitionError as reason:
            refused = str(reason)
    place = c.waiting_list.index(me) + 1 if me is not None and me in c.waiting_list else 0
    deadline = c.sign_up.deadline if c.sign_up is not None else None
    return {"sign_up": c.sign_up, "signing_up": c.signing_up(now),
            "deadline": when(deadline) if deadline is not None else "",
            "capped": c.sign_up is not None and c.sign_up.cap < MAX_ENTRANTS,
            "sign_up_closed": c.sign_up_closed(now), "full": c.full,
            "waiting_list": c.waiting_list, "waiting_place": place, "start_refused": refused}


def _page_policy(request: HttpRequest, c: Competition) -> Policy:
    """How a competition's page may be cached: a finished one never changes, so its
    page is kept for anonymous readers as a finished public replay's is
    (``replays.caching``: public, five minutes, an ETag of everything it shows); a
    running one, or a signed-in reader's page (their name, a CSRF token), never."""
    if not c.finished or request.user.is_authenticated:
        return NOT_CACHED
    return Policy(cacheable=True, shared=True, max_age=PAGE_MAX_AGE, basis="public",
                  shared_max_age=PAGE_MAX_AGE)


def _etag(request: HttpRequest, c: Competition, what: str) -> str:
    """A digest of everything a finished competition's answer depends on: the release,
    the competition and its version, the reader's language, the address asked for."""
    text = "\0".join(str(part) for part in (
        release(), "competition", c.id, c.version, get_language(), what,
        request.get_host(), request.scheme, request.get_full_path()))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


@require_safe
def competition_detail(request: HttpRequest, competition_id: UUID) -> HttpResponse:
    competition = _moved_on(_get(competition_id))
    rule = _page_policy(request, competition)
    etag = _etag(request, competition, "page") if rule.cacheable else None
    return answer(request, rule, etag, lambda: _detail(request, competition))


def _detail(request: HttpRequest, competition: Competition) -> HttpResponse:
    me = _me(request)
    organiser = me is not None and competition.organiser == me
    staff = request.user.is_authenticated and quotas.exempt(request.user)
    return render(request, "tournaments/detail.html", {
        "can_stop": (organiser or staff) and not competition.ended,
        "stop_reason_max": MAX_STOP_REASON,
        **_live_part(request, competition), **_entries(competition, me),
        "entrants": competition.entrants, "me": me, "organiser": organiser,
        "entered": me is not None and me in competition.entrants,
        "invitations": list(competition.invitations.items()) if organiser else [],
        "my_invitation": competition.invitations.get(me) if me is not None else None,
        "invite_max": MAX_PEOPLE_TEXT,
        "follow": not competition.ended and not (competition.waiting
                                                     and not competition.continuous),
        "progress_url": reverse("tournaments:progress", args=[competition.id]),
        "live_url": reverse("tournaments:live", args=[competition.id])})


@require_safe
def competition_live(request: HttpRequest, competition_id: UUID) -> HttpResponse:
    """The part of a competition's page that changes as games are played ("Your games",
    then its standings, ranking or seasons and its games): an HTML fragment the page
    fetches again whenever the lobby's socket says a table opened, started or ended,
    and every few seconds while bots play (static/js/competition_live.js). Its view
    moves the competition on, as the page's does."""
    competition = _moved_on(_get(competition_id))
    return render(request, "tournaments/_live.html", _live_part(request, competition))


@require_safe
def competition_progress(request: HttpRequest, competition_id: UUID) -> JsonResponse:
    """The page's bar, game by game: games stored of those planned, the rate (games a
    minute) and the estimated end (ISO 8601), each with its words."""
    c = summary(_get(competition_id))
    total = c["total"]
    if total is None:  # a ladder plays on: no total, so no share of it
        text = ngettext("%(done)s game stored", "%(done)s games stored",
                        c["done"]) % {"done": c["done"]}
    else:
        text = ngettext("%(done)s of %(total)s game", "%(done)s of %(total)s games",
                        total) % {"done": c["done"], "total": total}
    return JsonResponse({"done": c["done"], "total": total,
                         "percent": None if total is None else c["percent"],
                         "finished": c["finished"], "round": c["rounds"],
                         "rate": c["rate"], "eta": c["eta"].isoformat() if c["eta"] else None,
                         "status": c["status"], "stalled": c["stalled"] is not None,
                         "text": text, "pace": pace_text(c)})


def pace_text(c: dict[str, Any]) -> str:
    """The rate and the time left, in words: "12.5 games a minute, about 4 minutes
    left" (nothing once it has ended: finished or stopped)."""
    if c["ended"] or c["rate"] is None:
        return ""
    text = _("%(rate)s games a minute") % {"rate": f"{c['rate']:.1f}"}
    if c["remaining"] is not None:
        minutes = int(c["remaining"].total_seconds() // 60)
        text += ", " + (ngettext("about %(n)d minute left", "about %(n)d minutes left",
                                 minutes) % {"n": minutes} if minutes
                        else _("less than a minute left"))
    return text


@require_safe
def games_zip(request: HttpRequest, competition_id: UUID) -> HttpResponseBase:
    """Every stored game of the competition at once: a zip of their JSON Lines
    exports and an index (``tournaments.core.export``), streamed game by game. A
    finished competition's never changes: an ETag, and public caching for an hour."""
    competition = _get(competition_id)
    etag = f'W/"{_etag(request, competition, "zip")}"' if competition.finished else None
    if etag is not None:
        not_modified = get_conditional_response(request, etag=etag)
        if not_modified is not None:
            not_modified["ETag"] = etag
            patch_cache_control(not_modified, public=True, max_age=ANSWER_MAX_AGE)
            return not_modified
    response = StreamingHttpResponse(games_zip_of(competition),
                                     content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{file_name(competition)}"'
    if etag is not None:
        response["ETag"] = etag
        patch_cache_control(response, public=True, max_age=ANSWER_MAX_AGE)
    else:
        patch_cache_control(response, no_store=True)
    return response


# -- changes a signed-in person makes ---------------------------------------------------


Action = Callable[[Competition, str], str | None]
"""A change a signed-in person makes to a competition (``me``: their entrant id);
returns what to tell them when it is stored, or None."""


def _change(request: HttpRequest, competition_id: UUID, action: Action) -> HttpResponse:
    """A signed-in person's change (join, leave, start, accept, decline, invite), stored
    with its invitations' rows and any quota it counts against in one transaction, or
    refused with the reason; a lost race with another change is tried again. Back to
    the competition's page, or to the invitations page it was made on."""
    me = person_entrant(request.user.get_username())
    app = competitions()
    for _attempt in range(5):
        competition = _get(competition_id)
        started = competition.started
        try:
            with transaction.atomic():
                said = action(competition, me)
                quotas.entries_changed(competition)
                consent.save(app, competition)
        except CompetitionError as refused:
            messages.error(request, str(refused))
            break
        except IntegrityError:
            continue
        else:
            if said:
                messages.success(request, said)
            if competition.started and not started:
                tasks.start(competition)
            break
    if request.POST.get("back") == "invitations":
        return redirect("tournaments:invitations")
    return redirect("tournaments:detail", competition_id=competition_id)


def _organiser(competition: Competition, me: str) -> None:
    if competition.organiser != me:
        raise CompetitionError(_("Only its organiser does that."))


def _entered(competition: Competition, me: str) -> str:
    """What an entrant who has just joined or accepted is told: entered, or their place
    on the waiting list of a full competition."""
    if me in competition.waiting_list:
        return _("%(name)s is full: you are number %(place)d on its waiting list.") % {
            "name": competition.name, "place": competition.waiting_list.index(me) + 1}
    return _("You are entered in %(name)s.") % {"name": competition.name}


@login_required
@require_POST
def join(request: HttpRequest, competition_id: UUID) -> HttpResponse:
    def joined(competition: Competition, me: str) -> str:
        competition.join(me, timezone.now())
        return _entered(competition, me)
    return _change(request, competition_id, joined)


@login_required
@require_POST
def leave(request: HttpRequest, competition_id: UUID) -> HttpResponse:
    def left(competition: Competition, me: str) -> str:
        competition.leave(me)
        return _("You have left %(name)s.") % {"name": competition.name}
    return _change(request, competition_id, left)


@login_required
@require_POST
def start(request: HttpRequest, competition_id: UUID) -> HttpResponse:
    """The organiser starts the first round with whoever has entered: invitations not
    answered by then expire. Its games count against the organiser's quota from now
    (``quotas.admit_start``)."""
    def started(competition: Competition, me: str) -> None:
        _organiser(competition, me)
        competition.start()
        quotas.admit_start(request.user, competition)
    return _change(request, competition_id, started)


@login_required
@require_POST
def accept(request: HttpRequest, competition_id: UUID) -> HttpResponse:
    def accepted(competition: Competition, me: str) -> str:
        competition.accept(me)
        return _entered(competition, me)
    return _change(request, competition_id, accepted)


@login_required
@require_POST
def decline(request: HttpRequest, competition_id: UUID) -> HttpResponse:
    def declined(competition: Competition, me: str) -> str:
        competition.decline(me)
        return _("You have declined %(name)s.") % {"name": competition.name}
    return _change(request, competition_id, declined)


@login_required
@require_POST
def invite(request: HttpRequest, competition_id: UUID) -> HttpResponse:
    """The organiser asks more people in while the competition waits for its first
    round (to make up for those who declined); the same rules as the new form."""
    form = Invite(request.POST)

    def invited(competition: Competition, me: str) -> str:
        _organiser(competition, me)
        if not form.is_valid():
            raise CompetitionError(_("Name the people to invite: usernames, "
                                     "comma-separated."))
        people = consent.sort_people(consent.named_people(form.cleaned_data["people"]), me)
        said = []
        for entrant in people.entered:  # the organiser alone: entered, never invited
            if entrant in competition.entrants:
                said.append(_("You have entered already."))
            else:
                competition.join(entrant)
                said.append(_("You have entered it yourself."))
        for entrant in people.invited:
            competition.invite(entrant)
        if people.invited or not said:
            said.append(ngettext("%(count)d person invited.", "%(count)d people invited.",
                                 len(people.invited)) % {"count": len(people.invited)})
        return " ".join(said)
    return _change(request, competition_id, invited)


@login_required
@require_POST
def stop(request: HttpRequest, competition_id: UUID) -> HttpResponse:
    """Its organiser, or a member of staff, stops a running (or waiting) competition,
    ladder or league, with an optional reason (``rounds.stop``). Anyone else is
    refused with a 403 and nothing is stored; stopping it twice is refused with the
    reason."""
    competition = _get(competition_id)
    me = person_entrant(request.user.get_username())
    staff = quotas.exempt(request.user)
    if competition.organiser != me and not staff:
        return HttpResponseForbidden(_("Only its organiser or the platform's staff stop a "
                                       "competition."))
    try:
        rounds.stop(competition.id, me, request.POST.get("reason", "")[:MAX_STOP_REASON * 2],
                    staff=staff)
    except CompetitionError as refused:
        messages.error(request, str(refused))
    else:
        messages.success(request, _("%(name)s is stopped.") % {"name": competition.name})
    return redirect("tournaments:detail", competition_id=competition_id)


@login_required
@require_safe
def invitations(request: HttpRequest) -> HttpResponse:
    """The signed-in person's invitations: each competition's name, organiser and
    state, the open ones with Accept and Decline."""
    user = request.user
    assert isinstance(user, User)  # login_required
    rows = list(Invitation.objects.filter(user=user, status=consent.INVITED)
                .order_by("-invited_at")[:INVITATIONS_SHOWN])
    rows += list(Invitation.objects.filter(user=user)
                 .exclude(status=consent.INVITED)
                 .order_by("-answered_at")[:max(0, INVITATIONS_SHOWN - len(rows))])
    shown = []
    for row in rows:
        try:
            competition = competitions().get(row.competition_id)
        except CompetitionNotFound:
            continue
        shown.append({"row": row, "c": summary(competition)})
    return render(request, "tournaments/invitations.html", {"invitations": shown})


# -- addresses of the pages before there was one competitions core ----------------------


def moved(name: str) -> Callable[..., HttpResponse]:
    """A page that moved: the same page at its new address (a permanent redirect)."""
    def view(request: HttpRequest, **kwargs: Any) -> HttpResponse:
        if "ladder_id" in kwargs or "league_id" in kwargs:
            cid = kwargs.get("ladder_id") or kwargs.get("league_id")
            return redirect(reverse(f"tournaments:{name}", args=[cid]), permanent=True)
        target = reverse(f"tournaments:{name}", kwargs=kwargs)
        return redirect(target, permanent=True)
    return require_safe(view)


def _format_list(format: str) -> Callable[..., HttpResponse]:
    def view(request: HttpRequest) -> HttpResponse:
        return redirect(reverse("tournaments:list") + f"?format={format}", permanent=True)
    return require_safe(view)


urlpatterns: list[URLPattern] = [
    path("", competition_list, name="list"),
    path("new/", choose_format, name="new"),
    path("new/<str:format>/", new_competition, name="new_format"),
    path("<uuid:competition_id>/", competition_detail, name="detail"),
    path("<uuid:competition_id>/live/", competition_live, name="live"),
    path("<uuid:competition_id>/progress.json", competition_progress, name="progress"),
    path("<uuid:competition_id>/games.zip", games_zip, name="games_zip"),
    path("<uuid:competition_id>/join/", join, name="join"),
    path("<uuid:competition_id>/leave/", leave, name="leave"),
    path("<uuid:competition_id>/start/", start, name="start"),
    path("<uuid:competition_id>/accept/", accept, name="accept"),
    path("<uuid:competition_id>/decline/", decline, name="decline"),
    path("<uuid:competition_id>/invite/", invite, name="invite"),
    path("<uuid:competition_id>/stop/", stop, name="stop"),
    path("invitations/", invitations, name="invitations"),
    # Where the ladders' and leagues' pages were before there was one core.
    path("ladders/", _format_list("ladder"), name="ladders"),
    path("leagues/", _format_list("league"), name="leagues"),
    path("ladders/new/", require_safe(lambda request: redirect(
        "tournaments:new_format", format="ladder", permanent=True)), name="new_ladder"),
    path("leagues/new/", require_safe(lambda request: redirect(
        "tournaments:new_format", format="league", permanent=True)), name="new_league"),
    path("ladders/<uuid:ladder_id>/", moved("detail"), name="ladder"),
    path("leagues/<uuid:league_id>/", moved("detail"), name="league"),
]
