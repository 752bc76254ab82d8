"""Pages of the leagues: the list, a new league (signed in, within the account's quotas;
bounded form, a refusal stores nothing), one league (every season's divisions with
their standings, rank points then coins, and who went up and down, each game's replay
in the season's fixtures; while it waits for its first season, who has entered, and
for its organiser who was invited and what they answered), and a person's
invitations with their Accept and Decline buttons. Built from the league's events:
its secret never shows.

Consent (``tournaments.consent``): the people an organiser names are invited, not
entered; each enters by accepting (or by joining a league open for entries), and the
organiser starts the first season with whoever has entered by then."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from uuid import UUID

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import URLPattern, path
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_http_methods, require_POST, require_safe
from eventsourcing.persistence import IntegrityError

from bohnanza_core.bots.registry import registry
from bohnanza_core.errors import RulesetError
from bohnanza_core.pairings import MAX_ENTRANTS, MAX_TABLE, MIN_TABLE
from bohnanza_core.rulesets import PRESETS, rule_overrides
from tournaments import consent, quotas, tasks
from tournaments.competitions import MAX_NAME, CompetitionError, GameResult, tournaments
from tournaments.entrants import person_entrant, username_of
from tournaments.league_live import collect, schedule
from tournaments.league_runner import start_fixtures
from tournaments.leagues import (
    MAX_DIVISIONS,
    MAX_FIXTURE_HOURS,
    MAX_GAME_SECONDS,
    MAX_MOVE_SECONDS,
    MAX_SEASONS,
    MIN_MOVE_SECONDS,
    League,
    LeagueNotFound,
    LivePlay,
    create_league,
    get_league,
    league_game_id,
    league_ids,
)
from tournaments.models import Invitation, LeagueGame, LeagueTable
from tournaments.views import requested

MAX_PEOPLE_TEXT = MAX_ENTRANTS * 151
"""The longest people field: 64 usernames of 150 characters and their commas."""


class NewLeague(forms.Form):
    name = forms.CharField(label=gettext_lazy("Name"), max_length=MAX_NAME, strip=True)
    ruleset = forms.ChoiceField(label=gettext_lazy("Ruleset"),
                                choices=[(p, p) for p in PRESETS], initial="duel")
    table = forms.IntegerField(label=gettext_lazy("Players at each table"),
                               min_value=MIN_TABLE, max_value=MAX_TABLE, initial=2)
    bots = forms.CharField(
        label=gettext_lazy("Bots"), max_length=MAX_ENTRANTS * 41, strip=True, required=False,
        help_text=gettext_lazy("Bot names, comma-separated; a name again enters that bot "
                               "again."),
        initial="heuristic, nontrading, random, heuristic, nontrading, random")
    divisions = forms.IntegerField(label=gettext_lazy("Divisions"), min_value=1,
                                   max_value=MAX_DIVISIONS, initial=3)
    moves = forms.IntegerField(label=gettext_lazy("Up and down at each season's end"),
                               min_value=0, max_value=MAX_ENTRANTS, initial=1)
    seasons = forms.IntegerField(label=gettext_lazy("Seasons"), min_value=1,
                                 max_value=MAX_SEASONS, initial=2)
    rules = forms.CharField(
        label=gettext_lazy("House rules"), required=False, max_length=4000,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=gettext_lazy("One KEY=VALUE a line, e.g. draw_cards=3."))
    people = forms.CharField(
        label=gettext_lazy("People"), required=False, max_length=MAX_PEOPLE_TEXT,
        strip=True, help_text=gettext_lazy(
            "Usernames, comma-separated: each is invited, and plays their fixtures at "
            "live tables once they accept. You start the first season on the league's "
            "page, with whoever has accepted by then."))
    open_entries = forms.BooleanField(
        label=gettext_lazy("Open for entries"), required=False,
        help_text=gettext_lazy("People join on the league's page until you start the "
                               "first season."))
    move_seconds = forms.IntegerField(
        label=gettext_lazy("Turn clock (seconds a move)"), min_value=MIN_MOVE_SECONDS,
        max_value=MAX_MOVE_SECONDS, initial=60, required=False)
    game_seconds = forms.IntegerField(
        label=gettext_lazy("Bank (seconds a game beyond the turn clock)"), min_value=0,
        max_value=MAX_GAME_SECONDS, initial=300, required=False)
    fixture_hours = forms.IntegerField(
        label=gettext_lazy("Hours to play a live fixture"), min_value=1,
        max_value=MAX_FIXTURE_HOURS, initial=72, required=False,
        help_text=gettext_lazy("A fixture not over by then is scored as it stands: by the "
                               "coins each player has."))


def _summary(league: League) -> dict[str, Any]:
    return {"id": league.id, "name": league.name, "ruleset": league.ruleset.name,
            "house_rules": list(league.ruleset.house_rules), "table": league.table,
            "divisions": league.divisions, "moves": league.moves,
            "entrants": len(league.entrants), "seasons": league.seasons,
            "ended": len(league.results), "finished": league.finished, "live": league.live,
            "entries_open": league.entries_open, "waiting": league.waiting,
            "rated": bool(league.ratings),
            "organiser_name": username_of(league.created_by or "")
            or _("the platform's operator")}


@require_safe
def league_list(request: HttpRequest) -> HttpResponse:
    rows = [_summary(get_league(lid)) for lid in league_ids(limit=50)]
    return render(request, "tournaments/leagues.html", {"rows": rows})


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def new_league(request: HttpRequest) -> HttpResponse:
    form = NewLeague(request.POST if request.method == "POST" else None)
    problems: list[str] = []
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        me = person_entrant(request.user.get_username())
        try:
            people = consent.sort_people(consent.named_people(data["people"]), me)
            ruleset, bots = requested(data)
            live = None
            if people.entered or people.invited or data["open_entries"]:
                lines = [line.strip() for line in data["rules"].splitlines() if line.strip()]
                live = LivePlay(data["ruleset"], rule_overrides(lines) if lines else {},
                                data["move_seconds"] or 60, data["game_seconds"] or 0,
                                data["fixture_hours"] or 72, data["open_entries"])
            with quotas.creating(request.user) as admit:
                league = create_league(data["name"], ruleset, data["table"],
                                       data["divisions"], data["moves"], data["seasons"],
                                       people.entered + bots, created_by=me, live=live,
                                       invited=people.invited, admit=admit)
        except (CompetitionError, RulesetError) as refused:
            problems.append(str(refused))
        else:
            if league.live is not None:
                schedule(league)
            start_fixtures(league, tasks.dispatch_fixtures)
            return redirect("tournaments:league", league_id=league.id)
    status = 400 if request.method == "POST" else 200
    return render(request, "tournaments/new_league.html",
                  {"form": form, "problems": problems, "bots": list(registry().values())},
                  status=status)


def _get(league_id: UUID) -> League:
    try:
        return get_league(league_id)
    except LeagueNotFound:
        raise Http404(_("No such league.")) from None


def _season_fixtures(league: League, season: int, me: str | None,
                     stored: dict[int, LeagueGame]) -> list[list[dict[str, Any]]]:
    """A season's fixtures by division, each with its game, whether it is stored (in
    ``stored``, by fixture), its live table and deadline, and whether ``me`` plays in
    it."""
    tables = {row.fixture: row for row in LeagueTable.objects.filter(
        league_id=league.id, season=season)}
    divisions: list[list[dict[str, Any]]] = [[] for _ in range(league.divisions)]
    for f, fixture in enumerate(league.fixtures[season]):
        divisions[fixture.division].append({
            "number": f + 1, "game_id": league_game_id(league.id, season, f),
            "stored": f in stored,
            "table": tables[f].table_id if f in tables else None,
            "deadline": tables[f].deadline if f in tables else None,
            "mine": me is not None and me in [league.entrants[e] for e in fixture.seats],
            "seats": [{"entrant": league.entrants[e],
                       "coins": stored[f].coins[s] if f in stored else None}
                      for s, e in enumerate(fixture.seats)]})
    return divisions


def _played(league: League, season: int, stored: dict[int, LeagueGame]
            ) -> list[GameResult | None]:
    """A running season's results so far, fixture by fixture (None: not played yet),
    from the fixtures' stored games: its standings move as they are played."""
    return [GameResult(tuple(row.ranks), tuple(row.coins), tuple(row.winners))
            if (row := stored.get(f)) is not None else None
            for f in range(len(league.fixtures[season]))]


