"""The API's errors: JSON ``{"code": ..., "message": ...}`` with the status the code
says, the message in the caller's language (``Accept-Language``, or the site's
language cookie), the code stable for programs. Every code is listed here once, with
its status; docs/bots.md lists them with what a client does about each."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

STATUS: dict[str, int] = {
    # 400: the request itself is wrong (a field, a value out of range)
    "invalid_request": 400,
    "unknown_ruleset": 400,
    "invalid_house_rules": 400,
    "invalid_seats": 400,
    "invalid_seat": 400,
    "unknown_bot": 400,
    "unknown_account": 400,
    # 401: who is calling is not known
    "unauthenticated": 401,
    "invalid_token": 401,
    # 403: known, but not allowed
    "csrf_failed": 403,
    "missing_scope": 403,
    "not_creator": 403,
    "not_owner": 403,
    "not_seated": 403,
    "seat_handed": 403,
    # 404: nothing there (or nothing the caller may see)
    "not_found": 404,
    "no_challenge": 404,
    # 409: the state does not allow it now
    "table_started": 409,
    "already_seated": 409,
    "no_open_seat": 409,
    "seats_free": 409,
    "not_running": 409,
    "stale": 409,
    "illegal": 409,
    "entry_refused": 409,
    # 429: too many
    "rate_limited": 429,
}


class ApiError(Exception):
    """A refusal the API answers as ``{"code", "message"}`` with the code's status."""

    def __init__(self, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        assert code in STATUS, code
        self.code = code
        self.message = message
        self.extra = extra

    @property
    def status(self) -> int:
        return STATUS[self.code]


def not_found() -> ApiError:
    return ApiError("not_found", _("Nothing here, or nothing you may see."))


def from_code(code: str, message: str) -> ApiError:
    """An error of a domain refusal (``play.tables.TableError``, ``play.tokens``)."""
    return ApiError(code if code in STATUS else "invalid_request", message)
