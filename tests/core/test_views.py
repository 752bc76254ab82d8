"""What each perspective may see: :func:`redact` on every event kind for every
perspective, and :func:`view` of the table (docs/events.md, "Secret fields")."""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

import pytest

from bohnanza_core import EVERYTHING, SPECTATOR, new_game, play, redact, ruleset_for, view
from bohnanza_core.events import EVENT_TYPES, Event, GameEnded, GameStopped
from bohnanza_core.state import GameState
from bohnanza_core.views import may_see
from tests.core.invariants import RandomPolicy, random_game, sample_events, start_checked

SAMPLES = sample_events()
OWNER_SEAT = 1  # every sample's owner field names seat 1
PERSPECTIVES = {"owner": OWNER_SEAT, "other seat": 0, "third seat": 2, "spectator": SPECTATOR,
                "everything": EVERYTHING}

# What must be secret, written out so that a change to events.py is noticed here.
SECRET = {
    "GameStarted": (("seed", "salt"), None),
    "DeckShuffled": (("order",), None),
    "CardDealt": (("card",), "seat"),
    "CardDrawn": (("card",), "seat"),
    "DiscardPileReshuffled": (("order",), None),
}


def test_samples_cover_every_event_kind() -> None:
    assert set(SAMPLES) == set(EVENT_TYPES)


@pytest.mark.parametrize("cls", EVENT_TYPES, ids=lambda c: c.__name__)
def test_the_secret_fields_are_exactly_these(cls: type[Event]) -> None:
    secret, owner = SECRET.get(cls.__name__, ((), None))
    assert secret == cls.SECRET
    assert owner == cls.OWNER
    names = {f.name for f in dataclasses.fields(cls)}
    assert set(cls.SECRET) <= names and (owner is None or owner in names)


def _expected(event: Event, perspective: int) -> Event:
    """The redaction spelt out: who may see the secret fields of ``event``."""
    secret, owner = SECRET.get(type(event).__name__, ((), None))
    sees = (
        not secret
        or perspective == EVERYTHING
        or (owner is not None and getattr(event, owner) == perspective)
    )
    return event if sees else dataclasses.replace(event, **dict.fromkeys(secret))  # type: ignore[arg-type]


@pytest.mark.parametrize("who", list(PERSPECTIVES))
@pytest.mark.parametrize("cls", EVENT_TYPES, ids=lambda c: c.__name__)
def test_redact_every_event_kind_for_every_perspective(cls: type[Event], who: str) -> None:
    perspective = PERSPECTIVES[who]
    event = SAMPLES[cls]
    redacted = redact(event, perspective)
    assert type(redacted) is cls
    assert redacted == _expected(event, perspective)
    secret, owner = SECRET.get(cls.__name__, ((), None))
    for f in dataclasses.fields(cls):
        value = getattr(redacted, f.name)
        if f.name in secret and not (who == "everything" or (owner and who == "owner")):
            assert value is None, f"{cls.__name__}.{f.name} visible to {who}"
        else:
            assert value == getattr(event, f.name), f"{cls.__name__}.{f.name} hidden from {who}"
            assert value is not None or f.name in ("counterparty", "tie_break")
    assert may_see(event, perspective) == (redacted is event)
    assert redact(redacted, perspective) == redacted  # idempotent
    assert redact(event, EVERYTHING) is event


def test_the_revealed_seed_is_public_but_the_starting_seed_is_not() -> None:
    started = SAMPLES[EVENT_TYPES[0]]
    for perspective in (0, 1, 2, SPECTATOR):
        assert redact(started, perspective).seed is None  # type: ignore[attr-defined]
        assert redact(started, perspective).salt is None  # type: ignore[attr-defined]
        for ended in (SAMPLES[GameEnded], SAMPLES[GameStopped]):
            assert redact(ended, perspective).seed == "s3cret"  # type: ignore[attr-defined]
            assert redact(ended, perspective).salt == started.salt  # type: ignore[attr-defined]


@pytest.mark.parametrize("name,players", [("classic", 4), ("finnish", 3), ("duel", 2),
                                          ("rio-grande", 7)])
def test_redact_on_every_event_of_real_games(name: str, players: int) -> None:
    _, events = random_game(ruleset_for(name, players), players, "redact", check=False)
    kinds = {type(e) for e in events}
    assert len(kinds) >= 15
    for event in events:
        for perspective in (*range(players), SPECTATOR, EVERYTHING):
            assert redact(event, perspective) == _expected(event, perspective)


# -- views of the table ---------------------------------------------------------------

