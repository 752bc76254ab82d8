"""ASGI entry point: the application Daphne (and ``manage.py runserver``) serves.

HTTP goes to Django; websockets (``play/routing.py``: the tables and the lobby) pass
the ``Origin`` check (``play/origin.py``: a URL of an allowed host, or none from a
program with a bearer token) and the session's authentication first.
HTTP requests pass :class:`config.limits.AsgiBodySizeLimit` first, so an oversized
body is refused before Django's handler reads it, and daphne itself refuses one while
it arrives (:func:`config.daphne_limits.bound_daphne_requests`).
As a process starts it picks up the running tables that move on their own (a clock's
deadline, a bot), before any client comes back (``play/startup.py``).
"""

import os
from typing import cast

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

# Initialise Django before importing anything that touches models.
django_asgi_app = get_asgi_application()

from asgiref.typing import ASGI3Application  # noqa: E402
from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from config.daphne_limits import bound_daphne_requests  # noqa: E402
from config.limits import AsgiBodySizeLimit  # noqa: E402
from play.origin import OriginCheck  # noqa: E402
from play.routing import websocket_urlpatterns  # noqa: E402
from play.startup import lifespan, when_daphne_runs  # noqa: E402

bound_daphne_requests()
when_daphne_runs()
application = ProtocolTypeRouter({
    # Django's handler is an ASGI 3 application; its annotations use plain dicts where
    # asgiref.typing names each scope and event.
    "http": AsgiBodySizeLimit(cast(ASGI3Application, django_asgi_app)),
    "websocket": OriginCheck(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    "lifespan": lifespan,
})
