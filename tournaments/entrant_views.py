"""An entrant's page: how a bot version (or a person) has done over every finished
public game on the platform, whichever competition or table it came from, per ruleset
and table size (coins are not comparable across them), overall and by seat, each
figure with its 95% interval (docs/tournaments.md, "Statistics").

The figures come from the game list's read model (``replays.SeatSummary``), summed by
the database per ruleset, table size and seat (:class:`bohnanza_core.ratings.Moments`),
so a bot with a hundred thousand games costs one grouped query, not a hundred thousand
rows. Private games do not count: their results are their players' alone."""

from __future__ import annotations

import re
from typing import Any

from django.contrib.auth.models import User
from django.db.models import (
    Case,
    Count,
    F,
    FloatField,
    OuterRef,
    Q,
    Subquery,
    Sum,
    Value,
    When,
)
from django.db.models.functions import Cast
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import URLPattern, path
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from bohnanza_core.bots.registry import BUILTIN, registry
from bohnanza_core.ratings import Moments, statistics_from_moments
from replays.models import GameSummary, SeatSummary
from tournaments.core.entrants import entrant_name, is_person

MAX_ENTRANT = 150
"""The longest entrant id a URL may name (a stored player is at most 150 characters)."""

ENTRANT = re.compile(r"user:[\w.@+-]{1,150}|[\w.-]{1,64}@[\w.+-]{1,64}")
"""A person (``user:<username>``) or a bot version (``<bot>@<version>``)."""


def stored_players(entrant: str) -> Q:
    """The seats of the store this entrant played: a person by name; a bot version
    under its id and each copy of it in one competition (``heuristic@builtin #2``), and a
    built-in bot also as live tables name it (``bot:heuristic``)."""
    if is_person(entrant):
        return Q(player=entrant)
    bot = f"bot:{entrant}"
    seats = Q(player=bot) | Q(player__startswith=f"{bot} #")
    name = entrant_name(entrant)
    if name.builtin:
        seats |= Q(player=f"bot:{name.name}")
    return seats


def seat_sums(entrant: str) -> dict[tuple[str, int], dict[int, Moments]]:
    """Per (ruleset, table size), per seat: the sums of the entrant's finished public
    games. A win shared by k seats counts 1/k, as in a competition's statistics."""
    winners = (SeatSummary.objects.filter(game=OuterRef("game"), winner=True)
               .order_by().values("game").annotate(n=Count("pk")).values("n"))
    share = Case(When(winner=True, then=Value(1.0) / Cast(Subquery(winners), FloatField())),
                 default=Value(0.0), output_field=FloatField())
    rows = (SeatSummary.objects
            .filter(stored_players(entrant), coins__isnull=False, game__private=False,
                    game__status=GameSummary.Status.FINISHED)
            .order_by().values("game__ruleset", "game__player_count", "seat")
            .annotate(games=Count("pk"), total=Sum("coins"),
                      squares=Sum(F("coins") * F("coins")), wins=Sum(share)))
    sums: dict[tuple[str, int], dict[int, Moments]] = {}
    for row in rows:
        table = (row["game__ruleset"], row["game__player_count"])
        sums.setdefault(table, {})[row["seat"]] = Moments(
            row["games"], float(row["total"]), float(row["squares"]), float(row["wins"]))
    return sums


def known(entrant: str) -> bool:
    """Whether the entrant can exist without a game: a person's account, a built-in
    bot of the registry. Another bot version is whatever its author named it (an outside bot of a
    competition, perhaps without a finished game yet)."""
    named = entrant_name(entrant)
    if named.person:
        return User.objects.filter(username=named.name).exists()
    if named.builtin:
        return named.name.split(" #")[0].split(" ")[0] in registry()
    return True


@require_safe
def entrant_page(request: HttpRequest, entrant: str) -> HttpResponse:
    if len(entrant) > MAX_ENTRANT or not ENTRANT.fullmatch(entrant):
        raise Http404(_("No such entrant: a person is user:<username>, a bot "
                        "<bot>@<version>."))
    tables: list[dict[str, Any]] = []
    for (ruleset, players), by_seat in seat_sums(entrant).items():
        stats = statistics_from_moments(entrant, by_seat)
        tables.append({"ruleset": ruleset, "players": players, "games": stats.games,
                       "coins": stats.coins, "wins": stats.win_rate,
                       "seats": [{"seat": seat + 1, "games": games, "coins": coins,
                                  "wins": wins}
                                 for seat, games, coins, wins in stats.by_seat]})
    if not tables and not known(entrant):  # a deleted account's games still count
        raise Http404(_("No such entrant: no account and no built-in bot of that name."))
    tables.sort(key=lambda t: (-t["games"], t["ruleset"], t["players"]))
    context: dict[str, Any] = {"entrant": entrant, "tables": tables,
                               "games": sum(t["games"] for t in tables),
                               "builtin": BUILTIN}
    return render(request, "tournaments/entrant.html", context)


urlpatterns: list[URLPattern] = [
    path("entrants/<str:entrant>/", entrant_page, name="entrant"),
]
