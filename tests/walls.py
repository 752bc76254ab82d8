"""What the contract tests of the named walls share (bohnanza_core/fastpath.py,
play/channels_internals.py, config/daphne_limits.py, config/kombu_filesystem.py,
replays/persistence/django_cursor.py):
a fingerprint of a library function's code, to notice an upgrade that changes a function
whose behaviour a wall copies or relies on.

A fingerprint is the SHA-256 (first 16 hex digits) of the function's syntax tree without
its docstring: edits to comments, docstrings and layout do not change it; any change to
the code does. When one differs after an upgrade, read the library's new code against
the wall's, adjust the wall if needed, and pin the new fingerprint.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import textwrap
from collections.abc import Mapping
from typing import Any


def shape(obj: Any) -> str:
    """The fingerprint of a function's or class's code (see the module)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(obj)))
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    return hashlib.sha256(ast.dump(tree).encode()).hexdigest()[:16]


def changed_shapes(pinned: Mapping[str, tuple[Any, str]], wall: str) -> list[str]:
    """The functions of ``pinned`` (name -> (function, fingerprint)) whose code is not the
    pinned one, each named with what to do."""
    return [f"{name} changed (fingerprint {shape(obj)}, pinned {digest}): read it against "
            f"{wall}, adjust the wall if needed, then pin the new fingerprint"
            for name, (obj, digest) in pinned.items() if shape(obj) != digest]


def parameters(function: Any) -> list[tuple[str, str]]:
    """A function's parameters as (name, kind) pairs."""
    return [(p.name, p.kind.name) for p in inspect.signature(function).parameters.values()]
