"""The protocol's JSON Schemas (docs/schema/, served at /protocol/schema/<name>), for
checking every frame the tests see: the server's frames against server-frame.json, the
frames a test client sends against client-frame.json."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

SCHEMAS = Path(__file__).resolve().parents[1] / "docs" / "schema"
NAMES = ("client-frame.json", "server-frame.json")


def schema(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((SCHEMAS / name).read_text())
    return loaded


@functools.cache
def _validator(name: str) -> Draft202012Validator:
    # The schemas name each other by relative address ("client-frame.json#/$defs/..."),
    # as they are served side by side.
    registry: Registry = Registry().with_resources(
        (other, Resource.from_contents(schema(other), default_specification=DRAFT202012))
        for other in NAMES)
    Draft202012Validator.check_schema(schema(name))
    return Draft202012Validator(schema(name), registry=registry)


def problems(name: str, frame: object) -> list[str]:
    """What is wrong with ``frame`` against the schema ``name`` (empty: nothing)."""
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message[:300]}"
            for e in _validator(name).iter_errors(frame)]


def check_server(frame: dict[str, Any]) -> dict[str, Any]:
    """``frame``, if the server's schema holds for it (AssertionError otherwise). Checked
    against its own type's definition (the root's ``oneOf`` branch for it: the branches'
    types differ), which is what the root says and a third of the time."""
    kind = frame.get("type")
    found = (problems_in(str(kind), frame) if kind in SERVER_TYPES
             else problems("server-frame.json", frame))
    assert not found, (kind, found[:5])
    return frame


@functools.cache
def _definition(definition: str) -> Draft202012Validator:
    sub = {"$ref": f"server-frame.json#/$defs/{definition}"}
    registry: Registry = Registry().with_resources(
        (other, Resource.from_contents(schema(other), default_specification=DRAFT202012))
        for other in NAMES)
    return Draft202012Validator(sub, registry=registry)


def problems_in(definition: str, value: object) -> list[str]:
    """What is wrong with ``value`` against one definition of the server's schema."""
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message[:300]}"
            for e in _definition(definition).iter_errors(value)]


def check_client(frame: dict[str, Any]) -> dict[str, Any]:
    found = problems("client-frame.json", frame)
    assert not found, found[:5]
    return frame


SERVER_TYPES = ("state", "error", "waiting", "room", "closed", "pong", "left", "lobby")
