"""WSGI entry point, for plain HTTP servers (live play needs the ASGI application).

Oversized bodies are refused by ``config.limits.BodySizeLimitMiddleware`` (in
MIDDLEWARE), from Content-Length, before anything reads them.
"""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

application = get_wsgi_application()
