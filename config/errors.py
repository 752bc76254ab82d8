"""Error answers: a page for people, ``{"error": "..."}`` for JSON clients.

Views answer their own refusals (``replays.views.viewer.answers_refusals``); this
module answers what escapes them: Django's 400/403/404 for exceptions and unmatched
URLs and the 500 for unhandled exceptions (the ``handler*`` views in config/urls.py),
any other HTML error to a JSON client (:class:`JsonErrorsMiddleware`: 405 from a
method check, the CSRF failure's 403, a 503) and a page for a method check's empty
405 to a person, the 413 of config/limits.py, and a 503
when the database is unavailable (:class:`DatabaseUnavailableMiddleware`).

A JSON client is a request for a ``.json`` path or under the bot API's ``/api/``, or one
whose Accept header prefers ``application/json`` to ``text/html`` (``*/*``, or no header,
gets the page). Under ``/api/`` the body is the API's own, ``{"code": ..., "message": ...}``
in the reader's language (``botapi.errors.site_refusal``), not ``{"error": ...}``.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from http import HTTPStatus

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.cookie import parse_cookie
from django.template import engines
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django.views import defaults

from botapi.errors import site_refusal, under_api
from replays.outages import DATABASE_ERRORS

logger = logging.getLogger(__name__)

JSON = "application/json"

MESSAGES = {
    400: "Bad request: the server could not make sense of it.",
    403: "Not allowed.",
    405: "This address does not answer that method.",
    413: "The request is too large.",
    429: "Too many requests: try again later.",
    500: "Server error: it has been logged. Try again later.",
    503: "The service is unavailable for a moment: try again shortly.",
}
"""What a JSON client is told for each status: nothing about the request or the server
beyond the status itself (404 adds the path, which the client sent)."""

KEPT_HEADERS = ("Allow", "Retry-After", "WWW-Authenticate")
"""Headers of an error that still apply when its body is replaced by JSON."""


def wants_json(request: HttpRequest) -> bool:
    """Whether the client of ``request`` should get errors as JSON (see the module)."""
    if request.path.endswith(".json") or under_api(request.path):
        return True
    return bool(request.get_preferred_type(["text/html", JSON]) == JSON)


def message_for(status: int) -> str:
    """The sentence a JSON client gets for ``status``."""
    if status in MESSAGES:
        return MESSAGES[status]
    try:
        return f"{HTTPStatus(status).phrase}."
    except ValueError:
        return f"Error {status}."


def json_error(request: HttpRequest, status: int, message: str | None = None, *,
               allowed: str = "", limit_bytes: int = 0) -> JsonResponse:
    """``{"error": message}`` with ``status``; varies on Accept unless the path decided.
    Under ``/api/``, the API's ``{"code", "message"}`` instead (``message`` unused;
    ``allowed``, the ``Allow`` of a 405, and ``limit_bytes``, a 413's limit, go into
    the API's message)."""
    if under_api(request.path):
        return JsonResponse(site_refusal(status, method=request.method or "", allowed=allowed,
                                         limit_bytes=limit_bytes), status=status)
    response = JsonResponse({"error": message or message_for(status)}, status=status)
    if not request.path.endswith(".json"):
        patch_vary_headers(response, ("Accept",))
    return response


def html_error(request: HttpRequest, status: int, template: str,
               context: dict[str, object]) -> HttpResponse:
    """A standalone error page (no request context: it renders with the database down)."""
    response = HttpResponse(render_to_string(template, context), status=status)
    patch_vary_headers(response, ("Accept",))
    return response


def too_large(request: HttpRequest, limit_bytes: int) -> HttpResponse:
    """The 413 answer for a request body over ``limit_bytes``, in the reader's language
    (the request's language cookie or Accept-Language: the ASGI and daphne layers of
    config/limits.py answer before Django's LocaleMiddleware has run)."""
    megabytes = limit_bytes / 1024 / 1024
    with translation.override(translation.get_language_from_request(request)):
        if wants_json(request):
            return json_error(request, 413, f"The request is larger than the {megabytes:.0f} "
                                            "MB this site accepts.", limit_bytes=limit_bytes)
        return html_error(request, 413, "413.html", {"limit_mb": f"{megabytes:.0f}"})


