"""The events' fields with their precise types, read from the source of events.py.

The export's decoders and the record's canonical encoders are built from each event
field's type (``tuple[Card, ...] | None``, ``CardSource``...). A compiled dataclass
keeps only rough annotations (``object`` for a union, no tuple arguments), so
``typing.get_type_hints`` cannot be asked once ``events`` is compiled. This module
reads the annotations from ``events.py`` itself, once at import, and evaluates them in
the events module's namespace: the same types in either build. It stays pure Python.
tests/core/test_export.py checks the table against ``dataclasses.fields`` of every
event (and, in the pure build, against ``typing.get_type_hints``).
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path
from typing import Any

from bohnanza_core import events
from bohnanza_core.events import EVENT_TYPES, Event

SOURCE = Path(__file__).resolve().with_name("events.py")
"""The events' source, installed beside its compiled module."""


def _without_final(annotation: ast.expr) -> ast.expr:
    """``Final[T]`` as ``T``: the fields are Final so that nothing assigns them later;
    their values are of type ``T``."""
    if (isinstance(annotation, ast.Subscript) and isinstance(annotation.value, ast.Name)
            and annotation.value.id == "Final"):
        return annotation.slice
    return annotation


def read_field_types(source: str = "") -> dict[str, dict[str, Any]]:
    """Each event class's name -> its fields, in order, -> their types, as written in
    the class body of ``source`` (by default events.py)."""
    tree = ast.parse(source or SOURCE.read_text(encoding="utf-8"))
    namespace = vars(events)
    table: dict[str, dict[str, Any]] = {}
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        table[node.name] = {
            statement.target.id: eval(  # our own source's annotations, nothing from outside
                compile(ast.Expression(_without_final(statement.annotation)),
                        str(SOURCE), "eval"), namespace)
            for statement in node.body
            if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)
            and not ast.unparse(statement.annotation).startswith("ClassVar")
        }
    return table


def _field_types() -> dict[type[Event], dict[str, Any]]:
    read = read_field_types()
    table: dict[type[Event], dict[str, Any]] = {}
    for cls in EVENT_TYPES:
        types = read.get(cls.__name__)
        names = tuple(f.name for f in dataclasses.fields(cls))
        if types is None or tuple(types) != names:
            raise RuntimeError(f"events.py and the {cls.__name__} class disagree on its "
                               f"fields: {names} (is the source beside the build?)")
        table[cls] = types
    return table


FIELD_TYPES: dict[type[Event], dict[str, Any]] = _field_types()
"""Every event class -> its fields in order -> their types."""
