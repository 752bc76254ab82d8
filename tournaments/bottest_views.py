"""The bot tests' pages: the list with the form that starts one (signed-in people), and
each test's page with its live LLR chart, verdict, Elo estimate and interval
(``tournaments.core.bottests``; the jobs: ``tournaments.tasks.bot_test``)."""

from __future__ import annotations

import secrets
from typing import Any
from uuid import UUID

from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import URLPattern, path, reverse
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods, require_safe

from bohnanza_core.bots.registry import registry
from bohnanza_core.ratings import GsprtVerdict
from tournaments import tasks
from tournaments.charts import llr_chart
from tournaments.core import bottests, quotas
from tournaments.core.bottests import BotTest
from tournaments.core.entrants import person_entrant
from tournaments.core.errors import CompetitionError
from tournaments.forms import BotTestForm


def _bots() -> list[str]:
    return sorted(registry())


def _get(test_id: UUID) -> BotTest:
    try:
        return bottests.get(test_id)
    except LookupError:
        raise Http404(_("No such bot test.")) from None


def status_text(test: BotTest) -> str:
    if not test.decided:
        return _("running")
    if test.accepted == "H1":
        return _("H1 accepted: %(a)s is stronger than %(b)s by %(elo)s Elo or more") % {
            "a": test.a, "b": test.b, "elo": f"{test.elo1:g}"}
    if test.accepted == "H0":
        return _("H0 accepted: %(a)s is not stronger than %(b)s by more than %(elo)s Elo") % {
            "a": test.a, "b": test.b, "elo": f"{test.elo0:g}"}
    return _("undecided after the most sets")


def verdict_line(test: BotTest, v: GsprtVerdict) -> str:
    """``bohnanza head-to-head``'s summary line (``headtohead.summary``, English for
    the command line) in the reader's language and number format."""
    def n(value: float, places: int) -> str:
        return number_format(round(value, places) + 0.0, places)

    def bound(value: float) -> str:  # 5, not 5.0: as the form took it
        return n(value, 0 if value == int(value) else 1)

    def signed(value: float) -> str:
        return ("+" if round(value, 1) >= 0 else "") + n(value, 1)

    played = ngettext("after %(games)s games (%(sets)s set)",
                      "after %(games)s games (%(sets)s sets)", v.samples) % {
        "games": number_format(v.games, force_grouping=True),
        "sets": number_format(v.samples, force_grouping=True)}
    figures = _("Elo %(a)s - %(b)s: %(elo)s [%(elo_low)s, %(elo_high)s] (95%%); score %(a)s "
                "against %(b)s: %(score)s [%(score_low)s, %(score_high)s]; LLR %(llr)s in "
                "[%(lower)s, %(upper)s]") % {
        "a": test.a, "b": test.b, "elo": signed(v.elo.value),
        "elo_low": signed(v.elo.low), "elo_high": signed(v.elo.high), "score": n(v.score.value, 3),
        "score_low": n(v.score.low, 3), "score_high": n(v.score.high, 3),
        "llr": n(v.llr, 2), "lower": n(v.lower, 2), "upper": n(v.upper, 2)}
    if v.accepted == "H1":
        verdict = _("H1 accepted %(after)s: %(a)s is stronger than %(b)s by %(elo)s Elo or "
                    "more") % {"after": played, "a": test.a, "b": test.b,
                               "elo": bound(test.elo1)}
    elif v.accepted == "H0":
        verdict = _("H0 accepted %(after)s: %(a)s is not stronger than %(b)s by more than "
                    "%(elo)s Elo") % {"after": played, "a": test.a, "b": test.b,
                                      "elo": bound(test.elo0)}
    else:
        verdict = _("undecided %(after)s between H0 (Elo %(elo0)s) and H1 (%(elo1)s)") % {
            "after": played, "elo0": bound(test.elo0), "elo1": bound(test.elo1)}
    return f"{verdict}; {figures}"


