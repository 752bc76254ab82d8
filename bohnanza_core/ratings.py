"""Statistics and the head-to-head test: how entrants compare over many games.

- :func:`entrant_statistics`: average coins and win rate, overall and by seat, each
  with its 95% confidence interval (Student-t-free: the normal interval for coins,
  Wilson's for win rates, which stays inside 0-100% for few games);
  :func:`statistics_from_moments` the same from sums a database adds up.
- :class:`Sprt`: the sequential probability ratio test chess engine testing uses
  (fishtest's normal approximation of the generalised SPRT) on one sample per
  seat-rotated duplicate set, stopping as soon as one side is significantly stronger.

Imports only the standard library, as all of ``bohnanza_core`` (docs/DESIGN): the
command line's head-to-head uses it. The ratings (openskill) are in
``tournaments/core/ratings.py``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

Z95 = 1.959963984540054
"""The two-sided 95% point of the standard normal."""


# -- statistics ---------------------------------------------------------------------


@dataclass(frozen=True)
class Interval:
    """An estimate with its 95% confidence interval."""

    value: float
    low: float
    high: float

    def tells(self, widest: float) -> bool:
        """Whether the interval says something: it has a width, at most ``widest`` (a
        win rate of "100% (21-100%)" after two games says less than nothing, and
        pages leave such an interval out)."""
        return 0 < self.high - self.low <= widest


def mean_interval(values: Sequence[float]) -> Interval:
    """The mean and its normal 95% interval (a single value: the value, no width), for
    coins: never below 0, where the normal interval of a few low scores would reach."""
    n = len(values)
    if n == 0:
        return Interval(0.0, 0.0, 0.0)
    mean = sum(values) / n
    if n == 1:
        return Interval(mean, mean, mean)
    return _normal(n, mean, sum((v - mean) ** 2 for v in values) / (n - 1))


def _normal(n: int, mean: float, variance: float) -> Interval:
    half = Z95 * math.sqrt(max(0.0, variance) / n)
    return Interval(mean, max(0.0, mean - half), mean + half)


def wilson_interval(successes: float, n: int) -> Interval:
    """A rate and Wilson's 95% interval; ``successes`` may be fractional (shared wins)."""
    if n == 0:
        return Interval(0.0, 0.0, 1.0)
    p = successes / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return Interval(p, max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True)
class SeatResult:
    """One entrant's result in one game."""

    entrant: str
    seat: int
    coins: int
    win: float
    """1 for a sole win, 1/k for a win shared by k seats, 0 otherwise."""


def seat_results(entrants: Sequence[str], coins: Sequence[int],
                 winners: Sequence[int]) -> list[SeatResult]:
    share = 1.0 / len(winners) if winners else 0.0
    return [SeatResult(e, seat, coins[seat], share if seat in winners else 0.0)
            for seat, e in enumerate(entrants)]


@dataclass(frozen=True)
class EntrantStatistics:
    entrant: str
    games: int
    coins: Interval
    win_rate: Interval
    by_seat: tuple[tuple[int, int, Interval, Interval], ...]
    """(seat, games, coins, win rate) for each seat the entrant took."""


def entrant_statistics(results: Iterable[SeatResult]) -> list[EntrantStatistics]:
    """Per entrant, overall and by seat (seats numbered from 0), in order of first game."""
    grouped: dict[str, list[SeatResult]] = {}
    for result in results:
        grouped.setdefault(result.entrant, []).append(result)

    def summary(rows: Sequence[SeatResult]) -> tuple[Interval, Interval]:
        return (mean_interval([r.coins for r in rows]),
                wilson_interval(sum(r.win for r in rows), len(rows)))

    stats = []
    for entrant, rows in grouped.items():
        coins, wins = summary(rows)
        seats = sorted({r.seat for r in rows})
        by_seat = []
        for seat in seats:
            mine = [r for r in rows if r.seat == seat]
            by_seat.append((seat, len(mine), *summary(mine)))
        stats.append(EntrantStatistics(entrant, len(rows), coins, wins, tuple(by_seat)))
    return stats


