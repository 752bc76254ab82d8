"""The ``bohnanza`` command: play bot games from a terminal and list the rulesets.

    bohnanza simulate --ruleset classic --players 4 --bots heuristic,nontrading,random,heuristic \\
        --games 100 --seed s [--rule KEY=VALUE ...] [--rotate] [--log] [--export DIR]
    bohnanza head-to-head A B --ruleset R [--players N] --seed S [--elo0 E0 --elo1 E1]
        [--alpha A --beta B] [--max-sets M]
    bohnanza rules [NAME]
    bohnanza verify FILE [--head HASH]

Mistakes (an unknown bot or ruleset, an unsupported player count, a file that cannot
be opened) are reported on stderr with exit code 2, like argparse's own usage errors.
``verify`` exits 0 for a valid record and 1 for an invalid one. Output piped into a
reader that stops early (``| head``) ends quietly with :data:`BROKEN_PIPE`.
"""

from __future__ import annotations

import argparse
import io
import os
import signal
import sys
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any, NoReturn

from bohnanza_core import BUILD
from bohnanza_core.bots import BOTS
from bohnanza_core.bots.registry import registry
from bohnanza_core.errors import RulesetError
from bohnanza_core.narrate import narrate
from bohnanza_core.rulesets import PRESETS, Ruleset, customize, rule_overrides, ruleset_for
from bohnanza_core.simulator import GameRecord, SimulationError, simulate

