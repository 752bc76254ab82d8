"""Property tests: random sequences of commands, legal and malformed.

Whatever a client sends, the engine either carries it out (and every invariant
still holds after each of its events) or refuses it with :class:`IllegalMove`,
changing nothing. A command listed by ``legal_commands`` is never refused.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bohnanza_core import (
    EVERYTHING,
    AcceptOffer,
    BeanKind,
    BuyThirdField,
    DeclineOffer,
    DiscardCard,
    EndPlanting,
    EndTrading,
    GameState,
    Harvest,
    IllegalMove,
    MakeOffer,
    OfferShape,
    PlantCard,
    PlantFromHand,
    WithdrawOffer,
    decide,
    legal_commands,
    play,
    view,
)
from bohnanza_core.events import TurnEnded
from bohnanza_core.state import STATE_FIELDS
from tests.core.invariants import (
    RandomPolicy,
    apply_checked,
    ruleset_bands,
    start_checked,
)

BANDS = ruleset_bands()
SETTINGS = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=False,
)


def snapshot(state: GameState) -> tuple[Any, ...]:
    """Everything about the table, for comparing before and after a refusal."""
    copy = state.copy()
    slots = {name: getattr(copy, name) for name in STATE_FIELDS}
    return view(state, EVERYTHING).as_dict(), state.events_applied, slots


def _cards_somewhere(state: GameState) -> list[int]:
    cards = list(state.face_up) + list(state.discard_pile[-3:]) + list(state.draw_pile[-2:])
    for seat in range(state.players):
        cards += state.hands[seat][:3] + state.hands[seat][-2:] + state.trade_areas[seat]
        for beans in state.fields[seat]:
            cards += beans[:1]
    return cards or [0]


def junk() -> st.SearchStrategy[Any]:
    """Values of the wrong type or out of range."""
    return st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-3, 200),
        st.floats(allow_nan=True),
        st.text(max_size=4),
        st.sampled_from(["blue", "0", "field", "coffee", "nonsense"]),
        st.lists(st.integers(0, 5), max_size=2),
        st.tuples(st.integers(0, 5)),
        st.just(object()),
    )


JUNK = junk()
KINDS = st.sampled_from(list(BeanKind))
"""Built once: hypothesis validates each new strategy object, and building these inside
:func:`malformed` for every step spent a third of the property test's time doing so."""


@st.composite
def malformed(draw: st.DrawFn, state: GameState) -> Any:
    """A command that is likely wrong: wrong seat, field, card, offer or type."""
    n = state.players
    seat = draw(st.one_of(st.integers(-2, n + 1), st.sampled_from(range(n)), JUNK))
    good_seat = draw(st.sampled_from(range(n)))
    somewhere = _cards_somewhere(state)
    card = draw(st.one_of(
        st.sampled_from(somewhere),
        st.sampled_from(somewhere).map(float),  # 74.0 == 74, but is not a card id
        st.sampled_from(somewhere).map(lambda c: c == 1),  # True == 1
        JUNK,
        st.integers(-5, state.ruleset.deck_size + 5),
    ))
    field_ = draw(st.one_of(st.integers(-2, 4), JUNK))
    offer_no = draw(st.one_of(st.integers(-1, state.next_offer + 1), JUNK,
                              st.sampled_from(sorted(state.offers) or [1])))
    who = draw(st.sampled_from([seat, good_seat, state.active]))
    kind = draw(st.one_of(KINDS, JUNK))
    count = draw(st.one_of(st.integers(-1, 3), JUNK))
    held = state.hands[good_seat] + state.face_up
    cards = draw(st.one_of(
        st.lists(st.sampled_from(somewhere + held), max_size=4).map(tuple),
        st.lists(st.sampled_from(held or [0]).map(float), min_size=1, max_size=2).map(tuple),
        st.lists(st.one_of(st.sampled_from(held or [0]), JUNK), max_size=3),
        st.lists(st.sampled_from(held or [0]), min_size=2, max_size=3).map(
            lambda cs: (cs[0], *cs)),  # a card named twice
        JUNK,
    ))
    wants = draw(st.one_of(
        st.just(()),
        st.just(((kind, count),)),
        st.just(((kind, 1), (kind, 1))),
        st.just(((BeanKind.COCOA, 1),)),
        st.just((("blue", 1),)),
        st.just(((kind,),)),
        st.just(((kind, 1, 2),)),
        st.lists(st.tuples(KINDS, st.integers(0, 3)),
                 max_size=2).map(tuple),
        st.just([[kind, count]]),
        JUNK,
    ))
    to = draw(st.one_of(st.none(), st.integers(-1, n), JUNK))
    choices = [
        PlantFromHand(seat=who, field=field_),
        PlantCard(seat=who, card=card, field=field_),
        EndPlanting(seat=who),
        DiscardCard(seat=who, card=card),
        MakeOffer(seat=who, gives=cards, wants=wants, to=to),
        AcceptOffer(seat=who, offer=offer_no, cards=cards),
        DeclineOffer(seat=who, offer=offer_no),
        WithdrawOffer(seat=who, offer=offer_no),
        EndTrading(seat=who),
        Harvest(seat=who, field=field_),
        BuyThirdField(seat=who),
        None,
        "PlantFromHand",
        TurnEnded(seat=good_seat),
    ]
    return draw(st.sampled_from(choices))


