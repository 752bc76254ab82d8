"""The rules: ``decide`` turns a command into events, ``evolve`` applies an event.

A game moves by itself wherever no one has a choice (dealing, turning over,
reshuffling, drawing, the final harvest): after each command, :func:`play` applies
the *automatic* events that follow until some player must decide again. So the
events of one command are its own (decision) events followed by automatic ones, and
a recorded game can be re-derived from its decisions alone (:func:`command_for`).

Validation always happens before the first event is applied: an illegal command
raises :class:`IllegalMove` and leaves the state as it was.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Final

from bohnanza_core.cards import BeanKind, Card, coins_for
from bohnanza_core.commands import (
    AcceptOffer,
    BuyThirdField,
    Command,
    DeclineOffer,
    DiscardCard,
    EndPlanting,
    EndTrading,
    HandSeatToBot,
    Harvest,
    MakeOffer,
    PlantCard,
    PlantFromHand,
    StopGame,
    WithdrawOffer,
)
from bohnanza_core.commitments import is_salt, offline_salt, seed_commitment
from bohnanza_core.errors import IllegalMove, RulesetError
from bohnanza_core.events import (
    BeanPlanted,
    CardDealt,
    CardDiscarded,
    CardDrawn,
    CardSource,
    CardTakenFromDiscard,
    CardTurnedOver,
    DeckShuffled,
    DiscardPileReshuffled,
    DrawPileRanOut,
    Event,
    FieldHarvested,
    GameEnd,
    GameEnded,
    GameStarted,
    GameStopped,
    Handover,
    OfferAccepted,
    OfferDeclined,
    OfferMade,
    OfferVoided,
    OfferWithdrawn,
    PhaseStarted,
    PlantingEnded,
    SeatHandedToBot,
    StopReason,
    ThirdFieldBought,
    TradingEnded,
    TurnEnded,
    TurnStarted,
)
from bohnanza_core.rulesets import (
    CoinDestination,
    EmptyReshuffle,
    EndTiming,
    ReshuffleWhen,
    Ruleset,
    TieBreak,
    check_player_count,
)
from bohnanza_core.shuffle import seeded_shuffle
from bohnanza_core.state import GameState, Offer, Phase, Result

# ---------------------------------------------------------------------------
# Starting a game
# ---------------------------------------------------------------------------


SEAT_NAME_MAX = 40
"""The longest seat name: a name is shown on every table, list and log line."""
SEED_MAX = 128
"""The longest seed: the platform's are 32 hex digits, a simulation's ``SEED:i``."""


def check_seat_name(name: object) -> str:
    """Refuse a seat name that cannot be shown as one: not text, empty or blank, longer
    than :data:`SEAT_NAME_MAX`, or holding control characters (a line break in a log)."""
    if (not isinstance(name, str) or not name.strip() or len(name) > SEAT_NAME_MAX
            or not name.isprintable()):
        shown = repr(name[:SEAT_NAME_MAX]) + ("..." if len(name) > SEAT_NAME_MAX else "") \
            if isinstance(name, str) else type(name).__name__
        raise RulesetError(f"a seat name is 1 to {SEAT_NAME_MAX} printable characters, "
                           f"not {shown}")
    return name


TAGS_MAX = 64
TAG_KEY_MAX = 40
TAG_VALUE_MAX = 200
"""A game's tag pairs (``GameStarted.tags``): at most 64, each a key of 1 to 40 and a
value of up to 200 printable characters (a competition's name, an entrant's id)."""


def is_tag_value(text: object) -> bool:
    """Whether ``text`` may be a game's tag value: text of at most :data:`TAG_VALUE_MAX`
    printable characters (no tab, zero-width joiner or direction override). The one
    rule :func:`check_tags` applies, public so that what becomes a tag (a competition's
    name, an entrant's id) is refused where it is typed, not when its games start."""
    return isinstance(text, str) and len(text) <= TAG_VALUE_MAX and text.isprintable()


def check_tags(tags: object) -> tuple[tuple[str, str], ...]:
    """Refuse tag pairs that cannot be shown as such: not pairs of text, too many, too
    long, holding control characters, or a key given twice."""
    if not isinstance(tags, tuple | list) or len(tags) > TAGS_MAX:
        raise RulesetError(f"a game has at most {TAGS_MAX} tags, as [key, value] pairs")
    checked: list[tuple[str, str]] = []
    for pair in tags:
        if (not isinstance(pair, tuple | list) or len(pair) != 2
                or not all(is_tag_value(text) for text in pair)
                or not 0 < len(pair[0]) <= TAG_KEY_MAX):
            raise RulesetError(f"a tag is a key of 1 to {TAG_KEY_MAX} and a value of up to "
                               f"{TAG_VALUE_MAX} printable characters, not {str(pair)[:60]}")
        checked.append((pair[0], pair[1]))
    if len({key for key, _ in checked}) != len(checked):
        raise RulesetError("a game's tag keys are each given once")
    return tuple(checked)


def new_game(
    ruleset: Ruleset, seats: Sequence[str], seed: object, salt: object = None,
    tags: object = (),
) -> tuple[GameState, list[Event]]:
    """Seat the players (seat 0 starts), commit to ``seed``, shuffle and deal.

    ``salt`` is the game's secret salt (bohnanza_core.commitments): the platform
    draws a fresh one for every table; without it, it is derived from the seed, as
    for a simulation, whose record must follow from its seed alone.

    Returns the state, now waiting for the first player's first decision, and every
    event so far. ``tags``: what the game belongs to (``GameStarted.tags``), checked
    here. ``seed`` and ``salt`` are typed ``object``: they come from tables and
    uploads, and are checked here (a RulesetError), where compiled code would raise
    TypeError at the door for a value not of the annotated type."""
    # Names come from tables and uploads: read as what they are until checked (compiled
    # code would raise TypeError on reading a non-string as the annotation says).
    given: tuple[object, ...] = tuple(seats)
    check_player_count(ruleset, len(given))
    seats = tuple(check_seat_name(name) for name in given)
    if not isinstance(seed, str) or not seed or len(seed) > SEED_MAX:
        raise RulesetError(f"the seed must be a string of 1 to {SEED_MAX} characters")
    if salt is None:
        salt = offline_salt(seed)
    elif not isinstance(salt, str) or not is_salt(salt):
        raise RulesetError("the salt must be 32 lowercase hex digits")
    started = GameStarted(ruleset=ruleset, seats=seats, seed_commitment=seed_commitment(
        seed, salt), seed=seed, salt=salt, tags=check_tags(tags))
    state = evolve(None, started)
    events: list[Event] = [started]
    shuffled = DeckShuffled(order=seeded_shuffle(range(ruleset.deck_size), seed, 0))
    evolve(state, shuffled)
    events.append(shuffled)
    _advance(state, events)
    return state, events


# ---------------------------------------------------------------------------
# evolve: apply one event
# ---------------------------------------------------------------------------


def evolve(state: GameState | None, event: Event) -> GameState:
    """Apply ``event`` to ``state`` in place and return it (``None`` before
    :class:`GameStarted`). The event must come from :func:`decide` / :func:`play`,
    unredacted: evolve trusts it, except where a cheap check catches a record that
    disagrees with the table."""
    if state is None:
        if not isinstance(event, GameStarted):
            raise ValueError(f"a game begins with GameStarted, not {type(event).__name__}")
        if event.seed is None or event.salt is None:
            raise ValueError("cannot start a game from a redacted GameStarted (no seed)")
        new = GameState(event.ruleset, event.seats, event.seed, event.salt,
                        event.seed_commitment)
        new.events_applied = 1
        return new
    _apply(state, event)
    state.events_applied += 1
    return state


# The changes the table goes through, each a function on the state alone: ``evolve``
# applies a recorded event through them, and bohnanza_core/playout.py calls the same
# functions directly for a search's playouts, where building an event object per step
# would cost more than the step (bench/engine.py, section "playouts"). One rulebook,
# two callers.


def deal_card(s: GameState, seat: int) -> None:
    s.hands[seat].append(s.draw_pile.pop())
    s.dealt += 1


def start_turn(s: GameState, seat: int, turn: int) -> None:
    s.active = seat
    s.turn = turn
    s.planted = s.turned_over = s.drawn = 0
    s.planting_done = False
    s.phase = Phase.PLANTING_LEFTOVERS if s.face_up else Phase.PLANTING


def plant_bean(s: GameState, seat: int, card: Card, field: int, source: CardSource) -> None:
    if source is CardSource.HAND:
        s.hands[seat].pop(0)
        s.planted += 1
    elif source is CardSource.FACE_UP:
        s.face_up.remove(card)
    else:
        s.trade_areas[seat].remove(card)
    s.fields[seat][field].append(card)
    if s.phase is Phase.PLANTING_LEFTOVERS and not s.face_up:
        s.phase = Phase.PLANTING


def end_planting(s: GameState) -> None:
    if s.phase is Phase.PLANTING:
        s.phase = Phase.TURNING_OVER
    else:
        s.planting_done = True


def turn_over_card(s: GameState) -> None:
    s.face_up.append(s.draw_pile.pop())
    s.turned_over += 1


def take_from_discard(s: GameState) -> None:
    s.face_up.append(s.discard_pile.pop())


def start_phase(s: GameState, phase: Phase) -> None:
    s.phase = phase


def end_trading(s: GameState) -> None:
    s.offers.clear()
    s.phase = Phase.PLANTING_RECEIVED


def harvest_field(s: GameState, seat: int, field: int, coins: int) -> None:
    beans = s.fields[seat][field]
    s.fields[seat][field] = []
    sold = len(beans) - coins
    s.coins[seat].extend(beans[sold:])
    s.discard_pile.extend(beans[:sold])


def buy_third_field(s: GameState, seat: int, cost: int) -> None:
    coins = s.coins[seat]
    keep = len(coins) - cost
    paid = coins[keep:]
    del coins[keep:]
    if s.rules.paid_coins_to is CoinDestination.OUT_OF_GAME:
        s.out_of_game.extend(paid)
    else:
        s.discard_pile.extend(paid)
    s.fields[seat].append([])
    s.third_field_bought[seat] = True


def discard_card(s: GameState, seat: int, card: Card, source: CardSource) -> None:
    if source is CardSource.HAND:
        s.hands[seat].remove(card)
        if s.phase is Phase.PLANTING:
            s.phase = Phase.TURNING_OVER
    else:
        s.face_up.remove(card)
        if s.phase is Phase.PLANTING_LEFTOVERS and not s.face_up:
            s.phase = Phase.PLANTING
    s.discard_pile.append(card)


def draw_card(s: GameState, seat: int) -> None:
    s.hands[seat].append(s.draw_pile.pop())
    s.drawn += 1


def run_out(s: GameState, times: int, game_end: GameEnd) -> None:
    s.runs_out = times
    if game_end is GameEnd.NOT_YET:
        s.reshuffle_due = True
    elif game_end is GameEnd.AFTER_THIS_TURN:
        s.ending = True
    else:
        s.phase = Phase.FINAL_HARVEST


def reshuffle_discards(s: GameState, order: Sequence[Card]) -> None:
    s.draw_pile = list(reversed(order))
    s.discard_pile = []
    s.reshuffles += 1
    s.reshuffle_due = False


def end_turn(s: GameState) -> None:
    s.phase = Phase.BETWEEN_TURNS


def _check_top(state: GameState, card: Card | None) -> None:
    """A recorded card taken from the draw pile must be the pile's top."""
    if not state.draw_pile or card is None or state.draw_pile[-1] != card:
        raise ValueError(f"the record says card {card} but the draw pile disagrees")


def _ev_started(s: GameState, e: GameStarted) -> None:
    raise ValueError("GameStarted can only begin a game")


def _ev_shuffled(s: GameState, e: DeckShuffled) -> None:
    if e.order is None:
        raise ValueError("cannot apply a redacted DeckShuffled")
    s.draw_pile = list(reversed(e.order))


def _ev_dealt(s: GameState, e: CardDealt) -> None:
    _check_top(s, e.card)
    deal_card(s, e.seat)


def _ev_turn_started(s: GameState, e: TurnStarted) -> None:
    start_turn(s, e.seat, e.turn)


def _ev_planted(s: GameState, e: BeanPlanted) -> None:
    plant_bean(s, e.seat, e.card, e.field, e.source)


def _ev_planting_ended(s: GameState, e: PlantingEnded) -> None:
    end_planting(s)


def _ev_turned_over(s: GameState, e: CardTurnedOver) -> None:
    _check_top(s, e.card)
    turn_over_card(s)


def _ev_taken_from_discard(s: GameState, e: CardTakenFromDiscard) -> None:
    take_from_discard(s)


def _ev_phase(s: GameState, e: PhaseStarted) -> None:
    start_phase(s, e.phase)


def _ev_offer_made(s: GameState, e: OfferMade) -> None:
    s.offers[e.offer] = Offer(e.offer, e.proposer, e.counterparty, e.gives, e.wants)
    s.next_offer = e.offer + 1


def _give(s: GameState, giver: int, cards: Iterable[Card], receiver: int) -> None:
    hand, area = s.hands[giver], s.trade_areas[receiver]
    for card in cards:
        if giver == s.active and card in s.face_up:
            s.face_up.remove(card)
        else:
            hand.remove(card)  # list.remove keeps the order of the cards left
        area.append(card)


def _ev_accepted(s: GameState, e: OfferAccepted) -> None:
    offer = s.offers.pop(e.offer)
    _give(s, offer.proposer, offer.gives, e.seat)
    _give(s, e.seat, e.cards, offer.proposer)


def _ev_declined(s: GameState, e: OfferDeclined) -> None:
    offer = s.offers[e.offer]
    offer.declined_by.add(e.seat)
    if offer.counterparty is not None or len(offer.declined_by) >= s.players - 1:
        del s.offers[e.offer]


def _ev_offer_closed(s: GameState, e: OfferWithdrawn | OfferVoided) -> None:
    del s.offers[e.offer]


def _ev_trading_ended(s: GameState, e: TradingEnded) -> None:
    end_trading(s)


def _ev_harvested(s: GameState, e: FieldHarvested) -> None:
    harvest_field(s, e.seat, e.field, e.coins)


def _ev_field_bought(s: GameState, e: ThirdFieldBought) -> None:
    buy_third_field(s, e.seat, e.cost)


def _ev_discarded(s: GameState, e: CardDiscarded) -> None:
    discard_card(s, e.seat, e.card, e.source)


def _ev_drawn(s: GameState, e: CardDrawn) -> None:
    _check_top(s, e.card)
    draw_card(s, e.seat)


def _ev_ran_out(s: GameState, e: DrawPileRanOut) -> None:
    run_out(s, e.times, e.game_end)


def _ev_reshuffled(s: GameState, e: DiscardPileReshuffled) -> None:
    if e.order is None:
        raise ValueError("cannot apply a redacted DiscardPileReshuffled")
    reshuffle_discards(s, e.order)


def _ev_turn_ended(s: GameState, e: TurnEnded) -> None:
    end_turn(s)


def _ev_handed_to_bot(s: GameState, e: SeatHandedToBot) -> None:
    s.seat_bots[e.seat] = e.bot


def _ev_game_ended(s: GameState, e: GameEnded) -> None:
    end_game(s, e.coins, e.winners, e.ranks)


def _ev_game_stopped(s: GameState, e: GameStopped) -> None:
    s.phase = Phase.GAME_OVER
    s.result = Result(e.coins, e.winners, e.ranks)


def _apply(s: GameState, e: Event) -> None:
    """Hand ``e`` to its handler. An ``isinstance`` chain, most frequent events first
    (counted over bot games of 4-player classic), rather than a dictionary of functions:
    compiled, each test is a type comparison and each handler a direct C call, where a
    dictionary's functions are called as Python objects with their arguments checked."""
    if isinstance(e, BeanPlanted):
        _ev_planted(s, e)
    elif isinstance(e, CardDrawn):
        _ev_drawn(s, e)
    elif isinstance(e, PhaseStarted):
        _ev_phase(s, e)
    elif isinstance(e, CardTurnedOver):
        _ev_turned_over(s, e)
    elif isinstance(e, FieldHarvested):
        _ev_harvested(s, e)
    elif isinstance(e, OfferMade):
        _ev_offer_made(s, e)
    elif isinstance(e, TurnStarted):
        _ev_turn_started(s, e)
    elif isinstance(e, PlantingEnded):
        _ev_planting_ended(s, e)
    elif isinstance(e, TradingEnded):
        _ev_trading_ended(s, e)
    elif isinstance(e, TurnEnded):
        _ev_turn_ended(s, e)
    elif isinstance(e, OfferDeclined):
        _ev_declined(s, e)
    elif isinstance(e, CardDealt):
        _ev_dealt(s, e)
    elif isinstance(e, OfferAccepted):
        _ev_accepted(s, e)
    elif isinstance(e, OfferWithdrawn | OfferVoided):
        _ev_offer_closed(s, e)
    elif isinstance(e, DrawPileRanOut):
        _ev_ran_out(s, e)
    elif isinstance(e, DiscardPileReshuffled):
        _ev_reshuffled(s, e)
    elif isinstance(e, ThirdFieldBought):
        _ev_field_bought(s, e)
    elif isinstance(e, CardDiscarded):
        _ev_discarded(s, e)
    elif isinstance(e, CardTakenFromDiscard):
        _ev_taken_from_discard(s, e)
    elif isinstance(e, DeckShuffled):
        _ev_shuffled(s, e)
    elif isinstance(e, SeatHandedToBot):
        _ev_handed_to_bot(s, e)
    elif isinstance(e, GameEnded):
        _ev_game_ended(s, e)
    elif isinstance(e, GameStarted):
        _ev_started(s, e)
    elif isinstance(e, GameStopped):
        _ev_game_stopped(s, e)
    else:
        raise TypeError(f"not an event: {type(e).__name__}")


# ---------------------------------------------------------------------------
# Automatic events: what happens when no one has a choice
# ---------------------------------------------------------------------------


def deal_order(ruleset: Ruleset, players: int) -> tuple[int, ...]:
    """Seats in dealing order: one card at a time around the table."""
    return _deal_order(ruleset.deal, players)


@cache
def _deal_order(deal: tuple[int, ...], players: int) -> tuple[int, ...]:
    # Cached on the ruleset's ``deal`` alone: hashing a whole Ruleset (a frozen
    # dataclass, its __hash__ and __eq__ run as Python) cost a quarter of a playout.
    def cards_dealt(seat: int) -> int:
        return deal[min(seat, len(deal) - 1)]

    rounds = max(cards_dealt(seat) for seat in range(players))
    return tuple(
        seat
        for round_ in range(rounds)
        for seat in range(players)
        if cards_dealt(seat) > round_
    )


# What happens next by itself, as a step code: :func:`next_step` is where the rules'
# order of automatic steps is written, once; the engine turns a step into its event
# (:func:`_automatic`), a playout (bohnanza_core/playout.py) into the change of the table
# the event would make, without the event. Module constants, not an enum: compiled, a
# ``Final`` int is a C constant and a comparison with it one machine instruction.
STEP_NONE: Final = 0
"""Someone must decide."""
STEP_END_PLANTING: Final = 1
STEP_TURN_OVER: Final = 2
STEP_TAKE_DISCARD: Final = 3
STEP_PHASE: Final = 4
"""The next phase starts: :func:`next_phase`."""
STEP_RESHUFFLE: Final = 5
STEP_RUN_OUT: Final = 6
STEP_DRAW: Final = 7
STEP_END_TURN: Final = 8
STEP_NEXT_TURN: Final = 9
STEP_DEAL: Final = 10
STEP_FIRST_TURN: Final = 11
STEP_FINAL_HARVEST: Final = 12
"""A field left at the end is harvested: :func:`field_to_harvest`."""
STEP_GAME_END: Final = 13
FIELD_SPAN: Final = 256
""":func:`field_to_harvest` answers ``seat * FIELD_SPAN + field`` (no tuple to build)."""


def _pile_step(s: GameState, card_needed: bool) -> int:
    """A run-out or reshuffle that must happen before the next card is taken."""
    r = s.rules
    if s.reshuffle_due:
        return STEP_RESHUFFLE
    if s.draw_pile or s.ending:
        return STEP_NONE
    if not (card_needed or r.reshuffle_when is ReshuffleWhen.LAST_CARD_DRAWN):
        return STEP_NONE
    return STEP_RUN_OUT


def run_out_end(s: GameState) -> GameEnd:
    """What the draw pile's running out now means for the game."""
    r = s.rules
    times = s.runs_out + 1
    last = times >= r.ends_on_run_out or (
        not s.discard_pile and r.empty_reshuffle is EmptyReshuffle.ENDS_GAME
    )
    if not last:
        return GameEnd.NOT_YET
    timing = (
        r.run_out_while_turning_over if s.phase is Phase.TURNING_OVER else r.run_out_while_drawing
    )
    return GameEnd.AFTER_THIS_TURN if timing is EndTiming.FINISH_TURN else GameEnd.NOW


def reshuffle_order(s: GameState) -> tuple[Card, ...]:
    """The discard pile's order once shuffled into the new draw pile (first card = bottom)."""
    return seeded_shuffle(s.discard_pile, s.seed, s.reshuffles + 1)


def field_to_harvest(s: GameState) -> int:
    """The first field still holding beans in the final harvest, as ``seat *
    FIELD_SPAN + field``, or -1 when every field is empty."""
    for seat in range(len(s.fields)):
        fields = s.fields[seat]
        for index in range(len(fields)):
            if fields[index]:
                return seat * FIELD_SPAN + index
    return -1


def next_phase(s: GameState) -> Phase:
    """The phase a :data:`STEP_PHASE` starts."""
    if s.phase is Phase.TURNING_OVER:
        return Phase.TRADING if s.rules.trading else Phase.PLANTING_RECEIVED
    if s.phase is Phase.PLANTING_RECEIVED and not s.ending:
        return Phase.DRAWING
    return Phase.FINAL_HARVEST


def next_step(s: GameState) -> int:
    """The next step that happens by itself (a ``STEP_`` code), or :data:`STEP_NONE`
    when a player must decide."""
    r = s.rules
    phase = s.phase
    if phase is Phase.PLANTING:
        hand = s.hands[s.active]
        if not hand or (
            s.planted >= r.planting_from_hand and not r.discard_from_hand_after_planting
        ):
            return STEP_END_PLANTING
        return STEP_NONE
    if phase is Phase.TURNING_OVER:
        needed = not s.ending and s.turned_over < r.face_up_cards
        pile = _pile_step(s, needed)
        if pile != STEP_NONE:
            return pile
        if needed:
            return STEP_TURN_OVER
        if r.take_matching_discards and s.discard_pile:
            kinds = s.kinds
            top = kinds[s.discard_pile[-1]]
            for card in s.face_up:
                if kinds[card] is top:
                    return STEP_TAKE_DISCARD
        return STEP_PHASE
    if phase is Phase.PLANTING_RECEIVED:
        if (s.face_up and not s.planting_done) or any(s.trade_areas):
            return STEP_NONE
        return STEP_PHASE
    if phase is Phase.DRAWING:
        needed = not s.ending and s.drawn < r.draw_cards
        pile = _pile_step(s, needed)
        if pile != STEP_NONE:
            return pile
        if needed:
            return STEP_DRAW
        return STEP_PHASE if s.ending else STEP_END_TURN
    if phase is Phase.BETWEEN_TURNS:
        return STEP_NEXT_TURN
    if phase is Phase.DEALING:
        return STEP_DEAL if s.dealt < len(deal_order(s.ruleset, s.players)) else STEP_FIRST_TURN
    if phase is Phase.FINAL_HARVEST:
        return STEP_FINAL_HARVEST if field_to_harvest(s) >= 0 else STEP_GAME_END
    return STEP_NONE


def standing(s: GameState) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Each seat's coins and place (1 + the seats ahead) at the end, by the ruleset's
    tie-break."""
    r = s.rules
    coins = tuple(len(c) for c in s.coins)
    seats = range(s.players)
    key: Callable[[int], tuple[int, ...]]
    if r.tie_break is TieBreak.MOST_CARDS_IN_HAND:
        hand_sizes = tuple(len(h) for h in s.hands)
        key = lambda seat: (coins[seat], hand_sizes[seat])  # noqa: E731
    elif r.tie_break is TieBreak.FURTHEST_CLOCKWISE:
        key = lambda seat: (coins[seat], seat)  # noqa: E731
    else:
        key = lambda seat: (coins[seat],)  # noqa: E731
    keys = [key(seat) for seat in seats]
    ranks = tuple(1 + sum(1 for other in keys if other > keys[seat]) for seat in seats)
    return coins, ranks


def end_game(s: GameState, coins: tuple[int, ...], winners: tuple[int, ...],
             ranks: tuple[int, ...]) -> None:
    s.phase = Phase.GAME_OVER
    s.result = Result(coins, winners, ranks)


def _final_result(s: GameState) -> GameEnded:
    coins, ranks = standing(s)
    best = max(coins)
    tied = sum(1 for c in coins if c == best)
    return GameEnded(
        coins=coins,
        winners=tuple(seat for seat in range(s.players) if ranks[seat] == 1),
        ranks=ranks,
        hand_sizes=tuple(len(h) for h in s.hands),
        tie_break=s.rules.tie_break if tied > 1 else None,
        seed=s.seed,
        salt=s.salt,
    )


def _automatic(s: GameState) -> Event | None:
    """The next event that happens by itself, or None when a player must decide."""
    step = next_step(s)
    if step == STEP_NONE:
        return None
    if step == STEP_TURN_OVER:
        return CardTurnedOver(card=s.draw_pile[-1])
    if step == STEP_DRAW:
        return CardDrawn(seat=s.active, card=s.draw_pile[-1])
    if step == STEP_PHASE:
        return PhaseStarted(phase=next_phase(s))
    if step == STEP_END_PLANTING:
        return PlantingEnded(seat=s.active)
    if step == STEP_END_TURN:
        return TurnEnded(seat=s.active)
    if step == STEP_NEXT_TURN:
        return TurnStarted(seat=(s.active + 1) % s.players, turn=s.turn + 1)
    if step == STEP_TAKE_DISCARD:
        return CardTakenFromDiscard(card=s.discard_pile[-1])
    if step == STEP_RESHUFFLE:
        order = reshuffle_order(s)
        return DiscardPileReshuffled(cards=len(order), order=order)
    if step == STEP_RUN_OUT:
        return DrawPileRanOut(times=s.runs_out + 1, game_end=run_out_end(s))
    if step == STEP_DEAL:
        return CardDealt(seat=deal_order(s.ruleset, s.players)[s.dealt], card=s.draw_pile[-1])
    if step == STEP_FIRST_TURN:
        return TurnStarted(seat=0, turn=1)
    if step == STEP_FINAL_HARVEST:
        where = field_to_harvest(s)
        seat, index = where // FIELD_SPAN, where % FIELD_SPAN
        beans = s.fields[seat][index]
        kind = s.kinds[beans[0]]
        return FieldHarvested(seat=seat, field=index, kind=kind, beans=len(beans),
                              coins=coins_for(kind, len(beans)), final=True)
    return _final_result(s)


def _advance(state: GameState, events: list[Event]) -> None:
    while (event := _automatic(state)) is not None:
        _apply(state, event)
        state.events_applied += 1
        events.append(event)


# ---------------------------------------------------------------------------
# decide: validate a command and say what it does
# ---------------------------------------------------------------------------


def _kind_name(kind: BeanKind, count: int = 1) -> str:
    return f"{count} {kind.value} bean{'s' if count != 1 else ''}"


def _check_seat(s: GameState, seat: object) -> int:
    if s.phase is Phase.GAME_OVER:
        raise IllegalMove("the game is over")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < s.players:
        raise IllegalMove(f"there is no seat {seat!r} at this table")
    return seat


def _check_active(s: GameState, seat: int, doing: str) -> None:
    if seat != s.active:
        raise IllegalMove(f"only the active player ({s.seats[s.active]}) may {doing}")


def _check_field_fits(s: GameState, seat: int, field: object, card: Card) -> int:
    fields = s.fields[seat]
    kind = s.kinds[card]
    if not isinstance(field, int) or isinstance(field, bool) or not 0 <= field < len(fields):
        raise IllegalMove(f"there is no field {field!r}: you have {len(fields)} fields")
    beans = fields[field]
    if beans and s.kinds[beans[0]] is not kind:
        if not any(not f or s.kinds[f[0]] is kind for f in fields):
            raise IllegalMove(
                f"no field fits a {kind.value} bean: harvest a field first"
                + (" (or buy a third field)" if _may_buy_field(s, seat) else "")
            )
        raise IllegalMove(
            f"field {field} holds {s.kinds[beans[0]].value} beans; "
            f"a {kind.value} bean goes into an empty field or one of its own kind"
        )
    return field


def _check_received_planted_first(s: GameState, doing: str = "") -> None:
    """Under ``received_cards_planted`` = at once, trading pauses while any trade area
    holds beans: 004 (fi) 'Vaihdetut pavut on pelattava peltoihin heti kaupan
    vahvistamisen jälkeen' (planted right after the trade is confirmed)."""
    if s.rules.received_at_once:
        for seat, area in enumerate(s.trade_areas):
            if area:
                raise IllegalMove(
                    f"{doing}{s.seats[seat]} must first plant the beans received in the "
                    "last trade: under these rules traded beans are planted at once"
                )


def _d_plant_from_hand(s: GameState, c: PlantFromHand) -> list[Event]:
    seat = _check_seat(s, c.seat)
    if s.phase is not Phase.PLANTING:
        raise IllegalMove(f"cards are planted from the hand in phase 1, not during {s.phase}")
    _check_active(s, seat, "plant from the hand now")
    hand = s.hands[seat]
    if not hand:
        raise IllegalMove("your hand is empty")
    if s.planted >= s.rules.planting_from_hand:
        limit = s.rules.planting_from_hand
        raise IllegalMove(f"you may plant at most {limit} card{'s' if limit != 1 else ''} "
                          "from the hand")
    field = _check_field_fits(s, seat, c.field, hand[0])
    return [BeanPlanted(seat=seat, card=hand[0], field=field, source=CardSource.HAND)]


def _d_plant_card(s: GameState, c: PlantCard) -> list[Event]:
    seat = _check_seat(s, c.seat)
    at_once = s.rules.received_at_once
    planting_now = s.phase is Phase.PLANTING_RECEIVED or (s.phase is Phase.TRADING and at_once)
    card = c.card
    if type(card) is not int:
        raise IllegalMove(f"{card!r} is not a card")
    if card in s.trade_areas[seat]:
        if not planting_now:
            raise IllegalMove("beans received in trade are planted in phase 3")
        source = CardSource.TRADE_AREA
    elif card in s.face_up:
        _check_active(s, seat, "plant the face-up cards")
        if not (planting_now or s.phase is Phase.PLANTING_LEFTOVERS):
            raise IllegalMove(f"face-up cards cannot be planted during {s.phase}")
        source = CardSource.FACE_UP
    else:
        raise IllegalMove(f"card {card!r} is neither in your trade area nor face up")
    field = _check_field_fits(s, seat, c.field, card)
    events: list[Event] = [BeanPlanted(seat=seat, card=card, field=field, source=source)]
    if source is CardSource.FACE_UP:
        # Planting at once during trading (Finnish) takes the card out of any offer.
        events.extend(_voided_offers(s, {card}))
    return events


def _d_end_planting(s: GameState, c: EndPlanting) -> list[Event]:
    seat = _check_seat(s, c.seat)
    _check_active(s, seat, "end planting")
    if s.phase is Phase.PLANTING:
        if s.planted == 0:
            raise IllegalMove("you must plant the front card of your hand first")
        return [PlantingEnded(seat=seat)]
    if s.phase is Phase.PLANTING_RECEIVED:
        if not s.rules.leftover_offered:
            raise IllegalMove("every face-up card left must be planted")
        if s.planting_done:
            raise IllegalMove("you have already ended planting")
        return [PlantingEnded(seat=seat)]
    raise IllegalMove(f"there is no planting to end during {s.phase}")


def _d_discard(s: GameState, c: DiscardCard) -> list[Event]:
    seat = _check_seat(s, c.seat)
    _check_active(s, seat, "discard")
    card = c.card
    if type(card) is not int:
        raise IllegalMove(f"{card!r} is not a card")
    if s.phase is Phase.PLANTING_LEFTOVERS:
        if card not in s.face_up:
            raise IllegalMove(f"card {card!r} is not among the cards left to you")
        return [CardDiscarded(seat=seat, card=card, source=CardSource.FACE_UP)]
    if s.phase is Phase.PLANTING and s.rules.discard_from_hand_after_planting:
        if s.planted == 0:
            raise IllegalMove("plant the front card of your hand before discarding")
        if card not in s.hands[seat]:
            raise IllegalMove(f"card {card!r} is not in your hand")
        return [CardDiscarded(seat=seat, card=card, source=CardSource.HAND)]
    raise IllegalMove(f"no card may be discarded during {s.phase} under these rules")


def _may_harvest_now(s: GameState, seat: int) -> str | None:
    """Why ``seat`` may not harvest now, or None if it may."""
    if s.phase in (Phase.DEALING, Phase.FINAL_HARVEST, Phase.GAME_OVER):
        return f"no harvesting during {s.phase}"
    if not s.rules.harvest_out_of_turn and seat != s.active:
        return "under these rules you may harvest only during your own turn"
    return None


def harvest_refusal(s: GameState, seat: int, field: int) -> str | None:
    """Why ``seat`` may not harvest ``field`` now (bean protection included)."""
    reason = _may_harvest_now(s, seat)
    if reason:
        return reason
    fields = s.fields[seat]
    if not 0 <= field < len(fields):
        return f"there is no field {field}: you have {len(fields)} fields"
    if not fields[field]:
        return f"field {field} is empty"
    if bean_protected(fields, field):
        return (
            "bean protection: a field with a single bean cannot be harvested "
            "while another of your fields holds more than one"
        )
    return None


def bean_protected(fields: list[list[Card]], field: int) -> bool:
    """Bean protection: a field of a single bean cannot be harvested while another
    field of the same player holds more than one."""
    return len(fields[field]) == 1 and any(len(beans) > 1 for beans in fields)


def _d_harvest(s: GameState, c: Harvest) -> list[Event]:
    seat = _check_seat(s, c.seat)
    field = c.field
    if not isinstance(field, int) or isinstance(field, bool):
        raise IllegalMove(f"there is no field {field!r}")
    reason = harvest_refusal(s, seat, field)
    if reason:
        raise IllegalMove(reason)
    beans = s.fields[seat][field]
    kind = s.kinds[beans[0]]
    return [
        FieldHarvested(
            seat=seat,
            field=field,
            kind=kind,
            beans=len(beans),
            coins=coins_for(kind, len(beans)),
        )
    ]


def _buy_refusal(s: GameState, seat: int) -> str | None:
    r = s.rules
    if s.phase in (Phase.DEALING, Phase.FINAL_HARVEST, Phase.GAME_OVER):
        return f"no field can be bought during {s.phase}"
    if r.third_field_cost is None:
        return "this ruleset has no third field to buy"
    if s.third_field_bought[seat]:
        return "a third field can be bought only once"
    if len(s.fields[seat]) >= r.max_fields:
        return f"you already have {r.max_fields} fields"
    if len(s.coins[seat]) < r.third_field_cost:
        return f"the third field costs {r.third_field_cost} coins; you have {len(s.coins[seat])}"
    return None


def _may_buy_field(s: GameState, seat: int) -> bool:
    return _buy_refusal(s, seat) is None


def _d_buy(s: GameState, c: BuyThirdField) -> list[Event]:
    seat = _check_seat(s, c.seat)
    reason = _buy_refusal(s, seat)
    if reason:
        raise IllegalMove(reason)
    assert s.rules.third_field_cost is not None
    return [ThirdFieldBought(seat=seat, cost=s.rules.third_field_cost)]


def _holds(s: GameState, seat: int, card: Card) -> bool:
    """May ``seat`` trade ``card`` now: from its hand, or face up if active."""
    if type(card) is not int:  # 74.0 or True equal a card id but are not one
        return False
    return card in s.hands[seat] or (seat == s.active and card in s.face_up)


def _card_ids(cards: object, what: str) -> tuple[Card, ...]:
    """``cards`` as a tuple of card ids, or IllegalMove for anything else."""
    if not isinstance(cards, tuple | list) or any(type(c) is not int for c in cards):
        raise IllegalMove(f"{what} must be a list of card ids, not {cards!r}")
    return tuple(cards)


def _check_trading(s: GameState, doing: str) -> None:
    if s.phase is not Phase.TRADING:
        raise IllegalMove(f"{doing} only during trading (phase 2), not during {s.phase}")
    _check_received_planted_first(s)


def _d_offer(s: GameState, c: MakeOffer) -> list[Event]:
    seat = _check_seat(s, c.seat)
    _check_trading(s, "offers are made")
    to = c.to
    counterparty: int | None = None
    if seat == s.active:
        if to is not None:
            if type(to) is not int or not 0 <= to < s.players:
                raise IllegalMove(f"there is no seat {to!r} to offer to")
            if to == seat:
                raise IllegalMove("you cannot trade with yourself")
            counterparty = to
    else:
        if to is not None and to != s.active:
            raise IllegalMove(
                "only the active player trades with the others: "
                f"offer to {s.seats[s.active]} instead"
            )
        counterparty = s.active
    gives = _card_ids(c.gives, "the cards an offer gives")
    if len(set(gives)) != len(gives):
        raise IllegalMove("an offer names each card once")
    for card in gives:
        if not _holds(s, seat, card):
            where = "your hand or the face-up cards" if seat == s.active else "your hand"
            raise IllegalMove(f"card {card!r} is not in {where}")
    asked = c.wants
    if not isinstance(asked, tuple | list):
        raise IllegalMove(f"wants are pairs of a bean kind and a count, not {asked!r}")
    wants = tuple(asked)
    seen: set[BeanKind] = set()
    for item in wants:
        if not isinstance(item, tuple) or len(item) != 2:
            raise IllegalMove("wants are pairs of a bean kind and a count")
        kind, count = item
        if kind not in s.rules.beans:
            raise IllegalMove(f"there are no {str(kind)!r} beans in this game")
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise IllegalMove(f"want a positive number of {kind} beans, not {count!r}")
        if kind in seen:
            raise IllegalMove(f"name {kind} beans once in the wants")
        seen.add(kind)
    wants = tuple((BeanKind(kind), count) for kind, count in wants)  # "blue" -> BeanKind
    if not gives and not wants:
        raise IllegalMove("an offer must give or want something")
    return [
        OfferMade(
            offer=s.next_offer,
            proposer=seat,
            counterparty=counterparty,
            gives=gives,
            wants=wants,
        )
    ]


def _may_answer(s: GameState, offer: Offer, seat: int) -> bool:
    if seat == offer.proposer or seat in offer.declined_by:
        return False
    if offer.counterparty is not None:
        return offer.counterparty == seat
    return seat != s.active  # an open offer of the active player


def _open_offer(s: GameState, number: object, seat: int) -> Offer:
    offer = s.offers.get(number) if isinstance(number, int) else None
    if offer is None:
        raise IllegalMove(f"offer {number!r} is not open")
    return offer


def _d_accept(s: GameState, c: AcceptOffer) -> list[Event]:
    seat = _check_seat(s, c.seat)
    _check_trading(s, "offers are accepted")
    offer = _open_offer(s, c.offer, seat)
    if not _may_answer(s, offer, seat):
        raise IllegalMove(f"offer {offer.number} is not yours to accept")
    for card in offer.gives:
        if not _holds(s, offer.proposer, card):
            raise IllegalMove(f"offer {offer.number} is void: card {card} is no longer offered")
    cards = _card_ids(c.cards, "the cards you give")
    if len(set(cards)) != len(cards):
        raise IllegalMove("name each card once")
    for card in cards:
        if not _holds(s, seat, card):
            raise IllegalMove(f"card {card!r} is not yours to give")
    # Plain dictionaries, not Counter: Counter's methods are pure Python even in the
    # compiled build. Wants name each kind once with a positive count (_d_offer).
    given: dict[BeanKind, int] = {}
    for card in cards:
        kind = s.kinds[card]
        given[kind] = given.get(kind, 0) + 1
    wanted = {kind: count for kind, count in offer.wants}
    if given != wanted:
        want_text = ", ".join(_kind_name(k, n) for k, n in offer.wants) or "nothing (a gift)"
        give_text = ", ".join(_kind_name(k, n) for k, n in given.items()) or "nothing"
        raise IllegalMove(
            f"offer {offer.number} wants {want_text}; you named {give_text}"
        )
    events: list[Event] = [OfferAccepted(offer=offer.number, seat=seat, cards=cards)]
    events.extend(_voided_offers(s, set(offer.gives) | set(cards), skip=offer.number))
    return events


def _voided_offers(s: GameState, moved: set[Card], skip: int | None = None) -> list[Event]:
    """Open offers that name a card about to leave its holder: they can no longer be
    accepted, so they are closed at once (nobody waits on a void offer)."""
    return [
        OfferVoided(offer=other.number)
        for other in s.offers.values()
        if other.number != skip and moved.intersection(other.gives)
    ]


def _d_decline(s: GameState, c: DeclineOffer) -> list[Event]:
    seat = _check_seat(s, c.seat)
    _check_trading(s, "offers are declined")
    offer = _open_offer(s, c.offer, seat)
    if not _may_answer(s, offer, seat):
        raise IllegalMove(f"offer {offer.number} is not yours to decline")
    return [OfferDeclined(offer=offer.number, seat=seat)]


def _d_withdraw(s: GameState, c: WithdrawOffer) -> list[Event]:
    seat = _check_seat(s, c.seat)
    _check_trading(s, "offers are withdrawn")
    offer = _open_offer(s, c.offer, seat)
    if offer.proposer != seat:
        raise IllegalMove(f"offer {offer.number} is not yours to withdraw")
    return [OfferWithdrawn(offer=offer.number, seat=seat)]


def _d_end_trading(s: GameState, c: EndTrading) -> list[Event]:
    seat = _check_seat(s, c.seat)
    if s.phase is not Phase.TRADING:
        raise IllegalMove(f"there is no trading to end during {s.phase}")
    _check_active(s, seat, "end trading")
    _check_received_planted_first(s, "trading cannot end yet: ")
    return [TradingEnded(seat=seat)]


BOT_NAME_MAX = SEAT_NAME_MAX
"""The longest name of the bot a seat is handed to."""


def _d_hand_to_bot(s: GameState, c: HandSeatToBot) -> list[Event]:
    """The platform hands a seat to a bot (its person left or stayed away): allowed at
    any moment of a running game, once per seat. Which bots exist is the platform's
    business; the engine only keeps the name showable."""
    seat = _check_seat(s, c.seat)
    if s.seat_bots[seat]:
        raise IllegalMove(f"{s.seats[seat]}'s seat is already played by the "
                          f"{s.seat_bots[seat]} bot")
    bot = c.bot
    if (not isinstance(bot, str) or not bot.strip() or len(bot) > BOT_NAME_MAX
            or not bot.isprintable()):
        raise IllegalMove(f"a bot's name is 1 to {BOT_NAME_MAX} printable characters")
    asked = c.reason
    try:
        reason = Handover(asked)  # type: ignore[arg-type]
    except ValueError:
        raise IllegalMove(f"a seat is handed to a bot because its person "
                          f"{' or '.join(h.value for h in Handover)}, not "
                          f"{str(asked)[:30]!r}") from None
    return [SeatHandedToBot(seat=seat, bot=bot, reason=reason)]


def banked_ranks(coins: Sequence[int]) -> tuple[int, ...]:
    """Each seat's place by its banked coins alone: 1 + the seats with more, equal coins
    sharing a place (a game stopped before its end: no tie-break of the rules applies,
    for the hands still count in a game not over)."""
    return tuple(1 + sum(1 for other in coins if other > mine) for mine in coins)


def _check_ranks(s: GameState, ranks: object) -> tuple[int, ...]:
    """Ranks an arbiter rules: one per seat, each ``1 + the seats ranked ahead``."""
    if (not isinstance(ranks, tuple | list) or len(ranks) != s.players
            or not all(isinstance(r, int) and not isinstance(r, bool) for r in ranks)):
        raise IllegalMove(f"a ruling ranks every seat: {s.players} whole numbers")
    ruled = tuple(ranks)
    if any(r != 1 + sum(1 for other in ruled if other < r) for r in ruled):
        raise IllegalMove("ranks count from 1, a shared place taking the places after it "
                          "(1, 1, 3, 4)")
    return ruled


def _d_stop_game(s: GameState, c: StopGame) -> list[Event]:
    """The platform ends a running game now. The result: each seat's banked coins and,
    unless an arbiter ruled the places, the ranks those coins give."""
    if s.phase is Phase.GAME_OVER:
        raise IllegalMove("the game is over")
    asked = c.reason
    try:
        reason = StopReason(asked)  # type: ignore[arg-type]
    except ValueError:
        raise IllegalMove(f"a game is stopped for one of "
                          f"{', '.join(r.value for r in StopReason)}, not "
                          f"{str(asked)[:30]!r}") from None
    coins = tuple(len(c) for c in s.coins)
    if c.ranks is None:
        ranks = banked_ranks(coins)
    elif reason is StopReason.RULING:
        ranks = _check_ranks(s, c.ranks)
    else:
        raise IllegalMove("only an arbiter's ruling names the places; a stop for "
                          f"{reason.value} scores the coins banked")
    winners = tuple(seat for seat, rank in enumerate(ranks) if rank == 1)
    return [GameStopped(reason=reason, coins=coins, winners=winners, ranks=ranks,
                        seed=s.seed, salt=s.salt)]


def _command_events(state: GameState, command: object) -> list[Event]:
    """Hand ``command`` to its handler: a chain of exact type tests, most frequent
    commands first, as in :func:`_apply` (compiled, each handler is a direct C call
    where a dictionary's functions are called as Python objects)."""
    c = command
    if type(c) is PlantFromHand:
        return _d_plant_from_hand(state, c)
    if type(c) is PlantCard:
        return _d_plant_card(state, c)
    if type(c) is EndPlanting:
        return _d_end_planting(state, c)
    if type(c) is Harvest:
        return _d_harvest(state, c)
    if type(c) is DeclineOffer:
        return _d_decline(state, c)
    if type(c) is EndTrading:
        return _d_end_trading(state, c)
    if type(c) is MakeOffer:
        return _d_offer(state, c)
    if type(c) is AcceptOffer:
        return _d_accept(state, c)
    if type(c) is DiscardCard:
        return _d_discard(state, c)
    if type(c) is WithdrawOffer:
        return _d_withdraw(state, c)
    if type(c) is BuyThirdField:
        return _d_buy(state, c)
    if type(c) is HandSeatToBot:
        return _d_hand_to_bot(state, c)
    if type(c) is StopGame:
        return _d_stop_game(state, c)
    raise IllegalMove(f"{type(command).__name__} is not a command of this game")


def play(state: GameState, command: object) -> list[Event]:
    """Carry out ``command`` on ``state`` in place: its events and every automatic
    event after them, all applied; returned in order. Raises :class:`IllegalMove`
    (state untouched) if the rules forbid it. Typed ``object``: whatever a caller hands
    in (not a command at all, too) is answered with IllegalMove, never TypeError."""
    events = _command_events(state, command)
    for event in events:
        _apply(state, event)
        state.events_applied += 1
    _advance(state, events)
    return events


def decide(state: GameState, command: object) -> list[Event]:
    """The events ``command`` would cause, without changing ``state``."""
    return play(state.copy(), command)


# ---------------------------------------------------------------------------
# Who must act, and what they may do
# ---------------------------------------------------------------------------


def awaiting(state: GameState) -> tuple[int, ...]:
    """The seats the game waits for, most urgent first: those who must answer an
    offer or plant, then the active player. Empty when the game is over."""
    s = state
    phase = s.phase
    if phase in (Phase.PLANTING, Phase.PLANTING_LEFTOVERS):
        return (s.active,)
    if phase is Phase.TRADING:
        # Received beans must be planted before trading goes on only under AT_ONCE;
        # otherwise they wait for phase 3 and their owners owe nothing now.
        at_once = s.rules.received_at_once
        seats: list[int] = [seat for seat, area in enumerate(s.trade_areas) if area and at_once]
        if not seats:
            for offer in s.offers.values():
                for seat in range(s.players):
                    if seat not in seats and _may_answer(s, offer, seat):
                        seats.append(seat)
        if s.active not in seats and not (at_once and any(s.trade_areas)):
            seats.append(s.active)
        return tuple(seats)
    if phase is Phase.PLANTING_RECEIVED:
        seats = [seat for seat, area in enumerate(s.trade_areas) if area]
        if s.face_up and not s.planting_done and s.active not in seats:
            seats.append(s.active)
        return tuple(seats)
    return ()


@dataclass(frozen=True, slots=True)
class OfferShape:
    """The legal shape of an offer ``seat`` may make now: to one of ``to`` (None
    meaning open to all), giving any of ``givable`` and wanting any of ``wantable``
    (or nothing: a gift). Not every combination is listed: they are too many."""

    seat: int
    to: tuple[int | None, ...]
    givable: tuple[Card, ...]
    wantable: tuple[BeanKind, ...]


_MAX_ACCEPT_CHOICES = 24


def _acceptances(s: GameState, offer: Offer, seat: int) -> list[AcceptOffer]:
    """Every way ``seat`` can satisfy ``offer`` (capped: hands are small)."""
    held = list(s.hands[seat]) + (s.face_up if seat == s.active else [])
    options_per_kind = []
    for kind, count in offer.wants:
        matching = [card for card in held if s.kinds[card] is kind]
        if len(matching) < count:
            return []
        options_per_kind.append(list(itertools.combinations(matching, count)))
    result = []
    for combo in itertools.product(*options_per_kind):
        result.append(AcceptOffer(seat=seat, offer=offer.number, cards=sum(combo, ())))
        if len(result) >= _MAX_ACCEPT_CHOICES:
            break
    return result


def _plantings(s: GameState, seat: int, cards: Iterable[Card]) -> list[PlantCard]:
    out = []
    fields = s.fields[seat]
    for card in cards:
        kind = s.kinds[card]
        for index, beans in enumerate(fields):
            if not beans or s.kinds[beans[0]] is kind:
                out.append(PlantCard(seat=seat, card=card, field=index))
    return out


def legal_commands(state: GameState, seat: int) -> list[Command | OfferShape]:
    """What ``seat`` may do now. Offers come as :class:`OfferShape` values."""
    s = state
    if s.phase is Phase.GAME_OVER or not 0 <= seat < s.players:
        return []
    moves: list[Command | OfferShape] = []
    active = seat == s.active
    phase = s.phase
    at_once = s.rules.received_at_once
    if phase is Phase.PLANTING and active:
        hand = s.hands[seat]
        if hand and s.planted < s.rules.planting_from_hand:
            front = s.kinds[hand[0]]
            for index, beans in enumerate(s.fields[seat]):
                if not beans or s.kinds[beans[0]] is front:
                    moves.append(PlantFromHand(seat=seat, field=index))
        if s.planted >= 1:
            moves.append(EndPlanting(seat=seat))
            if s.rules.discard_from_hand_after_planting:
                moves.extend(DiscardCard(seat=seat, card=card) for card in hand)
    elif phase is Phase.PLANTING_LEFTOVERS and active:
        moves.extend(_plantings(s, seat, s.face_up))
        moves.extend(DiscardCard(seat=seat, card=card) for card in s.face_up)
    elif phase is Phase.TRADING:
        blocked = at_once and any(s.trade_areas)
        if at_once:
            moves.extend(_plantings(s, seat, s.trade_areas[seat]))
            if active:
                moves.extend(_plantings(s, seat, s.face_up))
        if not blocked:
            for offer in s.offers.values():
                if offer.proposer == seat:
                    moves.append(WithdrawOffer(seat=seat, offer=offer.number))
                elif _may_answer(s, offer, seat):
                    moves.extend(_acceptances(s, offer, seat))
                    moves.append(DeclineOffer(seat=seat, offer=offer.number))
            givable = tuple(s.hands[seat]) + (tuple(s.face_up) if active else ())
            others = tuple(o for o in range(s.players) if o != seat)
            to: tuple[int | None, ...] = (None, *others) if active else (s.active,)
            moves.append(OfferShape(seat=seat, to=to, givable=givable, wantable=s.rules.beans))
            if active:
                moves.append(EndTrading(seat=seat))
    elif phase is Phase.PLANTING_RECEIVED:
        moves.extend(_plantings(s, seat, s.trade_areas[seat]))
        if active and not s.planting_done:
            moves.extend(_plantings(s, seat, s.face_up))
            if s.rules.leftover_offered:
                moves.append(EndPlanting(seat=seat))
    if _may_harvest_now(s, seat) is None:
        for index in range(len(s.fields[seat])):
            if harvest_refusal(s, seat, index) is None:
                moves.append(Harvest(seat=seat, field=index))
    if _buy_refusal(s, seat) is None:
        moves.append(BuyThirdField(seat=seat))
    return moves


# ---------------------------------------------------------------------------
# From a record back to decisions
# ---------------------------------------------------------------------------


def command_for(event: Event) -> Command | None:
    """The command that causes ``event`` when it opens a command's events, or None
    for events that only ever happen by themselves."""
    if isinstance(event, BeanPlanted):
        if event.source is CardSource.HAND:
            return PlantFromHand(seat=event.seat, field=event.field)
        return PlantCard(seat=event.seat, card=event.card, field=event.field)
    if isinstance(event, PlantingEnded):
        return EndPlanting(seat=event.seat)
    if isinstance(event, CardDiscarded):
        return DiscardCard(seat=event.seat, card=event.card)
    if isinstance(event, OfferMade):
        return MakeOffer(
            seat=event.proposer, gives=event.gives, wants=event.wants, to=event.counterparty
        )
    if isinstance(event, OfferAccepted):
        return AcceptOffer(seat=event.seat, offer=event.offer, cards=event.cards)
    if isinstance(event, OfferDeclined):
        return DeclineOffer(seat=event.seat, offer=event.offer)
    if isinstance(event, OfferWithdrawn):
        return WithdrawOffer(seat=event.seat, offer=event.offer)
    if isinstance(event, TradingEnded):
        return EndTrading(seat=event.seat)
    if isinstance(event, FieldHarvested) and not event.final:
        return Harvest(seat=event.seat, field=event.field)
    if isinstance(event, ThirdFieldBought):
        return BuyThirdField(seat=event.seat)
    if isinstance(event, SeatHandedToBot):
        return HandSeatToBot(seat=event.seat, bot=event.bot, reason=event.reason)
    if isinstance(event, GameStopped):
        return StopGame(reason=event.reason,
                        ranks=event.ranks if event.reason is StopReason.RULING else None)
    return None


_DECISIONS = frozenset({BeanPlanted, PlantingEnded, CardDiscarded, OfferMade, OfferAccepted,
                        OfferDeclined, OfferWithdrawn, TradingEnded, FieldHarvested,
                        ThirdFieldBought, SeatHandedToBot, GameStopped})


def is_decision(event: Event) -> bool:
    """Whether ``command_for(event)`` is a command: a player decided this event. Asked
    of every stored event (bohnanza_core.games), so it looks at the type instead of
    building the command; a test holds the two to the same answer."""
    cls = type(event)
    return cls in _DECISIONS and (cls is not FieldHarvested or not event.final)  # type: ignore[attr-defined]
