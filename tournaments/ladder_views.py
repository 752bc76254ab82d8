"""Pages of the ladders: the list, a new ladder (signed in, within the account's
quotas, ``tournaments.quotas``; bounded form, a refusal stores nothing), and one
ladder: the ranking by conservative rating, a server-drawn SVG chart of the rating
history (the replay summary's chart geometry and colours), the latest tick's matches
with each game's replay. Built from the ladder's events and its games' results only:
the secret the seeds derive from never reaches a page."""

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
from replays.summary import (
    BOTTOM,
    HEIGHT,
    LEFT,
    SEAT_COLOURS,
    SEAT_DASHES,
    TOP,
    WIDTH,
    _spread_labels,
)
from tournaments import quotas
from tournaments.competitions import MAX_NAME, CompetitionError
from tournaments.entrants import entrant_name
from tournaments.ladder_runner import schedule
from tournaments.ladders import (
    MAX_INTERVAL,
    MIN_INTERVAL,
    Ladder,
    LadderNotFound,
    create_ladder,
    get_ladder,
    ladder_game_id,
    ladder_ids,
)
from tournaments.models import LadderGame
from tournaments.views import requested

CHART_LINES = 7
"""Entrants drawn on the chart: the top of the ranking (one colour and dash each)."""
LABEL_ROOM = 150
"""Right of the plot: each line's end label (the entrant's short name and rating)."""
CHART_POINTS = 200
"""Ticks drawn at most: a long ladder's history is sampled evenly, the last tick kept."""


class NewLadder(forms.Form):
    name = forms.CharField(label=gettext_lazy("Name"), max_length=MAX_NAME, strip=True)
    ruleset = forms.ChoiceField(label=gettext_lazy("Ruleset"),
                                choices=[(p, p) for p in PRESETS], initial="duel")
    table = forms.IntegerField(label=gettext_lazy("Players at each table"),
                               min_value=MIN_TABLE, max_value=MAX_TABLE, initial=2)
    bots = forms.CharField(
        label=gettext_lazy("Entrants"), max_length=MAX_ENTRANTS * 41, strip=True,
        help_text=gettext_lazy("Bot names, comma-separated; a name again enters that bot "
                               "again."),
        initial="heuristic, nontrading, random, heuristic")
    every = forms.IntegerField(
        label=gettext_lazy("Seconds between ticks"), min_value=MIN_INTERVAL,
        max_value=MAX_INTERVAL, initial=300)
    rules = forms.CharField(
        label=gettext_lazy("House rules"), required=False, max_length=4000,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=gettext_lazy("One KEY=VALUE a line, e.g. draw_cards=3."))


def _get(ladder_id: UUID) -> Ladder:
    try:
        return get_ladder(ladder_id)
    except LadderNotFound:
        raise Http404(_("No such ladder.")) from None


def short_name(entrant: str) -> str:
    """An entrant on the chart: a bot and its copy number without the version
    (``heuristic@builtin #2`` -> ``heuristic #2``), a person's username; the ranking
    above names it in full."""
    named = entrant_name(entrant)
    if named.person:
        return named.name[:17]
    bot, _, copy = named.name.partition(" ")
    return f"{bot[:14]} {copy}".strip()


