"""The Content-Security-Policy of every answer (django-csp; the policy is
``CONTENT_SECURITY_POLICY`` in config/settings.py).

The pages run only the site's own scripts and stylesheets, from files under
``/static/``: no inline script, no ``on...=`` attribute, no ``style=`` attribute. Not
nonces either, and that is why: the replay viewer's pages are kept whole in the cache
and by shared caches (replays/caching.py, docs/serving.md), so a nonce drawn into a
kept page would be sent again with every later answer, and then it proves nothing.

What the settings cannot say, the middleware adds per request: the live pages'
websocket origin (``ws://`` or ``wss://`` and the host the page came from) to
``connect-src``. CSP Level 3 lets ``'self'`` match the same host's ``ws:``/``wss:``
(Chromium, Firefox and Safari 15.4 or newer do: Debian's Chromium 156 opens the live
table's socket under ``connect-src 'self'`` alone); older browsers need it named.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from csp.middleware import CSPMiddleware, PolicyParts
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponseBase


def websocket_origin(request: HttpRequest) -> str | None:
    """The origin of the websockets a page from ``request`` opens (static/js/live.js,
    lobby.js and league.js open them on ``location.host``); ``None`` for a host that
    ALLOWED_HOSTS refuses (its answer is the 400 that says so, with no page to run)."""
    try:
        host = request.get_host()
    except DisallowedHost:
        return None
    return ("wss://" if request.is_secure() else "ws://") + host


class ContentSecurityPolicyMiddleware(CSPMiddleware):
    """django-csp's middleware, with the request's websocket origin in ``connect-src``
    (beside what a view's ``csp_update`` adds)."""

    def get_policy_parts(self, request: HttpRequest, response: HttpResponseBase,
                         report_only: bool = False) -> PolicyParts:
        parts = super().get_policy_parts(request, response, report_only)
        origin = websocket_origin(request)
        if report_only or origin is None:
            return parts
        update: dict[str, Any] = dict(parts.update or {})
        connect = update.get("connect-src") or []
        connect = [connect] if isinstance(connect, str) else list(connect)
        update["connect-src"] = [*connect, origin]
        return replace(parts, update=update)
