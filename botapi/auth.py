"""Who calls the API, and what they may do: a bot account's token
(``Authorization: Bearer <token>``), or a person's browser session.

- A token is looked up again for every call (``play.authority.account_for``): a
  revoked one stops at once. It may do what its scopes say (``play``, ``read``,
  ``enter``); a call needing another answers 403 ``missing_scope``. A call that sends
  a token needs no CSRF token: a browser never sends one on its own.
- A session (a person signed in on the site) may do what a person does on the pages
  (``play`` and ``read``); its unsafe calls (POST, DELETE) carry Django's CSRF token
  (``X-CSRFToken``), as the pages' forms do, else 403 ``csrf_failed``.
- An ``Authorization`` header that is not a valid bearer token is refused (401), never
  taken for a session or for nobody.

Each account's calls are bounded by allowances like the table sockets' (token buckets
of ``play.consumers.Allowance``, per account and server process): past them, 429
``rate_limited`` with ``Retry-After``.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.http import HttpRequest
from django.utils.translation import gettext as _
from ninja.security import HttpBearer
from ninja.utils import check_csrf

from botapi.errors import ApiError
from play.authority import Credential, account_for
from play.consumers import Allowance

PERSON_SCOPES = frozenset({"play", "read"})
"""What a person's session may do (entering a bot in a competition is its owner's
call, and names the bot: ``enter`` is a bot's token's scope)."""

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

CALLS_BURST = 30
"""Calls one account may make in a row (each reads the store; a change writes it)."""

CALLS_PER_SECOND = 3.0
"""How fast that allowance comes back."""

KEPT_ACCOUNTS = 10_000
"""Accounts whose allowances a process keeps (the least recently seen forgotten)."""

_allowances: OrderedDict[str, Allowance] = OrderedDict()


@dataclass(frozen=True)
class Caller:
    """The account calling, what it may do, and by which credential (a token's id, or
    the session's key: one event stream each)."""

    user: User
    scopes: frozenset[str]
    credential: str
    account: Credential
    """The token or session itself, to look the account up again while a stream runs."""

    @property
    def by_token(self) -> bool:
        return self.credential.startswith("token:")


def allowance(key: str) -> Allowance:
    found = _allowances.get(key)
    if found is None:
        found = _allowances[key] = Allowance(capacity=float(CALLS_BURST),
                                             rate=CALLS_PER_SECOND)
    _allowances.move_to_end(key)
    while len(_allowances) > KEPT_ACCOUNTS:
        _allowances.popitem(last=False)
    return found


def spend(caller: Caller) -> None:
    """Charge one call to the caller's allowance, or refuse it (429)."""
    bucket = allowance(f"user:{caller.user.pk}")
    if not bucket.available():
        wait = bucket.wait()
        raise ApiError("rate_limited", _("Too many calls: wait %(s).1f s.") % {"s": wait},
                       retry_after=max(1, math.ceil(wait)))
    bucket.spend()


class TokenOrSession(HttpBearer):
    """Ninja's bearer scheme (so the OpenAPI document names it), taking a person's
    session too (see the module)."""

    def __call__(self, request: HttpRequest) -> Caller | None:
        header = request.headers.get("Authorization")
        if header is not None:
            scheme, _space, token = header.partition(" ")
            if scheme.lower() != "bearer" or not token.strip():
                raise ApiError("invalid_token", _("Send the token as "
                                                  "'Authorization: Bearer <token>'."))
            bearer = account_for(token.strip())
            if bearer is None:
                raise ApiError("invalid_token", _("This token is not valid (revoked, "
                                                  "or never issued)."))
            caller = Caller(bearer.user, bearer.scopes, f"token:{bearer.token_id}",
                            Credential(token=token.strip()))
        else:
            user = getattr(request, "user", None)
            if user is None or not user.is_authenticated:
                return None
            if request.method not in SAFE_METHODS and check_csrf(request) is not None:
                raise ApiError("csrf_failed", _("A signed-in browser's call that changes "
                                                "anything carries the CSRF token "
                                                "(X-CSRFToken)."))
            key = request.session.session_key or ""
            caller = Caller(user, PERSON_SCOPES, f"session:{key[:12]}",
                            Credential(session_key=key or None, user_id=user.pk))
        spend(caller)
        return caller

    def authenticate(self, request: HttpRequest, token: str) -> Any:  # pragma: no cover
        # django-ninja's HttpBearer declares it abstract; this class's __call__ takes a
        # token or a session itself and never calls it.
        raise NotImplementedError


def require(request: HttpRequest, scope: str) -> Caller:
    """The caller, if it may do ``scope`` (else 403 ``missing_scope``)."""
    caller: Caller = request.auth  # type: ignore[attr-defined]
    if scope not in caller.scopes:
        raise ApiError("missing_scope", _("This token lacks the scope %(scope)s.")
                       % {"scope": scope})
    return caller
