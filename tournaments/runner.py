"""Playing a competition's games and moving it on: what the Celery tasks run.

- :func:`play_deals` plays the games of a few deals of a round (a deal is one game, or
  a duplicate set: every game sharing the deal) in memory and stores them all in one
  transaction with their :class:`~tournaments.models.TournamentGame` rows
  (:func:`play_deal`: one deal). A set's seed is shared,
  so none of its games may be seen ended (its seed revealed) before all have ended:
  stored together, none is. Each game has its own fresh salt, so the commitments do
  not show that the games share a seed. Idempotent: the games' ids follow from the
  tournament, the round and the pairing; a deal already stored is not played again,
  and a lost race on the same ids stores nothing twice (the store refuses the ids).
- :func:`advance`: when every game of the round is stored, record the round's results
  and ratings and pair the next round (or finish); the pairing's deals are then sent
  to the workers. Two workers finishing the round's last games at once both try: the
  store takes one, and the other finds the round already ended.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from uuid import UUID

from django.db import IntegrityError as DjangoIntegrityError
from django.db import transaction
from eventsourcing.persistence import IntegrityError

from bohnanza_core.bots.registry import by_entrant, registry
from bohnanza_core.events import GameEnded
from bohnanza_core.games import Game, play_bot_game
from bohnanza_core.simulator import seat_names
from replays.projections import catch_up_deferred
from replays.store import games
from tournaments.competitions import (
    CompetitionError,
    GameResult,
    Tournament,
    deal_seed,
    game_id,
    tournaments,
)
from tournaments.models import TournamentGame

log = logging.getLogger(__name__)

ADVANCE_ATTEMPTS = 20
Dispatch = Callable[[UUID, int, Sequence[int]], None]


def bot_name(entrant: str) -> str:
    """The registered bot of an entrant (``heuristic@builtin #2`` -> ``heuristic``)."""
    return entrant.split("@", 1)[0]


def deals_of(tournament: Tournament, round_number: int) -> list[int]:
    return sorted({p.deal for p in tournament.rounds[round_number]})


def play_deal(tournament_id: UUID, round_number: int, deal: int) -> int:
    """Play and store the games of one deal of a round; returns how many were stored
    now (0: already stored, by an earlier attempt or another worker)."""
    return play_deals(tournament_id, round_number, [deal])


def play_deals(tournament_id: UUID, round_number: int, deals: Sequence[int]) -> int:
    """Play the deals of a round not stored yet and store them all in one transaction
    (a task's batch: one commit, one look at what is stored, instead of one per deal);
    returns how many games were stored now. If another worker stored one of them
    meanwhile (a redelivered batch racing its first delivery), the transaction stores
    nothing and each deal is played and stored on its own, so the others still go in."""
    tournament = tournaments().get_tournament(tournament_id, copy=False)
    pairings = tournament.rounds[round_number]
    wanted = {deal: [i for i, p in enumerate(pairings) if p.deal == deal]
              for deal in dict.fromkeys(deals)}
    ids = {i: game_id(tournament_id, round_number, i) for indices in wanted.values()
           for i in indices}
    stored = set(TournamentGame.objects.filter(game_id__in=list(ids.values()))
                 .values_list("index", flat=True))
    todo = [deal for deal, indices in wanted.items() if not set(indices) <= stored]
    if not todo:
        return 0
    for entrant in {tournament.entrants[e] for deal in todo for i in wanted[deal]
                    for e in pairings[i].seats}:
        if by_entrant(entrant.split(" #", 1)[0]) is None:
            raise LookupError(f"{entrant} is not installed on this worker")
    ruleset = tournament.ruleset
    played: list[tuple[int, Game]] = []
    for deal in todo:
        seed = deal_seed(tournament.secret, round_number, deal)
        for index in wanted[deal]:
            entrants = [tournament.entrants[e] for e in pairings[index].seats]
            bots = [bot_name(e) for e in entrants]
            played.append((index, play_bot_game(
                games(), ruleset, bots, seed, seats=seat_names(bots),
                players=[f"bot:{e}" for e in entrants], tournament=tournament.name,
                save_each_command=False, save=False, game_id=ids[index])))
    rows = []
    for index, game in played:
        result = game.table.result
        assert result is not None
        rows.append(TournamentGame(
            game_id=game.id, tournament_id=tournament_id, round=round_number, index=index,
            ranks=list(result.ranks), coins=list(result.coins), winners=list(result.winners)))
    try:
        with catch_up_deferred(), transaction.atomic():
            # The rows first, the games' events last, all of them in one statement: that
            # takes the store's counter row, which other workers' saves wait for until
            # this commits, so nothing else comes after it (Games.save_games).
            TournamentGame.objects.bulk_create(rows)
            games().save_games([game for _, game in played])
    except (IntegrityError, DjangoIntegrityError):
        if len(todo) > 1:  # some deal went in elsewhere: the others one by one
            return sum(play_deals(tournament_id, round_number, [deal]) for deal in todo)
        log.info("deal %s of round %s of %s was stored by another worker first",
                 todo[0], round_number, tournament_id)
        return 0
    return len(played)


def round_results(tournament_id: UUID, round_number: int,
                  count: int) -> list[GameResult] | None:
    """The round's results in pairing order, or None while some game is missing."""
    games_of = TournamentGame.objects.filter(tournament_id=tournament_id, round=round_number)
    if games_of.count() < count:  # most calls (one after every task): counted, not read
        return None
    rows = list(games_of.order_by("index").values_list("ranks", "coins", "winners"))
    if len(rows) < count:
        return None
    return [GameResult(tuple(r), tuple(c), tuple(w)) for r, c, w in rows]


def advance(tournament_id: UUID, dispatch: Dispatch) -> bool:
    """If the current round's games are all stored, end it and pair the next (whose
    deals go to ``dispatch``); returns whether this call moved the competition on."""
    app = tournaments()
    for _ in range(ADVANCE_ATTEMPTS):
        tournament = app.get_tournament(tournament_id, copy=False)
        r = tournament.current_round
        if r is None:
            return False
        results = round_results(tournament_id, r, len(tournament.rounds[r]))
        if results is None:
            return False
        tournament = app.get_tournament(tournament_id)
        if tournament.current_round != r:
            continue
        tournament.end_round(results)
        try:
            app.save(tournament)
        except IntegrityError:
            continue  # another worker moved it on first: look again
        nxt = tournament.current_round
        if nxt is not None:
            dispatch(tournament_id, nxt, deals_of(tournament, nxt))
        return True
    return False


def missing_deals(tournament: Tournament) -> list[int]:
    """The current round's deals with a game not stored yet (to send again after a
    lost dispatch)."""
    r = tournament.current_round
    if r is None:
        return []
    stored = set(TournamentGame.objects.filter(tournament_id=tournament.id, round=r)
                 .values_list("index", flat=True))
    return sorted({p.deal for i, p in enumerate(tournament.rounds[r]) if i not in stored})


def stored_results(tournament: Tournament) -> list[tuple[list[str], tuple[int, ...]]]:
    """(entrants by seat, ranks) of every game of the competition, read from the games'
    own ``GameEnded`` events in the store, in pairing order: what re-rating starts from."""
    store = games()
    rated = []
    for r, pairings in enumerate(tournament.rounds):
        for i, pairing in enumerate(pairings):
            record = store.record(game_id(tournament.id, r, i))
            ended = record[-1].event
            assert isinstance(ended, GameEnded)
            rated.append(([tournament.entrants[e] for e in pairing.seats], ended.ranks))
    return rated


def entrants_for(bot_names: Sequence[str]) -> list[str]:
    """Entrants for registered bots, by name: each its installed version
    (``heuristic@builtin``); a bot named again is another entrant of the same version,
    numbered (``heuristic@builtin #2``). Unknown names are refused."""
    known = registry()
    unknown = sorted({n for n in bot_names if n not in known})
    if unknown:
        raise CompetitionError(f"unknown bot(s): {', '.join(unknown)}; known: "
                               f"{', '.join(known)}")
    entrants: list[str] = []
    for name in bot_names:
        entrant = known[name].entrant
        copies = sum(1 for e in entrants if e.split(" #", 1)[0] == entrant)
        entrants.append(entrant if not copies else f"{entrant} #{copies + 1}")
    return entrants


def run_here(tournament_id: UUID,
             on_deal: Callable[[Tournament], None] | None = None) -> Tournament:
    """Play the whole competition in this process, deal by deal, as the workers would
    (the demo; ``manage.py tournament create --here``)."""
    pending: list[tuple[int, int]] = []

    def queue(_: UUID, round_number: int, deals: Sequence[int]) -> None:
        pending.extend((round_number, deal) for deal in deals)

    tournament = tournaments().get_tournament(tournament_id)
    r = tournament.current_round
    if r is not None:
        queue(tournament_id, r, missing_deals(tournament))
    while pending:
        round_number, deal = pending.pop(0)
        play_deal(tournament_id, round_number, deal)
        advance(tournament_id, queue)
        if on_deal is not None:
            on_deal(tournaments().get_tournament(tournament_id))
    return tournaments().get_tournament(tournament_id)


__all__ = ["advance", "bot_name", "deals_of", "entrants_for", "missing_deals", "play_deal",
           "play_deals", "round_results", "run_here", "stored_results"]