@st.composite
def legal(draw: st.DrawFn, state: GameState) -> Any:
    seat = draw(st.sampled_from(range(state.players)))
    moves = legal_commands(state, seat)
    if not moves:
        return None
    move = draw(st.sampled_from(moves))
    if isinstance(move, OfferShape):
        gives = tuple(draw(st.lists(st.sampled_from(move.givable), unique=True, max_size=3))
                      if move.givable else ())
        kinds = draw(st.lists(st.sampled_from(move.wantable), unique=True, max_size=2))
        wants = tuple((k, draw(st.integers(1, 3))) for k in kinds)
        if not gives and not wants:
            wants = ((move.wantable[0], 1),)
        return MakeOffer(seat=seat, gives=gives, wants=wants, to=draw(st.sampled_from(move.to)))
    return move


def _step(state: GameState, command: Any, must_be_legal: bool) -> None:
    before = snapshot(state)
    try:
        events = decide(state, command)
    except IllegalMove as refusal:
        assert not must_be_legal, f"legal_commands offered {command}, refused: {refusal}"
        assert isinstance(refusal.reason, str) and refusal.reason
        assert snapshot(state) == before, "decide changed the state"
        with pytest.raises(IllegalMove):
            play(state, command)
        assert snapshot(state) == before, f"a refused {command!r} changed the table"
        return
    assert snapshot(state) == before, "decide changed the state"
    assert events, f"{command} was carried out without any event"
    apply_checked(state, events)


@SETTINGS
@given(
    data=st.data(),
    band=st.sampled_from(BANDS),
    seed=st.text(min_size=1, max_size=6),
    warmup=st.integers(0, 400),
)
def test_any_command_sequence_keeps_the_rules(data: st.DataObject, band: Any, seed: str,
                                              warmup: int) -> None:
    ruleset, players = band
    state, _ = start_checked(ruleset, tuple(f"P{i}" for i in range(players)), seed)
    policy = RandomPolicy(random.Random(seed))
    for _ in range(warmup):  # get to later phases quickly: reshuffles, trades, bought fields
        if state.finished:
            break
        play(state, policy.choose(state))
    for _ in range(data.draw(st.integers(5, 40), label="steps")):
        if state.finished:
            break
        if data.draw(st.booleans(), label="malformed?"):
            _step(state, data.draw(malformed(state), label="malformed"), must_be_legal=False)
        else:
            command = data.draw(legal(state), label="legal")
            if command is not None:
                _step(state, command, must_be_legal=True)
    if state.finished:
        _step(state, EndTrading(seat=0), must_be_legal=False)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.text(min_size=1, max_size=6))
