"""Bot tests like fishtest's: is bot A stronger than bot B, and by how much? A run of the
generalised SPRT (``bohnanza_core.ratings.Gsprt``) over seat-rotated duplicate sets
(``bohnanza_core.headtohead``), played by Celery jobs and kept as events, beside the
competitions in the same store (the ``Tournaments`` application's tables).

- :class:`BotTest.Created`: the two bots, the preset and table size, the bounds
  ``elo0``/``elo1``, ``alpha``/``beta``, the most sets, the seed (set i plays the deal
  of ``"{seed}:{i}"``: ``bohnanza head-to-head`` with the same arguments plays the
  same games, so the seed is shown) and who asked.
- :class:`BotTest.SetsPlayed`: a batch of sets, up to the set that decides the test
  (checked after every set, as ``bohnanza head-to-head`` checks): its first set's
  number, each set's score (A's average pairwise score against B), the games, and the
  LLR after it (the page's chart; the scores alone give it again).
- :class:`BotTest.Decided`: the hypothesis accepted, or none when the most sets were
  played undecided.

An account's test is charged to its quota of games (``tournaments.core.quotas``) as a
competition is: every game it may play when it is created, what it did not play given
back once it is decided; it counts as one of the account's running competitions until
then.

A batch is recorded only on top of the sets before it (its ``first`` is the number of
sets recorded; the store's version check settles a race), so a job delivered twice
records each set once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final
from uuid import UUID

from django.utils.translation import gettext as _
from eventsourcing.application import AggregateNotFoundError
from eventsourcing.domain import Aggregate
from eventsourcing.persistence import IntegrityError
from eventsourcing.utils import get_topic

from bohnanza_core.headtohead import MAX_SETS, check_table, play_set
from bohnanza_core.ratings import Gsprt, GsprtVerdict
from bohnanza_core.rulesets import PRESETS, ruleset_for
from bohnanza_core.simulator import SimulationError, bot_classes
from tournaments.core.errors import CompetitionError, worded
from tournaments.core.store import Competitions, competitions
from tournaments.models import QuotaUse

BATCH: Final = 8
"""The most sets a job plays before it records them (and the chart moves); it stops
at a set that decides the test, as the command line does."""
MAX_LISTED: Final = 100


class BotTest(Aggregate):
    """One run of the test and everything it played."""

    class Created(Aggregate.Created):
        a: str
        b: str
        preset: str
        players: int
        elo0: float
        elo1: float
        alpha: float
        beta: float
        max_sets: int
        seed: str
        organiser: str | None

    class SetsPlayed(Aggregate.Event):
        first: int
        scores: list[float]
        games: int
        llr: float

        def apply(self, aggregate: Any) -> None:
            aggregate.scores.extend(self.scores)
            aggregate.games += self.games
            aggregate.llrs.append((len(aggregate.scores), self.llr))
            Gsprt.count(self.scores, aggregate.counts)

    class Decided(Aggregate.Event):
        accepted: str | None

        def apply(self, aggregate: Any) -> None:
            aggregate.decided = True
            aggregate.accepted = self.accepted

    def __init__(self, a: str, b: str, preset: str, players: int, elo0: float, elo1: float,
                 alpha: float, beta: float, max_sets: int, seed: str,
                 organiser: str | None) -> None:
        self.a, self.b, self.preset, self.players = a, b, preset, players
        self.elo0, self.elo1, self.alpha, self.beta = elo0, elo1, alpha, beta
        self.max_sets, self.seed, self.organiser = max_sets, seed, organiser
        self.scores: list[float] = []
        self.counts: dict[float, float] = {}
        self.games = 0
        self.llrs: list[tuple[int, float]] = []
        """(sets, LLR) after each batch: the chart."""
        self.decided = False
        self.accepted: str | None = None

    @property
    def test(self) -> Gsprt:
        return Gsprt(self.elo0, self.elo1, self.alpha, self.beta)

    @property
    def games_asked(self) -> int:
        """The most games the test may play: every set, each played once per seat
        rotation (``headtohead.play_set``). What an account's quota is charged when the
        test is created; what it did not play is given back when it is decided."""
        return self.max_sets * self.players

    def verdict(self) -> GsprtVerdict:
        return self.test.verdict_of(self.counts, self.games)

    def record(self, first: int, scores: Sequence[float], games: int) -> GsprtVerdict:
        """Record a batch played on top of the sets recorded, and the verdict after it
        (``Decided`` too once a hypothesis is accepted or the most sets are played)."""
        if first != len(self.scores) or self.decided:
            raise CompetitionError("these sets are recorded already")
        counts = dict(self.counts)
        Gsprt.count(scores, counts)
        verdict = self.test.verdict_of(counts, self.games + games)
        self.trigger_event(BotTest.SetsPlayed, first=first, scores=list(scores),
                           games=games, llr=verdict.llr)
        if verdict.decided or len(self.scores) >= self.max_sets:
            self.trigger_event(BotTest.Decided, accepted=verdict.accepted)
        return verdict


def create(a: str, b: str, preset: str, players: int, elo0: float, elo1: float,
           alpha: float, beta: float, max_sets: int, seed: str,
           organiser: str | None = None, admit: Callable[[BotTest], None] | None = None
           ) -> BotTest:
    """A new test, checked (CompetitionError with the reason) and stored. ``admit``:
    the account's quota check (``quotas.creating_bot_test``), called with the test
    built, before it is stored, in the caller's transaction."""
    if preset not in PRESETS:
        raise CompetitionError(_("There is no ruleset %(name)s.") % {"name": repr(preset[:40])})
    try:
        check_table(ruleset_for(preset, players), players)
        bot_classes([a, b])
        Gsprt(elo0, elo1, alpha, beta)
    except (SimulationError, ValueError) as bad:
        raise CompetitionError(worded(bad)) from None
    if not 1 <= max_sets <= MAX_SETS:
        raise CompetitionError(_("A test plays 1 to %(most)d sets, not %(sets)d.")
                               % {"most": MAX_SETS, "sets": max_sets})
    if not seed or len(seed) > 64 or not seed.isprintable():
        raise CompetitionError(_("A seed is 1 to 64 printable characters."))
    test = BotTest(a=a, b=b, preset=preset, players=players, elo0=elo0, elo1=elo1,
                   alpha=alpha, beta=beta, max_sets=max_sets, seed=seed,
                   organiser=organiser)
    if admit is not None:
        admit(test)
    competitions().save(test)
    return test


