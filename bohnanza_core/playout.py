"""Playouts: a game played on to its end as fast as the rules allow, for a search.

A search (:mod:`bohnanza_core.bots.search`) judges a move by how the game goes on after
it, thousands of times a second. A playout changes the table with the engine's own
functions: :func:`~bohnanza_core.engine.next_step` says what happens by itself next,
and the changes ``evolve`` makes for each event (``plant_bean``, ``harvest_field``,
``draw_card``...) are made directly, so there is one rulebook. What a playout leaves
out is what a search does not need: no event object per step, no record, no view, no
check of a command. Its policy chooses only moves the rules allow, which
tests/core/test_playout.py holds it to: it replays the playouts' decisions through
:func:`~bohnanza_core.engine.play` over thousands of seeded games of every ruleset and
compares the ends.

The policy is the ``nontrading`` bot's (bohnanza_core/bots/nontrading.py), read off the
state instead of a view: plant the front card where it fits (the fullest field of its
kind, else an empty one), else harvest the field paying most; plant the second card
only when it fits; plant turned-over and received cards the same way; never trade or
buy a field.
"""

from __future__ import annotations

from typing import Final

from bohnanza_core.cards import Card, coins_for
from bohnanza_core.commands import (
    Command,
    DiscardCard,
    EndPlanting,
    EndTrading,
    Harvest,
    PlantCard,
    PlantFromHand,
)
from bohnanza_core.engine import (
    FIELD_SPAN,
    STEP_DEAL,
    STEP_DRAW,
    STEP_END_PLANTING,
    STEP_END_TURN,
    STEP_FINAL_HARVEST,
    STEP_FIRST_TURN,
    STEP_GAME_END,
    STEP_NEXT_TURN,
    STEP_NONE,
    STEP_PHASE,
    STEP_RESHUFFLE,
    STEP_RUN_OUT,
    STEP_TAKE_DISCARD,
    STEP_TURN_OVER,
    bean_protected,
    deal_card,
    deal_order,
    discard_card,
    draw_card,
    end_game,
    end_planting,
    end_trading,
    end_turn,
    field_to_harvest,
    harvest_field,
    next_phase,
    next_step,
    plant_bean,
    reshuffle_discards,
    reshuffle_order,
    run_out,
    run_out_end,
    standing,
    start_phase,
    start_turn,
    take_from_discard,
    turn_over_card,
)
from bohnanza_core.events import CardSource
from bohnanza_core.rulesets import Ruleset
from bohnanza_core.shuffle import seeded_shuffle
from bohnanza_core.state import GameState, Phase

MAX_STEPS: Final = 200_000
"""A playout that has not ended after this many steps is a bug (a 7-player game of the
longest ruleset takes some 3,000): it raises instead of spinning."""


def start(ruleset: Ruleset, players: int, seed: str) -> GameState:
    """A new game's table before the deal, its deck shuffled from ``seed`` as the
    engine's :func:`~bohnanza_core.engine.new_game` shuffles it (no commitment, no
    events: a playout is never recorded)."""
    state = GameState(ruleset, tuple(f"seat {n}" for n in range(players)), seed, "", "")
    state.draw_pile = list(reversed(seeded_shuffle(range(ruleset.deck_size), seed, 0)))
    return state


def play_out(s: GameState, log: list[Command] | None = None) -> tuple[int, ...]:
    """Play ``s`` on to the end, in place, every seat by the playout policy; the
    coins of each seat. ``log``, when given, receives each decision as the command it
    stands for (the tests replay them through the engine)."""
    steps = 0
    while s.phase is not Phase.GAME_OVER:
        steps += 1
        if steps > MAX_STEPS:
            raise RuntimeError(f"a playout did not end after {MAX_STEPS} steps")
        step = next_step(s)
        if step != STEP_NONE:
            _happen(s, step)
        else:
            _decide(s, log)
    result = s.result
    assert result is not None
    return result.coins


def _happen(s: GameState, step: int) -> None:
    """Make the change the automatic event of ``step`` makes (engine._automatic)."""
    if step == STEP_TURN_OVER:
        turn_over_card(s)
    elif step == STEP_DRAW:
        draw_card(s, s.active)
    elif step == STEP_PHASE:
        start_phase(s, next_phase(s))
    elif step == STEP_END_PLANTING:
        end_planting(s)
    elif step == STEP_END_TURN:
        end_turn(s)
    elif step == STEP_NEXT_TURN:
        start_turn(s, (s.active + 1) % s.players, s.turn + 1)
    elif step == STEP_TAKE_DISCARD:
        take_from_discard(s)
    elif step == STEP_RESHUFFLE:
        reshuffle_discards(s, reshuffle_order(s))
    elif step == STEP_RUN_OUT:
        run_out(s, s.runs_out + 1, run_out_end(s))
    elif step == STEP_DEAL:
        deal_card(s, deal_order(s.ruleset, s.players)[s.dealt])
    elif step == STEP_FIRST_TURN:
        start_turn(s, 0, 1)
    elif step == STEP_FINAL_HARVEST:
        where = field_to_harvest(s)
        seat, index = where // FIELD_SPAN, where % FIELD_SPAN
        beans = s.fields[seat][index]
        harvest_field(s, seat, index, coins_for(s.kinds[beans[0]], len(beans)))
    elif step == STEP_GAME_END:
        coins, ranks = standing(s)
        end_game(s, coins, tuple(seat for seat in range(s.players) if ranks[seat] == 1), ranks)
    else:
        raise ValueError(f"no automatic step {step}")


