"""Seat authority: who plays a seat, decided when a command or a view is handled.

A connection says who it is once, when it opens (a session cookie, or a bot account's
token), but what that makes it may change while it stays open: the account signs out
or its token is replaced; its person stands up before the game starts, leaves the
game, or is handed to a bot for staying away. So nothing about a seat is remembered
from the moment a connection opened or a page was loaded:

- the account behind a connection's :class:`Credential` is looked up again for every
  command (:func:`account_now`), and at once when the account's credentials change
  (``play.live.account_changed`` tells its sockets);
- the seat a command plays must be the one its account plays in the game as stored,
  checked under the game's lock as the command is decided (:func:`require_seat`, from
  ``play.live.submit``), so a seat handed over in a race is refused by the store's own
  order;
- a connection joins a seat's group only for the seat its account holds when the game
  starts or the connection joins it (:func:`seat_of`), and every seat's update names
  the seat's holder at its version (``holder``): a connection that does not hold it is
  sent the spectator's view instead and told ``left`` (``play.consumers``).

Who holds a seat is the game's record (``Game.holder``): the player who sat down, until
``SeatHandedToBot`` gives it to a bot. Pages answer the same way
(``replays.store.access``).
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from datetime import timedelta
from importlib import import_module
from types import SimpleNamespace
from typing import Any

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user
from django.contrib.auth.models import User
from django.contrib.sessions.backends.base import SessionBase
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.models import Session
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac

from bohnanza_core.errors import IllegalMove
from bohnanza_core.games import Game
from play.models import SCOPES, ApiToken, BotAccount, Seat, db_value, quoted

TOKEN_MAX = 200
"""The longest token looked up (a real one has 44 characters)."""

_KEY_SALT = "bohnanza.play.tokens"

SIGNED_OUT = "signed_out"
"""Why a connection lost its seat: its account signed out (or its session or token no
longer stands for it)."""

HANDED = "handed"
"""Why a command was refused: a bot plays the seat now (the connection is told the
handover's own reason, ``left`` or ``absent``: :func:`handover_reason`)."""

TAKEN = "taken"
"""Why a connection lost its seat: someone else plays it (a bot's reason is the
handover's own: ``left``, ``absent``)."""


class NotYourSeat(IllegalMove):
    """A command for a seat the sender does not play now (signed out, left, handed to a
    bot): refused, nothing stored. ``why``: the ``left`` frame's reason for the
    connection that sent it."""

    def __init__(self, reason: str, *, why: str = TAKEN) -> None:
        super().__init__(reason)
        self.why = why


@dataclass(frozen=True)
class Credential:
    """How a connection said who it is: the browser's session (its key, and the account
    it was signed in as then) or a bot account's token. Kept to look the account up
    again, never trusted as it was."""

    session_key: str | None = None
    user_id: int | None = None
    token: str | None = None
    scope: str = "play"
    """What the token must still allow where it is used: ``play`` at a table, ``read``
    for an event stream (a session may do both)."""


def credential_of(scope: dict[str, Any], user: Any, token: str) -> Credential:
    """The credential of a websocket's scope: its bot token if it sent one, else its
    session (Channels' ``AuthMiddlewareStack`` put both in the scope)."""
    if token:
        return Credential(token=token)
    session = scope.get("session")
    key = session.session_key if isinstance(session, SessionBase) else None
    if user is None or not user.is_authenticated or key is None:
        return Credential()
    return Credential(session_key=key, user_id=user.pk)


def account_now(credential: Credential) -> User | None:
    """The account the credential stands for now, or None (signed out, the session
    expired or was flushed, the password changed since, the token replaced). Reads the
    store: runs in a worker thread."""
    if credential.token is not None:
        return bot_user_for(credential.token, credential.scope)
    if credential.session_key is None:
        return None
    if _sessions_read_by_hand():
        found = session_account(credential.session_key, credential.user_id)
        if found is not ANOTHER_BACKEND:
            assert found is None or isinstance(found, User)
            return found
    return signed_in_account(credential)


DB_SESSIONS = "django.contrib.sessions.backends.db"
MODEL_BACKEND = "django.contrib.auth.backends.ModelBackend"


ANOTHER_BACKEND: Any = object()
"""What :func:`session_account` answers for a session signed in by another backend than
the model backend: only ``get_user`` knows how to read it."""


def _sessions_read_by_hand() -> bool:
    """Whether :func:`session_account` reads what ``get_user`` would: sessions in the
    database, signed in by the model backend, no secret key fallbacks (whose hashes
    only ``get_user`` knows how to try)."""
    return (settings.SESSION_ENGINE == DB_SESSIONS and not settings.SECRET_KEY_FALLBACKS
            and MODEL_BACKEND in settings.AUTHENTICATION_BACKENDS)


def session_account(session_key: str, user_id: int | None) -> Any:
    """The account a database session signed in as ``user_id`` stands for now (None), or
    :data:`ANOTHER_BACKEND`; read in
    one statement written by hand (``play.models``, "statements written by hand"), then
    checked as ``django.contrib.auth.get_user`` checks it: the session not expired, its
    account and backend, the account active, the session's hash of the password the
    account's now. Every frame of a seat's view asks it (a person's table sends four a
    move): through ``get_user`` two queries cost 0.76 ms of CPU, this 0.18 ms (on
    PostgreSQL, 2026-12-06). tests/play/test_sitting.py holds it to ``get_user``."""
    if user_id is None:
        return None
    expires = db_value(Session, "expire_date", timezone.now())
    user = next(iter(User.objects.raw(_session_sql(), [session_key, expires, user_id])), None)
    if user is None or not user.is_active:
        return None
    data = SessionStore().decode(getattr(user, "session_data"))  # noqa: B009 (a column)
    if data.get(SESSION_KEY) != user._meta.pk.value_to_string(user):
        return None
    if data.get(BACKEND_SESSION_KEY) != MODEL_BACKEND:
        return ANOTHER_BACKEND
    if not constant_time_compare(data.get(HASH_SESSION_KEY, ""), user.get_session_auth_hash()):
        return None
    return user


@functools.cache
def _session_sql() -> str:
    s = functools.partial(quoted, Session)
    return (f'SELECT u.*, s.{s("session_data")} AS session_data FROM {quoted(User)} u '
            f'JOIN {s()} s ON s.{s("session_key")} = %s AND s.{s("expire_date")} > %s '
            f'WHERE u.{quoted(User, "id")} = %s')


def signed_in_account(credential: Credential) -> User | None:
    """The account a session stands for now, as a page's request finds it
    (``django.contrib.auth.get_user``, whatever the session engine and backends)."""
    store = import_module(settings.SESSION_ENGINE).SessionStore
    # django.contrib.auth.get_user is what a page does with its request: the session's
    # account, if its session hash still matches the account's password.
    request = SimpleNamespace(session=store(credential.session_key))
    user = get_user(request)  # type: ignore[arg-type]
    if not user.is_authenticated or user.pk != credential.user_id:
        return None
    assert isinstance(user, User)
    return user


def stands(credential: Credential, player: str) -> bool:
    """Whether the credential stands for ``player`` (``user:ann``) now: checked for every
    seat's frame a socket sends and every line of an event stream, not only for its
    commands (a socket or stream outlives a sign-out, a password change, an expired
    session, a token replaced). Reads the store: runs in a worker thread."""
    account = account_now(credential)
    return account is not None and player_name(account) == player


@dataclass(frozen=True)
class Bearer:
    """Who a token stands for now, and what it may do."""

    user: User
    scopes: frozenset[str]
    token_id: int


def digest(token: str) -> str:
    """What the store keeps of a token: its HMAC-SHA-256 under the site's key."""
    return salted_hmac(_KEY_SALT, token, algorithm="sha256").hexdigest()


def legacy_digest(token: str) -> str:
    return "sha256:" + hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def account_for(token: str) -> Bearer | None:
    """The bot account a token stands for now (not revoked), or None. Marks it used
    (at most once a minute, so a busy bot does not write on every command)."""
    if not token or len(token) > TOKEN_MAX:
        return None
    now = timezone.now()
    idle_since = db_value(ApiToken, "last_used_at", now - timedelta(seconds=USE_MARKED_EVERY))
    found = next(iter(User.objects.raw(_bearer_sql(),
                                       [idle_since, digest(token), legacy_digest(token)])),
                 None)
    if found is None:
        return None
    token_id: int = getattr(found, "token_id")  # noqa: B009 (the statement's columns)
    if getattr(found, "token_idle"):  # noqa: B009
        ApiToken.objects.filter(pk=token_id).update(last_used_at=now)
    scopes: str = getattr(found, "token_scopes")  # noqa: B009
    return Bearer(found, frozenset(s for s in scopes.split() if s in SCOPES), token_id)


USE_MARKED_EVERY = 60
"""Seconds: a token is marked used at most this often."""


@functools.cache
def _bearer_sql() -> str:
    """The account of a token that is not revoked, the token's id and scopes, and whether
    it went unused for :data:`USE_MARKED_EVERY` seconds: one statement written by hand
    (``play.models``, "statements written by hand").
    Every command of a bot account's connection asks it (who holds a seat is decided
    when the command comes); through the ORM it cost 0.8-1.0 ms of CPU, a sixth of the
    servers' time when 100 bot accounts' clients played at once (bench/live.py --modes
    outside), most of it compiling the same SQL anew."""
    t = functools.partial(quoted, ApiToken)
    return (f'SELECT u.*, t.{t("id")} AS token_id, t.{t("scopes")} AS token_scopes, '
            f'(t.{t("last_used_at")} IS NULL OR t.{t("last_used_at")} < %s) AS token_idle '
            f'FROM {quoted(User)} u '
            f'JOIN {quoted(BotAccount)} b ON b.{quoted(BotAccount, "user")} = '
            f'u.{quoted(User, "id")} '
            f'JOIN {t()} t ON t.{t("account")} = b.{quoted(BotAccount, "id")} '
            f'WHERE t.{t("digest")} IN (%s, %s) AND t.{t("revoked_at")} IS NULL '
            f'ORDER BY t.{t("created_at")} DESC LIMIT 1')


def bot_user_for(token: str, scope: str = "play") -> User | None:
    """The bot account a token stands for now, if the token has ``scope``; else None."""
    bearer = account_for(token)
    return bearer.user if bearer is not None and scope in bearer.scopes else None


def player_name(user: User) -> str:
    """The record's name of an account's seats: ``user:<name>``."""
    return f"user:{user.get_username()}"


def seat_of(seats: list[Seat], user: Any) -> int | None:
    """The seat a person plays at a table now (its seats as just read): theirs and not
    handed to a bot. None for anyone else (spectators, staff, a person who left)."""
    if user is None or not user.is_authenticated:
        return None
    mine = [s.number for s in seats if s.user_id == user.pk and s.person]
    return mine[0] if mine else None


def handover_reason(table_id: Any, seat: int) -> str:
    """Why a bot plays a person's seat, as the seat records it (``left``, ``absent``;
    ``left`` until the seat has caught up with the game's event)."""
    found = (Seat.objects.filter(table_id=table_id, number=seat)
             .values_list("handover", flat=True).first())
    return found or "left"


def require_seat(game: Game, seat: int, player: str) -> None:
    """Refuse (:class:`NotYourSeat`) a command of ``player`` for ``seat`` unless they
    play it in ``game`` as stored: the check every person's command passes, under the
    game's lock, as it is decided."""
    holder = game.holder(seat)
    if holder == player:
        return
    if holder.startswith("bot:") and game.players[seat] == player:
        raise NotYourSeat(f"the {holder[4:]} bot plays this seat now: you left it",
                          why=HANDED)
    raise NotYourSeat(f"seat {seat + 1} is not yours: you do not play it")