def _context(test: BotTest) -> dict[str, Any]:
    verdict = test.verdict()
    return {"t": test, "verdict": verdict, "status": status_text(test),
            "line": verdict_line(test, verdict),
            "chart": llr_chart(test.llrs, verdict.lower, verdict.upper),
            "live_url": reverse("tournaments:bot_test_live", args=[test.id])}


def _fit_to_quota(form: BotTestForm, left: int | None) -> None:
    """The most sets offered: the default 1,000, or fewer where the account's games
    left today (a running ladder's count every day) would refuse that, said on the
    form. A test asks for its most sets times the players at the table."""
    if left is None:
        return
    field = form.fields["max_sets"]
    players = int(form.fields["players"].initial)
    field.initial = max(1, min(int(field.initial), left // players))
    field.help_text = ngettext(
        "Each set plays a game per seat: sets times players games. Your account may ask "
        "for %(left)s more game today.",
        "Each set plays a game per seat: sets times players games. Your account may ask "
        "for %(left)s more games today.", left) % {
        "left": number_format(left, force_grouping=True)}


@require_http_methods(["GET", "HEAD", "POST"])
def bot_test_list(request: HttpRequest) -> HttpResponse:
    tests = [bottests.get(tid) for tid in bottests.ids()]
    form = BotTestForm(request.POST if request.method == "POST" else None, bots=_bots())
    if request.user.is_authenticated and request.method != "POST":
        _fit_to_quota(form, quotas.games_left(request.user))
    status = 200
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if form.is_valid():
            data = form.cleaned_data
            try:
                # Charged to the account's quota of games as a competition is.
                with quotas.creating_bot_test(request.user) as admit:
                    test = bottests.create(
                        data["a"], data["b"], data["preset"], data["players"],
                        data["elo0"], data["elo1"], data["alpha"], data["beta"],
                        data["max_sets"], data["seed"] or secrets.token_hex(8),
                        person_entrant(request.user.get_username()), admit=admit)
            except CompetitionError as refused:
                form.add_error(None, str(refused))
            else:
                tasks.bot_test.delay(str(test.id))
                return redirect("tournaments:bot_test", test_id=test.id)
        status = 400
    return render(request, "tournaments/bot_tests.html", {
        "tests": [{"t": t, "status": status_text(t), "verdict": t.verdict()} for t in tests],
        "form": form}, status=status)


@require_safe
def bot_test_detail(request: HttpRequest, test_id: UUID) -> HttpResponse:
    return render(request, "tournaments/bot_test.html", _context(_get(test_id)))


@require_safe
def bot_test_live(request: HttpRequest, test_id: UUID) -> HttpResponse:
    """The part of a test's page that moves as its sets are played: fetched again every
    few seconds while it runs (static/js/bot_test.js)."""
    return render(request, "tournaments/_bot_test_live.html", _context(_get(test_id)))


@require_safe
def bot_test_json(request: HttpRequest, test_id: UUID) -> JsonResponse:
    test = _get(test_id)
    v = test.verdict()
    return JsonResponse({"a": test.a, "b": test.b, "elo0": test.elo0, "elo1": test.elo1,
                         "alpha": test.alpha, "beta": test.beta, "seed": test.seed,
                         "sets": v.samples, "games": v.games, "llr": v.llr,
                         "bounds": [v.lower, v.upper], "accepted": test.accepted,
                         "decided": test.decided,
                         "elo": [v.elo.value, v.elo.low, v.elo.high],
                         "llr_history": [list(p) for p in test.llrs]})


urlpatterns: list[URLPattern] = [
    path("bot-tests/", bot_test_list, name="bot_tests"),
    path("bot-tests/<uuid:test_id>/", bot_test_detail, name="bot_test"),
    path("bot-tests/<uuid:test_id>/live/", bot_test_live, name="bot_test_live"),
    path("bot-tests/<uuid:test_id>.json", bot_test_json, name="bot_test_json"),
]
