"""Bots installed as packages (entry point group ``bohnanza.bots``): the example under
examples/ is pip-installed into a folder of its own, then seated by the command line."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bohnanza_core.bots import BOTS, Bot, legal_moves
from bohnanza_core.bots import registry as registry_module
from bohnanza_core.bots.registry import (
    BUILTIN,
    ENTRANT_MAX,
    MAX_NAME,
    MAX_VERSION,
    by_entrant,
    refresh,
    registry,
)
from bohnanza_core.commands import Command
from bohnanza_core.engine import SEAT_NAME_MAX, OfferShape
from bohnanza_core.rulesets import MAX_PLAYERS, ruleset_for
from bohnanza_core.seatview import SeatView
from bohnanza_core.simulator import bot_classes, play_game, seat_names

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


# -- how long a bot's name may be ---------------------------------------------------------


@dataclass(frozen=True)
class _Distribution:
    name: str
    version: str


@dataclass(frozen=True)
class _EntryPoint:
    """What ``importlib.metadata`` finds for an installed bot, without installing one."""

    name: str
    bot: type[Bot]
    dist: _Distribution

    def load(self) -> type[Bot]:
        return self.bot


def _named(name: str) -> type[Bot]:
    """A bot class called ``name`` that plays as the example package's bot does."""

    class Named(Bot):
        def act(self, view: SeatView) -> Command | None:
            if self.seat not in view.awaiting:
                return None
            moves = [m for m in legal_moves(view) if not isinstance(m, OfferShape)]
            return moves[0] if moves else None

    Named.name = name
    return Named


@pytest.fixture
def installing(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., None]]:
    """Install bots by name (at a version) as entry points the registry finds."""
    def install(*names: str, version: str = "1.0") -> None:
        points = [_EntryPoint(name, _named(name), _Distribution(f"dist-{i}", version))
                  for i, name in enumerate(names)]
        monkeypatch.setattr(registry_module, "entry_points", lambda group: points)
        refresh()

    yield install
    monkeypatch.undo()
    refresh()


def test_the_longest_bot_name_plays_every_seat_of_the_largest_table(
        installing: Callable[..., None]) -> None:
    """A bot's seat is named ``<bot> <seat number>``: the longest name the registry takes
    leaves room for the number within the engine's seat names. (A 40-character bot was
    registered, and every game it was seated in was refused.)"""
    longest = "n" * MAX_NAME
    installing(longest)
    seats = seat_names([longest] * MAX_PLAYERS)
    assert max(len(seat) for seat in seats) == SEAT_NAME_MAX
    record = play_game(ruleset_for("finnish", MAX_PLAYERS), bot_classes([longest] * MAX_PLAYERS),
                       "longest-bot", names=seats)
    assert record.result is not None


def test_a_bot_named_too_long_for_its_seats_is_left_out(
        installing: Callable[..., None], caplog: pytest.LogCaptureFixture) -> None:
    longer = "n" * (MAX_NAME + 1)
    installing(longer, "cautious")
    assert longer not in registry() and "cautious" in registry()
    assert "has no usable name; left out" in caplog.text


def test_a_version_is_kept_to_its_bound(installing: Callable[..., None]) -> None:
    installing("cautious", version="1." + "0" * 100)
    assert len(registry()["cautious"].version) == MAX_VERSION
    assert len(registry()["cautious"].entrant) <= ENTRANT_MAX
