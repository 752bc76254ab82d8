"""Which build of the engine runs: the modules compiled with mypyc, or their sources.

``setup.py`` compiles :data:`COMPILED` with mypyc when a C compiler is present and
writes a build record (:data:`RECORD`) beside them: the SHA-256 of every compiled
module's source, or why nothing was compiled. At import, :func:`activate` (called by
``bohnanza_core/__init__.py`` before any other module) trusts the compiled modules
only while the record matches the sources: an edited source next to an old ``.so``
would otherwise run stale code without a word. Otherwise, and whenever
``BOHNANZA_PURE_PYTHON=1``, a meta-path finder loads the ``.py`` files instead.

This module imports nothing from the package: ``setup.py`` loads it by its path.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings
from collections.abc import Mapping, Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

PACKAGE = "bohnanza_core"
COMPILED: tuple[str, ...] = (
    "cards",
    "state",
    "shuffle",
    "engine",
    "playout",
    "seatview",
    "views",
    "simulator",
    "events",
    "commands",
    "bots.base",
    "bots.fields",
    "bots.nontrading",
    "bots.heuristic",
    "bots.random_bot",
    "bots.turns",
)
"""The modules mypyc compiles (relative to the package): the rules' hot path and the
built-in bots. The bots are typed against ``seatview.SeatView``, a compiled abstract
class that ``views.GameView`` implements natively (the bots' calls into it are C calls)
and a remote seat's ``wire.WireView`` subclasses in Python, so that both pass their door.
``events`` is compiled too: its precise field types are read from its source
(``eventfields``), its ``SECRET``/``OWNER`` set on each class after it. So is
``commands``, in the same shape, its fields typed ``object`` since a command comes
from outside and the engine checks it. ``rulesets`` stays pure."""

RECORD = "_build.json"
"""The build record's file name, inside the package folder."""
PURE_SWITCH = "BOHNANZA_PURE_PYTHON"
COMPILED_NAME = "compiled (mypyc)"

HERE = Path(__file__).resolve().parent


def source_path(module: str, package_dir: Path = HERE) -> Path:
    """The ``.py`` file of ``module`` (a name from :data:`COMPILED`)."""
    return package_dir.joinpath(*module.split(".")).with_suffix(".py")


def source_digests(package_dir: Path = HERE) -> dict[str, str]:
    """SHA-256 of every compiled module's source, by module name."""
    return {
        module: hashlib.sha256(source_path(module, package_dir).read_bytes()).hexdigest()
        for module in COMPILED
    }


def compiled_files(package_dir: Path = HERE) -> list[Path]:
    """The extension files of a build in ``package_dir``: the modules' and mypyc's
    shared library (whatever this interpreter's suffix)."""
    found: list[Path] = []
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        found.extend(package_dir.glob(f"*{suffix}"))
        found.extend(package_dir.glob(f"bots/*{suffix}"))
    return sorted(set(found))


def _has_extension(module: str, package_dir: Path) -> bool:
    base = package_dir.joinpath(*module.split("."))
    return any(base.with_name(base.name + suffix).exists()
               for suffix in importlib.machinery.EXTENSION_SUFFIXES)


def pure_reason(package_dir: Path = HERE, environ: Mapping[str, str] | None = None
                ) -> str | None:
    """Why the pure modules must run (None: the compiled build is sound)."""
    env: Mapping[str, str] = os.environ if environ is None else environ
    if env.get(PURE_SWITCH, "") not in ("", "0"):
        return f"{PURE_SWITCH}={env[PURE_SWITCH]}"
    try:
        record = json.loads((package_dir / RECORD).read_text())
    except FileNotFoundError:
        return "not compiled at install"
    except (OSError, ValueError):
        return f"unreadable build record {RECORD}"
    if not isinstance(record, dict) or not record.get("compiled"):
        reason = record.get("reason") if isinstance(record, dict) else None
        return str(reason or "not compiled at install")
    missing = [module for module in COMPILED if not _has_extension(module, package_dir)]
    if missing:
        return f"compiled module missing: {missing[0]}"
    changed = [module for module, digest in source_digests(package_dir).items()
               if record.get("sources", {}).get(module) != digest]
    if changed:
        return (f"stale build: {', '.join(source_path(m, Path()).as_posix() for m in changed)} "
                "changed since it was compiled; reinstall to compile again")
    return None


class PureFinder(importlib.abc.MetaPathFinder):
    """Finds the compiled modules' ``.py`` sources ahead of their extensions."""

    def __init__(self, package_dir: Path) -> None:
        self.sources = {f"{PACKAGE}.{module}": source_path(module, package_dir)
                        for module in COMPILED}

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        source = self.sources.get(fullname)
        if source is None:
            return None
        return importlib.util.spec_from_file_location(fullname, source)


def activate(package_dir: Path = HERE, environ: Mapping[str, str] | None = None) -> str:
    """Choose the build for this process and say which: ``compiled (mypyc)`` or
    ``pure Python (why)``. Warns once when a build exists but is stale."""
    reason = pure_reason(package_dir, environ)
    if reason is None:
        return COMPILED_NAME
    if not any(isinstance(finder, PureFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, PureFinder(package_dir))
    if reason.startswith("stale build"):
        warnings.warn(f"{PACKAGE}: {reason}; running the pure Python modules",
                      RuntimeWarning, stacklevel=2)
    return f"pure Python ({reason})"


def write_record(package_dir: Path, sources_dir: Path, reason: str | None) -> None:
    """Record a build in ``package_dir``: the sources' digests (``reason`` None), or
    why nothing was compiled."""
    record: dict[str, object] = (
        {"compiled": True, "sources": source_digests(sources_dir)} if reason is None
        else {"compiled": False, "reason": reason}
    )
    package_dir.mkdir(parents=True, exist_ok=True)
    (package_dir / RECORD).write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
