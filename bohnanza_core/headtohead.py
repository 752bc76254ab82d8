"""Is bot A stronger than bot B, and by how much? Seat-rotated duplicate sets until the
generalised SPRT (:class:`~bohnanza_core.ratings.Gsprt`) accepts one of its bounds.

A set is one deal played once per seat rotation of a lineup that alternates A and B
(A, B for two seats; A, B, A, B for four): every seat of the deal is played by A and
by B equally often, so neither the deal nor the seat favours anyone (at an odd table A
has one seat more; the score compares A's seats with B's pair by pair). A set's sample
is A's average pairwise score against B (:func:`~bohnanza_core.ratings.pairwise_score`)
over its games. Set i plays the deal of
seed ``"{seed}:{i}"``, so a test is reproducible from its seed alone (the platform's
runs show theirs, and ``bohnanza head-to-head`` with it plays the same games).

H0 says A is no more than ``elo0`` stronger than B, H1 that it is ``elo1`` stronger;
with the defaults [0, 5] a test ends with H0 accepted when the bots are alike (a bot
against itself), and with H1 when A is better by 5 Elo or more.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bohnanza_core.bots import Bot
from bohnanza_core.pairings import rotations
from bohnanza_core.ratings import Gsprt, GsprtVerdict, pairwise_score
from bohnanza_core.rulesets import Ruleset
from bohnanza_core.simulator import SimulationError, bot_classes, play_game

MAX_SETS = 20_000


@dataclass(frozen=True)
class HeadToHead:
    a: str
    b: str
    test: Gsprt
    verdict: GsprtVerdict

    def summary(self) -> str:
        return summary(self.a, self.b, self.test, self.verdict)


def summary(a: str, b: str, test: Gsprt, v: GsprtVerdict) -> str:
    """The verdict in one line: which hypothesis, A's score against B and the Elo
    difference, each with its interval, the LLR within its bounds."""
    elo = (f"Elo {a} - {b}: {v.elo.value + 0.0:+.1f} [{v.elo.low:+.1f}, {v.elo.high:+.1f}] "
           f"(95%); score {a} vs {b}: {v.score.value:.3f} [{v.score.low:.3f}, "
           f"{v.score.high:.3f}]; LLR {v.llr:.2f} in [{v.lower:.2f}, {v.upper:.2f}]")
    after = f"after {v.games} games ({v.samples} sets)"
    if v.accepted == "H1":
        return (f"H1 accepted {after}: {a} is stronger than {b} by {test.elo1:g} Elo or "
                f"more; {elo}")
    if v.accepted == "H0":
        return (f"H0 accepted {after}: {a} is not stronger than {b} by more than "
                f"{test.elo0:g} Elo; {elo}")
    return f"undecided {after} between H0 (elo {test.elo0:g}) and H1 ({test.elo1:g}); {elo}"


def check_table(ruleset: Ruleset, players: int) -> None:
    if players not in ruleset.players:
        raise SimulationError(f"{ruleset.name} is not played by {players} players")


def play_set(ruleset: Ruleset, players: int, a: type[Bot], b: type[Bot], seed: str,
             i: int, lone: bool = False) -> tuple[float, int]:
    """Set ``i``: its deal played once per seat rotation; A's average score against B
    over its games, and how many games it took. ``lone``: A takes one seat and B all
    the others (A against a table of Bs), instead of A and B alternating."""
    scores = []
    for lineup in rotations(range(players)):
        a_places = [s for s, p in enumerate(lineup) if (p == 0 if lone else p % 2 == 0)]
        record = play_game(ruleset, [a if s in a_places else b for s in range(players)],
                           f"{seed}:{i}")
        scores.append(pairwise_score(record.result.ranks, a_places,
                                     [s for s in range(players) if s not in a_places]))
    return sum(scores) / len(scores), len(scores)


def head_to_head(
    ruleset: Ruleset, players: int, a: str, b: str, seed: str, *,
    test: Gsprt | None = None, max_sets: int = 2000,
    on_set: Callable[[float, GsprtVerdict], None] | None = None, lone: bool = False,
) -> HeadToHead:
    """Play sets until the test accepts a hypothesis or ``max_sets`` are played."""
    check_table(ruleset, players)
    if not 1 <= max_sets <= MAX_SETS:
        raise SimulationError(f"play 1 to {MAX_SETS} sets, not {max_sets}")
    test = test if test is not None else Gsprt()
    a_class, b_class = bot_classes([a, b])
    counts: dict[float, float] = {}
    games = 0
    verdict = test.verdict_of(counts, games)
    for i in range(max_sets):
        score, played = play_set(ruleset, players, a_class, b_class, seed, i, lone)
        games += played
        test.count([score], counts)
        verdict = test.verdict_of(counts, games)
        if on_set is not None:
            on_set(score, verdict)
        if verdict.decided:
            break
    return HeadToHead(a, b, test, verdict)


__all__ = ["MAX_SETS", "HeadToHead", "check_table", "head_to_head", "play_set", "summary"]