USAGE_ERROR = 2


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so :func:`main` can return the code."""

    def error(self, message: str) -> NoReturn:
        raise _UsageError(f"{self.format_usage()}{self.prog}: error: {message}")


class _UsageError(Exception):
    pass


def version_line() -> str:
    """The installed version and the engine's build: ``compiled (mypyc)`` or
    ``pure Python (why)`` (bohnanza_core/build.py)."""
    try:
        installed = metadata.version("bohnanza-platform")
    except metadata.PackageNotFoundError:
        installed = "(not installed)"
    return f"bohnanza {installed}; engine: {BUILD}"


def _parser() -> _Parser:
    parser = _Parser(prog="bohnanza", description="Bohnanza: bot games and rulesets.")
    parser.add_argument("--version", action="version", version=version_line(),
                        help="the version and which build of the engine runs")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    sim = commands.add_parser("simulate", help="play games between bots and print the results")
    sim.add_argument("--ruleset", required=True, help=f"one of: {', '.join(PRESETS)}")
    sim.add_argument("--players", required=True, type=int)
    sim.add_argument(
        "--bots", required=True,
        help=f"one bot per seat, comma-separated, or one for every seat ({', '.join(BOTS)})",
    )
    sim.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                     help="a house rule over the ruleset (repeat for more): draw_cards=3, "
                          "trading=false, players=[2,3,4]; see `bohnanza rules NAME`")
    sim.add_argument("--games", type=int, default=1)
    sim.add_argument("--seed", required=True, help="game i is played with seed SEED:i")
    sim.add_argument("--rotate", action="store_true",
                     help="rotate the bots one seat each game, so every bot sits everywhere")
    sim.add_argument("--log", action="store_true", help="print every game's log first")
    sim.add_argument("--export", metavar="DIR", type=Path,
                     help="write each game as JSON Lines to DIR/game-00000.jsonl, ...")

    duel = commands.add_parser(
        "head-to-head", help="is bot A stronger than bot B, and by how much? seat-rotated "
                             "duplicate sets until the generalised SPRT accepts H0 (A is "
                             "at most ELO0 stronger) or H1 (A is ELO1 stronger)")
    duel.add_argument("a", help="bot A")
    duel.add_argument("b", help="bot B")
    duel.add_argument("--ruleset", required=True, help=f"one of: {', '.join(PRESETS)}")
    duel.add_argument("--players", type=int, default=2,
                      help="seats, A and B alternating (default 2)")
    duel.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE")
    duel.add_argument("--seed", required=True, help="set i plays the deal of seed SEED:i")
    duel.add_argument("--elo0", type=float, default=0.0,
                      help="H0: A is at most this many Elo stronger (default 0)")
    duel.add_argument("--elo1", type=float, default=5.0,
                      help="H1: A is this many Elo stronger (default 5)")
    duel.add_argument("--alpha", type=float, default=0.05,
                      help="the chance of accepting H1 when H0 holds (default 0.05)")
    duel.add_argument("--beta", type=float, default=0.05,
                      help="the chance of accepting H0 when H1 holds (default 0.05)")
    duel.add_argument("--max-sets", type=int, default=2000)
    duel.add_argument("--lone", action="store_true",
                      help="A takes one seat and B every other (A against a table of Bs); "
                           "by default A and B alternate")

    rules = commands.add_parser("rules", help="list the rulesets and their parameters")
    rules.add_argument("name", nargs="?", help="show only this ruleset")

    verify = commands.add_parser(
        "verify", help="audit an exported game: hash chain, seed, shuffles and rules")
    verify.add_argument("file", type=Path, help="a game exported as JSON Lines ('-': stdin)")
    verify.add_argument("--head", type=head_hash,
                        help="the head hash you were shown during the game")

    told = commands.add_parser(
        "narrate", help="tell an exported game in words, one line per event (a move the "
                        "clock played told as the clock's)")
    told.add_argument("file", type=Path, help="a game exported as JSON Lines ('-': stdin)")
    return parser


INVALID = 1


def _read(path: Path) -> str:
    if str(path) == "-":
        return sys.stdin.read()
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SimulationError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotText(f"{path} is not UTF-8 text (byte {exc.start}): a game export is "
                      "JSON Lines in UTF-8") from None


class NotText(SimulationError):
    """A file that opens but holds no UTF-8 text: for ``verify``, a record that cannot
    be read (exit 1, as an invalid one), not a mistake on the command line."""


def head_hash(text: str) -> str:
    """``--head``: a SHA-256 hex digest as a seat was shown it, in either case."""
    from bohnanza_core.verify import given_head

    try:
        return given_head(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _narrate(args: argparse.Namespace) -> int:
    from bohnanza_core.export import ExportError, read_jsonl

    try:
        game_file = read_jsonl(_read(args.file))
        actors = [entry.actor for entry in game_file.entries] if game_file.entries else None
        for line in narrate(game_file.events, actors=actors):
            print(line)
    except (ExportError, ValueError) as exc:
        print(f"bohnanza: {exc}", file=sys.stderr)
        return INVALID
    return 0


def _verify(args: argparse.Namespace) -> int:
    from bohnanza_core.verify import verify_text

    try:
        text = _read(args.file)
    except NotText as exc:
        print(f"INVALID: the file cannot be read: {exc}")
        return INVALID
    verdict = verify_text(text, expected_head=args.head)
    print(verdict.report())
    return 0 if verdict.ok else INVALID


def _lineup(bots: str, players: int) -> list[str]:
    names = [name.strip() for name in bots.split(",") if name.strip()]
    if len(names) == 1:
        names *= players
    if len(names) != players:
        raise SimulationError(
            f"--bots names {len(names)} bots for {players} players; "
            "give one per seat or a single one for all"
        )
    known = registry()
    unknown = sorted({name for name in names if name not in known})
    if unknown:
        raise SimulationError(f"unknown bot(s): {', '.join(unknown)}; known: {', '.join(known)}")
    return names


def _ruleset(args: argparse.Namespace) -> Ruleset:
    """The preset for the table, with the ``--rule`` house rules over it."""
    ruleset = ruleset_for(args.ruleset, args.players)  # refuse a bad table first
    if not args.rule:
        return ruleset
    return customize(args.ruleset, args.players, rule_overrides(args.rule))


def _progress(score: float, verdict: Any) -> None:
    """Each set's line on stderr, so that a long test shows where it stands."""
    print(f"set {verdict.samples}: {score:.3f}; games {verdict.games}, score "
          f"{verdict.score.value:.3f} [{verdict.score.low:.3f}, {verdict.score.high:.3f}], "
          f"Elo {verdict.elo.value:+.1f}, LLR {verdict.llr:.2f}", file=sys.stderr, flush=True)


