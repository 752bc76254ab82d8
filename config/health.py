"""``/health/``: whether the platform keeps up, for a monitor to poll: the read models
with their events (replays.health says what stalled means), and the Celery workers with
what waits for them (tournaments.core.workers says what silent means).

It answers JSON, ``{"ok": bool, "projections": {name: {...}}, "worker":
{"seen_seconds_ago": int | null, "silent": bool}}``, with status 200 while every
projection keeps up and the workers are seen, and 503 once a projection is stalled, the
workers have been silent longer than ``WORKER_SILENCE_SECONDS`` while a competition or
ladder waits for them, or the database cannot be read: a monitor alerts on the status
alone. It is the shared database's state, the same from every web process, so a load
balancer must not take processes out of rotation on it: the site still serves while the
game list lags or the workers are away. Nothing secret is in it (positions, counts and
kinds of events, an age) and nothing of it is cached. It lives in ``config`` because it
reads both ``replays`` and ``tournaments``.
"""

from __future__ import annotations

import logging

from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from replays.health import projections_health
from replays.outages import DATABASE_ERRORS
from tournaments.core.workers import workers

logger = logging.getLogger(__name__)


@never_cache
@require_safe
def health(request: HttpRequest) -> JsonResponse:
    try:
        projections = projections_health()
        worker = workers()
    except DATABASE_ERRORS as error:
        logger.warning("health: the database cannot be read (%s: %s)", type(error).__name__,
                       error)
        return JsonResponse({"ok": False, "database": "unavailable", "projections": {}},
                            status=503)
    ok = not any(projection.stalled for projection in projections.values()) and not worker.silent
    return JsonResponse({"ok": ok, "projections": {name: projection.as_json()
                                                   for name, projection in projections.items()},
                         "worker": worker.as_json()},
                        status=200 if ok else 503)
