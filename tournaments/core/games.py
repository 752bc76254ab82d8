"""Playing a competition's rounds: what the Celery tasks (``tournaments.tasks``), the
shell and the pages run, the same for every format.

A round's games are played one of two ways, and only two:

- **bots only**: :func:`play_deals` plays the games of a few deals of a round (a deal is
  one game, or a duplicate set: every game sharing its seed) in memory and stores
  them, with their :class:`~tournaments.models.CompetitionGame` rows, in one
  transaction. A set's seed is shared, so none of its games may be seen ended (its
  seed revealed) before all have ended: stored together, none is. Idempotent: a game's
  id follows from the competition, the round and its place
  (:meth:`Competition.game_id <tournaments.core.competition.Competition.game_id>`); a
  deal stored already is not played again, and a lost race on the same ids stores
  nothing twice (the store refuses the ids).
- **with a person**: a live table of the ``play`` app (``tournaments.core.live``),
  whose result comes back as the same row when its game ends.

Moving a competition on from round to round is ``tournaments.core.rounds``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from uuid import UUID

from django.db import IntegrityError as DjangoIntegrityError
from django.db import transaction
from eventsourcing.persistence import IntegrityError

from bohnanza_core.bots.registry import by_entrant
from bohnanza_core.events import GAME_OVER_TYPES
from bohnanza_core.formats import Result
from bohnanza_core.games import Game, play_bot_game
from replays.projections import catch_up_deferred
from replays.store import games
from tournaments.core.competition import Competition
from tournaments.core.store import competitions
from tournaments.models import CompetitionGame

log = logging.getLogger(__name__)


def bot_name(entrant: str) -> str:
    """The registered bot of an entrant (``heuristic@builtin #2`` -> ``heuristic``)."""
    return entrant.split("@", 1)[0]


def deals_of(competition: Competition, r: int, indices: Sequence[int] | None = None
             ) -> list[int]:
    """The deals of a round's games (of ``indices``, or every one), in order."""
    paired = competition.rounds[r].games
    chosen = range(len(paired)) if indices is None else indices
    return sorted({paired[i].deal for i in chosen})


def stored_indices(competition: Competition, r: int) -> set[int]:
    """The places of a round's games that are stored."""
    return set(CompetitionGame.objects.filter(competition_id=competition.id, round=r)
               .values_list("index", flat=True))


def missing_games(competition: Competition) -> list[int]:
    """The open round's games not stored yet (none when no round is open)."""
    r = competition.open_round
    if r is None:
        return []
    stored = stored_indices(competition, r)
    return [i for i in range(len(competition.rounds[r].games)) if i not in stored]


def bot_deals(competition: Competition, r: int, indices: Sequence[int]) -> list[int]:
    """The deals of ``indices`` that bots play: a game with a person is a live table's."""
    return deals_of(competition, r, [i for i in indices if not competition.live_game(r, i)])


def play_deals(competition_id: UUID, r: int, deals: Sequence[int]) -> int:
    """Play the deals of round ``r`` not stored yet and store them all in one
    transaction (a task's batch: one commit, one look at what is stored, instead of one
    per deal); returns how many games were stored now. If another worker stored one of
    them meanwhile (a redelivered batch racing its first delivery), the transaction
    stores nothing and each deal is played and stored on its own, so the others still
    go in. A deal with a person at one of its games is refused (a live table plays it)."""
    competition = competitions().get(competition_id, copy=False)
    paired = competition.rounds[r].games
    wanted = {deal: [i for i, p in enumerate(paired) if p.deal == deal]
              for deal in dict.fromkeys(deals)}
    stored = stored_indices(competition, r)
    todo = [deal for deal, indices in wanted.items() if not set(indices) <= stored]
    if not todo:
        return 0
    for deal in todo:
        if any(competition.live_game(r, i) for i in wanted[deal]):
            raise ValueError(f"deal {deal} of round {r} has people at it: a live table "
                             "plays it")
    for entrant in {competition.entrants[e] for deal in todo for i in wanted[deal]
                    for e in paired[i].seats}:
        if by_entrant(entrant.split(" #", 1)[0]) is None:
            raise LookupError(f"{entrant} is not installed on this worker")
    ruleset = competition.ruleset
    played: list[tuple[int, Game]] = []
    for deal in todo:
        seed = competition.seed(r, deal)
        for index in wanted[deal]:
            entrants = [competition.entrants[e] for e in paired[index].seats]
            bots = [bot_name(e) for e in entrants]
            played.append((index, play_bot_game(
                games(), ruleset, bots, seed, seats=competition.seat_names(r, index),
                players=[f"bot:{e}" for e in entrants], tournament=competition.name,
                save_each_command=False, save=False,
                game_id=competition.game_id(r, index), tags=competition.tags(r, index))))
    rows = []
    for index, game in played:
        result = game.state.result
        assert result is not None
        rows.append(CompetitionGame(
            game_id=game.id, competition_id=competition_id, round=r, index=index,
            ranks=list(result.ranks), coins=list(result.coins), winners=list(result.winners)))
    try:
        with catch_up_deferred(), transaction.atomic():
            # The rows first, the games' events last, all of them in one statement: that
            # takes the store's counter row, which other workers' saves wait for until
            # this commits, so nothing else comes after it (Games.save_games).
            CompetitionGame.objects.bulk_create(rows)
            games().save_games([game for _, game in played])
    except (IntegrityError, DjangoIntegrityError):
        if len(todo) > 1:  # some deal went in elsewhere: the others one by one
            return sum(play_deals(competition_id, r, [deal]) for deal in todo)
        log.info("deal %s of round %s of %s was stored by another worker first",
                 todo[0], r, competition_id)
        return 0
    return len(played)


def round_results(competition: Competition, r: int) -> list[Result] | None:
    """The round's results in pairing order, or None while some game is missing."""
    count = len(competition.rounds[r].games)
    rows = CompetitionGame.objects.filter(competition_id=competition.id, round=r)
    if rows.count() < count:  # most calls (one after every task): counted, not read
        return None
    found = list(rows.order_by("index").values_list("ranks", "coins", "winners"))
    if len(found) < count:
        return None
    return [Result(tuple(ranks), tuple(coins), tuple(winners))
            for ranks, coins, winners in found]


def results_so_far(competition: Competition, r: int) -> list[Result | None]:
    """A round's results as stored so far, game by game (None: not in yet): a running
    round's standings move as its games are played."""
    rows = {row.index: row for row in CompetitionGame.objects.filter(
        competition_id=competition.id, round=r)}
    return [Result(tuple(row.ranks), tuple(row.coins), tuple(row.winners))
            if (row := rows.get(i)) is not None else None
            for i in range(len(competition.rounds[r].games))]


def stored_results(competition: Competition) -> list[tuple[list[str], tuple[int, ...]]]:
    """(entrants by seat, ranks) of every game of the ended rounds, read from the games'
    own last events in the store (``GameEnded``, or ``GameStopped`` for a live game the
    platform ended at its deadline), in pairing order, and of a stopped competition's
    round open then, those it counted (stored by then): re-rating from the store starts
    from these. A game of an ended round that the store does not hold ended is an
    error (LookupError): its result would be a guess."""
    store = games()
    rated = []
    counted = len(competition.results) + (1 if competition.stopped is not None
                                          and competition.stopped.round is not None else 0)
    for r, paired in enumerate(competition.rounds[:counted]):
        results = competition.so_far(r)
        for index, pairing in enumerate(paired.games):
            if results[index] is None:
                continue  # not in when it was stopped: it counts for nothing
            gid = competition.game_id(r, index)
            ended = store.record(gid)[-1].event
            if not isinstance(ended, GAME_OVER_TYPES):
                raise LookupError(f"game {gid} of round {r} has not ended in the store")
            rated.append(([competition.entrants[e] for e in pairing.seats],
                          tuple(ended.ranks)))
    return rated


__all__ = ["bot_deals", "bot_name", "deals_of", "missing_games",
           "play_deals", "results_so_far", "round_results", "stored_indices",
           "stored_results"]
