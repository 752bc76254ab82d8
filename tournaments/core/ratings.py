"""Ratings: ``openskill``'s Plackett-Luce model over each game's final ranks (1 best; a
shared place is a tie), one rating (mu, sigma) per entrant, shown as the conservative
rating mu - 3 sigma: a new entrant starts at 0 and climbs as the games make the model
surer. Rating the same games in the same order always gives the same numbers, so a
competition or a ladder re-rated from its stored games alone matches what it showed.

Here, in the ``tournaments`` app, and not in ``bohnanza_core`` (which imports only the
standard library): the competitions and their commands use it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from openskill.models import PlackettLuce

START_MU = 25.0
START_SIGMA = 25.0 / 3


@dataclass(frozen=True)
class Rating:
    mu: float = START_MU
    sigma: float = START_SIGMA

    @property
    def conservative(self) -> float:
        """mu - 3 sigma: 99.7% sure the entrant is at least this strong; 0 at the start."""
        return self.mu - 3 * self.sigma


@dataclass
class Ratings:
    """Every entrant's rating, updated game by game in the order the games are given."""

    ratings: dict[str, Rating] = field(default_factory=dict)
    games: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._model = PlackettLuce(mu=START_MU, sigma=START_SIGMA)

    @classmethod
    def from_stored(cls, stored: dict[str, tuple[float, float, int]]) -> Ratings:
        """The ratings a competition recorded (entrant: mu, sigma, games), to rate on
        from: those of entrants with games (the others are at the start)."""
        return cls({e: Rating(mu, sigma) for e, (mu, sigma, games) in stored.items() if games},
                   {e: games for e, (_, _, games) in stored.items() if games})

    def stored(self, entrants: Iterable[str]) -> dict[str, list[float]]:
        """Every entrant's rating as a competition records it: [mu, sigma, games]."""
        return {e: [self.of(e).mu, self.of(e).sigma, float(self.games.get(e, 0))]
                for e in entrants}

    def of(self, entrant: str) -> Rating:
        return self.ratings.get(entrant, Rating())

    def rate(self, entrants: Sequence[str], ranks: Sequence[int]) -> dict[str, Rating]:
        """One game: ``entrants[i]`` finished ``ranks[i]`` (1 best, ties equal). An
        entrant seated twice at one table is rated once, at its better place."""
        if len(entrants) != len(ranks):
            raise ValueError("one rank per entrant")
        best: dict[str, int] = {}
        for entrant, rank in zip(entrants, ranks, strict=True):
            best[entrant] = min(rank, best.get(entrant, rank))
        if len(best) < 2:
            return {}
        names = list(best)
        teams = [[self._model.rating(mu=self.of(n).mu, sigma=self.of(n).sigma, name=n)]
                 for n in names]
        rated = self._model.rate(teams, ranks=[float(best[n]) for n in names])
        changed = {}
        for name, team in zip(names, rated, strict=True):
            changed[name] = self.ratings[name] = Rating(team[0].mu, team[0].sigma)
            self.games[name] = self.games.get(name, 0) + 1
        return changed

    def leaderboard(self) -> list[tuple[str, Rating]]:
        """Best conservative rating first (then name, so the order is fixed)."""
        return sorted(self.ratings.items(), key=lambda item: (-item[1].conservative, item[0]))


def rerate(games: Iterable[tuple[Sequence[str], Sequence[int]]]) -> Ratings:
    """Ratings from scratch, from (entrants by seat, ranks) of each game in order."""
    ratings = Ratings()
    for entrants, ranks in games:
        ratings.rate(entrants, ranks)
    return ratings


__all__ = ["START_MU", "START_SIGMA", "Rating", "Ratings", "rerate"]
