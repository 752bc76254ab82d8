"""Playing a ladder's ticks: what the beat's periodic task and the match tasks run.

- :func:`tick`: if a tick is open, end it when all its matches are stored (and say
  which are missing); otherwise pair the next one by rating. Two beats at once both
  try; the store takes one.
- :func:`play_match`: play one match in memory and store it with its
  :class:`~tournaments.models.LadderGame` row in one transaction; a match stored
  already (a redelivery) stores nothing.
- :func:`schedule`: the ladder's periodic task in django-celery-beat's tables.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from uuid import UUID

from django.db import IntegrityError as DjangoIntegrityError
from django.db import transaction
from django_celery_beat.models import IntervalSchedule, PeriodicTask
from eventsourcing.persistence import IntegrityError

from bohnanza_core.bots.registry import by_entrant
from bohnanza_core.events import GameEnded
from bohnanza_core.games import play_bot_game
from bohnanza_core.simulator import seat_names
from replays.projections import catch_up_deferred
from replays.store import games
from tournaments.competitions import GameResult, tournaments
from tournaments.ladders import Ladder, get_ladder, ladder_game_id, match_seed
from tournaments.models import LadderGame
from tournaments.runner import bot_name

log = logging.getLogger(__name__)

ATTEMPTS = 20
Dispatch = Callable[[UUID, Sequence[int]], None]
TICK_TASK = "tournaments.ladder_tick"


def _locate(ladder: Ladder, match: int) -> tuple[int, tuple[int, ...]]:
    """The tick of match ``match`` and its seats."""
    for tick, matches in enumerate(ladder.ticks):
        first = ladder.first_match(tick)
        if first <= match < first + len(matches):
            return tick, matches[match - first]
    raise LookupError(f"no match {match} on ladder {ladder.id}")


def play_match(ladder_id: UUID, match: int) -> int:
    """Play and store one match; returns 1, or 0 if it was stored already."""
    gid = ladder_game_id(ladder_id, match)
    if LadderGame.objects.filter(game_id=gid).exists():
        return 0
    ladder = get_ladder(ladder_id)
    tick, seats = _locate(ladder, match)
    entrants = [ladder.entrants[e] for e in seats]
    for entrant in entrants:
        if by_entrant(entrant.split(" #", 1)[0]) is None:
            raise LookupError(f"{entrant} is not installed on this worker")
    bots = [bot_name(e) for e in entrants]
    game = play_bot_game(games(), ladder.ruleset, bots, match_seed(ladder.secret, match),
                         seats=seat_names(bots), players=[f"bot:{e}" for e in entrants],
                         tournament=ladder.name, save_each_command=False, save=False,
                         game_id=gid)
    result = game.table.result
    assert result is not None
    try:
        with catch_up_deferred(), transaction.atomic():
            games().save(game)
            LadderGame.objects.create(game_id=gid, ladder_id=ladder_id, tick=tick,
                                      match=match, ranks=list(result.ranks),
                                      coins=list(result.coins), winners=list(result.winners))
    except (IntegrityError, DjangoIntegrityError):
        log.info("match %s of ladder %s was stored by another worker first", match, ladder_id)
        return 0
    return 1


def missing_matches(ladder: Ladder) -> list[int]:
    """The open tick's matches not stored yet (none when no tick is open)."""
    tick = ladder.open_tick
    if tick is None:
        return []
    first = ladder.first_match(tick)
    stored = set(LadderGame.objects.filter(ladder_id=ladder.id, tick=tick)
                 .values_list("match", flat=True))
    return [m for m in range(first, first + len(ladder.ticks[tick])) if m not in stored]


def _results(ladder: Ladder, tick: int) -> list[GameResult]:
    rows = LadderGame.objects.filter(ladder_id=ladder.id, tick=tick).order_by("match")
    return [GameResult(tuple(r), tuple(c), tuple(w))
            for r, c, w in rows.values_list("ranks", "coins", "winners")]


def tick(ladder_id: UUID, dispatch: Dispatch) -> str:
    """One beat of the ladder: end the open tick when its matches are stored, then pair
    the next; an open tick's missing matches are sent (again). Says what it did:
    ``"paired"``, ``"waiting"`` or ``"idle"`` (too few entrants)."""
    app = tournaments()
    for _ in range(ATTEMPTS):
        ladder = get_ladder(ladder_id)
        missing = missing_matches(ladder)
        if missing:
            dispatch(ladder_id, missing)
            return "waiting"
        ended = ladder.open_tick is not None
        if ended:
            ladder.end_tick(_results(ladder, len(ladder.results)))
        paired = ladder.pair_tick()
        if not paired and not ended:
            return "idle"
        try:
            app.save(ladder)
        except IntegrityError:
            continue  # another beat moved it on first: look again
        if not paired:
            return "idle"
        dispatch(ladder_id, missing_matches(ladder))
        return "paired"
    return "waiting"


def end_if_done(ladder_id: UUID) -> bool:
    """End the open tick once its last match is stored (the match task calls this, so
    ratings move without waiting for the next beat); True if this call ended it."""
    app = tournaments()
    for _ in range(ATTEMPTS):
        ladder = get_ladder(ladder_id)
        if ladder.open_tick is None or missing_matches(ladder):
            return False
        ladder.end_tick(_results(ladder, ladder.open_tick))
        try:
            app.save(ladder)
        except IntegrityError:
            continue
        return True
    return False


def stored_ladder_results(ladder: Ladder) -> list[tuple[list[str], tuple[int, ...]]]:
    """(entrants by seat, ranks) of every ended tick's matches, read from the games' own
    ``GameEnded`` events in the store, in match order: re-rating starts from these."""
    store = games()
    rated = []
    match = 0
    for matches in ladder.ticks[:len(ladder.results)]:
        for seats in matches:
            ended = store.record(ladder_game_id(ladder.id, match))[-1].event
            assert isinstance(ended, GameEnded)
            rated.append(([ladder.entrants[e] for e in seats], ended.ranks))
            match += 1
    return rated


def schedule(ladder: Ladder) -> PeriodicTask:
    """The ladder's periodic tick in django-celery-beat's tables (made once)."""
    every, _ = IntervalSchedule.objects.get_or_create(every=ladder.interval,
                                                      period=IntervalSchedule.SECONDS)
    task, _ = PeriodicTask.objects.get_or_create(
        name=f"ladder {ladder.id}",
        defaults={"task": TICK_TASK, "interval": every,
                  "args": json.dumps([str(ladder.id)])})
    return task


def run_ticks_here(ladder_id: UUID, ticks: int) -> Ladder:
    """Play ``ticks`` ticks in this process, as the workers would (the shell's
    ``manage.py ladder tick --here``)."""
    pending: list[int] = []

    def queue(_: UUID, matches: Sequence[int]) -> None:
        pending.extend(m for m in matches if m not in pending)

    for _ in range(ticks):
        if tick(ladder_id, queue) == "idle":
            break
        while pending:
            play_match(ladder_id, pending.pop(0))
        end_if_done(ladder_id)
    return get_ladder(ladder_id)


__all__ = ["end_if_done", "missing_matches", "play_match", "run_ticks_here", "schedule",
           "stored_ladder_results", "tick"]
