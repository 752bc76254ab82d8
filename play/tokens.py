"""Bot accounts and their API tokens: made by a person who owns them, shown once, kept
only as a keyed digest, scoped, rotated and revoked.

A token is ``bhz_`` and 40 random URL-safe characters (240 bits). The store keeps
HMAC-SHA-256 of it under a key derived from the site's ``SECRET_KEY``
(``play.authority.digest``): a deterministic keyed hash, so a token is found by one indexed
lookup, and a copy of the database alone (without the key) gives no token away, nor
lets anyone test guesses. Tokens made before this scheme (``manage.py bot_token``'s
unkeyed SHA-256) are kept as ``sha256:<hex>`` and still found (``play.authority.account_for``).

Who a token stands for is looked up for every request and every command
(``play.authority``): a revoked token stops working at once, and the account's open
sockets are told (``live.account_changed``).
"""

from __future__ import annotations

import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from play import live
from play.authority import digest
from play.models import SCOPES, TOKEN_LABEL_MAX, ApiToken, BotAccount, Seat
from replays.models import GameSummary
from replays.names import USERNAME_MAX

PREFIX = "bhz_"

MAX_TOKENS = 10
"""Tokens one bot account holds at once (revoked ones not counted)."""

MAX_BOTS = 20
"""Bot accounts one person owns."""

class TokenError(Exception):
    """A change to bot accounts or tokens that cannot be made; ``code`` names why
    (the API's error code), ``str()`` says it in the reader's language."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


def is_bot_account(user: Any) -> bool:
    return user is not None and BotAccount.objects.filter(user_id=user.pk).exists()


def owned_bots(owner: User) -> list[BotAccount]:
    return list(BotAccount.objects.filter(owner=owner).select_related("user")
                .order_by("user__username"))


def _check_owner(owner: User) -> None:
    if is_bot_account(owner):
        raise TokenError(_("a bot account owns no bots"), "bot_cannot_own")
    if BotAccount.objects.filter(owner=owner).count() >= MAX_BOTS:
        raise TokenError(_("you own %(n)s bot accounts: the most one person owns")
                         % {"n": MAX_BOTS}, "too_many_bots")


def create_bot(owner: User, username: str) -> BotAccount:
    """A new bot account named ``username``, owned by ``owner``: it has no password
    (it signs in by token only)."""
    users = get_user_model()
    # Normalised (NFKC) first, as create_user stores it, so the checks see what is
    # stored: a name in full-width letters (U+FF21...) is stored in ASCII, and is
    # taken when its ASCII spelling is, in any case.
    username = users.normalize_username(username.strip())
    field = users._meta.get_field("username")
    try:
        field.run_validators(username)
    except Exception:  # Django's ValidationError: the validator's words are English
        raise TokenError(_("a name of letters, digits and @.+-_ only"), "invalid_name") \
            from None
    if not 0 < len(username) <= USERNAME_MAX:
        raise TokenError(_("a name of 1 to %(n)s characters") % {"n": USERNAME_MAX},
                         "invalid_name")
    with transaction.atomic():
        _check_owner(owner)
        if users.objects.filter(username__iexact=username).exists():
            raise TokenError(_("the name %(name)s is taken") % {"name": username},
                             "name_taken")
        try:
            with transaction.atomic():
                user = users.objects.create_user(username=username)
        except IntegrityError:  # taken meanwhile, by another request
            raise TokenError(_("the name %(name)s is taken") % {"name": username},
                             "name_taken") from None
        user.set_unusable_password()
        user.save()
        return BotAccount.objects.create(user=user, owner=owner)


def played_any(user: User) -> bool:
    """Whether an account has sat at any table or has a game on record."""
    return (Seat.objects.filter(Q(user=user) | Q(invited=user)).exists()
            or GameSummary.objects.filter(seats__player=f"user:{user.get_username()}")
            .exists())


def upgrade(owner: User, account: User) -> BotAccount:
    """Make ``account`` (its password just checked by the caller: one of the owner's
    accounts) a bot account owned by ``owner``: only one that has played no game, and
    from now on it signs in by token only (its password no longer works, its sessions
    end)."""
    if account.pk == owner.pk:
        raise TokenError(_("upgrade another account of yours, not the one you are "
                           "signed in with"), "cannot_upgrade_self")
    if is_bot_account(account):
        raise TokenError(_("%(name)s is a bot account already")
                         % {"name": account.get_username()}, "already_bot")
    if played_any(account):
        raise TokenError(_("%(name)s has played: only an account that has played no "
                           "game becomes a bot") % {"name": account.get_username()},
                         "has_played")
    with transaction.atomic():
        _check_owner(owner)
        account.set_unusable_password()
        account.save()
        made = BotAccount.objects.create(user=account, owner=owner)
    live.account_changed(account.pk)
    return made


def bot_of(owner: User, username: str) -> BotAccount:
    """One of ``owner``'s bot accounts, by name."""
    found = (BotAccount.objects.select_related("user")
             .filter(owner=owner, user__username=username[:USERNAME_MAX]).first())
    if found is None:
        raise TokenError(_("you own no bot account named %(name)s")
                         % {"name": username[:USERNAME_MAX]}, "not_found")
    return found


def _clean_scopes(scopes: list[str] | tuple[str, ...]) -> str:
    chosen = [s for s in SCOPES if s in scopes]
    unknown = [s for s in scopes if s not in SCOPES]
    if unknown or not chosen:
        raise TokenError(_("scopes are some of: %(known)s") % {"known": ", ".join(SCOPES)},
                         "invalid_scopes")
    return " ".join(chosen)


def issue(account: BotAccount, label: str, scopes: list[str] | tuple[str, ...]
          ) -> tuple[ApiToken, str]:
    """A new token for ``account``: the row and the token itself, shown once."""
    label = label.strip()[:TOKEN_LABEL_MAX] or _("token")
    kept = _clean_scopes(scopes)
    token = PREFIX + secrets.token_urlsafe(30)
    with transaction.atomic():
        BotAccount.objects.select_for_update().filter(pk=account.pk).first()
        if account.tokens.filter(revoked_at__isnull=True).count() >= MAX_TOKENS:
            raise TokenError(_("a bot account holds at most %(n)s tokens: revoke one first")
                             % {"n": MAX_TOKENS}, "too_many_tokens")
        row = ApiToken.objects.create(account=account, label=label, digest=digest(token),
                                      hint=token[:8], scopes=kept)
    return row, token


def revoke(account: BotAccount, token_id: int) -> ApiToken:
    """Stop a token working, now: the account's sockets opened with it lose their seats."""
    row = account.tokens.filter(pk=token_id, revoked_at__isnull=True).first()
    if row is None:
        raise TokenError(_("no such token"), "not_found")
    row.revoked_at = timezone.now()
    row.save(update_fields=["revoked_at"])
    live.account_changed(account.user_id)
    return row


def rotate(account: BotAccount, token_id: int) -> tuple[ApiToken, str]:
    """A new token with the same name and scopes, and the old one revoked."""
    with transaction.atomic():
        old = revoke(account, token_id)
        return issue(account, old.label, old.scope_list)


def command_line_token(user: User) -> str:
    """``manage.py bot_token NAME``: make ``user`` a bot account (owned by nobody) if it
    is not one, revoke its tokens and issue one with every scope but ``enter``."""
    account, _made = BotAccount.objects.get_or_create(user=user)
    account.tokens.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
    _row, token = issue(account, "command line", ("play", "read"))
    live.account_changed(user.pk)
    return token
