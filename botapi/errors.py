"""The API's errors: JSON ``{"code": ..., "message": ...}`` with the status the code
says, the message in the caller's language (``Accept-Language``, or the site's
language cookie), the code stable for programs. Every code is listed here once, with
its status; docs/bots.md lists them with what a client does about each.

Every answer under ``/api/`` is such a body, the calls' own refusals and those the
site gives before a call runs or after it failed alike: an address with nothing
there (``not_found``), a method an address does not answer (``method_not_allowed``,
with ``Allow``), a body over the limit (``too_large``: the site's limit, refused by
config/limits.py before the body is read, or :data:`MAX_BODY_BYTES`, refused by
botapi/api.py before it is parsed), a server error (``server_error``), the database
unavailable (``unavailable``, with ``Retry-After``). config/errors.py answers those
with :func:`site_refusal` for any path :func:`under_api` says is the API's."""

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
    # 405: the address does not answer this method (``Allow`` says which it answers)
    "method_not_allowed": 405,
    # 409: the state does not allow it now
    "table_started": 409,
    "already_seated": 409,
    "no_open_seat": 409,
    "seats_free": 409,
    "not_running": 409,
    "stale": 409,
    "illegal": 409,
    "entry_refused": 409,
    # 413: the request's body is over the limit (refused before it is parsed)
    "too_large": 413,
    # 429: too many
    "rate_limited": 429,
    # 500, 503: the server's failure, not the request's (``Retry-After`` on a 503)
    "server_error": 500,
    "unavailable": 503,
}

API_PREFIX = "/api/"

MAX_BODY_BYTES = 64 * 1024
"""The largest request body a call of the API parses: larger ones are refused (413
``too_large``) before they are. The largest legitimate body (a challenge naming all 7
seats by accounts of 150-character names, written as JSON's ``\\u`` escapes of
characters beyond the Basic Multilingual Plane, with every house rule at its longest
value, pretty-printed) is about 13 KB; a usual one, well under 1 KB
(tests/botapi/test_api_edges.py measures it)."""


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


def under_api(path: str) -> bool:
    """Whether ``path`` is the API's: ``/api`` and everything under ``/api/``."""
    return path == API_PREFIX.rstrip("/") or path.startswith(API_PREFIX)


def size_text(limit_bytes: int) -> str:
    """A limit as a reader reads it: ``64 KB``, ``5 MB``."""
    if limit_bytes >= 1024 * 1024:
        return f"{limit_bytes / 1024 / 1024:.0f} MB"
    return f"{limit_bytes / 1024:.0f} KB"


def too_large(limit_bytes: int) -> ApiError:
    return ApiError("too_large", _("The request's body is larger than the %(limit)s this "
                                   "address accepts: none of it was parsed.")
                    % {"limit": size_text(limit_bytes)})


def site_refusal(status: int, *, method: str = "", allowed: str = "",
                 limit_bytes: int = 0) -> dict[str, str]:
    """The body of an error the site answers under ``/api/`` rather than a call of the
    API (an address no call has, a method it does not answer, a body over the site's
    limit, a failure): ``{"code", "message"}``, the code the status's (see the module),
    the message in the active language. ``method`` and ``allowed`` (the ``Allow``
    header) describe a 405, ``limit_bytes`` a 413. A status with no code of its own
    here (none is answered today) gets ``invalid_request`` (4xx) or ``server_error``
    (5xx)."""
    if status == 404:
        error = ApiError("not_found", _("No such API address."))
    elif status == 405:
        error = ApiError("method_not_allowed",
                         _("This address answers %(allowed)s, not %(method)s.")
                         % {"allowed": allowed or "-", "method": method[:20] or "-"})
    elif status == 413:
        error = too_large(limit_bytes)
    elif status == 403:
        # Django's own 403 under /api/ is its CSRF check's: the calls are exempt from it
        # (they check a session's token themselves: botapi/auth.py), not the OpenAPI
        # document's and docs page's addresses.
        error = ApiError("csrf_failed", _("A signed-in browser's call that changes anything "
                                          "carries the CSRF token (X-CSRFToken)."))
    elif status == 503:
        error = ApiError("unavailable", _("The service is unavailable for a moment: try "
                                          "again shortly."))
    elif status >= 500:
        error = ApiError("server_error", _("Server error: it has been logged. Try again "
                                           "later."))
    else:
        error = ApiError("invalid_request", _("The request could not be read (JSON "
                                              "expected)."))
    return {"code": error.code, "message": error.message}