SEED = "view-S3CRET-seed"
SEAT_KEYS = {"name", "hand_size", "fields", "coins", "third_field_bought", "trade_area", "bot"}
TABLE_KEYS = {"perspective", "ruleset", "phase", "turn", "active", "awaiting", "seats",
              "face_up", "offers", "draw_pile_size", "discard_pile", "out_of_game", "runs_out",
              "seed_commitment", "card_kinds"}


def _cards_shown(d: dict[str, Any]) -> set[int]:
    """Every card id the view shows, wherever it is."""
    shown = set(d["face_up"]) | set(d["discard_pile"]) | set(d["out_of_game"])
    for entry in d["seats"]:
        shown |= set(entry.get("hand", ())) | set(entry["trade_area"])
        for field in entry["fields"]:
            shown |= set(field["cards"])
    for offer in d["offers"]:
        shown |= set(offer["gives"])
    shown |= set(d.get("draw_pile", ()))
    return shown


def _check_view(state: GameState, perspective: int) -> None:
    d = view(state, perspective).as_dict()
    text = json.dumps(d)
    assert d["perspective"] == perspective
    extra = {"result"} if state.finished else set()
    if perspective == EVERYTHING:
        assert set(d) == TABLE_KEYS | extra | {"draw_pile", "seed"}
        assert d["draw_pile"] == list(reversed(state.draw_pile))  # top first
        assert d["seed"] == state.seed
        for seat, entry in enumerate(d["seats"]):
            assert entry["hand"] == state.hands[seat]
        return
    assert set(d) == TABLE_KEYS | extra, "a key only the everything perspective may see"
    assert SEED not in text
    offered = {c for o in state.offers.values() for c in o.gives}
    for seat, entry in enumerate(d["seats"]):
        if seat == perspective:
            assert set(entry) == SEAT_KEYS | {"hand"}
            assert entry["hand"] == state.hands[seat]
        else:
            assert set(entry) == SEAT_KEYS, f"seat {seat}'s hand shown to {perspective}"
        assert entry["hand_size"] == len(state.hands[seat])
    shown = _cards_shown(d)
    assert not shown & set(state.draw_pile), "a card of the draw pile is shown"
    for seat in range(state.players):
        if seat != perspective:
            hidden = set(state.hands[seat]) - offered
            assert not shown & hidden, f"seat {seat}'s hand cards shown to {perspective}"
    table_view = view(state, perspective)
    if perspective == SPECTATOR:
        with pytest.raises(PermissionError):
            table_view.hand()
        assert all(table_view.hand_of(seat) is None for seat in range(state.players))
        assert "\"hand\":" not in text
    else:
        assert table_view.hand() == tuple(state.hands[perspective])
        for seat in range(state.players):
            assert (table_view.hand_of(seat) is None) == (seat != perspective)


@pytest.mark.parametrize("name,players", [("classic", 3), ("amigo-en", 5), ("finnish", 4),
                                          ("duel", 2), ("rio-grande", 6)])
def test_views_never_show_a_secret(name: str, players: int) -> None:
    state, _ = start_checked(ruleset_for(name, players), tuple(f"P{i}" for i in range(players)),
                             SEED)
    policy = RandomPolicy(random.Random(name))
    steps = 0
    while True:
        if steps % 7 == 0 or state.finished or state.offers:
            for perspective in (*range(players), SPECTATOR, EVERYTHING):
                _check_view(state, perspective)
        if state.finished:
            break
        play(state, policy.choose(state))
        steps += 1
    assert steps > 100


def test_a_view_refuses_a_seat_that_is_not_there() -> None:
    state, _ = start_checked(ruleset_for("classic", 3), ("A", "B", "C"), SEED)
    for bad in (3, -3, 99):
        with pytest.raises(ValueError):
            view(state, bad)
    table_view = view(state, 0)
    public = [name for name in dir(table_view) if not name.startswith("_")]
    assert "state" not in public and "draw_pile" not in public and "seed" not in public
    assert table_view.draw_pile_size == len(state.draw_pile)
    assert table_view.seed_commitment == state.seed_commitment


def test_a_view_never_shows_other_rules_under_a_presets_name() -> None:
    """Issue 8, item 4: rules that differ from a preset are shown as its house rules."""
    changed = dataclasses.replace(ruleset_for("classic", 3), deal=(6,))
    state, _ = new_game(changed, ("A", "B", "C"), "named")
    assert view(state, SPECTATOR).as_dict()["ruleset"] == "classic (house rules)"
    state, _ = new_game(ruleset_for("classic", 3), ("A", "B", "C"), "named")
    assert view(state, SPECTATOR).as_dict()["ruleset"] == "classic"