def rating_chart(ladder: Ladder) -> dict[str, Any] | None:
    """The conservative rating of the top entrants after every tick (0 before their
    first game), one line each, as SVG geometry; None before the first tick ends."""
    history = ladder.history
    if not history:
        return None
    ticks = list(range(0, len(history), max(1, -(-len(history) // CHART_POINTS))))
    if ticks[-1] != len(history) - 1:
        ticks.append(len(history) - 1)
    shown = [ladder.entrants[e] for e in ladder.ranking()[:CHART_LINES]]
    series = [[h[e][0] - 3 * h[e][1] if e in h else 0.0 for h in (history[t] for t in ticks)]
              for e in shown]
    values = [v for line in series for v in line]
    low, high = min(0.0, *values), max(1.0, *values)
    plot_w, plot_h = WIDTH - LEFT - LABEL_ROOM, HEIGHT - TOP - BOTTOM
    span = max(1, len(ticks) - 1)

    def x(i: int) -> float:
        return round(LEFT + plot_w * i / span, 1)

    def y(v: float) -> float:
        return round(TOP + plot_h * (high - v) / (high - low), 1)

    lines = []
    for n, (entrant, line) in enumerate(zip(shown, series, strict=True)):
        points = " L".join(f"{x(i)},{y(v)}" for i, v in enumerate(line))
        lines.append({"path": f"M{points}", "colour": SEAT_COLOURS[n], "dash": SEAT_DASHES[n],
                      "name": short_name(entrant), "final": f"{line[-1]:.1f}",
                      "label_x": x(len(line) - 1) + 6, "label_y": y(line[-1]) + 4})
    _spread_labels(lines, low=TOP + 8, high=HEIGHT - BOTTOM + 4)
    step = max(1, round((high - low) / 5))
    first = int(low // step) * step
    y_ticks = [{"value": v, "y": y(v)} for v in range(first, int(high) + 1, step) if v >= low]
    every = max(1, span // 10)
    x_ticks = [{"label": str(t + 1), "x": x(i)} for i, t in enumerate(ticks)
               if i % every == 0 or i == span]
    return {"width": WIDTH, "height": HEIGHT, "lines": lines, "y_ticks": y_ticks,
            "x_ticks": x_ticks, "left": LEFT, "right": WIDTH - LABEL_ROOM, "top": TOP,
            "bottom": HEIGHT - BOTTOM}


def _summary(ladder: Ladder) -> dict[str, Any]:
    ruleset = ladder.ruleset
    return {"id": ladder.id, "name": ladder.name, "ruleset": ruleset.name,
            "house_rules": list(ruleset.house_rules), "table": ladder.table,
            "entrants": len(ladder.entrants), "ticks": len(ladder.results),
            "games": ladder.games_done(), "every": ladder.interval}


@require_safe
def ladder_list(request: HttpRequest) -> HttpResponse:
    rows = [_summary(get_ladder(lid)) for lid in ladder_ids(limit=50)]
    return render(request, "tournaments/ladders.html", {"rows": rows})


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def new_ladder(request: HttpRequest) -> HttpResponse:
    form = NewLadder(request.POST if request.method == "POST" else None)
    problems: list[str] = []
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            ruleset, entrants = requested(data)
            with quotas.creating(request.user) as admit:
                ladder = create_ladder(data["name"], ruleset, data["table"], data["every"],
                                       entrants,
                                       created_by=f"user:{request.user.get_username()}",
                                       admit=admit)
        except (CompetitionError, RulesetError) as refused:
            problems.append(str(refused))
        else:
            schedule(ladder)
            return redirect("tournaments:ladder", ladder_id=ladder.id)
    status = 400 if request.method == "POST" else 200
    return render(request, "tournaments/new_ladder.html",
                  {"form": form, "problems": problems, "bots": list(registry().values())},
                  status=status)


@require_safe
def ladder_detail(request: HttpRequest, ladder_id: UUID) -> HttpResponse:
    ladder = _get(ladder_id)
    ranking = []
    for e in ladder.ranking():
        entrant = ladder.entrants[e]
        mu, sigma, games = ladder.ratings.get(entrant, (25.0, 25.0 / 3, 0))
        ranking.append({"entrant": entrant, "games": games, "mu": mu, "sigma": sigma,
                        "conservative": mu - 3 * sigma})
    matches = []
    if ladder.results:
        tick = len(ladder.results) - 1
        first = ladder.first_match(tick)
        rows = {row.match: row for row in LadderGame.objects.filter(ladder_id=ladder.id,
                                                                    tick=tick)}
        for n, seats in enumerate(ladder.ticks[tick]):
            row = rows.get(first + n)
            matches.append({"number": first + n + 1, "game_id": ladder_game_id(ladder.id,
                                                                              first + n),
                            "seats": [{"entrant": ladder.entrants[e],
                                       "coins": row.coins[s] if row else None,
                                       "won": bool(row and s in row.winners)}
                                      for s, e in enumerate(seats)]})
    return render(request, "tournaments/ladder.html", {
        "l": _summary(ladder), "ranking": ranking, "chart": rating_chart(ladder),
        "matches": matches, "tick": len(ladder.results)})


urlpatterns: list[URLPattern] = [
    path("ladders/", ladder_list, name="ladders"),
    path("ladders/new/", new_ladder, name="new_ladder"),
    path("ladders/<uuid:ladder_id>/", ladder_detail, name="ladder"),
]
