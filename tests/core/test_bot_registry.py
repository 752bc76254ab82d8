"""Bots installed as packages (entry point group ``bohnanza.bots``): the example under
examples/ is pip-installed into a folder of its own, then seated by the command line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bohnanza_core.bots import BOTS
from bohnanza_core.bots.registry import BUILTIN, by_entrant, registry

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "bohnanza-cautious-bot"


def test_the_built_in_bots_are_entrants_of_version_builtin():
    known = registry()
    for name, cls in BOTS.items():
        assert known[name].cls is cls and known[name].entrant == f"{name}@{BUILTIN}"
    assert by_entrant("heuristic@builtin") is known["heuristic"]
    assert by_entrant("heuristic@2.0") is None and by_entrant("nobody@1") is None


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("bots")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                    "--disable-pip-version-check", "--target", str(target), str(EXAMPLE)],
                   check=True, timeout=300)
    return target


def _run(target: Path, code: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(target)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=120, check=True)
    return done.stdout


def test_an_installed_package_bot_is_found_with_its_version(installed):
    out = _run(installed, "from bohnanza_core.bots.registry import registry\n"
                          "b = registry()['cautious']\n"
                          "print(b.entrant, b.source, b.cls.__module__)")
    assert out.split() == ["cautious@0.1.0", "bohnanza-cautious-bot", "cautious_bot"]


def test_an_installed_bot_takes_a_seat_from_the_command_line(installed):
    out = _run(installed, "import sys\nfrom bohnanza_core.cli import main\n"
                          "sys.exit(main(['simulate', '--ruleset', 'classic', '--players', '3',"
                          " '--bots', 'cautious,heuristic,nontrading', '--games', '2',"
                          " '--seed', 'pkg']))")
    assert "(cautious, heuristic, nontrading; fixed seats)" in out
    assert any(line.startswith("cautious ") for line in out.splitlines())
