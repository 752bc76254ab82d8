"""The ``bohnanza`` command, run in-process through :func:`main` (and in a subprocess
where a pipe to a reader that stops early matters)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bohnanza_core.cli import main
from bohnanza_core.export import read_jsonl
from bohnanza_core.rederive import rederive
from bohnanza_core.rulesets import PRESETS, Ruleset

SIM = ["simulate", "--ruleset", "classic", "--players", "4", "--seed", "cli"]


def test_simulate_prints_the_results_table(capsys):
    assert main([*SIM, "--bots", "heuristic,nontrading,random,heuristic", "--games", "3"]) == 0
    out = capsys.readouterr().out
    assert "3 games of classic, 4 players (heuristic, nontrading, random, heuristic" in out
    for needle in ("avg coins", "win rate", "heuristic", "nontrading", "random",
                   "average turns:", "games per second:", "events per second:"):
        assert needle in out
    assert len([line for line in out.splitlines() if line[:1].isdigit()]) >= 4  # the seats


def test_one_bot_name_fills_every_seat(capsys):
    assert main([*SIM, "--bots", "nontrading", "--games", "2", "--rotate"]) == 0
    out = capsys.readouterr().out
    assert "(nontrading, nontrading, nontrading, nontrading; rotated each game)" in out
    assert "nontrading            8" in out


@pytest.mark.parametrize("argv, message", [
    ([*SIM, "--bots", "clever"], "unknown bot(s): clever; known: random, nontrading, heuristic"),
    ([*SIM, "--bots", "random,random"], "--bots names 2 bots for 4 players"),
    (["simulate", "--ruleset", "classik", "--players", "4", "--bots", "random", "--seed", "s"],
     "unknown ruleset 'classik'; known: classic, amigo-en, rio-grande, finnish, duel"),
    (["simulate", "--ruleset", "classic", "--players", "2", "--bots", "random", "--seed", "s"],
     "classic is played by 3-5 players, not 2; for 2 players use: finnish, duel"),
    (["simulate", "--ruleset", "duel", "--players", "4", "--bots", "random", "--seed", "s"],
     "duel is played by 2 players, not 4"),
    ([*SIM, "--bots", "random", "--games", "0"], "--games must be at least 1"),
    (["simulate", "--ruleset", "classic"], "the following arguments are required"),
    ([*SIM, "--bots", "random", "--players", "four"], "invalid int value: 'four'"),
    (["rules", "monopoly"], "unknown ruleset 'monopoly'"),
    ([], "the following arguments are required: command"),
])
def test_mistakes_exit_2_with_a_clear_message(capsys, argv, message):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert message in captured.err
    assert captured.out == ""


def test_rules_prints_every_preset_and_every_parameter(capsys):
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Rulesets: classic, amigo-en, rio-grande, finnish, duel")
    for bands in PRESETS.values():
        for band in bands:
            assert f"{band.name} ({band.players_label} players): {band.description}" in out
    for name in Ruleset.__dataclass_fields__:
        if name not in ("name", "description"):
            assert f"  {name} " in out
    assert "third_field_cost                  2" in out  # rio-grande, 6-7 players
    assert "tie_break                         shared win" in out  # finnish


def test_rules_name_prints_only_that_preset(capsys):
    assert main(["rules", "rio-grande"]) == 0
    out = capsys.readouterr().out
    assert out.count("rio-grande (") == 3 and "classic" not in out
    assert "ends_on_run_out                   2" in out


def test_log_tells_every_game(capsys):
    argv = ["simulate", "--ruleset", "duel", "--players", "2", "--bots", "heuristic,random",
            "--games", "2", "--seed", "log", "--log"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.count("A game of duel begins") == 2
    assert "== game 1 (seed 'log:1') ==" in out
    assert "Turn 1: heuristic 1's turn" in out and out.count("Game over:") == 2
    assert out.index("Game over:") < out.index("2 games of duel")


def test_export_writes_byte_identical_games(tmp_path, capsys):
    argv = [*SIM, "--bots", "heuristic,random,nontrading,heuristic", "--games", "3", "--rotate"]
    first, second = tmp_path / "one", tmp_path / "two"
    assert main([*argv, "--export", str(first)]) == 0
    assert main([*argv, "--export", str(second)]) == 0
    assert "exported 3 game(s) to" in capsys.readouterr().out
    names = sorted(p.name for p in first.iterdir())
    assert names == ["game-00000.jsonl", "game-00001.jsonl", "game-00002.jsonl"]
    for name in names:
        assert (first / name).read_bytes() == (second / name).read_bytes()
    text = (first / "game-00001.jsonl").read_text()
    header = json.loads(text.splitlines()[0])
    assert header["format"] == "bohnanza-game" and header["perspective"] == "everything"
    game = read_jsonl(text)
    assert game.events[0].seats == ("random 1", "nontrading 2", "heuristic 3", "heuristic 4")
    assert rederive(game.events).ok


# -- a reader that stops early (``bohnanza verify FILE | head``) ---------------------

ROOT = Path(__file__).resolve().parents[2]
BROKEN_PIPE = 128 + 13  # SIGPIPE


def _cli(*argv: str, stdout: Any) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "bohnanza_core.cli", *argv], cwd=ROOT,
                            stdout=stdout, stderr=subprocess.PIPE)


@pytest.fixture(scope="module")
def exported_game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("pipe")
    assert main([*SIM, "--bots", "heuristic", "--export", str(folder)]) == 0
    return folder / "game-00000.jsonl"


def test_verify_into_a_reader_that_has_gone_ends_quietly(exported_game: Path) -> None:
    """`bohnanza verify FILE | head`, with the reader gone before the verdict is
    printed: no traceback, the exit code of a process ended by SIGPIPE (128 + 13), as
    Python's signal docs ("Note on SIGPIPE") advise."""
    read, write = os.pipe()
    os.close(read)
    with os.fdopen(write, "wb") as pipe:
        process = _cli("verify", str(exported_game), stdout=pipe)
    _, err = process.communicate(timeout=60)
    assert err.decode() == ""
    assert process.returncode == BROKEN_PIPE


