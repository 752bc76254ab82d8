"""Root URL configuration.

The error handlers answer JSON clients in JSON and people with the site's pages
(config/errors.py); Django calls them only when debug is off.
"""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    # The language switch: POST language=hu|fi|en (and next=) sets the language cookie.
    path("i18n/", include("django.conf.urls.i18n")),
    path("replays/", include("replays.urls")),
    path("tournaments/", include("tournaments.urls")),
    path("", include("play.urls")),
]

handler400 = "config.errors.bad_request"
handler403 = "config.errors.permission_denied"
handler404 = "config.errors.page_not_found"
handler500 = "config.errors.server_error"