@dataclass(frozen=True)
class Moments:
    """The sums of some seat results that the intervals need: what a database adds up
    (``COUNT``, ``SUM``) for an entrant's games without sending them one by one."""

    games: int
    coins: float
    coins_squared: float
    wins: float
    """Win shares, as :attr:`SeatResult.win`."""

    def __add__(self, other: Moments) -> Moments:
        return Moments(self.games + other.games, self.coins + other.coins,
                       self.coins_squared + other.coins_squared, self.wins + other.wins)

    def coins_interval(self) -> Interval:
        """As :func:`mean_interval` of the coins summed here."""
        n = self.games
        if n == 0:
            return Interval(0.0, 0.0, 0.0)
        mean = self.coins / n
        if n == 1:
            return Interval(mean, mean, mean)
        return _normal(n, mean, (self.coins_squared - self.coins * mean) / (n - 1))

    def win_interval(self) -> Interval:
        return wilson_interval(self.wins, self.games)


def statistics_from_moments(entrant: str, by_seat: dict[int, Moments]) -> EntrantStatistics:
    """:func:`entrant_statistics` for one entrant from the sums of each seat's results."""
    seats = sorted(by_seat)
    overall = sum((by_seat[s] for s in seats), Moments(0, 0.0, 0.0, 0.0))
    return EntrantStatistics(
        entrant, overall.games, overall.coins_interval(), overall.win_interval(),
        tuple((s, by_seat[s].games, by_seat[s].coins_interval(), by_seat[s].win_interval())
              for s in seats))


# -- the head-to-head test ------------------------------------------------------------


def elo_score(elo: float) -> float:
    """The expected score of a player ``elo`` points stronger (logistic Elo)."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def pairwise_score(ranks: Sequence[int], a_seats: Sequence[int],
                   b_seats: Sequence[int]) -> float:
    """A's score against B in one game: over every (A seat, B seat) pair, 1 when A
    finished ahead, a half when level, 0 behind; averaged."""
    pairs = [(ranks[a], ranks[b]) for a in a_seats for b in b_seats]
    return sum(1.0 if ra < rb else 0.5 if ra == rb else 0.0 for ra, rb in pairs) / len(pairs)


@dataclass(frozen=True)
class SprtVerdict:
    llr: float
    lower: float
    upper: float
    samples: int
    games: int
    stronger: str | None
    """"A" or "B" once significant, else None (go on)."""

    @property
    def decided(self) -> bool:
        return self.stronger is not None


@dataclass(frozen=True)
class Sprt:
    """H1: A is ``elo`` points stronger than B; H0: B is ``elo`` points stronger than A.
    Accepting either says which way, with error rates ``alpha`` and ``beta``."""

    elo: float = 50.0
    alpha: float = 0.05
    beta: float = 0.05
    min_samples: int = 8
    """Sets before a verdict: the variance is estimated from the samples."""

    def __post_init__(self) -> None:
        if not (self.elo > 0 and 0 < self.alpha < 0.5 and 0 < self.beta < 0.5):
            raise ValueError("elo > 0, 0 < alpha, beta < 0.5")

    @property
    def bounds(self) -> tuple[float, float]:
        return (math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha))

    def llr(self, samples: Sequence[float]) -> float:
        """The log-likelihood ratio of H1 against H0 (normal approximation, as fishtest:
        each sample is A's score over one seat-rotated set, between 0 and 1)."""
        n = len(samples)
        if n < 2:
            return 0.0
        mean = sum(samples) / n
        variance = sum((s - mean) ** 2 for s in samples) / n
        variance = max(variance, 1e-4)  # identical samples: still a finite, decisive ratio
        s0, s1 = elo_score(-self.elo), elo_score(self.elo)
        return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)

    def verdict(self, samples: Sequence[float], games: int) -> SprtVerdict:
        lower, upper = self.bounds
        llr = self.llr(samples) if len(samples) >= self.min_samples else 0.0
        stronger = "A" if llr >= upper else "B" if llr <= lower else None
        return SprtVerdict(llr, lower, upper, len(samples), games, stronger)


__all__ = [
    "Z95",
    "Interval",
    "Moments",
    "SeatResult",
    "Sprt",
    "SprtVerdict",
    "elo_score",
    "entrant_statistics",
    "mean_interval",
    "pairwise_score",
    "seat_results",
    "statistics_from_moments",
    "wilson_interval",
]
