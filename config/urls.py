"""Root URL configuration.

The error handlers answer JSON clients in JSON and people with the site's pages
(config/errors.py); Django calls them only when debug is off.
"""

from django.contrib import admin
from django.urls import include, path
from django.views.decorators.csrf import csrf_exempt
from django.views.i18n import set_language

from config.health import health

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    # The language switch: POST language=hu|fi|en (and next=) sets the language cookie.
    # Exempt from CSRF: a forged switch changes only the language a visitor reads (one
    # click changes it back), and in exchange the pages that offer the switch carry no
    # CSRF token, so a public replay can be kept by shared caches (docs/serving.md).
    path("i18n/setlang/", csrf_exempt(set_language), name="set_language"),
    # Whether the read models keep up with the store: 200, or 503 once one is stalled.
    path("health/", health, name="health"),
    path("replays/", include("replays.urls")),
    path("tournaments/", include("tournaments.urls")),
    # Game analysis (analyses/): asked for and shown from the replay viewer.
    path("analyses/", include("analyses.views")),
    # The guides of docs/ as pages (config/docs.py).
    path("docs/", include("config.docs")),
    # The bot API (botapi/): /api/v1/..., its OpenAPI document and docs (docs/bots.md).
    path("", include("botapi.urls")),
    path("", include("play.urls")),
]

handler400 = "config.errors.bad_request"
handler403 = "config.errors.permission_denied"
handler404 = "config.errors.page_not_found"
handler500 = "config.errors.server_error"
