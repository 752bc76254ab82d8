"""ASGI entry point: the application Daphne (and ``manage.py runserver``) serves.

Only HTTP is routed for now; websocket routes for live tables join this router later.
HTTP requests pass :class:`config.limits.AsgiBodySizeLimit` first, so an oversized
body is refused before Django's handler reads it, and daphne itself refuses one while
it arrives (:func:`config.limits.bound_daphne_requests`).
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

# Initialise Django before importing anything that touches models.
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter  # noqa: E402

from config.limits import AsgiBodySizeLimit, bound_daphne_requests  # noqa: E402

bound_daphne_requests()
application = ProtocolTypeRouter({"http": AsgiBodySizeLimit(django_asgi_app)})
