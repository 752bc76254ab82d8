"""Set up exact Bohnanza situations for the rule tests.

A test starts a real game (:func:`start`), then lays out the table it needs with
:func:`arrange`, naming cards by their bean kind: the helper picks card ids of those
kinds, so every card id stays exactly once on the table (draw pile, discard pile,
hands, fields, coins, trade areas, face-up cards, out of the game). From then on the
game is driven only through :func:`bohnanza_core.play` (or ``decide``).

    state = start("classic", 3)
    arrange(state, hands={0: ["blue", "red"]}, fields={1: [["chili"] * 3, []]},
            draw=["soy", "soy"], coins={2: 3})
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pytest

from bohnanza_core import (
    EVERYTHING,
    BeanKind,
    Command,
    DiscardCard,
    EndPlanting,
    EndTrading,
    GameState,
    IllegalMove,
    Phase,
    PlantCard,
    PlantFromHand,
    new_game,
    play,
    ruleset_for,
    view,
)
from bohnanza_core.events import Event
from bohnanza_core.rulesets import Ruleset
from bohnanza_core.state import STATE_FIELDS

SEATS = ("Ann", "Bob", "Cy", "Di", "Eve", "Fay", "Gus")

Kinds = Sequence[str | BeanKind]


def start(name: str, players: int, seed: str = "rules", ruleset: Ruleset | None = None
          ) -> GameState:
    """A freshly dealt game: seat 0 is active and must plant from the hand."""
    state, _ = new_game(ruleset or ruleset_for(name, players), SEATS[:players], seed)
    return state


def all_cards(state: GameState) -> list[int]:
    s = state
    cards = [*s.draw_pile, *s.discard_pile, *s.out_of_game, *s.face_up]
    for seat in range(s.players):
        cards += [*s.hands[seat], *s.coins[seat], *s.trade_areas[seat]]
        for beans in s.fields[seat]:
            cards += beans
    return cards


def assert_conserved(state: GameState) -> None:
    """Every card id of the deck is on the table exactly once."""
    assert sorted(all_cards(state)) == list(range(len(state.kinds)))


def arrange(
    state: GameState,
    *,
    hands: Mapping[int, Kinds] | None = None,
    fields: Mapping[int, Sequence[Kinds]] | None = None,
    trade_areas: Mapping[int, Kinds] | None = None,
    coins: Mapping[int, int | Kinds] | None = None,
    face_up: Kinds | None = None,
    draw: Kinds | None = None,
    discard: Kinds | None = None,
    out_of_game: Kinds | None = None,
    rest: str = "draw",
    runs_out: int | None = None,
) -> GameState:
    """Lay out the table. Zones that are named are rebuilt from cards of the named
    kinds; zones not named keep their cards, except the draw pile, which is always
    rebuilt: ``draw`` gives its top cards (top first), and every card left over
    goes below them (``rest="draw"``), under the discard pile (``rest="discard"``)
    or out of the game (``rest="box"``). Hands are front first, the discard pile
    bottom to top. ``fields`` lists a seat's fields; one more than the ruleset
    starts with means the third field was bought. ``coins`` is a count or kinds.
    ``runs_out``: how often the draw pile has already run out (and been reshuffled).
    """
    s = state
    hands, fields, trade_areas, coins = hands or {}, fields or {}, trade_areas or {}, coins or {}
    kept: list[int] = []
    for seat in range(s.players):
        if seat not in hands:
            kept += s.hands[seat]
        if seat not in fields:
            kept += [c for beans in s.fields[seat] for c in beans]
        if seat not in trade_areas:
            kept += s.trade_areas[seat]
        if seat not in coins:
            kept += s.coins[seat]
    for zone, given in ((s.face_up, face_up), (s.discard_pile, discard),
                        (s.out_of_game, out_of_game)):
        if given is None:
            kept += zone
    kept_set = set(kept)
    # Free cards: the current draw pile from the top, then the rest by id.
    order = list(reversed(s.draw_pile))
    order += sorted(set(range(len(s.kinds))) - set(order))
    free = [c for c in order if c not in kept_set]

    def take(kinds: Iterable[str | BeanKind]) -> list[int]:
        out = []
        for name in kinds:
            kind = BeanKind(name)
            card = next((c for c in free if s.kinds[c] is kind), None)
            if card is None:
                raise ValueError(f"no {kind} card left to place (deck: {s.ruleset.name})")
            free.remove(card)
            out.append(card)
        return out

    for seat, kinds in hands.items():
        s.hands[seat] = take(kinds)
    for seat, seat_fields in fields.items():
        r = s.ruleset
        if not r.starting_fields <= len(seat_fields) <= r.max_fields:
            raise ValueError(f"{len(seat_fields)} fields under {r.name}")
        s.fields[seat] = [take(beans) for beans in seat_fields]
        s.third_field_bought[seat] = len(seat_fields) > r.starting_fields
    for seat, kinds in trade_areas.items():
        s.trade_areas[seat] = take(kinds)
    if face_up is not None:
        s.face_up = take(face_up)
    top = take(draw or ())
    if discard is not None:
        s.discard_pile = take(discard)
    if out_of_game is not None:
        s.out_of_game = take(out_of_game)
    for seat, amount in coins.items():  # plain counts last: any kind will do
        if not isinstance(amount, int):
            s.coins[seat] = take(amount)
    for seat, amount in coins.items():
        if isinstance(amount, int):
            s.coins[seat], free[:amount] = free[:amount], []
    if rest == "draw":
        top += free
    elif rest == "discard":
        s.discard_pile[:0] = free
    elif rest == "box":
        s.out_of_game += free
    else:
        raise ValueError(f"rest={rest!r}: draw, discard or box")
    s.draw_pile = list(reversed(top))
    if runs_out is not None:
        s.runs_out = s.reshuffles = runs_out
    assert_conserved(s)
    return s


# -- reading the table ---------------------------------------------------------------


def kinds(state: GameState, cards: Iterable[int]) -> list[str]:
    """The kinds of ``cards`` as plain strings, in order."""
    return [state.kinds[c].value for c in cards]


def card(state: GameState, cards: Iterable[int], kind: str | BeanKind, nth: int = 0) -> int:
    """The ``nth`` card of ``kind`` among ``cards``."""
    matching = [c for c in cards if state.kinds[c] is BeanKind(kind)]
    return matching[nth]


def draw_top(state: GameState) -> list[int]:
    """The draw pile from the top."""
    return list(reversed(state.draw_pile))


def snapshot(state: GameState) -> tuple[dict[str, Any], dict[str, Any]]:
    """Everything about the table: the all-seeing view and every internal slot."""
    internal = {name: getattr(state, name) for name in STATE_FIELDS}
    return view(state, EVERYTHING).as_dict(), copy.deepcopy(internal)


def of_type(events: Iterable[Event], *types: type) -> list[Any]:
    return [e for e in events if isinstance(e, types)]


def names(events: Iterable[Event]) -> list[str]:
    return [type(e).__name__ for e in events]


# -- acting --------------------------------------------------------------------------


def run(state: GameState, *commands: Command) -> list[Event]:
    """Play ``commands`` in order; all their events."""
    events: list[Event] = []
    for command in commands:
        events += play(state, command)
    return events


def assert_illegal(state: GameState, command: Command, *fragments: str) -> str:
    """``command`` is refused with a reason containing each of ``fragments``, and
    the table is exactly as it was."""
    before = snapshot(state)
    with pytest.raises(IllegalMove) as refused:
        play(state, command)
    reason = refused.value.reason
    assert reason and str(refused.value) == reason
    for fragment in fragments:
        assert fragment in reason, f"{fragment!r} not in {reason!r}"
    assert snapshot(state) == before
    return reason


def fitting_field(state: GameState, seat: int, card_id: int) -> int:
    """The first field of ``seat`` that takes ``card_id`` (same kind first)."""
    fields = state.fields[seat]
    kind = state.kinds[card_id]
    for index, beans in enumerate(fields):
        if beans and state.kinds[beans[0]] is kind:
            return index
    for index, beans in enumerate(fields):
        if not beans:
            return index
    raise AssertionError(f"no field of seat {seat} takes a {kind} bean")


def finish_phase1(state: GameState) -> list[Event]:
    """The active player plants the front card (if not yet) and stops planting."""
    seat = state.active
    events: list[Event] = []
    if state.phase is Phase.PLANTING and state.planted == 0:
        events += play(state, PlantFromHand(seat, fitting_field(state, seat, state.hands[seat][0])))
    if state.phase is Phase.PLANTING:
        events += play(state, EndPlanting(seat))
    return events


def finish_turn(state: GameState) -> list[Event]:
    """Play the rest of the active player's turn with plain choices: discard the
    opponent's leftovers (duel), plant the front card, end trading, plant every
    trade-area card and face-up card where it fits (in the duel, leave the face-up
    cards to the opponent)."""
    turn = state.turn
    events: list[Event] = []
    while state.phase is Phase.PLANTING_LEFTOVERS:
        events += play(state, DiscardCard(state.active, state.face_up[0]))
    events += finish_phase1(state)
    if state.phase is Phase.TRADING:
        events += play(state, EndTrading(state.active))
    while state.phase is Phase.PLANTING_RECEIVED and state.turn == turn:
        seat = next((s for s, area in enumerate(state.trade_areas) if area), None)
        if seat is not None:
            c = state.trade_areas[seat][0]
            events += play(state, PlantCard(seat, c, fitting_field(state, seat, c)))
        elif state.ruleset.trading:
            c = state.face_up[0]
            events += play(state, PlantCard(state.active, c, fitting_field(state, state.active, c)))
        else:
            events += play(state, EndPlanting(state.active))
    return events