def _mine(fixtures: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The fixtures ``me`` is still to play at a live table."""
    return [f for f in fixtures if f["mine"] and f["table"] and not f["stored"]]


def _me(request: HttpRequest) -> str | None:
    return (person_entrant(request.user.get_username()) if request.user.is_authenticated
            else None)


def _collected(league: League) -> League:
    """The league after the cheap look at its live tables a page view makes (ended or
    overdue fixtures go in, and the league moves on)."""
    if (league.live is not None and league.open_season is not None
            and collect(league.id, tasks.dispatch_fixtures, marked_only=True)):
        return _get(league.id)
    return league


def _seasons(league: League, me: str | None) -> tuple[list[dict[str, Any]],
                                                      list[dict[str, Any]]]:
    """Every season newest first (divisions, standings, fixtures), and the signed-in
    person's fixtures still to play."""
    seasons = []
    mine = []
    for season in range(len(league.fixtures) - 1, -1, -1):
        divisions = []
        stored = {row.fixture: row for row in LeagueGame.objects.filter(
            league_id=league.id, season=season)}
        by_division = _season_fixtures(league, season, me, stored)
        played = None if season < len(league.results) else _played(league, season, stored)
        for d, (standing, fixtures) in enumerate(zip(
                league.standings(season, played), by_division, strict=True)):
            rows = [{"row": r, "rating": league.rating(r.entrant, season)} for r in standing]
            divisions.append({"number": d + 1, "rows": rows, "fixtures": fixtures})
            mine += _mine(fixtures)
        seasons.append({"number": season + 1, "divisions": divisions,
                        "ended": season < len(league.results)})
    return seasons, mine


@require_safe
def league_detail(request: HttpRequest, league_id: UUID) -> HttpResponse:
    league = _collected(_get(league_id))
    me = _me(request)
    seasons, mine = _seasons(league, me)
    organiser = me is not None and league.created_by == me
    return render(request, "tournaments/league.html", {
        "l": _summary(league), "seasons": seasons, "mine": mine, "me": me,
        "entrants": league.entrants, "organiser": organiser,
        "entered": me is not None and me in league.entrants,
        "invitations": list(league.invitations.items()) if organiser else [],
        "my_invitation": league.invitations.get(me) if me is not None else None,
        "invite_max": MAX_PEOPLE_TEXT,
        "follow": bool(league.fixtures) and not league.finished})


@require_safe
def league_live(request: HttpRequest, league_id: UUID) -> HttpResponse:
    """The part of a league's page that changes as fixtures are played (the signed-in
    person's "Your fixtures", then every season's standings and fixtures), an HTML
    fragment the page fetches again whenever the lobby's socket says a table opened,
    started or ended, and every few seconds while a season runs on the workers
    (static/js/league.js). Its view moves the league on, as the page's does."""
    league = _collected(_get(league_id))
    seasons, mine = _seasons(league, _me(request))
    return render(request, "tournaments/_league_live.html", {
        "l": _summary(league), "seasons": seasons, "mine": mine})


Action = Callable[[League, str], str | None]
"""A change a signed-in person makes to a league (``me``: their entrant id); returns
what to tell them when it is stored, or None."""


def _change(request: HttpRequest, league_id: UUID, action: Action) -> HttpResponse:
    """A signed-in person's change to a league (join, leave, start, accept, decline,
    invite), stored with its invitations' rows and any quota it counts against in one
    transaction, or refused with the reason; a lost race with another change is tried
    again. Back to the league's page, or to the invitations page it was made on."""
    me = person_entrant(request.user.get_username())
    app = tournaments()
    for _attempt in range(5):
        league = _get(league_id)
        try:
            with transaction.atomic():
                said = action(league, me)
                consent.save(app, league)
        except CompetitionError as refused:
            messages.error(request, str(refused))
            break
        except IntegrityError:
            continue
        else:
            if said:
                messages.success(request, said)
            if league.open_season is not None and not league.results:
                start_fixtures(league, tasks.dispatch_fixtures)
            break
    if request.POST.get("back") == "invitations":
        return redirect("tournaments:invitations")
    return redirect("tournaments:league", league_id=league_id)


def _organiser(league: League, me: str) -> None:
    if league.created_by != me:
        raise CompetitionError(_("Only the league's organiser does that."))


@login_required
@require_POST
def join_league(request: HttpRequest, league_id: UUID) -> HttpResponse:
    def join(league: League, me: str) -> str:
        league.join(me)
        return _("You are entered in %(league)s.") % {"league": league.name}
    return _change(request, league_id, join)


@login_required
@require_POST
def leave_league(request: HttpRequest, league_id: UUID) -> HttpResponse:
    def leave(league: League, me: str) -> str:
        league.leave(me)
        return _("You have left %(league)s.") % {"league": league.name}
    return _change(request, league_id, leave)


@login_required
@require_POST
def start_league(request: HttpRequest, league_id: UUID) -> HttpResponse:
    """The organiser starts the first season with whoever has entered: invitations
    not answered by then expire. The league's games count against the organiser's
    quota from now (``quotas.admit_start``)."""
    def start(league: League, me: str) -> None:
        _organiser(league, me)
        league.start_first_season()
        quotas.admit_start(request.user, league)
    return _change(request, league_id, start)


@login_required
@require_POST
def accept_invitation(request: HttpRequest, league_id: UUID) -> HttpResponse:
    def accept(league: League, me: str) -> str:
        league.accept(me)
        return _("You are entered in %(league)s.") % {"league": league.name}
    return _change(request, league_id, accept)


@login_required
@require_POST
def decline_invitation(request: HttpRequest, league_id: UUID) -> HttpResponse:
    def decline(league: League, me: str) -> str:
        league.decline(me)
        return _("You have declined %(league)s.") % {"league": league.name}
    return _change(request, league_id, decline)


class Invite(forms.Form):
    people = forms.CharField(label=gettext_lazy("Invite"), max_length=MAX_PEOPLE_TEXT,
                             strip=True, help_text=gettext_lazy("Usernames, comma-separated."))


@login_required
@require_POST
def invite_to_league(request: HttpRequest, league_id: UUID) -> HttpResponse:
    """The organiser asks more people in while the league waits for its first season
    (to make up for those who declined); the same rules as the new league form."""
    form = Invite(request.POST)

    def invite(league: League, me: str) -> str:
        _organiser(league, me)
        if not form.is_valid():
            raise CompetitionError(_("Name the people to invite: usernames, "
                                     "comma-separated."))
        people = consent.sort_people(consent.named_people(form.cleaned_data["people"]), me)
        for entrant in people.entered:
            if entrant not in league.entrants:
                league.join(entrant)
        for entrant in people.invited:
            league.invite(entrant)
        return ngettext("%(count)d person invited.", "%(count)d people invited.",
                        len(people.invited)) % {"count": len(people.invited)}
    return _change(request, league_id, invite)


INVITATIONS_SHOWN = 100
"""Invitations listed at most: a person's open ones first, then the latest answered."""


@login_required
@require_safe
def invitations(request: HttpRequest) -> HttpResponse:
    """The signed-in person's invitations: each league's name, organiser and state, the
    open ones with Accept and Decline."""
    rows = list(Invitation.objects.filter(user=request.user, status=consent.INVITED)
                .order_by("-invited_at")[:INVITATIONS_SHOWN])
    rows += list(Invitation.objects.filter(user=request.user)
                 .exclude(status=consent.INVITED)
                 .order_by("-answered_at")[:max(0, INVITATIONS_SHOWN - len(rows))])
    shown = []
    for row in rows:
        try:
            league = get_league(row.competition_id)
        except LeagueNotFound:
            continue
        shown.append({"row": row, "league": _summary(league), "organiser": league.created_by})
    return render(request, "tournaments/invitations.html", {"invitations": shown})


urlpatterns: list[URLPattern] = [
    path("leagues/", league_list, name="leagues"),
    path("leagues/new/", new_league, name="new_league"),
    path("leagues/<uuid:league_id>/", league_detail, name="league"),
    path("leagues/<uuid:league_id>/live/", league_live, name="league_live"),
    path("leagues/<uuid:league_id>/join/", join_league, name="join_league"),
    path("leagues/<uuid:league_id>/leave/", leave_league, name="leave_league"),
    path("leagues/<uuid:league_id>/start/", start_league, name="start_league"),
    path("leagues/<uuid:league_id>/accept/", accept_invitation, name="accept_invitation"),
    path("leagues/<uuid:league_id>/decline/", decline_invitation, name="decline_invitation"),
    path("leagues/<uuid:league_id>/invite/", invite_to_league, name="invite_to_league"),
    path("invitations/", invitations, name="invitations"),
]
