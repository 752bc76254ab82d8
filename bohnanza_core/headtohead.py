"""Is bot A stronger than bot B? Seat-rotated duplicate sets until the SPRT decides.

A set is one deal played once per seat rotation of a lineup that alternates A and B
(A, B for two seats; A, B, A, B for four): every seat of the deal is played by A and
by B equally often, so neither the deal nor the seat favours anyone. A set's sample
is A's average pairwise score against B (:func:`~bohnanza_core.ratings.pairwise_score`)
over its games; :class:`~bohnanza_core.ratings.Sprt` says after each set whether one
side is significantly stronger. Set i plays the deal of seed ``"{seed}:{i}"``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bohnanza_core.pairings import rotations
from bohnanza_core.ratings import Sprt, SprtVerdict, pairwise_score
from bohnanza_core.rulesets import Ruleset
from bohnanza_core.simulator import SimulationError, bot_classes, play_game

MAX_SETS = 5_000


@dataclass(frozen=True)
class HeadToHead:
    a: str
    b: str
    verdict: SprtVerdict
    score: float
    """A's average score against B over every game played (0.5: level)."""

    def summary(self) -> str:
        v = self.verdict
        if v.stronger is None:
            return (f"undecided after {v.games} games ({v.samples} sets): {self.a} scored "
                    f"{self.score:.1%} against {self.b}; LLR {v.llr:.2f} within "
                    f"[{v.lower:.2f}, {v.upper:.2f}]")
        winner, loser = (self.a, self.b) if v.stronger == "A" else (self.b, self.a)
        return (f"{winner} is stronger than {loser}, after {v.games} games ({v.samples} "
                f"sets): {self.a} scored {self.score:.1%} against {self.b}; LLR {v.llr:.2f} "
                f"outside [{v.lower:.2f}, {v.upper:.2f}]")


def head_to_head(
    ruleset: Ruleset, players: int, a: str, b: str, seed: str, *,
    sprt: Sprt | None = None, max_sets: int = 1000,
    on_set: Callable[[SprtVerdict], None] | None = None,
) -> HeadToHead:
    """Play sets until the test decides or ``max_sets`` are played."""
    if players not in ruleset.players:
        raise SimulationError(f"{ruleset.name} is not played by {players} players")
    if not 1 <= max_sets <= MAX_SETS:
        raise SimulationError(f"play 1 to {MAX_SETS} sets, not {max_sets}")
    test = sprt if sprt is not None else Sprt()
    a_class, b_class = bot_classes([a, b])
    samples: list[float] = []
    games = 0
    verdict = test.verdict(samples, games)
    for i in range(max_sets):
        scores = []
        for lineup in rotations(range(players)):  # place p is A's when p is even
            record = play_game(ruleset, [b_class if p % 2 else a_class for p in lineup],
                               f"{seed}:{i}")
            scores.append(pairwise_score(
                record.result.ranks, [s for s, p in enumerate(lineup) if p % 2 == 0],
                [s for s, p in enumerate(lineup) if p % 2]))
            games += 1
        samples.append(sum(scores) / len(scores))
        verdict = test.verdict(samples, games)
        if on_set is not None:
            on_set(verdict)
        if verdict.decided:
            break
    return HeadToHead(a, b, verdict, sum(samples) / len(samples))


__all__ = ["MAX_SETS", "HeadToHead", "head_to_head"]
