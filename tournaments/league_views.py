"""Pages of the leagues: the list, a new league (signed in; bounded form, a refusal
stores nothing), and one league: every season's divisions with their standings (rank
points, then coins) and who went up and down, each game's replay in the season's
fixtures. Built from the league's events: its secret never shows."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import URLPattern, path
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_safe

from bohnanza_core.bots.registry import registry
from bohnanza_core.errors import RulesetError
from bohnanza_core.pairings import MAX_ENTRANTS, MAX_TABLE, MIN_TABLE
from bohnanza_core.rulesets import PRESETS
from tournaments import tasks
from tournaments.competitions import MAX_NAME, CompetitionError
from tournaments.league_runner import missing_fixtures
from tournaments.leagues import (
    MAX_DIVISIONS,
    MAX_SEASONS,
    League,
    LeagueNotFound,
    create_league,
    get_league,
    league_game_id,
    league_ids,
)
from tournaments.models import LeagueGame
from tournaments.views import requested


class NewLeague(forms.Form):
    name = forms.CharField(label=gettext_lazy("Name"), max_length=MAX_NAME, strip=True)
    ruleset = forms.ChoiceField(label=gettext_lazy("Ruleset"),
                                choices=[(p, p) for p in PRESETS], initial="duel")
    table = forms.IntegerField(label=gettext_lazy("Players at each table"),
                               min_value=MIN_TABLE, max_value=MAX_TABLE, initial=2)
    bots = forms.CharField(
        label=gettext_lazy("Entrants"), max_length=MAX_ENTRANTS * 41, strip=True,
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


def _summary(league: League) -> dict[str, Any]:
    return {"id": league.id, "name": league.name, "ruleset": league.ruleset.name,
            "house_rules": list(league.ruleset.house_rules), "table": league.table,
            "divisions": league.divisions, "moves": league.moves,
            "entrants": len(league.entrants), "seasons": league.seasons,
            "ended": len(league.results), "finished": league.finished}


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
        try:
            ruleset, entrants = requested(data)
            league = create_league(data["name"], ruleset, data["table"], data["divisions"],
                                   data["moves"], data["seasons"],
                                   entrants,
                                   created_by=f"user:{request.user.get_username()}")
        except (CompetitionError, RulesetError) as refused:
            problems.append(str(refused))
        else:
            tasks.dispatch_fixtures(league.id, 0, missing_fixtures(league))
            return redirect("tournaments:league", league_id=league.id)
    status = 400 if request.method == "POST" else 200
    return render(request, "tournaments/new_league.html",
                  {"form": form, "problems": problems, "bots": list(registry().values())},
                  status=status)


@require_safe
def league_detail(request: HttpRequest, league_id: UUID) -> HttpResponse:
    try:
        league = get_league(league_id)
    except LeagueNotFound:
        raise Http404(_("No such league.")) from None
    seasons = []
    for season in range(len(league.fixtures) - 1, -1, -1):
        stored = {row.fixture: row for row in LeagueGame.objects.filter(
            league_id=league.id, season=season)}
        divisions = []
        for d, rows in enumerate(league.standings(season)):
            fixtures = [{"number": f + 1, "game_id": league_game_id(league.id, season, f),
                         "stored": f in stored,
                         "seats": [{"entrant": league.entrants[e],
                                    "coins": stored[f].coins[s] if f in stored else None}
                                   for s, e in enumerate(fixture.seats)]}
                        for f, fixture in enumerate(league.fixtures[season])
                        if fixture.division == d]
            divisions.append({"number": d + 1, "rows": rows, "fixtures": fixtures})
        seasons.append({"number": season + 1, "divisions": divisions,
                        "ended": season < len(league.results)})
    return render(request, "tournaments/league.html",
                  {"l": _summary(league), "seasons": seasons})


urlpatterns: list[URLPattern] = [
    path("leagues/", league_list, name="leagues"),
    path("leagues/new/", new_league, name="new_league"),
    path("leagues/<uuid:league_id>/", league_detail, name="league"),
]
