"""Pages of the competitions: the list, a new competition, one competition (standings,
ratings, rounds and pairings, each game linked to its replay, progress live) and its
progress as JSON for the page's polling.

Everything shown is built from the competition's events and its games' results: the
secret the deals' seeds derive from never reaches a page. A new competition needs an
account (its games cost the workers' time) within its quotas (``tournaments.quotas``);
its form is bounded field by field and a refusal stores nothing.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import URLPattern, path, reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_http_methods, require_safe

from bohnanza_core.bots.registry import registry
from bohnanza_core.errors import RulesetError
from bohnanza_core.pairings import MAX_ENTRANTS, MAX_ROUNDS, MAX_TABLE, MIN_TABLE
from bohnanza_core.ratings import entrant_statistics, seat_results
from bohnanza_core.rulesets import (
    PRESETS,
    RULE_PARAMETERS,
    Ruleset,
    customize,
    rule_overrides,
    ruleset_for,
)
from tournaments import quotas, tasks
from tournaments.competitions import (
    FORMATS,
    MAX_NAME,
    CompetitionError,
    Tournament,
    TournamentNotFound,
    game_id,
    tournaments,
)
from tournaments.models import TournamentGame
from tournaments.runner import entrants_for

SHOWN_GAMES = 500
"""Games of one round listed on the page; a round robin round of 20 entrants has more."""
MAX_RULES_TEXT = 4000

FORMAT_NAMES = {
    "round-robin": gettext_lazy("Round robin"),
    "swiss": gettext_lazy("Swiss"),
    "knockout": gettext_lazy("Knockout"),
    "duplicate": gettext_lazy("Duplicate"),
}
OPTION_OF = {"round-robin": "cycles", "swiss": "rounds", "knockout": "advance",
             "duplicate": "deals"}


class NewTournament(forms.Form):
    name = forms.CharField(label=gettext_lazy("Name"), max_length=MAX_NAME, strip=True)
    format = forms.ChoiceField(label=gettext_lazy("Format"),
                               choices=[(f, FORMAT_NAMES[f]) for f in FORMATS])
    ruleset = forms.ChoiceField(label=gettext_lazy("Ruleset"),
                                choices=[(p, p) for p in PRESETS])
    table = forms.IntegerField(label=gettext_lazy("Players at each table"),
                               min_value=MIN_TABLE, max_value=MAX_TABLE, initial=4)
    bots = forms.CharField(
        label=gettext_lazy("Entrants"), max_length=MAX_ENTRANTS * 41, strip=True,
        help_text=gettext_lazy("Bot names, comma-separated; a name again enters that bot "
                               "again."),
        initial="heuristic, nontrading, random, heuristic, nontrading")
    count = forms.IntegerField(
        label=gettext_lazy("Rounds, cycles, deals or advancing"), min_value=1,
        max_value=MAX_ROUNDS, initial=1,
        help_text=gettext_lazy("Round robin: cycles. Swiss: rounds. Duplicate: deals. "
                               "Knockout: how many of each table go through."))
    rules = forms.CharField(
        label=gettext_lazy("House rules"), required=False, max_length=MAX_RULES_TEXT,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=gettext_lazy("One KEY=VALUE a line, e.g. draw_cards=3."))


def _house_rules(ruleset: Any) -> list[str]:
    return list(ruleset.house_rules)


def _summary(t: Tournament) -> dict[str, Any]:
    total = t.games_total()
    done = t.games_done()
    return {"id": t.id, "name": t.name, "format": FORMAT_NAMES.get(t.format, t.format),
            "ruleset": t.ruleset.name, "house_rules": _house_rules(t.ruleset),
            "table": t.table, "entrants": len(t.entrants), "done": done, "total": total,
            "percent": 100 * done // total if total else 100, "finished": t.finished}


def _get(tournament_id: UUID) -> Tournament:
    try:
        return tournaments().get_tournament(tournament_id)
    except TournamentNotFound:
        raise Http404(_("No such competition.")) from None


def requested(data: dict[str, Any]) -> tuple[Ruleset, list[str]]:
    """The ruleset (a preset with the form's house rules, KEY=VALUE a line) and the
    entrants (bot names, comma-separated) that a new competition's, ladder's or league's
    form asks for. RulesetError or CompetitionError if either is refused."""
    names = [n.strip() for n in data["bots"].split(",") if n.strip()]
    lines = [line.strip() for line in data["rules"].splitlines() if line.strip()]
    if len(lines) > len(RULE_PARAMETERS):
        raise RulesetError(_("Too many house rules."))
    ruleset = (customize(data["ruleset"], data["table"], rule_overrides(lines))
               if lines else ruleset_for(data["ruleset"], data["table"]))
    return ruleset, entrants_for(names[:MAX_ENTRANTS + 1])


@require_safe
def tournament_list(request: HttpRequest) -> HttpResponse:
    app = tournaments()
    rows = [_summary(app.get_tournament(tid)) for tid in app.ids(limit=50)]
    return render(request, "tournaments/list.html", {"rows": rows})


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def new_tournament(request: HttpRequest) -> HttpResponse:
    form = NewTournament(request.POST if request.method == "POST" else None)
    problems: list[str] = []
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            ruleset, entrants = requested(data)
            with quotas.creating(request.user) as admit:
                t = tournaments().create(
                    data["name"], data["format"], ruleset, data["table"],
                    {OPTION_OF[data["format"]]: data["count"]}, entrants,
                    created_by=f"user:{request.user.get_username()}", admit=admit)
        except (CompetitionError, RulesetError) as refused:
            problems.append(str(refused))
        else:
            tasks.start(t.id)
            return redirect("tournaments:detail", tournament_id=t.id)
    status = 400 if request.method == "POST" else 200
    return render(request, "tournaments/new.html",
                  {"form": form, "problems": problems, "bots": list(registry().values())},
                  status=status)


def _round_number(request: HttpRequest, rounds: int) -> int:
    """The round the page shows (?round=, from 1), the last one by default."""
    text = request.GET.get("round", "")
    if text.isascii() and text.isdigit() and 0 < len(text) <= 3 and 1 <= int(text) <= rounds:
        return int(text) - 1
    return max(rounds - 1, 0)


@require_safe
def tournament_detail(request: HttpRequest, tournament_id: UUID) -> HttpResponse:
    t = _get(tournament_id)
    shown = _round_number(request, len(t.rounds))
    stored = {row.index: row for row in TournamentGame.objects.filter(
        tournament_id=t.id, round=shown, index__lt=SHOWN_GAMES)} if t.rounds else {}
    pairings = []
    for i, pairing in enumerate(t.rounds[shown][:SHOWN_GAMES] if t.rounds else []):
        row = stored.get(i)
        pairings.append({
            "number": i + 1, "deal": pairing.deal + 1,
            "seats": [{"entrant": t.entrants[e],
                       "coins": row.coins[s] if row else None,
                       "won": bool(row and s in row.winners)}
                      for s, e in enumerate(pairing.seats)],
            "game_id": game_id(t.id, shown, i) if row else None})
    ratings = []
    for standing in t.standings():
        mu, sigma, _games = t.ratings.get(standing.entrant, (25.0, 25.0 / 3, 0))
        ratings.append({"standing": standing, "mu": mu, "sigma": sigma,
                        "conservative": mu - 3 * sigma})
    return render(request, "tournaments/detail.html", {
        "statistics": _statistics(t),
        "t": _summary(t), "standings": ratings, "round_numbers": range(1, len(t.rounds) + 1),
        "shown": shown + 1, "pairings": pairings,
        "more": max(0, len(t.rounds[shown]) - SHOWN_GAMES) if t.rounds else 0,
        "progress_url": reverse("tournaments:progress", args=[t.id]),
    })


def _statistics(t: Tournament) -> list[dict[str, Any]]:
    """Per entrant: average coins and win rate with their 95% intervals, overall and by
    seat (seats from 1), from the results the competition recorded."""
    results = [r for pairings, round_results in zip(t.rounds, t.results, strict=False)
               for pairing, result in zip(pairings, round_results, strict=True)
               for r in seat_results([t.entrants[e] for e in pairing.seats], result.coins,
                                     result.winners)]
    return [{"entrant": s.entrant, "games": s.games, "coins": s.coins, "wins": s.win_rate,
             "seats": [{"seat": seat + 1, "games": games, "wins": wins}
                       for seat, games, _coins, wins in s.by_seat]}
            for s in sorted(entrant_statistics(results), key=lambda s: -s.win_rate.value)]


@require_safe
def tournament_progress(request: HttpRequest, tournament_id: UUID) -> JsonResponse:
    t = _get(tournament_id)
    summary = _summary(t)
    return JsonResponse({"done": summary["done"], "total": summary["total"],
                         "percent": summary["percent"], "finished": t.finished,
                         "round": len(t.rounds),
                         "text": ngettext("%(done)s of %(total)s game",
                                          "%(done)s of %(total)s games",
                                          summary["total"]) % summary})


urlpatterns: list[URLPattern] = [
    path("", tournament_list, name="list"),
    path("new/", new_tournament, name="new"),
    path("<uuid:tournament_id>/", tournament_detail, name="detail"),
    path("<uuid:tournament_id>/progress.json", tournament_progress, name="progress"),
]