def test_finished_game_refuses_everything(data: st.DataObject, seed: str) -> None:
    ruleset, players = data.draw(st.sampled_from(BANDS))
    state, _ = start_checked(ruleset, tuple(f"P{i}" for i in range(players)), seed)
    policy = RandomPolicy(random.Random(seed))
    while not state.finished:
        play(state, policy.choose(state))
    for seat in range(players):
        assert legal_commands(state, seat) == []
    for _ in range(5):
        _step(state, data.draw(malformed(state)), must_be_legal=False)


# -- a seeded fuzzer beside hypothesis: many games, late positions, odd values -----------

_ODD: tuple[Any, ...] = (None, True, False, -1, 999, 1.0, float("nan"), "x", "blue", "0", [1],
                         (1,), object(), BeanKind.BLUE)


def _odd_card(rng: random.Random, state: GameState) -> Any:
    cards = list(state.face_up) + [c for h in state.hands for c in h]
    cards += [c for t in state.trade_areas for c in t] + state.discard_pile[-3:]
    if cards and rng.random() < 0.5:
        card = rng.choice(cards)
        return rng.choice([card, card, float(card), card == 1])
    return rng.choice(_ODD)


def _odd_command(rng: random.Random, state: GameState) -> Any:
    def seat() -> Any:
        return rng.choice([0, 1, state.active, state.active, -1, state.players, True, None, "0"])

    def field_() -> Any:
        return rng.choice([0, 1, 2, 3, -1, True, None, 1.0, "1"])

    def offer() -> Any:
        return rng.choice([*state.offers, 0, -1, 99, True, None, "1", 1.0, state.next_offer])

    def cards() -> Any:
        if rng.random() < 0.6:
            return tuple(_odd_card(rng, state) for _ in range(rng.randint(0, 3)))
        return rng.choice([None, 1, "ab", [1, 2], ([1],), (None,), {1: 2}])

    def wants() -> Any:
        if rng.random() < 0.6:
            return tuple((rng.choice([*BeanKind, "blue", "x", None, 1]),
                          rng.choice([1, 2, 0, -1, True, 1.0, None, "1"]))
                         for _ in range(rng.randint(0, 2)))
        return rng.choice([None, 1, "ab", [["blue", 1]], (("blue",),),
                           ((BeanKind.BLUE, 1, 2),), ([BeanKind.BLUE, 1],), ({1},)])

    makers = [
        lambda: PlantFromHand(seat(), field_()),
        lambda: PlantCard(seat(), _odd_card(rng, state), field_()),
        lambda: EndPlanting(seat()),
        lambda: DiscardCard(seat(), _odd_card(rng, state)),
        lambda: MakeOffer(seat(), cards(), wants(), rng.choice([None, 0, 1, 2, -1, True, "1"])),
        lambda: AcceptOffer(seat(), offer(), cards()),
        lambda: DeclineOffer(seat(), offer()),
        lambda: WithdrawOffer(seat(), offer()),
        lambda: EndTrading(seat()),
        lambda: Harvest(seat(), field_()),
        lambda: BuyThirdField(seat()),
    ]
    return rng.choice(makers)()


def test_seeded_fuzz_never_crashes_and_never_breaks_a_rule() -> None:
    rng = random.Random(20240601)
    carried_out = 0
    for game in range(360):
        ruleset, players = BANDS[game % len(BANDS)]
        state, _ = start_checked(ruleset, tuple(f"P{i}" for i in range(players)), f"fz{game}")
        policy = RandomPolicy(random.Random(game))
        for _ in range(rng.randint(0, 450)):
            if state.finished:
                break
            play(state, policy.choose(state))
        for _ in range(60):
            if state.finished:
                break
            if rng.random() < 0.35:
                play(state, policy.choose(state))
                continue
            before = state.events_applied
            _step(state, _odd_command(rng, state), must_be_legal=False)
            carried_out += state.events_applied != before
    assert carried_out > 100  # odd-looking commands that are legal ("blue" for a kind, ...)
