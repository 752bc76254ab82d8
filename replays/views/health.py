"""``/health/``: whether the platform's read models keep up with its events, for a
monitor to poll (replays.health says what stalled means).

It answers JSON, ``{"ok": bool, "projections": {name: {...}}}``, with status 200 while
every projection keeps up and 503 once one is stalled or the database cannot be read:
a monitor alerts on the status alone. It is the shared database's state, the same from
every web process, so a load balancer must not take processes out of rotation on it:
the site still serves while the game list lags. Nothing secret is in it (positions,
counts and kinds of events) and nothing of it is cached.
"""

from __future__ import annotations

import logging

from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from replays.health import projections_health
from replays.outages import DATABASE_ERRORS

logger = logging.getLogger(__name__)


@never_cache
@require_safe
def health(request: HttpRequest) -> JsonResponse:
    try:
        projections = projections_health()
    except DATABASE_ERRORS as error:
        logger.warning("health: the database cannot be read (%s: %s)", type(error).__name__,
                       error)
        return JsonResponse({"ok": False, "database": "unavailable", "projections": {}},
                            status=503)
    ok = not any(projection.stalled for projection in projections.values())
    return JsonResponse({"ok": ok, "projections": {name: projection.as_json()
                                                   for name, projection in projections.items()}},
                        status=200 if ok else 503)
