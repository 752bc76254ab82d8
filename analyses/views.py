"""The analysis's answers, for the replay viewer (static/js/analysis.js):

- ``games/<id>/`` (POST, ``ask``): ask for the game's analysis (a signed-in reader who
  may see the game; a finished game only; the account's quota): the status below. A
  plain form's post is sent back to the viewer.
- ``games/<id>/status.json`` (``status``): how far the analysis is (status, decisions
  judged of how many, a sentence saying so): nothing of the judgments themselves, and
  only to a reader who may see the game.
- ``games/<id>/analysis.json`` (``result``): the finished analysis drawn for the
  viewer (:func:`analyses.panel.build`): the panel's HTML and a note for each judged
  line of the log, in the reader's language, kept in the cache per analysis and
  language.

Who may see a game is the viewer's own rule (:func:`replays.views.viewer.open_game`:
a private game only for its players, staff and its share link).
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.urls import URLPattern, path, reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST, require_safe

from analyses import jobs, panel, tasks
from analyses.models import Analysis
from bohnanza_core import analysis as core
from replays.caching import release, remember
from replays.store import games
from replays.views.viewer import Opened, Refused, answers_refusals, open_game


def _state(opened: Opened, request: HttpRequest) -> dict[str, Any]:
    """The analysis's progress for the status answer: no judgment in it."""
    row = jobs.stored(opened.game_id)
    why = jobs.refusal_of_game(opened.game)
    answer: dict[str, Any] = {
        "status": row.status if row is not None else "none",
        "made": row.made if row is not None else 0,
        "total": row.total if row is not None else 0,
        "signedIn": bool(request.user.is_authenticated),
        "refusal": why,
    }
    if why is not None:
        text = why
    elif row is None:
        text = (_("Not analysed yet.") if request.user.is_authenticated
                else _("Not analysed yet. Sign in to ask for an analysis."))
    elif row.status == Analysis.Status.QUEUED:
        text = _("Waiting for a worker…")
    elif row.status == Analysis.Status.RUNNING:
        text = (_("Analysing: %(made)s of %(total)s decisions judged.")
                % {"made": row.made, "total": row.total} if row.total
                else _("Analysing…"))
    elif row.status == Analysis.Status.DONE:
        text = _("Analysed.")
    else:
        text = _("The analysis failed. Ask for it again.")
    answer["text"] = text
    return answer


@never_cache
@require_safe
@answers_refusals(as_json=True)
def status(request: HttpRequest, game_id: str) -> HttpResponse:
    """How far the game's analysis is (see the module's docstring)."""
    return JsonResponse(_state(open_game(request, game_id), request))


@never_cache
@require_POST
def ask(request: HttpRequest, game_id: str) -> HttpResponse:
    """Ask for the game's analysis: JSON for the viewer's script, a redirect back to
    the viewer (its message saying what came of it) for a plain form."""
    wants_json = "application/json" in request.headers.get("Accept", "")
    try:
        opened = open_game(request, game_id)
        jobs.ask(opened.game, request.user, tasks.send)
    except (Refused, jobs.Refusal) as refused:
        if wants_json:
            return JsonResponse({"error": refused.message}, status=refused.status)
        messages.error(request, refused.message)
        return _back(request, game_id)
    if wants_json:
        return JsonResponse(_state(opened, request), status=202)
    return _back(request, game_id)


NEXT_MAX = 2000
"""The longest address sent back to (a longer one is cut, then refused as not ours)."""


def _back(request: HttpRequest, game_id: str) -> HttpResponse:
    target = request.POST.get("next", "")[:NEXT_MAX]
    if not url_has_allowed_host_and_scheme(target, {request.get_host()},
                                           require_https=request.is_secure()):
        target = reverse("replays:replay", kwargs={"game_id": game_id})
    return HttpResponseRedirect(target.split("#")[0] + "#analysis")


@never_cache
@require_safe
@answers_refusals(as_json=True)
def result(request: HttpRequest, game_id: str) -> HttpResponse:
    """The finished analysis, drawn for the viewer (see the module's docstring)."""
    opened = open_game(request, game_id)
    row = jobs.stored(opened.game_id)
    if row is None or row.status != Analysis.Status.DONE or row.result is None:
        raise Refused(404, _("This game has no finished analysis yet."))
    done = row.result
    finished = row.finished_at.timestamp() if row.finished_at else 0
    key = f"analysis:{release()}:{row.pk}:{finished}:{get_language()}"
    drawn = remember(key, lambda: panel.build(
        core.Analysis.from_dict(done),
        [entry.event for entry in games().record(opened.game_id)]))
    return JsonResponse(drawn)


app_name = "analyses"

urlpatterns: list[URLPattern] = [
    path("games/<str:game_id>/", ask, name="ask"),
    path("games/<str:game_id>/status.json", status, name="status"),
    path("games/<str:game_id>/analysis.json", result, name="result"),
]