def bare_request(path: str, method: str, headers: dict[str, str]) -> HttpRequest:
    """A request built from what a server layer has before Django runs (the path, the
    method, the headers: lower-case names), enough for :func:`too_large` to answer it:
    its path, its Accept, its language (cookie and Accept-Language)."""
    request = HttpRequest()
    request.path = request.path_info = path
    request.method = method
    for name, key in (("accept", "HTTP_ACCEPT"), ("accept-language", "HTTP_ACCEPT_LANGUAGE")):
        if name in headers:
            request.META[key] = headers[name]
    if "cookie" in headers:
        request.COOKIES = parse_cookie(headers["cookie"])
    return request


RETRY_AFTER_SECONDS = 5
"""What a 503 for an unavailable database asks the client to wait (``Retry-After``)."""

UNAVAILABLE_PAGE = """{% extends "_error.html" %}
{% block title %}Unavailable{% endblock %}
{% block content %}
<h1>Back in a moment</h1>
<p>The site cannot reach its database just now. Nothing you did caused this, and nothing
was changed by this request.</p>
<p>Try again in a few seconds.</p>
{% endblock %}"""
"""The 503 page: the error pages' standalone layout (templates/_error.html)."""


def database_unavailable(request: HttpRequest) -> HttpResponse:
    """503 with ``Retry-After``: the database is down, restarting or unreachable."""
    if wants_json(request):
        response: HttpResponse = json_error(request, 503)
    else:
        page = engines["django"].from_string(UNAVAILABLE_PAGE).render({})
        response = HttpResponse(page, status=503)
        patch_vary_headers(response, ("Accept",))
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


# -- handlers (config/urls.py) -------------------------------------------------------


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """400, e.g. for a SuspiciousOperation or a malformed upload."""
    if wants_json(request):
        return json_error(request, 400)
    return defaults.bad_request(request, exception)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    """403 for PermissionDenied raised anywhere."""
    if wants_json(request):
        return json_error(request, 403)
    return defaults.permission_denied(request, exception)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """404 for an unmatched URL or Http404: the path, never the exception's text."""
    if wants_json(request):
        return json_error(request, 404, f"Nothing at {request.path}.")
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    """500 for an unhandled exception (logged by Django's ``django.request`` logger); 503
    for a database error raised outside the views (in a middleware), which
    :class:`DatabaseUnavailableMiddleware` does not see."""
    if isinstance(sys.exc_info()[1], DATABASE_ERRORS):
        return database_unavailable(request)
    if wants_json(request):
        return json_error(request, 500)
    return defaults.server_error(request)


# -- middleware ----------------------------------------------------------------------


class JsonErrorsMiddleware:
    """Give a JSON client a JSON body for any error answered as a page.

    Covers errors that do not go through the handlers above: a view's
    ``HttpResponseNotAllowed``, the CSRF failure view, a bare ``HttpResponseBadRequest``.
    Answers already in JSON, streams and non-errors pass untouched.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if (response.status_code < 400 or response.streaming
                or response.get("Content-Type", "").startswith(JSON)):
            return response
        if not wants_json(request):
            if response.status_code == 405 and not response.content:
                # A form's address opened in the browser (a view's method check answers
                # with an empty body, which browsers show as their own error).
                page = html_error(request, 405, "405.html", {})
                page["Allow"] = response.get("Allow", "")
                return page
            return response
        answer = json_error(request, response.status_code, allowed=response.get("Allow", ""))
        for header in KEPT_HEADERS:
            if header in response:
                answer[header] = response[header]
        # Not response.close(): that would signal the end of the request (closing
        # database connections) while it is still going on; a non-streaming error
        # holds nothing to release.
        return answer


class DatabaseUnavailableMiddleware:
    """Answer 503, not 500, when a view fails because the database is unavailable.

    Any ``OperationalError`` or ``InterfaceError`` from the database (Django's, or the
    event store's, which raises the ``eventsourcing`` classes) means that the database
    is down, restarting, unreachable or too busy, none of it the request's fault: the
    client is asked to try again shortly, and the log gets a warning with the error, not
    a traceback. Django closes the broken connection at the end of the request, and the
    next request connects again.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest,
                          exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, DATABASE_ERRORS):
            return None
        logger.warning("database unavailable: %s %s answered 503 (%s: %s)", request.method,
                       request.path, type(exception).__name__, exception)
        return database_unavailable(request)