def _head_to_head(args: argparse.Namespace) -> int:
    from bohnanza_core.headtohead import head_to_head
    from bohnanza_core.ratings import Gsprt

    try:
        test = Gsprt(args.elo0, args.elo1, args.alpha, args.beta)
    except ValueError as bad:
        raise SimulationError(f"--elo0, --elo1, --alpha, --beta: {bad}") from None
    ruleset = _ruleset(args)
    result = head_to_head(ruleset, args.players, args.a, args.b, args.seed, test=test,
                          max_sets=args.max_sets, lone=args.lone, on_set=_progress)
    print(result.summary())
    return 0


def _simulate(args: argparse.Namespace) -> int:
    if args.games < 1:
        raise SimulationError("--games must be at least 1")
    ruleset = _ruleset(args)
    lineup = _lineup(args.bots, args.players)
    export_dir: Path | None = args.export
    write: Any = None
    if export_dir is not None:
        from bohnanza_core.export import export_jsonl

        export_dir.mkdir(parents=True, exist_ok=True)
        write = export_jsonl

    def on_game(i: int, record: GameRecord) -> None:
        if args.log:
            print(f"== game {i} (seed {record.seed!r}) ==")
            for line in narrate(record.events):
                print(line)
            print()
        if write is not None:
            assert export_dir is not None
            path = export_dir / f"game-{i:05d}.jsonl"
            path.write_bytes(write(record.events).encode("utf-8"))

    report = simulate(ruleset, args.players, lineup, args.games, args.seed,
                      rotate=args.rotate, on_game=on_game)
    print(report.table())
    if export_dir is not None:
        print(f"exported {args.games} game(s) to {export_dir}")
    return 0


def _value(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) if value else "-"
    if value is None:
        return "-"
    return str(value)


def describe_ruleset(ruleset: Ruleset) -> str:
    """Every parameter of one band of a preset, one per line."""
    lines = [f"{ruleset.name} ({ruleset.players_label} players): {ruleset.description}"]
    params = ruleset.parameters()
    width = max(len(name) for name in params)
    for name, value in params.items():
        if name not in ("name", "description"):
            lines.append(f"  {name:<{width}}  {_value(value)}")
    return "\n".join(lines)


def _rules(args: argparse.Namespace) -> int:
    if args.name is not None and args.name not in PRESETS:
        raise RulesetError(f"unknown ruleset {args.name!r}; known: {', '.join(PRESETS)}")
    names = [args.name] if args.name else list(PRESETS)
    blocks = [describe_ruleset(band) for name in names for band in PRESETS[name]]
    if args.name is None:
        blocks.insert(0, f"Rulesets: {', '.join(PRESETS)}")
    print("\n\n".join(blocks))
    return 0


BROKEN_PIPE = 128 + getattr(signal, "SIGPIPE", 13)
"""The exit code when the reader of our output went away (``bohnanza verify F | head``):
the one a shell reports for a process ended by SIGPIPE, so it is not taken for a
verdict (0 valid, 1 invalid) or a usage error (2)."""


def _reader_gone() -> int:
    """Stdout's reader has closed the pipe: stop writing, quietly.

    Python's signal docs ("Note on SIGPIPE"): point stdout at devnull, so that the
    interpreter's last flush at exit does not fail again with a second traceback."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):  # no real file under stdout
        pass
    return BROKEN_PIPE


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv`` (default: the process's); return the exit code."""
    try:
        code = _main(argv)
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's exit
    except BrokenPipeError:
        return _reader_gone()
    return code


def _main(argv: Sequence[str] | None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
        if args.command == "simulate":
            return _simulate(args)
        if args.command == "head-to-head":
            return _head_to_head(args)
        if args.command == "verify":
            return _verify(args)
        if args.command == "narrate":
            return _narrate(args)
        return _rules(args)
    except _UsageError as exc:
        print(exc, file=sys.stderr)
        return USAGE_ERROR
    except SystemExit as exc:  # --help
        return exc.code if isinstance(exc.code, int) else 0
    except (RulesetError, SimulationError) as exc:
        print(f"bohnanza: {exc}", file=sys.stderr)
        return USAGE_ERROR


if __name__ == "__main__":
    sys.exit(main())
