"""The import contracts (``[tool.importlinter]`` in pyproject.toml) fail on a planted
violation, naming the contract it breaks.

``run.py test`` runs ``lint-imports`` on the project itself; here it runs on a copy of
the packages' sources, once as they are (every contract kept: the copy is faithful)
and once with one import planted in it, up a layer, into Django from the engine, or
around a circle. The planted imports sit in function bodies, where a circle used to
hide: they count like any other.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("bohnanza_core", "replays", "play", "tournaments", "analyses", "botapi", "config")
LAYERS = "Layers: config > botapi > tournaments, analyses > play > replays > engine"
ENGINE = "bohnanza_core imports no Django and none of the apps"
ACYCLIC = "No import cycles inside a package"
LINT_SECONDS = 120


def copy_of_the_project(into: Path) -> Path:
    """The packages' Python sources and pyproject.toml (the contracts), under ``into``."""
    for package in PACKAGES:
        shutil.copytree(ROOT / package, into / package, ignore=_all_but_sources)
    shutil.copy2(ROOT / "pyproject.toml", into / "pyproject.toml")
    return into


def _all_but_sources(folder: str, names: list[str]) -> list[str]:
    return [name for name in names if name == "__pycache__"
            or (Path(folder, name).is_file() and not name.endswith(".py"))]


def lint_imports(folder: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` run in ``folder``: it analyses the packages found there first
    (the folder goes first on its path), not the installed project."""
    command = [sys.executable, "-c",
               "import sys; from importlinter.cli import lint_imports_command; "
               "sys.exit(lint_imports_command())",
               "--no-cache", "--no-logo"]
    return subprocess.run(command, cwd=folder, capture_output=True, text=True,
                          timeout=LINT_SECONDS, check=False)


def plant(folder: Path, module: str, code: str) -> None:
    """Append ``code`` to ``module``'s source in the copy (a new module if none)."""
    path = folder.joinpath(*module.split(".")).with_suffix(".py")
    existing = path.read_text(encoding="utf-8") if path.exists() else ""
    path.write_text(existing + "\n\n" + textwrap.dedent(code), encoding="utf-8")


def test_the_copy_keeps_every_contract(tmp_path: Path) -> None:
    result = lint_imports(copy_of_the_project(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    for contract in (LAYERS, ENGINE, ACYCLIC):
        assert f"{contract} KEPT" in result.stdout


@pytest.mark.parametrize(("module", "code", "broken", "shown"), [
    pytest.param("replays.planted", """
        def upward() -> object:
            from play import live
            return live
        """, LAYERS, "replays.planted -> play.live", id="replays-imports-play"),
    pytest.param("play.planted", """
        def upward() -> object:
            from tournaments import models
            return models
        """, LAYERS, "play.planted -> tournaments.models", id="play-imports-tournaments"),
    pytest.param("bohnanza_core.planted", """
        def settings() -> object:
            from django.conf import settings
            return settings
        """, ENGINE, "bohnanza_core.planted -> django (l.", id="engine-imports-django"),
    pytest.param("bohnanza_core.planted", """
        def table() -> object:
            from replays import table
            return table
        """, ENGINE, "bohnanza_core.planted -> replays.table", id="engine-imports-an-app"),
    pytest.param("replays.store", """
        def caching() -> object:
            from replays import caching
            return caching
        """, ACYCLIC, "No cycles are allowed in replays.", id="replays-store-caching-circle"),
    pytest.param("play.authority", """
        def tables() -> object:
            from play import tables
            return tables
        """, ACYCLIC, "No cycles are allowed in play.", id="play-authority-tables-circle"),
])
def test_a_planted_import_breaks_its_contract(tmp_path: Path, module: str, code: str,
                                             broken: str, shown: str) -> None:
    folder = copy_of_the_project(tmp_path)
    plant(folder, module, code)
    result = lint_imports(folder)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"{broken} BROKEN" in result.stdout, result.stdout
    assert shown in result.stdout, result.stdout
