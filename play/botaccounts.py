"""A person's bot accounts (``/account/bots/``): make one, or upgrade one of their
accounts that has played no game; for each, its API tokens: make one (shown once, on
the page that answers the form, never again), rotate, revoke. The rules are
``play.tokens``'; these pages only ask and show."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth import authenticate
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST, require_safe

from play import tokens
from play.models import SCOPES, TOKEN_LABEL_MAX, BotAccount
from replays.names import USERNAME_MAX

SCOPE_WORDS = {
    "play": gettext_lazy("play: sit at tables, play, challenge, seek"),
    "read": gettext_lazy("read: its games, their views, its event stream"),
    "enter": gettext_lazy("enter: enter competitions on its own (your consent)"),
}


class NewBot(forms.Form):
    name = forms.CharField(label=gettext_lazy("Name"), max_length=USERNAME_MAX)


class Upgrade(forms.Form):
    username = forms.CharField(label=gettext_lazy("Account"), max_length=USERNAME_MAX)
    password = forms.CharField(label=gettext_lazy("Its password"), max_length=200,
                               widget=forms.PasswordInput)


class NewToken(forms.Form):
    label = forms.CharField(label=gettext_lazy("Token name"), max_length=TOKEN_LABEL_MAX,
                            required=False)
    scopes = forms.MultipleChoiceField(
        label=gettext_lazy("What it may do"), widget=forms.CheckboxSelectMultiple,
        choices=[(s, SCOPE_WORDS[s]) for s in SCOPES], initial=["play", "read"])



def _owner(request: HttpRequest) -> User:
    """The signed-in person whose bot accounts a page shows (``login_required``)."""
    user = request.user
    assert isinstance(user, User)
    return user

def _page(request: HttpRequest, *, status: int = 200, **context: object) -> HttpResponse:
    bots = tokens.owned_bots(_owner(request))
    return render(request, "play/bots.html", {
        "bots": bots, "new_bot": context.pop("new_bot", NewBot()),
        "upgrade": context.pop("upgrade", Upgrade()), **context}, status=status)


@login_required
@require_safe
def bot_list(request: HttpRequest) -> HttpResponse:
    return _page(request)


@login_required
@require_POST
def new_bot(request: HttpRequest) -> HttpResponse:
    form = NewBot(request.POST)
    if not form.is_valid():
        return _page(request, new_bot=form, status=400)
    try:
        made = tokens.create_bot(_owner(request), form.cleaned_data["name"])
    except tokens.TokenError as refused:
        form.add_error("name", str(refused))
        return _page(request, new_bot=form, status=400)
    messages.success(request, _("Bot account %(name)s made: now give it a token.")
                     % {"name": made.user.get_username()})
    return redirect("play:bot", name=made.user.get_username())


@login_required
@require_POST
def upgrade(request: HttpRequest) -> HttpResponse:
    form = Upgrade(request.POST)
    if not form.is_valid():
        return _page(request, upgrade=form, status=400)
    account = authenticate(request, username=form.cleaned_data["username"],
                           password=form.cleaned_data["password"])
    if account is None:
        form.add_error(None, _("No such account with that password."))
        return _page(request, upgrade=form, status=400)
    try:
        made = tokens.upgrade(_owner(request), account)
    except tokens.TokenError as refused:
        form.add_error(None, str(refused))
        return _page(request, upgrade=form, status=400)
    messages.success(request, _("%(name)s is a bot account now: it signs in by token only.")
                     % {"name": made.user.get_username()})
    return redirect("play:bot", name=made.user.get_username())


def _bot_page(request: HttpRequest, account: BotAccount, *, status: int = 200,
              form: NewToken | None = None, shown: str | None = None) -> HttpResponse:
    response = render(request, "play/bot.html", {
        "account": account, "tokens": list(account.tokens.all()[:50]),
        "form": form or NewToken(), "shown": shown}, status=status)
    return response


@login_required
@require_safe
def bot_detail(request: HttpRequest, name: str) -> HttpResponse:
    try:
        account = tokens.bot_of(_owner(request), name)
    except tokens.TokenError:
        return render(request, "404.html", status=404)
    return _bot_page(request, account)


@never_cache
@login_required
@require_POST
def new_token(request: HttpRequest, name: str) -> HttpResponse:
    """Make a token and show it, on this answer only (``never_cache``: no copy kept)."""
    try:
        account = tokens.bot_of(_owner(request), name)
    except tokens.TokenError:
        return render(request, "404.html", status=404)
    form = NewToken(request.POST)
    if not form.is_valid():
        return _bot_page(request, account, form=form, status=400)
    try:
        _row, token = tokens.issue(account, form.cleaned_data["label"],
                                   form.cleaned_data["scopes"])
    except tokens.TokenError as refused:
        form.add_error(None, str(refused))
        return _bot_page(request, account, form=form, status=400)
    return _bot_page(request, account, shown=token)


def _token_id(raw: str) -> int:
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) < 18 else -1


@never_cache
@login_required
@require_POST
def rotate_token(request: HttpRequest, name: str, token_id: str) -> HttpResponse:
    try:
        account = tokens.bot_of(_owner(request), name)
        _row, token = tokens.rotate(account, _token_id(token_id))
    except tokens.TokenError as refused:
        if refused.code == "not_found" and not BotAccount.objects.filter(
                owner=_owner(request), user__username=name[:USERNAME_MAX]).exists():
            return render(request, "404.html", status=404)
        messages.error(request, str(refused))
        return redirect("play:bot", name=name[:USERNAME_MAX])
    return _bot_page(request, account, shown=token)


@login_required
@require_POST
def revoke_token(request: HttpRequest, name: str, token_id: str) -> HttpResponse:
    try:
        account = tokens.bot_of(_owner(request), name)
    except tokens.TokenError:
        return render(request, "404.html", status=404)
    try:
        row = tokens.revoke(account, _token_id(token_id))
    except tokens.TokenError as refused:
        messages.error(request, str(refused))
    else:
        messages.success(request, _("Token %(hint)s… revoked: it no longer works.")
                         % {"hint": row.hint})
    return redirect("play:bot", name=account.user.get_username())


urlpatterns = [
    path("account/bots/", bot_list, name="bots"),
    path("account/bots/new/", new_bot, name="new_bot"),
    path("account/bots/upgrade/", upgrade, name="upgrade_bot"),
    path("account/bots/<str:name>/", bot_detail, name="bot"),
    path("account/bots/<str:name>/tokens/new/", new_token, name="new_token"),
    path("account/bots/<str:name>/tokens/<str:token_id>/rotate/", rotate_token,
         name="rotate_token"),
    path("account/bots/<str:name>/tokens/<str:token_id>/revoke/", revoke_token,
         name="revoke_token"),
]
