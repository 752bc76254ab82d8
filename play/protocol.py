"""The websocket protocol's JSON Schemas, served as they are published in the
repository (docs/schema/, docs/protocol.md): ``/protocol/schema/client-frame.json``
(what a client sends) and ``/protocol/schema/server-frame.json`` (what it is sent).
The server's names the client's for the commands, by relative address: served, it
carries the client's inside it (``$defs/client_frame``, its ``$id`` the address it is
named by), so a validator given the fetched document alone resolves it; the files in
docs/schema/ stay one each (a program loading them loads both)."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Final

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import path
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

SCHEMAS = ("client-frame.json", "server-frame.json")


BUNDLED: Final = "client_frame"
"""Where the served server schema carries the client's (under ``$defs``)."""


def _published(name: str) -> bytes:
    return (Path(settings.BASE_DIR) / "docs" / "schema" / name).read_bytes()


@functools.cache
def schema_text(name: str) -> bytes:
    """A schema's bytes as served, made once per process (they change with a release):
    the server's with the client's inside it (see the module)."""
    if name != "server-frame.json":
        return _published(name)
    server = json.loads(_published(name))
    client = json.loads(_published("client-frame.json"))
    client.pop("$schema", None)  # an embedded resource takes its parent's dialect
    server["$defs"][BUNDLED] = {"$id": "client-frame.json", **client}
    return json.dumps(server, ensure_ascii=False, indent=2).encode()


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
