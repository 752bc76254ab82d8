"""The game list: every game a visitor may know of, filtered and paged, read from the
:class:`~replays.models.GameSummary` read model (never from the event store: a page of
the list costs two queries however long the games were)."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from django import forms
from django.contrib.auth.views import redirect_to_login
from django.core.paginator import EmptyPage, PageNotAnInteger, Paginator
from django.db.models import Exists, OuterRef, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.text import format_lazy
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_safe
from django_stubs_ext import StrPromise

from bohnanza_core.games import GameNotFound
from bohnanza_core.rulesets import PRESETS
from replays.models import GameSummary, GameSummaryQuerySet, SeatSummary
from replays.store import games
from replays.table import bot_accounts

PER_PAGE = 25
MAX_TEXT = 100

STATUS_CHOICES = [
    ("", gettext_lazy("any")),
    (GameSummary.Status.FINISHED.value, gettext_lazy("finished")),
    (GameSummary.Status.RUNNING.value, gettext_lazy("running")),
]


def _date_field(label: StrPromise) -> forms.DateField:
    return forms.DateField(
        label=label, required=False, input_formats=["%Y-%m-%d"],
        widget=forms.DateInput(attrs={"type": "date"}),
        error_messages={"invalid": format_lazy(
            gettext_lazy("{label}: write a date as YYYY-MM-DD, e.g. 2026-05-01."), label=label)},
    )


def _text_field(label: StrPromise, placeholder: StrPromise) -> forms.CharField:
    return forms.CharField(
        label=label, required=False, max_length=MAX_TEXT, strip=True,
        widget=forms.TextInput(attrs={"placeholder": placeholder}),
        error_messages={"max_length": format_lazy(
            gettext_lazy("{label}: at most {limit} characters."), label=label, limit=MAX_TEXT)},
    )


class GameFilters(forms.Form):
    """The list's filters, from the query string; every one optional."""

    player = _text_field(gettext_lazy("Player or bot"), gettext_lazy("ann, heuristic…"))
    ruleset = forms.ChoiceField(label=gettext_lazy("Ruleset"), required=False)
    players = forms.TypedChoiceField(
        label=gettext_lazy("Players"), required=False, coerce=int, empty_value=None,
        choices=[("", gettext_lazy("any")), *[(str(n), str(n)) for n in range(2, 8)]],
        error_messages={"invalid_choice": gettext_lazy("Players: choose a number from 2 to 7.")},
    )
    tournament = _text_field(gettext_lazy("Tournament"), gettext_lazy("name contains…"))
    status = forms.ChoiceField(
        label=gettext_lazy("Status"), required=False, choices=STATUS_CHOICES,
        error_messages={"invalid_choice": gettext_lazy("Status: choose finished or running.")},
    )
    winner = _text_field(gettext_lazy("Winner"), gettext_lazy("name contains…"))
    started_from = _date_field(gettext_lazy("Started from"))
    started_to = _date_field(gettext_lazy("Started to"))

    def __init__(self, data: Any, visible: GameSummaryQuerySet) -> None:
        """``visible``: the games the visitor may know of; the ruleset menu offers the
        presets and the rulesets of those games (not of games hidden from them)."""
        super().__init__(data)
        names = set(PRESETS) | set(visible.values_list("ruleset", flat=True).distinct())
        field = self.fields["ruleset"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = [("", _("any")), *[(name, name) for name in sorted(names)]]
        field.error_messages["invalid_choice"] = _(
            "Ruleset: there is no ruleset %(value)s; choose one from the list.")

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        start, end = data.get("started_from"), data.get("started_to")
        if start and end and start > end:
            raise forms.ValidationError(
                _("Started from is after started to: the date range is empty."))
        return data

    def apply(self, games: GameSummaryQuerySet) -> GameSummaryQuerySet:
        """``games`` narrowed by the (valid) filters."""
        data = self.cleaned_data
        if data["player"]:
            text = data["player"]
            games = games.filter(Exists(SeatSummary.objects.filter(
                Q(name__icontains=text) | Q(player__icontains=text), game=OuterRef("pk"))))
        if data["ruleset"]:
            games = games.filter(ruleset=data["ruleset"])
        if data["players"] is not None:
            games = games.filter(player_count=data["players"])
        if data["tournament"]:
            games = games.filter(tournament__icontains=data["tournament"])
        if data["status"]:
            games = games.filter(status=data["status"])
        if data["winner"]:
            text = data["winner"]
            games = games.filter(Exists(SeatSummary.objects.filter(
                Q(name__icontains=text) | Q(player__icontains=text),
                game=OuterRef("pk"), winner=True)))
        if data["started_from"] and (start := _day_start(data["started_from"])) is not None:
            games = games.filter(started_at__gte=start)
        if data["started_to"] and (end := _day_after(data["started_to"])) is not None:
            games = games.filter(started_at__lt=end)
        return games

    @property
    def active(self) -> bool:
        return self.is_valid() and any(v not in (None, "") for v in self.cleaned_data.values())


def _day_start(day: date) -> datetime | None:
    """Midnight at the start of ``day`` in the site's time zone; None where that instant
    is outside what a datetime holds once moved to UTC, as the database stores it (the
    calendar's first day east of UTC): no game can start before it, so no bound."""
    start = datetime.combine(day, time.min, tzinfo=timezone.get_current_timezone())
    try:
        start.astimezone(UTC)
    except OverflowError:
        return None
    return start


def _day_after(day: date) -> datetime | None:
    """Midnight at the end of ``day``; None for the calendar's last day (9999-12-31 has
    no day after it, and no game starts after it: no bound)."""
    if day == date.max:
        return None
    return _day_start(day + timedelta(days=1))


def _visible(request: HttpRequest) -> GameSummaryQuerySet:
    user = request.user
    return GameSummary.objects.visible_to(
        user.get_username() if user.is_authenticated else None,
        is_staff=bool(user.is_authenticated and user.is_staff))


@require_safe
def game_list(request: HttpRequest) -> HttpResponse:
    """Games newest first, filtered by the query string, 25 a page. Bad filters or a page
    that is not a number: 400 with what is wrong; a page past the end: 404."""
    return _games_page(request, _visible(request), mine=False)


@require_safe
def my_games(request: HttpRequest) -> HttpResponse:
    """The signed-in player's games: every game they sat in and every game they
    imported (an import seats ``imported:<actor>`` players and credits the upload to
    the uploader, the read model's ``started_by``), private ones included. A private
    import they hold no seat in opens through its share token, so its link carries
    it (only they see this page)."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    me = f"user:{request.user.get_username()}"
    mine = GameSummary.objects.filter(
        Q(started_by=me) | Exists(SeatSummary.objects.filter(game=OuterRef("pk"), player=me)))
    return _games_page(request, mine, mine=True)


def _share_tokens(rows: list[GameSummary], me: str) -> dict[str, str]:
    """The share token of each private game on the page that ``me`` imported but does
    not sit in (the only way such a game opens for them)."""
    tokens: dict[str, str] = {}
    for row in rows:
        if row.private and not any(seat.player == me for seat in row.seats.all()):
            try:
                tokens[str(row.game_id)] = games().game(row.game_id).share_token
            except GameNotFound:
                continue
    return tokens


def _played(request: HttpRequest, rows: list[GameSummary]) -> set[str]:
    """The games on the page the reader sat in: they know how those ended."""
    if not request.user.is_authenticated:
        return set()
    me = f"user:{request.user.get_username()}"
    return {str(row.game_id) for row in rows if any(s.player == me for s in row.seats.all())}


def _games_page(request: HttpRequest, visible: GameSummaryQuerySet, *,
                mine: bool) -> HttpResponse:
    """A list of games (all visible ones, or the player's own), filtered and paged."""
    filters = GameFilters(request.GET or None, visible)
    page_name = "replays:my_games" if mine else "replays:game_list"
    # Results (winners, coins) hidden unless asked for: a spoiler for anyone who means
    # to watch; the games one played in, and (static/js/games.js) the ones one watched
    # to the end, show theirs anyway.
    context: dict[str, Any] = {"filters": filters, "page": None, "problems": [], "mine": mine,
                               "page_url": reverse(page_name), "tokens": {},
                               "show_results": request.GET.get("results") == "1",
                               "seen": set(), "bots": frozenset()}
    number = request.GET.get("page", "1")
    problems: list[str] = []
    if filters.is_bound and not filters.is_valid():
        problems = [str(e) for errors in filters.errors.values() for e in errors]
    if not (number.isascii() and number.strip().isdigit()):
        problems.append(_("Page: “%(page)s” is not a page number; pages are 1, 2, 3…")
                        % {"page": number[:20]})
    if problems:
        context["problems"] = problems
        return render(request, "replays/game_list.html", context, status=400)
    games = filters.apply(visible) if filters.is_bound else visible
    paginator = Paginator(games.prefetch_related("seats"), PER_PAGE)
    try:
        context["page"] = paginator.page(number)
        if mine:
            me = f"user:{request.user.get_username()}"
            context["tokens"] = _share_tokens(list(context["page"].object_list), me)
        context["seen"] = _played(request, list(context["page"].object_list))
        # Bot accounts marked as bots: one lookup for every seat on the page.
        context["bots"] = bot_accounts(seat.player for row in context["page"].object_list
                                       for seat in row.seats.all())
    except (EmptyPage, PageNotAnInteger):
        pages = paginator.num_pages
        context["problems"] = [
            ngettext("There is no page %(page)s: these filters give %(pages)s page of games.",
                     "There is no page %(page)s: these filters give %(pages)s pages of games.",
                     pages) % {"page": number[:20], "pages": pages}]
        return render(request, "replays/game_list.html", context, status=404)
    return render(request, "replays/game_list.html", context)


urlpatterns: list[URLPattern] = [
    path("games/", game_list, name="game_list"),
    path("mine/", my_games, name="my_games"),
]
