"""The websocket protocol's JSON Schemas, served as they are published in the
repository (docs/schema/, docs/protocol.md): ``/protocol/schema/client-frame.json``
(what a client sends) and ``/protocol/schema/server-frame.json`` (what it is sent).
They name each other by relative address, so a validator that follows references
finds one from the other here."""

from __future__ import annotations

import functools
from pathlib import Path

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import path
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

SCHEMAS = ("client-frame.json", "server-frame.json")


@functools.cache
def schema_text(name: str) -> bytes:
    """A schema's bytes, read once per process (they change with a release)."""
    return (Path(settings.BASE_DIR) / "docs" / "schema" / name).read_bytes()


@require_safe
def protocol_schema(request: HttpRequest, schema: str) -> HttpResponse:
    if schema not in SCHEMAS:
        raise Http404(_("No such schema"))
    response = HttpResponse(schema_text(schema), content_type="application/schema+json")
    response["Access-Control-Allow-Origin"] = "*"  # public: any tool may fetch it
    response["Cache-Control"] = "public, max-age=3600"
    return response


urlpatterns = [
    path("protocol/schema/<str:schema>", protocol_schema, name="protocol_schema"),
]
