"""The two builds of the engine (bohnanza_core/build.py): the modules compiled with
mypyc play exactly the games of the pure modules, byte for byte; the package
refuses a stale build; a machine without a C compiler still installs and plays."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import warnings
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

import bohnanza_core
from bohnanza_core import build
from bohnanza_core.bots import BOTS, QUICK_BOTS
from bohnanza_core.export import export_jsonl
from bohnanza_core.rulesets import PRESETS
from bohnanza_core.simulator import play_game

ROOT = Path(__file__).resolve().parents[2]
SEED = "same-bytes"


def exports() -> dict[str, str]:
    """SHA-256 of the full export of a seeded game for every preset band, at its
    fewest and most players, with every bot in every seat and with the bots mixed."""
    lineups = [[name] for name in QUICK_BOTS] + [list(QUICK_BOTS)]
    digests: dict[str, str] = {}
    for name, bands in PRESETS.items():
        for band in bands:
            for players in sorted({band.players[0], band.players[-1]}):
                for lineup in lineups:
                    bots = [BOTS[lineup[seat % len(lineup)]] for seat in range(players)]
                    key = f"{name} {players}p {'+'.join(lineup)}"
                    record = play_game(band, bots, f"{SEED}:{key}")
                    text = export_jsonl(record.events) + json.dumps(
                        [record.illegal, record.fallbacks, record.commands])
                    digests[key] = hashlib.sha256(text.encode()).hexdigest()
    return digests


def _run(code: str, env: dict[str, str], cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600, check=False)


def _require_compiled() -> None:
    """Skip on the pure test run; elsewhere a pure build is a failure under
    BOHNANZA_REQUIRE_SERVICES=1 (CI proves that the compiled path ran)."""
    if bohnanza_core.BUILD == build.COMPILED_NAME:
        return
    if os.environ.get(build.PURE_SWITCH, "") not in ("", "0"):
        pytest.skip(f"this run is pure on purpose ({bohnanza_core.BUILD})")
    message = f"the compiled build is not running: {bohnanza_core.BUILD}"
    if os.environ.get("BOHNANZA_REQUIRE_SERVICES") == "1":
        pytest.fail(message)
    pytest.skip(message)


def test_the_compiled_modules_are_the_extensions() -> None:
    _require_compiled()
    for module in build.COMPILED:
        loaded = sys.modules.get(f"bohnanza_core.{module}") or __import__(
            f"bohnanza_core.{module}", fromlist=["_"])
        assert not str(loaded.__file__).endswith(".py"), module


def test_compiled_and_pure_builds_export_the_same_bytes() -> None:
    _require_compiled()
    pure = _run("import json, sys\n"
                "import bohnanza_core\n"
                "from tests.core.test_build import exports\n"
                "print(bohnanza_core.BUILD)\n"
                "json.dump(exports(), sys.stdout)\n",
                {**os.environ, build.PURE_SWITCH: "1"})
    assert pure.returncode == 0, pure.stderr
    which, _, figures = pure.stdout.partition("\n")
    assert which == f"pure Python ({build.PURE_SWITCH}=1)"
    compiled = exports()
    assert len(compiled) > 40
    assert json.loads(figures) == compiled


def test_the_pure_switch_loads_the_sources() -> None:
    done = _run("import bohnanza_core, bohnanza_core.engine as e\n"
                "import bohnanza_core.bots.heuristic as h\n"
                "print(bohnanza_core.BUILD, e.__file__, h.__file__)",
                {**os.environ, build.PURE_SWITCH: "1"})
    assert done.returncode == 0, done.stderr
    which, engine, heuristic = done.stdout.rsplit(" ", 2)
    assert which == f"pure Python ({build.PURE_SWITCH}=1)"
    assert engine.endswith("engine.py") and heuristic.strip().endswith("heuristic.py")


def test_version_says_which_build_runs() -> None:
    done = subprocess.run([sys.executable, "-m", "bohnanza_core.cli", "--version"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith(f"engine: {bohnanza_core.BUILD}")


def _package_copy(tmp_path: Path) -> Path:
    for name in ("setup.py", "pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, tmp_path / name)
    skipped = shutil.ignore_patterns("*.so", "*.pyd", "__pycache__", build.RECORD)
    shutil.copytree(ROOT / "bohnanza_core", tmp_path / "bohnanza_core", ignore=skipped)
    return tmp_path


def test_a_stale_build_falls_back_to_the_sources(tmp_path: Path) -> None:
    package = _package_copy(tmp_path) / "bohnanza_core"
    build.write_record(package, package, None)
    for module in build.COMPILED:  # stand-ins for the extensions: only their names count
        source = build.source_path(module, package)
        source.with_suffix(EXTENSION_SUFFIXES[0]).write_bytes(b"")
    assert build.pure_reason(package, {}) is None
    engine = build.source_path("engine", package)
    engine.write_text(engine.read_text() + "\n# edited after the build\n")
    reason = build.pure_reason(package, {})
    assert reason is not None and reason.startswith("stale build: engine.py changed")
    finders = list(sys.meta_path)
    sys.meta_path[:] = [f for f in finders if not isinstance(f, build.PureFinder)]  # a pure run's
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert build.activate(package, {}) == f"pure Python ({reason})"
        assert [str(w.message) for w in caught] == [f"bohnanza_core: {reason}; running the pure "
                                                    "Python modules"]
        finder = sys.meta_path[0]
        assert isinstance(finder, build.PureFinder)
        spec = finder.find_spec("bohnanza_core.engine", None)
        assert spec is not None and spec.origin == str(engine)
        assert finder.find_spec("bohnanza_core.rulesets", None) is None
    finally:
        sys.meta_path[:] = finders


def test_without_a_c_compiler_the_package_installs_pure_and_plays(tmp_path: Path) -> None:
    tree = _package_copy(tmp_path)
    env = {**os.environ, "CC": "false"}  # a compiler that always fails
    env.pop(build.PURE_SWITCH, None)
    built = subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=tree,
                           env=env, capture_output=True, text=True, timeout=600, check=False)
    assert built.returncode == 0, built.stderr
    messages = [line for line in built.stderr.splitlines() if "bohnanza-platform build" in line]
    assert len(messages) == 1 and "installing the pure Python package: no working C compiler" \
        in messages[0], built.stderr
    assert build.compiled_files(tree / "bohnanza_core") == []
    record = json.loads((tree / "bohnanza_core" / build.RECORD).read_text())
    assert record["compiled"] is False and record["reason"].startswith("no working C compiler")
    played = _run("import bohnanza_core\n"
                  "from bohnanza_core.bots import BOTS\n"
                  "from bohnanza_core.rulesets import ruleset_for\n"
                  "from bohnanza_core.simulator import play_game\n"
                  "r = play_game(ruleset_for('classic', 4), [BOTS['heuristic']] * 4, 'x')\n"
                  "print(bohnanza_core.__file__)\n"
                  "print(bohnanza_core.BUILD)\n"
                  "print(type(r.result).__name__)\n", env, cwd=tree)
    assert played.returncode == 0, played.stderr
    where, which, result = played.stdout.splitlines()
    assert where == str(tree / "bohnanza_core" / "__init__.py")
    assert which.startswith("pure Python (no working C compiler")
    assert result == "GameEnded"


def test_the_compiler_probe_s_setuptools_internals_are_there() -> None:
    """setup.py's compiler_refusal makes a compiler with setuptools' vendored distutils
    (``setuptools._distutils``), checked against the version setup.py names: an upgrade
    that moves or changes what it calls fails here, not as a silent pure install."""
    import inspect
    import re

    import setuptools
    from setuptools._distutils.ccompiler import new_compiler
    from setuptools._distutils.sysconfig import customize_compiler

    pinned = re.search(r'^SETUPTOOLS_CHECKED_AGAINST = "([^"]+)"$',
                       (ROOT / "setup.py").read_text(encoding="utf-8"), re.MULTILINE)
    assert pinned is not None and setuptools.__version__ == pinned.group(1), (
        f"setuptools {setuptools.__version__} is installed, setup.py was checked against "
        f"{pinned and pinned.group(1)}: check compiler_refusal, then update the pin")
    assert [name for name in inspect.signature(new_compiler).parameters][:2] == [
        "plat", "compiler"]
    assert list(inspect.signature(customize_compiler).parameters) == ["compiler"]
    compiler = new_compiler()
    customize_compiler(compiler)
    assert {"output_dir", "include_dirs"} <= set(inspect.signature(compiler.compile).parameters)