def get(test_id: UUID, app: Competitions | None = None) -> BotTest:
    """The test as stored (LookupError if there is none)."""
    try:
        found: Any = (app or competitions()).repository.get(test_id)
    except AggregateNotFoundError:
        raise LookupError(f"no bot test {test_id}") from None
    if not isinstance(found, BotTest):
        raise LookupError(f"no bot test {test_id}")
    return found


def ids(limit: int = MAX_LISTED) -> list[UUID]:
    """The newest tests' ids, newest first."""
    recorder = competitions().recorder
    found: list[UUID] = []
    start: int | None = None
    while True:
        batch = recorder.select_notifications(start=start, limit=500,
                                              topics=[get_topic(BotTest.Created)])
        found += [UUID(str(n.originator_id)) for n in batch]
        if len(batch) < 500:
            break
        start = batch[-1].id + 1
    return found[::-1][:limit]


def play_batch(test_id: UUID, sets: int = BATCH) -> GsprtVerdict | None:
    """Play the next ``sets`` sets and record them; None when the test is decided (or
    another job recorded these sets first: the store refuses the second)."""
    test = get(test_id)
    if test.decided:
        return None
    ruleset = ruleset_for(test.preset, test.players)
    a, b = bot_classes([test.a, test.b])
    first = len(test.scores)
    count = min(sets, test.max_sets - first)
    scores, games = [], 0
    counts = dict(test.counts)
    for i in range(first, first + count):
        score, played = play_set(ruleset, test.players, a, b, test.seed, i)
        scores.append(score)
        games += played
        # Decided after each set, as ``bohnanza head-to-head`` is: the batch stops at
        # the deciding set, so the page and the printed command agree game for game.
        Gsprt.count([score], counts)
        if test.test.verdict_of(counts, test.games + games).decided:
            break
    verdict = test.record(first, scores, games)
    try:
        competitions().save(test)
    except IntegrityError:
        return None
    if test.decided:  # the games it will not play given back to its account's quota
        QuotaUse.objects.filter(competition_id=test.id).update(games=test.games,
                                                                running=False)
    return verdict


__all__ = ["BATCH", "BotTest", "create", "get", "ids", "play_batch"]
