"""Playing a league's seasons: one Celery task per fixture (``tournaments.tasks``).

:func:`play_fixture` plays one fixture and stores it with its
:class:`~tournaments.models.LeagueGame` row in one transaction (a redelivery stores
nothing); :func:`advance` ends the season once every fixture is stored (its moves up
and down) and starts the next, whose fixtures go to ``dispatch``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from uuid import UUID

from django.db import IntegrityError as DjangoIntegrityError
from django.db import transaction
from eventsourcing.persistence import IntegrityError

from bohnanza_core.bots.registry import by_entrant
from bohnanza_core.events import GameEnded
from bohnanza_core.games import play_bot_game
from bohnanza_core.simulator import seat_names
from replays.projections import catch_up_deferred
from replays.store import games
from tournaments.competitions import GameResult, tournaments
from tournaments.leagues import League, fixture_seed, get_league, league_game_id
from tournaments.models import LeagueGame
from tournaments.runner import bot_name

log = logging.getLogger(__name__)

ATTEMPTS = 20
Dispatch = Callable[[UUID, int, Sequence[int]], None]


def play_fixture(league_id: UUID, season: int, fixture: int) -> int:
    """Play and store one fixture; returns 1, or 0 if it was stored already."""
    gid = league_game_id(league_id, season, fixture)
    if LeagueGame.objects.filter(game_id=gid).exists():
        return 0
    league = get_league(league_id)
    if league.live_fixture(season, fixture):
        raise ValueError(f"fixture {fixture} of season {season} has people at it: it is "
                         "played at a live table")
    entrants = [league.entrants[e] for e in league.fixtures[season][fixture].seats]
    for entrant in entrants:
        if by_entrant(entrant.split(" #", 1)[0]) is None:
            raise LookupError(f"{entrant} is not installed on this worker")
    bots = [bot_name(e) for e in entrants]
    game = play_bot_game(games(), league.ruleset, bots,
                         fixture_seed(league.secret, season, fixture), seats=seat_names(bots),
                         players=[f"bot:{e}" for e in entrants], tournament=league.name,
                         save_each_command=False, save=False, game_id=gid)
    result = game.table.result
    assert result is not None
    try:
        with catch_up_deferred(), transaction.atomic():
            games().save(game)
            LeagueGame.objects.create(game_id=gid, league_id=league_id, season=season,
                                      fixture=fixture, ranks=list(result.ranks),
                                      coins=list(result.coins), winners=list(result.winners))
    except (IntegrityError, DjangoIntegrityError):
        log.info("fixture %s of season %s of %s was stored first elsewhere",
                 fixture, season, league_id)
        return 0
    return 1


def stored_league_results(league: League) -> list[tuple[list[str], tuple[int, ...]]]:
    """(entrants by seat, ranks) of every ended season's fixtures, in fixture order,
    read from the games in the store: a game's own ``GameEnded`` event, or for a live
    fixture scored at its deadline, the game as it stood (``league_live.forfeit_result``):
    re-rating starts from these."""
    from tournaments.league_live import forfeit_result

    store = games()
    rated = []
    for season, fixtures in enumerate(league.fixtures[:len(league.results)]):
        for f, fixture in enumerate(fixtures):
            gid = league_game_id(league.id, season, f)
            ended = store.record(gid)[-1].event
            ranks = (ended.ranks if isinstance(ended, GameEnded)
                     else forfeit_result(store.game(gid)).ranks)
            rated.append(([league.entrants[e] for e in fixture.seats], tuple(ranks)))
    return rated


def missing_fixtures(league: League) -> list[int]:
    """The open season's fixtures not stored yet."""
    season = league.open_season
    if season is None:
        return []
    stored = set(LeagueGame.objects.filter(league_id=league.id, season=season)
                 .values_list("fixture", flat=True))
    return [f for f in range(len(league.fixtures[season])) if f not in stored]


def advance(league_id: UUID, dispatch: Dispatch) -> bool:
    """End the open season if every fixture is stored, and start the next (its
    fixtures to ``dispatch``); True if this call moved the league on."""
    app = tournaments()
    for _ in range(ATTEMPTS):
        league = get_league(league_id)
        season = league.open_season
        if season is None or missing_fixtures(league):
            return False
        rows = LeagueGame.objects.filter(league_id=league_id, season=season).order_by("fixture")
        league.end_season([GameResult(tuple(r), tuple(c), tuple(w))
                           for r, c, w in rows.values_list("ranks", "coins", "winners")])
        started = league.start_season()
        try:
            app.save(league)
        except IntegrityError:
            continue
        if started:
            start_fixtures(league, dispatch)
        return True
    return False


def start_fixtures(league: League, dispatch: Dispatch) -> None:
    """Set the open season's fixtures going: the live tables of those with people at
    them (``league_live.open_tables``), the workers for the others."""
    from tournaments.league_live import bot_fixtures, open_tables

    season = league.open_season
    if season is None:
        return
    open_tables(league, season)
    dispatch(league.id, season, bot_fixtures(league, season, missing_fixtures(league)))


def run_league_here(league_id: UUID) -> League:
    """Play every season in this process, as the workers would (``--here``)."""
    pending: list[tuple[int, int]] = []

    def queue(_: UUID, season: int, fixtures: Sequence[int]) -> None:
        pending.extend((season, f) for f in fixtures)

    league = get_league(league_id)
    if league.open_season is not None:
        start_fixtures(league, queue)
    while pending:
        season, fixture = pending.pop(0)
        play_fixture(league_id, season, fixture)
        advance(league_id, queue)
    return get_league(league_id)


__all__ = ["advance", "missing_fixtures", "play_fixture", "run_league_here", "start_fixtures",
           "stored_league_results"]
