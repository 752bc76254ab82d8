"""The API's addresses: ``/api/v1/...``, ``/api/openapi.json``, ``/api/docs``; any
other address under ``/api/`` answers the API's 404."""

from django.urls import path, re_path

from botapi.api import api, not_an_address

urlpatterns = [
    path("api/", api.urls),
    re_path(r"^api/(?P<rest>.*)$", not_an_address, name="api_not_found"),
]