def test_a_long_log_into_a_reader_that_stops_after_one_line_ends_quietly() -> None:
    """`bohnanza simulate --log ... | head -1`: more than a pipe holds, read one line."""
    process = _cli("simulate", "--ruleset", "classic", "--players", "4", "--bots", "random",
                   "--games", "5", "--seed", "pipe", "--log", stdout=subprocess.PIPE)
    assert process.stdout is not None
    assert process.stdout.readline().startswith(b"== game 0")
    process.stdout.close()
    _, err = process.communicate(timeout=120)
    assert err.decode() == ""
    assert process.returncode == BROKEN_PIPE


def test_house_rules_from_the_command_line(capsys):
    assert main([*SIM, "--bots", "heuristic", "--games", "2", "--rule", "draw_cards=3",
                 "--rule", "tie_break=shared win"]) == 0
    assert "2 games of classic (house rules), 4 players" in capsys.readouterr().out


@pytest.mark.parametrize("rule, message", [
    ("draw_cards=x", "rule option draw_cards: 'x' is not a valid int"),
    ("colour=red", "unknown rule option 'colour'"),
    ("draw_cards", "a house rule is written KEY=VALUE, not 'draw_cards'"),
    ("draw_cards=" + "9" * 300, "at most 200 characters"),
    ("name=mine", "name cannot be overridden"),
])
def test_bad_house_rules_exit_2_with_a_clear_message(capsys, rule, message):
    assert main([*SIM, "--bots", "heuristic", "--rule", rule]) == 2
    assert message in capsys.readouterr().err


def test_head_to_head_says_which_bot_is_stronger(capsys):
    assert main(["head-to-head", "heuristic", "random", "--ruleset", "duel",
                 "--seed", "cli", "--elo0", "0", "--elo1", "20"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("H1 accepted after ")
    assert "heuristic is stronger than random by 20 Elo or more; Elo heuristic - random: +" in out
    assert "(95%); score heuristic vs random: " in out and "]; LLR " in out


def test_head_to_head_refuses_bounds_the_wrong_way_round(capsys):
    assert main(["head-to-head", "heuristic", "random", "--ruleset", "duel",
                 "--seed", "cli", "--elo0", "5", "--elo1", "0"]) == 2
    assert "elo0 < elo1" in capsys.readouterr().err