def _decide(s: GameState, log: list[Command] | None) -> None:
    """The policy's decision for the seat the game waits for, made at once."""
    phase = s.phase
    active = s.active
    if phase is Phase.PLANTING:
        _plant_from_hand(s, active, log)
    elif phase is Phase.PLANTING_LEFTOVERS:
        _plant_leftover(s, active, log)
    elif phase is Phase.TRADING:
        # The playout never trades: whoever holds received beans plants them (under
        # the "at once" rules trading waits for that), then the active player ends
        # trading, which closes any offer still open.
        for seat in range(s.players):
            area = s.trade_areas[seat]
            if area and s.rules.received_at_once:
                _plant_one(s, seat, area, CardSource.TRADE_AREA, False, log)
                return
        if log is not None:
            log.append(EndTrading(seat=active))
        end_trading(s)
    elif phase is Phase.PLANTING_RECEIVED:
        for seat in range(s.players):
            area = s.trade_areas[seat]
            if area:
                _plant_one(s, seat, area, CardSource.TRADE_AREA, False, log)
                return
        _plant_one(s, active, s.face_up, CardSource.FACE_UP, s.rules.leftover_offered, log)
    else:
        raise RuntimeError(f"a playout cannot decide during {phase}")


def _field_for(s: GameState, seat: int, card: Card) -> int:
    """Where ``card`` goes without a harvest: the fullest field of its kind, else an
    empty field, else -1."""
    kinds = s.kinds
    kind = kinds[card]
    fields = s.fields[seat]
    best = empty = -1
    best_beans = 0
    for index in range(len(fields)):
        beans = fields[index]
        if not beans:
            if empty < 0:
                empty = index
        elif kinds[beans[0]] is kind and len(beans) > best_beans:
            best, best_beans = index, len(beans)
    return best if best >= 0 else empty


def _matching_field(s: GameState, seat: int, card: Card) -> int:
    """The fullest field already growing ``card``'s kind, or -1."""
    kinds = s.kinds
    kind = kinds[card]
    fields = s.fields[seat]
    best, best_beans = -1, 0
    for index in range(len(fields)):
        beans = fields[index]
        if beans and kinds[beans[0]] is kind and len(beans) > best_beans:
            best, best_beans = index, len(beans)
    return best


def _harvest_richest(s: GameState, seat: int, log: list[Command] | None) -> None:
    """Harvest the field paying most now (the fewest beans among equals)."""
    if seat != s.active and not s.rules.harvest_out_of_turn:
        raise RuntimeError("a playout needs a harvest the rules do not allow now")
    kinds = s.kinds
    fields = s.fields[seat]
    best, best_coins, best_beans = -1, -1, 0
    for index in range(len(fields)):
        beans = fields[index]
        if beans and not bean_protected(fields, index):
            coins = coins_for(kinds[beans[0]], len(beans))
            if coins > best_coins or (coins == best_coins and len(beans) < best_beans):
                best, best_coins, best_beans = index, coins, len(beans)
    if best < 0:
        raise RuntimeError("a playout found no field to harvest")
    if log is not None:
        log.append(Harvest(seat=seat, field=best))
    harvest_field(s, seat, best, best_coins)


def _plant_from_hand(s: GameState, seat: int, log: list[Command] | None) -> None:
    hand = s.hands[seat]
    if s.planted >= s.rules.planting_from_hand:
        # Only where cards may still be discarded from the hand: the policy does not.
        if log is not None:
            log.append(EndPlanting(seat=seat))
        end_planting(s)
        return
    index = _field_for(s, seat, hand[0])
    if index >= 0:
        if log is not None:
            log.append(PlantFromHand(seat=seat, field=index))
        plant_bean(s, seat, hand[0], index, CardSource.HAND)
    elif s.planted:
        if log is not None:
            log.append(EndPlanting(seat=seat))
        end_planting(s)
    else:
        _harvest_richest(s, seat, log)


def _plant_leftover(s: GameState, seat: int, log: list[Command] | None) -> None:
    """The opponent's leftovers (a ruleset that offers them): plant one that fits,
    else discard the first."""
    for card in s.face_up:
        index = _field_for(s, seat, card)
        if index >= 0:
            if log is not None:
                log.append(PlantCard(seat=seat, card=card, field=index))
            plant_bean(s, seat, card, index, CardSource.FACE_UP)
            return
    card = s.face_up[0]
    if log is not None:
        log.append(DiscardCard(seat=seat, card=card))
    discard_card(s, seat, card, CardSource.FACE_UP)


def _plant_one(s: GameState, seat: int, cards: list[Card], source: CardSource,
               optional: bool, log: list[Command] | None) -> None:
    """One of ``cards`` into its own kind's field, else into an empty field (the kind
    with most cards first), else harvest to make room, or end planting if optional."""
    for card in cards:
        index = _matching_field(s, seat, card)
        if index >= 0:
            if log is not None:
                log.append(PlantCard(seat=seat, card=card, field=index))
            plant_bean(s, seat, card, index, source)
            return
    fields = s.fields[seat]
    for index in range(len(fields)):
        if not fields[index]:
            card = _most_common(s, cards)
            if log is not None:
                log.append(PlantCard(seat=seat, card=card, field=index))
            plant_bean(s, seat, card, index, source)
            return
    if optional:
        if log is not None:
            log.append(EndPlanting(seat=seat))
        end_planting(s)
    else:
        _harvest_richest(s, seat, log)


def _most_common(s: GameState, cards: list[Card]) -> Card:
    """The first card whose kind is the most common among ``cards``."""
    kinds = s.kinds
    best, best_count = cards[0], 0
    for card in cards:
        kind = kinds[card]
        count = 0
        for other in cards:
            if kinds[other] is kind:
                count += 1
        if count > best_count:
            best, best_count = card, count
    return best
