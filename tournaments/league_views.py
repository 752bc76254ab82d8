"""Pages of the leagues: the list, and one league: every season's divisions with their
standings (rank points, then coins) and who went up and down, each game's replay in
the season's fixtures. Built from the league's events: its secret never shows."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import URLPattern, path
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from tournaments.leagues import League, LeagueNotFound, get_league, league_game_id, league_ids
from tournaments.models import LeagueGame


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
    path("leagues/<uuid:league_id>/", league_detail, name="league"),
]
