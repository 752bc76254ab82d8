"""The ``>>>`` examples in ``bohnanza_core`` run and show what really happens.

The examples are read from the sources (``ast``), not from the imported modules: a
module compiled with mypyc need not keep its docstrings, so collecting them from the
objects could find nothing and pass. Each example then runs in its module's namespace
as imported, so the same examples run on the compiled build and, in the pure run of
``run.py test``, on the pure modules.
"""

from __future__ import annotations

import ast
import doctest
import importlib
from dataclasses import dataclass
from pathlib import Path

import pytest

import bohnanza_core

PACKAGE = Path(bohnanza_core.__file__).resolve().parent


@dataclass(frozen=True)
class Docstring:
    """A docstring with examples: where it is, whose it is (``bohnanza_core``,
    ``bohnanza_core.engine.play``) and its raw text (as ``__doc__`` is)."""

    path: Path
    module: str
    name: str
    first_line: int
    last_line: int
    text: str

    @property
    def id(self) -> str:
        return f"{self.path.relative_to(PACKAGE.parent).as_posix()}:{self.first_line}"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def docstrings(path: Path) -> list[Docstring]:
    """Every docstring of the module, its classes and its functions holding ``>>>``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    module = module_name(path)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef
                          | ast.AsyncFunctionDef):
            continue
        text = ast.get_docstring(node, clean=False)
        if text is None or ">>>" not in text:
            continue
        expression = node.body[0]
        assert expression.end_lineno is not None
        name = module if isinstance(node, ast.Module) else f"{module}.{node.name}"
        found.append(Docstring(path, module, name, expression.lineno, expression.end_lineno,
                               text))
    return found


SOURCES = sorted(PACKAGE.rglob("*.py"))
EXAMPLES = [found for path in SOURCES for found in docstrings(path)]


def test_the_package_docstring_examples_are_found() -> None:
    """The reading of the sources finds the examples it is meant to run (else every
    test below would pass by running none)."""
    assert "bohnanza_core" in {found.module for found in EXAMPLES}


def test_every_example_in_the_sources_is_in_a_docstring() -> None:
    """A ``>>>`` line outside a docstring (a comment, a plain string) is never run:
    each one is in a docstring this test module runs."""
    covered = {(found.path, line) for found in EXAMPLES
               for line in range(found.first_line, found.last_line + 1)}
    stray = [f"{path.relative_to(PACKAGE.parent)}:{number}"
             for path in SOURCES
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if line.lstrip().lstrip("#").lstrip().startswith(">>>")
             and (path, number) not in covered]
    assert stray == []


@pytest.mark.parametrize("found", EXAMPLES, ids=lambda found: found.id)
def test_examples_run(found: Docstring) -> None:
    module = importlib.import_module(found.module)
    test = doctest.DocTestParser().get_doctest(
        found.text, dict(vars(module)), found.name, str(found.path), found.first_line - 1)
    assert test.examples
    report: list[str] = []
    runner = doctest.DocTestRunner()
    result = runner.run(test, out=report.append)
    assert result.failed == 0, "".join(report)
