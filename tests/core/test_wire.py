"""Commands as JSON (bohnanza_core/wire.py): every legal command of many games goes
there and back unchanged; malformed ones are refused with a reason."""

from __future__ import annotations

import pytest

from bohnanza_core.commands import AcceptOffer, MakeOffer
from bohnanza_core.engine import OfferShape, awaiting, legal_commands, new_game, play
from bohnanza_core.rulesets import PRESETS, ruleset_for
from bohnanza_core.wire import (
    CommandFormatError,
    command_from_json,
    command_to_json,
    legal_to_json,
    move_to_json,
)


@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_legal_command_goes_there_and_back(preset: str) -> None:
    """Each legal move's entry (``legal``) is its command, sent back as it is; an
    ``accept_offer`` entry says whether the offer may be paid otherwise."""
    players = 2 if preset == "duel" else 3
    state, _ = new_game(ruleset_for(preset, players), [f"p{n}" for n in range(players)],
                        seed=f"wire-{preset}")
    for _step in range(300):
        if state.finished:
            break
        for seat in range(players):
            moves = legal_commands(state, seat)
            for move, wire in zip(moves, legal_to_json(moves), strict=True):
                assert {**move_to_json(move), **wire} == wire
                if isinstance(move, OfferShape):
                    assert wire["kind"] == "offer_shape"
                    continue
                if isinstance(move, AcceptOffer):
                    ways = [m for m in moves
                            if isinstance(m, AcceptOffer) and m.offer == move.offer]
                    assert wire["any_cards"] is (len(ways) > 1)
                assert command_from_json(wire, seat) == move
        seat = awaiting(state)[0]
        play(state, next(m for m in legal_commands(state, seat)
                         if not isinstance(m, OfferShape)))
    offer = MakeOffer(seat=1, gives=(3, 4), wants=(), to=None)
    assert command_from_json(command_to_json(offer), 1) == offer


@pytest.mark.parametrize(("obj", "reason"), [
    ([], "an object"),
    ({"kind": "fly"}, "unknown command kind"),
    ({"kind": "harvest"}, "field must be"),
    ({"kind": "harvest", "field": True}, "field must be"),
    ({"kind": "harvest", "field": -1}, "field must be"),
    ({"kind": "harvest", "field": 1, "seat": 0}, "plays seat 1"),
    # not 1 on the wire; the value as the client wrote it, in JSON (not Python's True)
    ({"kind": "harvest", "field": 1, "seat": True}, "plays seat 1, not true$"),
    ({"kind": "harvest", "field": 1, "seat": 1.0}, "plays seat 1, not 1.0$"),
    ({"kind": "harvest", "field": 1, "seat": "1"}, 'plays seat 1, not "1"$'),
    ({"kind": "harvest", "field": None}, "field must be .*, not null$"),
    ({"kind": "harvest", "field": 1, "extra": 0}, "no field"),
    ({"kind": "make_offer", "gives": list(range(41)), "wants": []}, "at most 40"),
    ({"kind": "make_offer", "gives": [], "wants": [["gold", 1]]}, "no bean kind"),
    ({"kind": "make_offer", "gives": [], "wants": [["wax"]]}, "pair"),
    ({"kind": "make_offer", "gives": [], "wants": "wax"}, "list"),
    ({"kind": "accept_offer", "offer": 1, "cards": [], "any_cards": "yes"}, "true or false"),
    ({"kind": "decline_offer", "offer": 1, "any_cards": True}, "no field"),
])
def test_malformed_commands_are_refused_with_a_reason(obj: object, reason: str) -> None:
    with pytest.raises(CommandFormatError, match=reason):
        command_from_json(obj, 1)
