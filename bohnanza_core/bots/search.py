"""The ``search`` bots: each decision judged by playing the game on, many times.

How: determinized sampling with common samples (a "perfect information Monte Carlo"
search, flat at the root). For each of its samples the bot fills in what its seat
cannot see -- the other hands, the draw pile's order, which cards became coins --
at random from the cards its view does not show (:func:`determinize`), then plays
every candidate move on that same table and the game on to its end with the
playout engine (:mod:`bohnanza_core.playout`), and keeps the move whose games ended
best for it on average: its coins minus the best other seat's. The samples are drawn
from the view alone, with a random source seeded by the bot's seed and the decision's
number, so the same view gives the same decision, whatever is hidden behind it
(tests/core/test_search.py).

Why not information-set MCTS (OpenSpiel's ``ISMCTSBot``): a Bohnanza game is some
hundred decisions a seat, most of them between two to six moves, and a turn's
outcome depends mostly on the cards still to come, which sampling covers; a tree
below the root would spread the same playouts over thousands of nodes a seat visits
once. OpenSpiel's ISMCTS would also need the game rewritten as an OpenSpiel game,
with a call from C++ into Python for every node and every playout step: the
playouts are this bot's whole cost, and the platform's own compiled playout engine
plays them with the rules the games are judged by.

Trading: whether another player accepts an offer is a person's choice that a
playout cannot tell, so offers are made as the ``heuristic`` bot makes them (it is
asked at every decision, and a proposal of its is played as it is). Everything whose
outcome the rules decide is searched: planting, harvesting, buying a field,
discarding, ending trading, and accepting or declining an offer (what the accepted
cards do to its fields is played out).

Two stages, because the playouts' players never trade. The playouts (fast, thousands
a decision) pick the move that looks best; if that is not the heuristic bot's move,
the two are played on by heuristic bots in every seat, who trade as the table does
(:func:`~bohnanza_core.bots.turns.play_on`, :data:`SearchBot.VERIFY` rollouts a move on
common samples), and the search's move is played only if it ends better by more than
:data:`SearchBot.CONFIDENCE` standard errors; else the heuristic bot's. This is
policy improvement by rollouts (Tesauro and Galperin's backgammon rollouts, Bertsekas'
rollout algorithms): one step better than the heuristic bot, judged in the heuristic
bot's own trading world, and paid for only where the cheap search disagrees with it.
Measured against three heuristic bots in 4-player classic (docs/bots.md): the playouts
alone scored 0.50; with the heuristic bot's move kept unless they preferred another by
half a coin, 0.55; with the rollouts' check instead, 0.63 and 0.66 over two sets of 160
games.

Levels: ``search`` plays :data:`SearchBot.PLAYOUTS` playouts a decision and
:data:`SearchBot.VERIFY` rollouts a move to check a disagreement (about 0.1 s on one
core), ``search-deep`` ten times as many of both (about 1 s). A budget in playouts,
not in seconds, so that a decision is the same on a fast and a slow machine.
"""

from __future__ import annotations

import math
import random
from typing import ClassVar

from bohnanza_core.bots.base import Bot
from bohnanza_core.bots.heuristic import HeuristicBot
from bohnanza_core.bots.turns import play_on
from bohnanza_core.commands import AcceptOffer, Command, MakeOffer, WithdrawOffer
from bohnanza_core.engine import OfferShape, deal_order, play
from bohnanza_core.playout import play_out
from bohnanza_core.seatview import SeatView
from bohnanza_core.state import GameState, Offer, Phase

MAX_CANDIDATES = 16
"""The most moves a decision weighs."""
ACCEPTANCES = 4
"""The ways to pay for one offer weighed (which cards of a kind go changes only the
order of the hand left)."""


def determinize(view: SeatView, seat: int, rng: random.Random) -> GameState:
    """A whole table consistent with what ``seat`` sees in ``view``: the cards it
    cannot see (other hands, the draw pile, coins) dealt at random from the cards the
    view does not show. Reads nothing but the view."""
    ruleset = view.ruleset
    players = len(view.seats)
    state = GameState(ruleset, view.seats, f"sample:{rng.getrandbits(64):016x}", "", "")
    shown: set[int] = set()

    def seen(cards: tuple[int, ...]) -> list[int]:
        shown.update(cards)
        return list(cards)

    state.hands[seat] = seen(view.hand())
    state.face_up = seen(view.face_up)
    state.discard_pile = seen(view.discard_pile)
    state.out_of_game = seen(view.out_of_game)
    for other in range(players):
        state.fields[other] = [seen(field) for field in view.fields(other)]
        state.trade_areas[other] = seen(view.trade_area(other))
        state.third_field_bought[other] = view.third_field_bought(other)
    # An open offer shows the cards it gives: those not face up are in the
    # proposer's hand (an offer is void as soon as one of them moves).
    offered: list[list[int]] = [[] for _ in range(players)]
    offers = view.offers
    for offer in offers:
        if offer.proposer != seat:
            for card in offer.gives:
                if card not in shown:
                    shown.add(card)
                    offered[offer.proposer].append(card)
    unseen = [card for card in range(ruleset.deck_size) if card not in shown]
    rng.shuffle(unseen)
    taken = 0
    for other in range(players):
        if other != seat:
            size = view.hand_size(other) - len(offered[other])
            hand = offered[other] + unseen[taken:taken + size]
            rng.shuffle(hand)
            state.hands[other] = hand
            taken += size
        coins = view.coins(other)
        state.coins[other] = unseen[taken:taken + coins]
        taken += coins
    state.draw_pile = unseen[taken:]
    if len(state.draw_pile) != view.draw_pile_size:
        raise ValueError(f"the view shows {view.draw_pile_size} cards in the draw pile but "
                         f"leaves {len(state.draw_pile)} unseen")
    state.offers = {offer.number: Offer(offer.number, offer.proposer, offer.counterparty,
                                        offer.gives, offer.wants, set(offer.declined_by))
                    for offer in offers}
    state.next_offer = max((offer.number for offer in offers), default=0) + 1
    phase = view.phase
    state.phase = phase
    state.active = view.active
    state.turn = view.turn
    state.planted = view.planted_this_turn
    state.dealt = len(deal_order(ruleset, players))
    # Past turning over (trading and planting what it turned up) the cards are out.
    state.turned_over = ruleset.face_up_cards if phase in _AFTER_TURNING_OVER else 0
    # The active player has ended planting the face-up cards when they lie there and
    # the game no longer waits for it (rules that offer them to the next player).
    state.planting_done = (phase is Phase.PLANTING_RECEIVED and bool(view.face_up)
                           and view.active not in view.awaiting)
    state.runs_out = view.runs_out
    state.ending = view.ending
    return state


