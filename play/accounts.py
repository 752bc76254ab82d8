"""Accounts: signing up, and a player's profile (the games they played, each with its
replay; their own tables waiting or being played)."""

from __future__ import annotations

from collections import Counter

from django.contrib.auth import get_user_model, login
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from play.forms import SignUpForm
from play.lobby import tables_of
from play.models import BotAccount, Seat
from replays.models import GameSummary
from replays.names import USERNAME_MAX
from replays.table import bot_accounts, person_name


def signup(request: HttpRequest) -> HttpResponse:
    """A new account, signed in at once."""
    if request.method == "POST":
        form = SignUpForm(request.POST)
        if form.is_valid():
            user = form.save()
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            return redirect("play:lobby")
    elif request.method in ("GET", "HEAD"):
        form = SignUpForm()
    else:
        return HttpResponse(status=405, headers={"Allow": "GET, HEAD, POST"})
    return render(request, "registration/signup.html", {"form": form},
                  status=400 if request.method == "POST" else 200)


@require_safe
def profile(request: HttpRequest, username: str) -> HttpResponse:
    """A player's page: the games they played, each linked to its replay (private
    ones only for themselves)."""
    users = get_user_model()
    try:
        person = users.objects.get(username=username[:USERNAME_MAX])
    except users.DoesNotExist:
        raise Http404(_("No such player")) from None
    me = request.user.is_authenticated and request.user.pk == person.pk
    theirs = GameSummary.objects.filter(seats__player=f"user:{person.get_username()}")
    if not me:
        theirs = theirs.filter(Q(private=False))
    played = list(theirs.distinct().order_by("-started_at").prefetch_related("seats")[:200])
    # The games they left (or stayed away from): a bot finished their seat.
    left = dict(Seat.objects.filter(user=person, table__game_id__in=[g.game_id for g in played])
                .exclude(handover="").values_list("table__game_id", "bot"))
    who = f"user:{person.get_username()}"
    # Bot accounts among the opponents marked as bots: one lookup for the whole page.
    bots = bot_accounts(s.player for game in played for s in game.seats.all())
    opponents: Counter[str] = Counter()
    finished = wins = coins = 0
    for game in played:
        game.left_to = left.get(game.game_id)  # type: ignore[attr-defined]
        seats = list(game.seats.all())
        own = next((s for s in seats if s.player == who), None)
        others = [person_name(s.player, bots) for s in seats if s is not own]
        game.own = own  # type: ignore[attr-defined]
        game.opponents = others  # type: ignore[attr-defined]
        opponents.update(set(others))
        if game.status == GameSummary.Status.FINISHED and own is not None:
            finished += 1
            wins += own.winner
            coins += own.coins or 0
    bot = BotAccount.objects.select_related("owner").filter(user=person).first()
    return render(request, "play/profile.html", {
        "person": person, "games": played, "me": me, "bot_account": bot,
        "my_tables": tables_of(person) if me else [],
        # A visitor sees results hidden, as in the game lists (no spoilers), unless asked.
        "show_results": me or request.GET.get("results") == "1",
        "record": {"finished": finished, "wins": wins,
                   "coins": round(coins / finished, 1) if finished else None},
        "opponents": opponents.most_common(5)})


urlpatterns = [
    path("accounts/signup/", signup, name="signup"),
    path("players/<str:username>/", profile, name="profile"),
]
