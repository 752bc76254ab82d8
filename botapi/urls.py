"""The API's addresses: ``/api/v1/...``, ``/api/openapi.json``, ``/api/docs``; any
other address under ``/api/`` (``/api`` and ``/api/`` themselves included) answers the
API's 404.

django-ninja adds a root address of its own (``/api/``, named ``api-root``: its
OpenAPI document finds the API's prefix by reversing it) whose view raises Django's
404, a page rather than the API's body: the same name answers the API's 404 here."""

from django.urls import URLPattern, URLResolver, path, re_path

from botapi.api import api, not_an_address


def _api_urls() -> tuple[list[URLPattern | URLResolver], str, str]:
    patterns, app_name, namespace = api.urls
    roots = [n for n, p in enumerate(patterns)
             if isinstance(p, URLPattern) and p.name == "api-root"]
    assert len(roots) == 1, "django-ninja's root address changed: read botapi/urls.py"
    patterns = list(patterns)
    patterns[roots[0]] = path("", not_an_address, name="api-root")
    return patterns, app_name, namespace


urlpatterns = [
    path("api/", _api_urls()),
    re_path(r"^api(?:/(?P<rest>.*))?$", not_an_address, name="api_not_found"),
]
