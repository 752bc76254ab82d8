"""Statistics and the head-to-head test: how entrants compare over many games.

- :func:`entrant_statistics`: average coins and win rate, overall and by seat, each
  with its 95% confidence interval (Student-t-free: the normal interval for coins,
  Wilson's for win rates, which stays inside 0-100% for few games);
  :func:`statistics_from_moments` the same from sums a database adds up.
- :class:`Gsprt`: the generalised sequential probability ratio test chess engine
  testing uses (fishtest's GSPRT) on one sample per seat-rotated duplicate set, between
  two Elo bounds ``elo0`` and ``elo1``: it stops when either hypothesis is accepted, and
  says the Elo difference with its 95% interval.

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


def score_elo(score: float) -> float:
    """The logistic Elo difference that gives the expected ``score`` (0 < score < 1)."""
    return -400.0 * math.log10(1.0 / score - 1.0)


PRIOR = 0.5
"""Pseudo-samples the test adds at each end of the scale (a score of 0 and one of 1)
before it estimates anything: the guard against degenerate variance. Samples that are
all alike (a bot against itself, where every set scores exactly one half) would
otherwise have no variance at all, and the normal approximation's LLR, which divides
by it, ran to 5,717 on them; with the prior the variance is never 0, a mean is always
reachable by the maximum-likelihood distributions below, and the LLR of each sample is
bounded. Its weight fades as samples come in (one sample's worth in all)."""


def _shifted(atoms: Sequence[tuple[float, float]], mean: float) -> list[float]:
    """The maximum-likelihood distribution on the observed scores ``atoms`` ((score,
    weight) pairs) whose mean is ``mean``: p_j = w_j / (W (1 + t (x_j - mean))), with t
    the root of sum w_j (x_j - mean) / (1 + t (x_j - mean)) = 0 (Van den Bergh's
    derivation of the generalised SPRT, as fishtest computes it). The atoms reach both
    sides of ``mean`` (the prior puts weight at 0 and 1), so the root is in the open
    interval where every 1 + t (x_j - mean) > 0; the function falls there, and Newton's
    steps are kept inside by bisection."""
    lo = -1.0 / (1.0 - mean) if mean < 1 else -math.inf
    hi = 1.0 / mean if mean > 0 else math.inf
    t = 0.0
    for _ in range(100):
        g = dg = 0.0
        for x, w in atoms:
            d = x - mean
            q = 1.0 + t * d
            g += w * d / q
            dg -= w * d * d / (q * q)
        if g > 0:
            lo = t
        else:
            hi = t
        if abs(g) < 1e-12:
            break
        step = t - g / dg if dg < 0 else (lo + hi) / 2
        t = step if lo < step < hi else (lo + hi) / 2
    total = sum(w for _, w in atoms)
    return [w / (total * (1.0 + t * (x - mean))) for x, w in atoms]


@dataclass(frozen=True)
class GsprtVerdict:
    """Where the test stands: the LLR and its bounds, the samples (sets) and games so
    far, which hypothesis is accepted (``"H0"``: A is no more than ``elo0`` stronger;
    ``"H1"``: A is at least ``elo1`` stronger; None: go on), and A's mean score against
    B and the Elo difference it gives, each with its 95% interval."""

    llr: float
    lower: float
    upper: float
    samples: int
    games: int
    accepted: str | None
    elo: Interval
    score: Interval

    @property
    def decided(self) -> bool:
        return self.accepted is not None


@dataclass(frozen=True)
class Gsprt:
    """The generalised sequential probability ratio test (fishtest's GSPRT) of H0: A's
    Elo advantage over B is ``elo0`` against H1: it is ``elo1`` (logistic Elo, as the
    expected score: :func:`elo_score`), with error rates ``alpha`` (H1 accepted when H0
    holds) and ``beta`` (H0 accepted when H1 holds).

    Its samples are A's scores over seat-rotated duplicate sets (``bohnanza_core.
    headtohead``): each is the average pairwise score of one deal played once per seat
    rotation, a number from 0 to 1 that takes many values at tables of three or more.
    So the test is not trinomial (win, draw, loss of one game) nor pentanomial (the five
    outcomes of a pair of games with colours swapped, chess's paired sample): it is the
    general form those two are cases of, on the empirical distribution of the set
    scores, which keeps the set as the unit (the deal's luck cancels inside it, so its
    games are not independent) and needs no guess of the shape. The defaults [0, 5]
    make "no difference" acceptable: a bot against itself ends with H0 accepted."""

    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05
    min_samples: int = 8
    """Sets before a verdict."""

    def __post_init__(self) -> None:
        if not (-ELO_BOUND <= self.elo0 < self.elo1 <= ELO_BOUND):
            raise ValueError(f"elo0 < elo1, both from -{ELO_BOUND:g} to {ELO_BOUND:g}")
        if not (0 < self.alpha < 0.5 and 0 < self.beta < 0.5):
            raise ValueError("0 < alpha, beta < 0.5")

    @property
    def bounds(self) -> tuple[float, float]:
        return (math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha))

    @staticmethod
    def count(samples: Iterable[float], counts: dict[float, float] | None = None
              ) -> dict[float, float]:
        """The samples counted by score (into ``counts``, kept by a caller that adds
        samples as they come: counting them all again each time costs more than the
        test)."""
        counts = {} if counts is None else counts
        for s in samples:
            key = round(min(1.0, max(0.0, s)), 9)
            counts[key] = counts.get(key, 0.0) + 1.0
        return counts

    @staticmethod
    def atoms(counts: dict[float, float]) -> list[tuple[float, float]]:
        """The counted samples as (score, weight) pairs with the :data:`PRIOR` at 0
        and 1."""
        out = dict(counts)
        for end in (0.0, 1.0):
            out[end] = out.get(end, 0.0) + PRIOR
        return sorted(out.items())

    def llr(self, samples: Sequence[float]) -> float:
        """The log-likelihood ratio of H1 against H0: sum over the samples of
        log(p1(x) / p0(x)), p0 and p1 the most likely distributions on the observed
        scores with the mean score of H0 and of H1 (:func:`_shifted`)."""
        return self.llr_of(self.count(samples)) if samples else 0.0

    def llr_of(self, counts: dict[float, float]) -> float:
        atoms = self.atoms(counts)
        p0 = _shifted(atoms, elo_score(self.elo0))
        p1 = _shifted(atoms, elo_score(self.elo1))
        return sum(w * math.log(b / a) for (_, w), a, b in zip(atoms, p0, p1, strict=True))

    def score(self, counts: dict[float, float]) -> Interval:
        """A's mean set score against B, with the normal 95% interval of the mean (the
        prior's variance included)."""
        atoms = self.atoms(counts)
        total = sum(w for _, w in atoms)
        mean = sum(x * w for x, w in atoms) / total
        variance = sum(w * (x - mean) ** 2 for x, w in atoms) / total
        half = Z95 * math.sqrt(variance / max(1.0, sum(counts.values())))
        return Interval(mean, max(0.0, mean - half), min(1.0, mean + half))

    def elo(self, counts: dict[float, float]) -> Interval:
        """A's Elo advantage estimated from the mean set score, its interval carried
        over to Elo."""
        score = self.score(counts)
        edge = 1e-6

        def to_elo(value: float) -> float:
            return score_elo(min(1 - edge, max(edge, value)))

        return Interval(to_elo(score.value), to_elo(score.low), to_elo(score.high))

    def verdict(self, samples: Sequence[float], games: int) -> GsprtVerdict:
        """The verdict on ``samples`` (every set so far)."""
        return self.verdict_of(self.count(samples), games)

    def verdict_of(self, counts: dict[float, float], games: int) -> GsprtVerdict:
        """The verdict on samples counted by score (:meth:`count`)."""
        lower, upper = self.bounds
        n = int(sum(counts.values()))
        llr = self.llr_of(counts) if n >= self.min_samples else 0.0
        accepted = "H1" if llr >= upper else "H0" if llr <= lower else None
        return GsprtVerdict(llr, lower, upper, n, games, accepted, self.elo(counts),
                            self.score(counts))


ELO_BOUND = 1000.0
"""The widest bound a test takes (an expected score of 99.7%)."""


__all__ = [
    "ELO_BOUND",
    "PRIOR",
    "Z95",
    "Gsprt",
    "GsprtVerdict",
    "Interval",
    "Moments",
    "SeatResult",
    "elo_score",
    "entrant_statistics",
    "mean_interval",
    "pairwise_score",
    "score_elo",
    "seat_results",
    "statistics_from_moments",
    "wilson_interval",
]