_AFTER_TURNING_OVER = (Phase.TRADING, Phase.PLANTING_RECEIVED)


def margin(coins: tuple[int, ...], seat: int) -> int:
    """What a playout's end is worth to ``seat``: its coins minus the best other seat's."""
    best_other = max(c for other, c in enumerate(coins) if other != seat)
    return coins[seat] - best_other


class SearchBot(Bot):
    """Determinized Monte Carlo search over the moves the rules allow, its choice
    checked against the heuristic bot's by rollouts (module doc)."""

    name: ClassVar[str] = "search"
    PLAYOUTS: ClassVar[int] = 600
    """Playouts a decision."""
    VERIFY: ClassVar[int] = 40
    """Rollouts by heuristic bots, for each of the two moves, when the playouts prefer
    another move than the heuristic bot's (a rollout takes about a millisecond)."""
    CONFIDENCE: ClassVar[float] = 1.0
    """How many standard errors the rollouts' mean gain must exceed for the search's
    move to be played instead of the heuristic bot's."""

    def __init__(self, seat: int, seed: str) -> None:
        super().__init__(seat, seed)
        self._decisions = 0
        self._trader = HeuristicBot(seat, seed)

    def act(self, view: SeatView) -> Command | None:
        seat = self.seat
        awaited = seat in view.awaiting
        # The heuristic bot is asked every time, as it would be at this seat: it makes
        # the offers, and its move is the one the search must beat.
        advice = self._trader.act(view)
        if not awaited or isinstance(advice, MakeOffer | WithdrawOffer):
            return advice
        moves = candidates(view)
        if len(moves) == 1:
            return moves[0]
        if not moves:
            return None
        self._decisions += 1
        return self.best(view, moves, random.Random(f"{self.seed}:{self._decisions}"),
                         advice if advice in moves else None)

    def best(self, view: SeatView, moves: list[Command], rng: random.Random,
             advice: Command | None = None) -> Command:
        """The move whose playouts ended best for this seat, on average (the first
        listed among equals), every move played on the same samples; but ``advice``
        unless the rollouts confirm the search's move (:meth:`gain`)."""
        totals = [0] * len(moves)
        samples = max(1, self.PLAYOUTS // len(moves))
        for _ in range(samples):
            table = determinize(view, self.seat, rng)
            for index, move in enumerate(moves):
                played = table.copy()
                play(played, move)
                totals[index] += margin(play_out(played), self.seat)
        choice = moves[max(range(len(moves)), key=lambda index: totals[index])]
        if advice is None or choice == advice:
            return choice
        mean, error = self.gain(view, advice, choice, rng)
        return choice if mean > self.CONFIDENCE * error else advice

    def gain(self, view: SeatView, advice: Command, choice: Command,
             rng: random.Random) -> tuple[float, float]:
        """What ``choice`` gains over ``advice`` when heuristic bots play the game on in
        every seat (they trade, as the table does): the mean margin gained over
        :data:`VERIFY` samples, each move played on the same one, and its standard
        error."""
        gains: list[int] = []
        for rollout in range(self.VERIFY):
            table = determinize(view, self.seat, rng)
            ends = []
            for move in (advice, choice):
                played = table.copy()
                play(played, move)
                bots = [HeuristicBot(seat, f"{self.seed}:{self._decisions}:{rollout}:{seat}")
                        for seat in range(played.players)]
                ends.append(margin(play_on(played, bots), self.seat))
            gains.append(ends[1] - ends[0])
        mean = sum(gains) / len(gains)
        if len(gains) < 2:
            return mean, 0.0
        variance = sum((g - mean) ** 2 for g in gains) / (len(gains) - 1)
        return mean, math.sqrt(variance / len(gains))


class DeepSearchBot(SearchBot):
    """The ``search`` bot with ten times the playouts and rollouts: about 1 s a
    decision."""

    name: ClassVar[str] = "search-deep"
    PLAYOUTS: ClassVar[int] = 6000
    VERIFY: ClassVar[int] = 400


def candidates(view: SeatView) -> list[Command]:
    """The moves a decision weighs: what the rules allow the seat now, but offers
    (made as the heuristic bot makes them) and, of the ways to pay for one offer, the
    first :data:`ACCEPTANCES`; at most :data:`MAX_CANDIDATES` in all."""
    moves: list[Command] = []
    ways: dict[object, int] = {}
    for move in view.legal_moves():
        if isinstance(move, OfferShape) or move in moves:
            continue
        if isinstance(move, AcceptOffer):
            ways[move.offer] = ways.get(move.offer, 0) + 1
            if ways[move.offer] > ACCEPTANCES:
                continue
        moves.append(move)
    return moves[:MAX_CANDIDATES]
