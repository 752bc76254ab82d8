"""Invariants of a Bohnanza table, checked after every single event, and a seeded
random player that drives whole games through them.

:func:`check_invariants` compares the state after one event with a copy taken just
before it. :func:`apply_checked` applies a list of events one at a time, checking
after each; :func:`play_checked` does that for one command (its events come from the
pure :func:`bohnanza_core.decide`, which works on a copy). :func:`random_game` plays a
whole game with a seeded random policy over :func:`bohnanza_core.legal_commands`.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from bohnanza_core.cards import BeanKind, coins_for
from bohnanza_core.commands import (
    AcceptOffer,
    Command,
    DeclineOffer,
    MakeOffer,
    WithdrawOffer,
)
from bohnanza_core.engine import (
    OfferShape,
    awaiting,
    decide,
    evolve,
    legal_commands,
    new_game,
    play,
)
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
    OfferAccepted,
    OfferMade,
    PhaseStarted,
    ThirdFieldBought,
)
from bohnanza_core.rulesets import (
    CoinDestination,
    EmptyReshuffle,
    EndTiming,
    ReceivedCardsPlanted,
    Ruleset,
    TieBreak,
)
from bohnanza_core.state import GameState, Phase
from bohnanza_core.views import EVERYTHING, view


class InvariantBroken(AssertionError):
    """An invariant of the table does not hold after an event."""


def _fail(event: Event | None, message: str) -> None:
    raise InvariantBroken(f"after {event!r}: {message}")


def _all_cards(s: GameState) -> list[int]:
    cards: list[int] = []
    cards += s.draw_pile
    cards += s.discard_pile
    cards += s.out_of_game
    cards += s.face_up
    for seat in range(s.players):
        cards += s.hands[seat]
        cards += s.coins[seat]
        cards += s.trade_areas[seat]
        for beans in s.fields[seat]:
            cards += beans
    return cards


def _without(cards: Sequence[int], removed: Sequence[int]) -> list[int] | None:
    """``cards`` with each of ``removed`` taken out once, order kept (None if one of
    them is missing)."""
    out = list(cards)
    for card in removed:
        if card not in out:
            return None
        out.remove(card)
    return out


def _check_cards(s: GameState, e: Event | None) -> None:
    cards = _all_cards(s)
    size = s.ruleset.deck_size
    if s.phase is not Phase.DEALING or s.draw_pile or cards:
        if len(cards) != size or s.cards_in_play() != size:
            _fail(e, f"{len(cards)} cards on the table, the deck has {size}")
        if any(type(c) is not int for c in cards):
            _fail(e, f"a card that is not an int id: {[c for c in cards if type(c) is not int]}")
        if sorted(cards) != list(range(size)):
            twice = [c for c, n in Counter(cards).items() if n > 1]
            _fail(e, f"card ids not each exactly once (twice: {twice})")


def _check_hands(s: GameState, p: GameState, e: Event) -> None:
    for seat in range(s.players):
        new, old = s.hands[seat], p.hands[seat]
        if new == old:
            continue
        if isinstance(e, CardDealt | CardDrawn) and e.seat == seat:
            if new != [*old, e.card]:
                _fail(e, f"seat {seat}'s hand {old} became {new}: not one card at the back")
        elif isinstance(e, BeanPlanted) and e.source is CardSource.HAND and e.seat == seat:
            if not old or old[0] != e.card or new != old[1:]:
                _fail(e, f"planting from hand {old} -> {new}: not the front card")
        elif isinstance(e, CardDiscarded) and e.source is CardSource.HAND and e.seat == seat:
            if new != _without(old, [e.card]):
                _fail(e, f"discarding {e.card} turned hand {old} into {new}")
        elif isinstance(e, OfferAccepted):
            offer = p.offers.get(e.offer)
            if offer is None:
                _fail(e, "accepted an offer that was not open")
                return
            if seat == offer.proposer:
                given = [c for c in offer.gives if c in old]
            elif seat == e.seat:
                given = [c for c in e.cards if c in old]
            else:
                _fail(e, f"seat {seat}'s hand changed in someone else's trade")
                return
            if new != _without(old, given):
                _fail(e, f"trade turned hand {old} into {new}: not just {given} taken out")
        else:
            _fail(e, f"seat {seat}'s hand changed from {old} to {new}")


def _check_fields(s: GameState, e: Event | None) -> None:
    r = s.ruleset
    for seat in range(s.players):
        fields = s.fields[seat]
        expected = r.starting_fields + (1 if s.third_field_bought[seat] else 0)
        if len(fields) != expected or len(fields) > r.max_fields:
            _fail(e, f"seat {seat} has {len(fields)} fields, expected {expected}")
        if s.third_field_bought[seat] and r.third_field_cost is None:
            _fail(e, f"seat {seat} bought a field that cannot be bought")
        for index, beans in enumerate(fields):
            kinds = {s.kinds[c] for c in beans}
            if len(kinds) > 1:
                _fail(e, f"seat {seat}'s field {index} mixes {sorted(kinds)}")


def _check_offers(s: GameState, e: Event | None) -> None:
    if s.offers and s.phase is not Phase.TRADING:
        _fail(e, f"offers open during {s.phase}")
    for offer in s.offers.values():
        if offer.proposer == s.active:
            ok = offer.counterparty is None or (
                type(offer.counterparty) is int
                and offer.counterparty != s.active
                and 0 <= offer.counterparty < s.players
            )
        else:
            ok = offer.counterparty == s.active and type(offer.counterparty) is int
        if not ok:
            _fail(e, f"offer {offer} is not between the active player and another")
        if any(type(c) is not int for c in offer.gives) or any(
            not isinstance(k, BeanKind) or type(n) is not int or n < 1 for k, n in offer.wants
        ):
            _fail(e, f"offer {offer} holds values of the wrong type")


def _check_event(s: GameState, p: GameState, e: Event) -> None:
    r = s.ruleset
    if p.phase is Phase.GAME_OVER:
        _fail(e, "an event after the game ended")
    if s.events_applied != p.events_applied + 1:
        _fail(e, "events_applied did not count the event")
    _check_hands(s, p, e)
    for seat in range(s.players):
        gained = len(s.coins[seat]) - len(p.coins[seat])
        if isinstance(e, ThirdFieldBought) and e.seat == seat:
            if gained != -e.cost or e.cost != r.third_field_cost:
                _fail(e, f"the field cost {-gained} coins, not {r.third_field_cost}")
        elif isinstance(e, FieldHarvested) and e.seat == seat:
            if gained != e.coins:
                _fail(e, f"the harvest paid {gained} coins, the event says {e.coins}")
        elif gained != 0:
            _fail(e, f"seat {seat}'s coins changed by {gained}")
    if len(s.out_of_game) != len(p.out_of_game):
        paid = isinstance(e, ThirdFieldBought) and r.paid_coins_to is CoinDestination.OUT_OF_GAME
        if not paid or len(s.out_of_game) != len(p.out_of_game) + e.cost:
            _fail(e, "cards left the game")
    if isinstance(e, FieldHarvested):
        before = p.fields[e.seat][e.field]
        if not before:
            _fail(e, "harvested an empty field")
        if e.beans != len(before) or e.kind is not p.kinds[before[0]]:
            _fail(e, f"the harvest names {e.beans} {e.kind}, the field held {before}")
        if e.coins != coins_for(e.kind, e.beans):
            _fail(e, f"{e.beans} {e.kind} beans pay {coins_for(e.kind, e.beans)}, not {e.coins}")
        if s.fields[e.seat][e.field]:
            _fail(e, "a field was partly harvested")
        if not e.final:
            if len(before) == 1 and any(len(f) > 1 for f in p.fields[e.seat]):
                _fail(e, "bean protection violated")
            if p.phase in (Phase.DEALING, Phase.FINAL_HARVEST):
                _fail(e, f"a player harvested during {p.phase}")
            if not r.harvest_out_of_turn and e.seat != p.active:
                _fail(e, "harvested out of turn")
        elif p.phase is not Phase.FINAL_HARVEST:
            _fail(e, "a final harvest before the final harvest")
    if isinstance(e, BeanPlanted):
        beans = p.fields[e.seat][e.field]
        if beans and p.kinds[beans[0]] is not p.kinds[e.card]:
            _fail(e, "planted into a field of another kind")
        if e.source is CardSource.HAND and (e.seat != p.active or p.phase is not Phase.PLANTING):
            _fail(e, f"planted from the hand during {p.phase} by seat {e.seat}")
        if e.source is CardSource.FACE_UP and e.seat != p.active:
            _fail(e, "a face-up card planted by another than the active player")
    if isinstance(e, OfferAccepted):
        offer = p.offers[e.offer]
        if (offer.proposer == p.active) == (e.seat == p.active):
            _fail(e, "a trade not between the active player and another")
        received = s.trade_areas[e.seat][len(p.trade_areas[e.seat]):]
        if received != list(offer.gives):
            _fail(e, f"the acceptor received {received}, the offer gave {offer.gives}")
        wanted = Counter(dict(offer.wants))
        if Counter(p.kinds[c] for c in e.cards) != wanted:
            _fail(e, "the acceptor's cards do not match the wants")
    if isinstance(e, OfferMade) and e.offer in p.offers:
        _fail(e, "an offer number was reused")
    if isinstance(e, DrawPileRanOut):
        if p.draw_pile:
            _fail(e, "the draw pile ran out while it still held cards")
        if e.times != p.runs_out + 1:
            _fail(e, f"run-out number {e.times} after {p.runs_out}")
        empty_rule = r.empty_reshuffle is EmptyReshuffle.ENDS_GAME and not p.discard_pile
        last = e.times >= r.ends_on_run_out or empty_rule
        if (e.game_end is GameEnd.NOT_YET) == last:
            _fail(e, f"run-out {e.times} of {r.ends_on_run_out} says {e.game_end}")
        if last:
            timing = (
                r.run_out_while_turning_over
                if p.phase is Phase.TURNING_OVER
                else r.run_out_while_drawing
            )
            wanted_end = GameEnd.AFTER_THIS_TURN if timing is EndTiming.FINISH_TURN else GameEnd.NOW
            if e.game_end is not wanted_end:
                _fail(e, f"the last run-out during {p.phase} should say {wanted_end}")
    if isinstance(e, DiscardPileReshuffled):
        if not p.reshuffle_due:
            _fail(e, "a reshuffle nobody needed")
        if sorted(e.order or ()) != sorted(p.discard_pile) or e.cards != len(p.discard_pile):
            _fail(e, "the reshuffle is not the discard pile")
    if isinstance(e, CardTurnedOver | CardDrawn | CardDealt) and p.reshuffle_due:
        _fail(e, "a card was taken before the due reshuffle")
    if isinstance(e, CardTakenFromDiscard):
        if not r.take_matching_discards:
            _fail(e, "a card taken from the discard pile under rules that do not allow it")
        if not any(p.kinds[c] is p.kinds[e.card] for c in p.face_up):
            _fail(e, "a discard taken that matches no face-up card")
    if s.phase is Phase.FINAL_HARVEST and p.phase is not Phase.FINAL_HARVEST:
        by_run_out = isinstance(e, DrawPileRanOut) and e.game_end is GameEnd.NOW
        after_turn = isinstance(e, PhaseStarted) and p.ending
        if not (by_run_out or after_turn):
            _fail(e, "the final harvest began without the game's end condition")
    if isinstance(e, GameEnded):
        _check_end(s, p, e)
    if isinstance(e, GameStarted) or (isinstance(e, DeckShuffled) and p.events_applied != 1):
        _fail(e, "a game begins only once")
    if s.phase is Phase.TRADING and not r.trading:
        _fail(e, "trading under rules without trading")


def _check_end(s: GameState, p: GameState, e: GameEnded) -> None:
    r = s.ruleset
    if p.phase is not Phase.FINAL_HARVEST:
        _fail(e, "the game ended without the final harvest")
    if any(beans for fields in s.fields for beans in fields):
        _fail(e, "beans left in the fields at the end")
    if p.runs_out != r.ends_on_run_out and r.empty_reshuffle is not EmptyReshuffle.ENDS_GAME:
        _fail(e, f"the game ended after {p.runs_out} run-outs, not {r.ends_on_run_out}")
    coins = tuple(len(c) for c in s.coins)
    if e.coins != coins or e.hand_sizes != tuple(len(h) for h in s.hands):
        _fail(e, f"the scores {e.coins} are not the coins {coins}")
    if e.seed != s.seed:
        _fail(e, "the revealed seed is not the game's seed")
    best = max(coins)
    tied = [seat for seat in range(s.players) if coins[seat] == best]
    if (e.tie_break is None) != (len(tied) == 1):
        _fail(e, f"tie-break {e.tie_break} with tied seats {tied}")
    if len(tied) == 1 or r.tie_break is TieBreak.SHARED:
        winners = tied
    elif r.tie_break is TieBreak.FURTHEST_CLOCKWISE:
        winners = [max(tied)]
    else:
        most = max(e.hand_sizes[seat] for seat in tied)
        winners = [seat for seat in tied if e.hand_sizes[seat] == most]
    if list(e.winners) != winners or any(e.ranks[w] != 1 for w in winners):
        _fail(e, f"winners {e.winners}, expected {winners}")
    if s.result is None or s.result.winners != e.winners:
        _fail(e, "the result was not recorded")


def check_invariants(state: GameState, previous: GameState | None = None,
                     event: Event | None = None) -> None:
    """Raise :class:`InvariantBroken` unless ``state`` is a sound table; when
    ``previous`` (a copy taken before ``event`` was applied) is given, also check
    that the step from it to ``state`` obeys the rules."""
    s = state
    r = s.ruleset
    _check_cards(s, event)
    _check_fields(s, event)
    _check_offers(s, event)
    if not 0 <= s.runs_out <= r.ends_on_run_out:
        _fail(event, f"{s.runs_out} run-outs, the game ends at {r.ends_on_run_out}")
    if s.reshuffles > s.runs_out:
        _fail(event, f"{s.reshuffles} reshuffles after {s.runs_out} run-outs")
    if (s.result is None) != (s.phase is not Phase.GAME_OVER):
        _fail(event, "a result without the game's end, or the reverse")
    if s.ending and s.runs_out != r.ends_on_run_out and r.empty_reshuffle is not (
        EmptyReshuffle.ENDS_GAME
    ):
        _fail(event, "the game is ending before the last run-out")
    if any(s.trade_areas) and s.phase not in (Phase.TRADING, Phase.PLANTING_RECEIVED):
        _fail(event, f"cards in a trade area during {s.phase}")
    if s.phase is Phase.PLANTING and s.face_up:
        _fail(event, "face-up cards during phase 1")
    if not 0 <= s.active < s.players:
        _fail(event, f"no seat {s.active} to be active")
    if previous is not None and event is not None:
        _check_event(s, previous, event)


# ---------------------------------------------------------------------------
# Stepping one event at a time
# ---------------------------------------------------------------------------


def apply_checked(state: GameState, events: Sequence[Event]) -> GameState:
    """Apply ``events`` to ``state`` one at a time, checking after each."""
    for event in events:
        previous = state.copy()
        evolve(state, event)
        check_invariants(state, previous, event)
    return state


def start_checked(ruleset: Ruleset, seats: Sequence[str], seed: str) -> tuple[GameState,
                                                                              list[Event]]:
    """A new game, rebuilt event by event from :func:`new_game`'s events with the
    invariants checked after each (dealing included)."""
    reference, events = new_game(ruleset, seats, seed)
    state = evolve(None, events[0])
    check_invariants(state)
    apply_checked(state, events[1:])
    if view(state, EVERYTHING).as_dict() != view(reference, EVERYTHING).as_dict():
        raise InvariantBroken("stepping through new_game's events gave another table")
    return state, events


def play_checked(state: GameState, command: Command, compare: bool = False) -> list[Event]:
    """Carry out ``command``: its events from the pure :func:`decide`, then applied
    one at a time with the invariants checked after each. With ``compare``, the
    table must also equal what :func:`play` makes of it."""
    reference = state.copy() if compare else None
    events = decide(state, command)
    apply_checked(state, events)
    if reference is not None:
        produced = play(reference, command)
        if produced != events:
            raise InvariantBroken("decide and play disagree")
        if view(state, EVERYTHING).as_dict() != view(reference, EVERYTHING).as_dict():
            raise InvariantBroken("stepping events one by one differs from play")
    return events


# ---------------------------------------------------------------------------
# A seeded random player
# ---------------------------------------------------------------------------


def sample_offer(rng: random.Random, shape: OfferShape) -> MakeOffer:
    """One concrete offer of ``shape``: up to 3 cards for up to 2 kinds (x1-2)."""
    while True:
        gives = tuple(rng.sample(shape.givable, rng.randint(0, min(3, len(shape.givable)))))
        kinds = rng.sample(shape.wantable, rng.randint(0, min(2, len(shape.wantable))))
        wants = tuple((kind, rng.randint(1, 2)) for kind in kinds)
        if gives or wants:
            return MakeOffer(seat=shape.seat, gives=gives, wants=wants, to=rng.choice(shape.to))


@dataclass
class RandomPolicy:
    """Chooses uniformly among legal commands, with a budget on trading steps per
    turn so that games end; harvests and buying are rarer than the rest."""

    rng: random.Random
    trade_steps: int = 6
    spent: dict[int, int] = field(default_factory=dict)

    def choose(self, state: GameState) -> Command:
        waiting = awaiting(state)
        if not waiting:
            raise InvariantBroken(f"nobody to act during {state.phase}")
        rng = self.rng
        seat = waiting[0] if rng.random() < 0.7 else rng.choice(waiting)
        if rng.random() < 0.05:  # sometimes someone else harvests or buys
            seat = rng.randrange(state.players)
        moves = legal_commands(state, seat)
        if not moves:
            if seat in waiting:
                raise InvariantBroken(f"seat {seat} is awaited but has no legal command")
            return self.choose(state)
        spent = self.spent.get(state.turn, 0)
        trading = [m for m in moves if isinstance(m, OfferShape | AcceptOffer | DeclineOffer
                                                   | WithdrawOffer)]
        other = [m for m in moves if m not in trading]
        if spent >= self.trade_steps and other:
            moves = other
        elif trading and rng.random() < 0.6:
            moves = trading
        rare = [m for m in moves if type(m).__name__ in ("Harvest", "BuyThirdField")]
        common = [m for m in moves if m not in rare]
        if common and (not rare or rng.random() < 0.8):
            moves = common
        move = rng.choice(moves)
        if isinstance(move, OfferShape | AcceptOffer | DeclineOffer | WithdrawOffer):
            self.spent[state.turn] = spent + 1
        if isinstance(move, OfferShape):
            return sample_offer(rng, move)
        return move


def random_game(
    ruleset: Ruleset,
    players: int,
    seed: str,
    *,
    check: bool = True,
    compare_every: int = 0,
    max_commands: int = 20_000,
    on_command: Callable[[GameState, Command, list[Event]], None] | None = None,
) -> tuple[GameState, list[Event]]:
    """Play one whole game with :class:`RandomPolicy` seeded by ``seed``; with
    ``check``, every event is checked. Returns the final state and every event."""
    seats = tuple(f"P{i}" for i in range(players))
    if check:
        state, events = start_checked(ruleset, seats, seed)
    else:
        state, events = new_game(ruleset, seats, seed)
    policy = RandomPolicy(random.Random(seed))
    commands = 0
    while not state.finished:
        commands += 1
        if commands > max_commands:
            raise InvariantBroken(f"no end after {max_commands} commands")
        command = policy.choose(state)
        if check:
            compare = bool(compare_every) and commands % compare_every == 0
            produced = play_checked(state, command, compare=compare)
        else:
            produced = play(state, command)
        if on_command is not None:
            on_command(state, command, produced)
        events.extend(produced)
    assert isinstance(events[-1], GameEnded)
    return state, events


def ruleset_bands() -> list[tuple[Ruleset, int]]:
    """Every preset band at every player count it supports."""
    from bohnanza_core.rulesets import PRESETS

    return [(band, n) for bands in PRESETS.values() for band in bands for n in band.players]


def house_rules() -> list[tuple[Ruleset, int]]:
    """A few rule options no preset uses, so that their code paths are checked too."""
    from bohnanza_core.rulesets import customize

    return [
        (customize("classic", 4, {"reshuffle_when": "as soon as the last card is drawn"}), 4),
        (customize("classic", 3, {"empty_reshuffle": "the game ends"}), 3),
        (customize("rio-grande", 5, {
            "run_out_while_drawing": "finish phases 2 and 3, then end",
            "received_cards_planted": ReceivedCardsPlanted.AT_ONCE.value,
        }), 5),
        (customize("duel", 2, {"empty_reshuffle": "the game ends", "ends_on_run_out": 2}), 2),
    ]


# ---------------------------------------------------------------------------
# One event of every kind
# ---------------------------------------------------------------------------


SALT = "0123456789abcdef0123456789abcdef"
"""The game salt of the sample events."""


def sample_events() -> dict[type[Event], Event]:
    """One instance of every event type (unredacted), for tests that must cover
    them all; secret fields hold values, owners are seat 1."""
    from bohnanza_core import events as ev
    from bohnanza_core.commitments import seed_commitment
    from bohnanza_core.rulesets import ruleset_for
    from bohnanza_core.state import Phase as P

    ruleset = ruleset_for("classic", 3)
    return {
        ev.GameStarted: ev.GameStarted(ruleset=ruleset, seats=("Ann", "Bob", "Cy"),
                                       seed_commitment=seed_commitment("s3cret", SALT),
                                       seed="s3cret", salt=SALT),
        ev.DeckShuffled: ev.DeckShuffled(order=tuple(range(104))[::-1]),
        ev.CardDealt: ev.CardDealt(seat=1, card=17),
        ev.TurnStarted: ev.TurnStarted(seat=1, turn=2),
        ev.BeanPlanted: ev.BeanPlanted(seat=1, card=3, field=0, source=CardSource.HAND),
        ev.PlantingEnded: ev.PlantingEnded(seat=1),
        ev.CardTurnedOver: ev.CardTurnedOver(card=44),
        ev.CardTakenFromDiscard: ev.CardTakenFromDiscard(card=45),
        ev.PhaseStarted: ev.PhaseStarted(phase=P.TRADING),
        ev.OfferMade: ev.OfferMade(offer=1, proposer=1, counterparty=None, gives=(44, 3),
                                   wants=((BeanKind.RED, 2),)),
        ev.OfferAccepted: ev.OfferAccepted(offer=1, seat=2, cards=(91, 92)),
        ev.OfferDeclined: ev.OfferDeclined(offer=2, seat=0),
        ev.OfferWithdrawn: ev.OfferWithdrawn(offer=3, seat=1),
        ev.OfferVoided: ev.OfferVoided(offer=4),
        ev.TradingEnded: ev.TradingEnded(seat=1),
        ev.FieldHarvested: ev.FieldHarvested(seat=1, field=0, kind=BeanKind.BLUE, beans=6,
                                             coins=2),
        ev.ThirdFieldBought: ev.ThirdFieldBought(seat=1, cost=3),
        ev.CardDiscarded: ev.CardDiscarded(seat=1, card=50, source=CardSource.HAND),
        ev.CardDrawn: ev.CardDrawn(seat=1, card=60),
        ev.DrawPileRanOut: ev.DrawPileRanOut(times=1, game_end=GameEnd.NOT_YET),
        ev.DiscardPileReshuffled: ev.DiscardPileReshuffled(cards=3, order=(5, 9, 2)),
        ev.TurnEnded: ev.TurnEnded(seat=1),
        ev.SeatHandedToBot: ev.SeatHandedToBot(seat=1, bot="heuristic",
                                               reason=ev.Handover.LEFT),
        ev.GameEnded: ev.GameEnded(coins=(3, 5, 5), winners=(2,), ranks=(3, 2, 1),
                                   hand_sizes=(1, 2, 4), tie_break=TieBreak.MOST_CARDS_IN_HAND,
                                   seed="s3cret", salt=SALT),
        ev.GameStopped: ev.GameStopped(reason=ev.StopReason.DEADLINE, coins=(3, 5, 5),
                                       winners=(1, 2), ranks=(3, 1, 1), seed="s3cret",
                                       salt=SALT),
    }


__all__ = [
    "InvariantBroken",
    "RandomPolicy",
    "apply_checked",
    "check_invariants",
    "house_rules",
    "play_checked",
    "random_game",
    "ruleset_bands",
    "sample_events",
    "sample_offer",
    "start_checked",
]
