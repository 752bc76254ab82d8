"""The platform's URLs plus two views that fail, for the 500 tests (never served)."""

from django.http import HttpRequest, HttpResponse
from django.urls import path

from config.urls import handler400, handler403, handler404, handler500, urlpatterns

FAILURE = "the view failed on purpose"


def fail(request: HttpRequest) -> HttpResponse:
    """Raise what no view catches, as a bug would."""
    raise RuntimeError(FAILURE)


urlpatterns = [
    path("fail/", fail),
    path("fail.json", fail),
    *urlpatterns,
]

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]
