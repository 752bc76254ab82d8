"""Export as JSON Lines and read back (docs/export.md), the seeded shuffle's known
answers (docs/shuffle.md), and what a redacted export must never contain."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

import pytest

from bohnanza_core import (
    EVERYTHING,
    SPECTATOR,
    new_game,
    redact,
    ruleset_for,
    seed_commitment,
    seeded_shuffle,
)
from bohnanza_core.cards import deck_kinds
from bohnanza_core.commitments import offline_salt
from bohnanza_core.engine import evolve
from bohnanza_core.eventfields import FIELD_TYPES, read_field_types
from bohnanza_core.events import (
    CardDealt,
    CardDrawn,
    CardTurnedOver,
    DeckShuffled,
    DiscardPileReshuffled,
    Event,
    GameEnded,
    GameStarted,
)
from bohnanza_core.export import (
    ExportError,
    event_from_json,
    event_to_json,
    export_jsonl,
    read_jsonl,
)
from bohnanza_core.record import chain
from bohnanza_core.rulesets import Ruleset
from tests.core.invariants import house_rules, random_game, ruleset_bands, sample_events

BANDS = ruleset_bands()
SEED = "S3CRET-seed-do-not-leak"


def _id(band: tuple[Ruleset, int]) -> str:
    return f"{band[0].name}-{band[1]}p"


def _game(band: tuple[Ruleset, int], seed: str = SEED) -> list[Event]:
    _, events = random_game(band[0], band[1], seed, check=False)
    return events


def _same_types(a: Any, b: Any, where: str = "") -> None:
    """``a == b`` is not enough: ``"blue" == BeanKind.BLUE`` and ``[1] != (1,)``."""
    assert type(a) is type(b), f"{where}: {type(a).__name__} vs {type(b).__name__}"
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        for f in dataclasses.fields(a):
            _same_types(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    elif isinstance(a, tuple):
        assert len(a) == len(b), where
        for index, (x, y) in enumerate(zip(a, b, strict=True)):
            _same_types(x, y, f"{where}[{index}]")


# -- round trip -------------------------------------------------------------------


@pytest.mark.parametrize("band", BANDS + house_rules(), ids=_id)
def test_export_then_read_gives_the_events_exactly(band: tuple[Ruleset, int]) -> None:
    events = _game(band)
    text = export_jsonl(events)
    game = read_jsonl(text)
    assert game.perspective == "everything"
    assert game.events == tuple(events)
    for index, (read, original) in enumerate(zip(game.events, events, strict=True)):
        _same_types(read, original, f"#{index + 1} {type(original).__name__}")
    assert export_jsonl(game.events) == text


@pytest.mark.parametrize("perspective", [0, 1, SPECTATOR, EVERYTHING])
def test_redacted_exports_read_back_as_the_redacted_events(perspective: int) -> None:
    events = _game((ruleset_for("classic", 4), 4))
    game = read_jsonl(export_jsonl(events, perspective))
    assert game.events == tuple(redact(e, perspective) for e in events)
    names = {EVERYTHING: "everything", SPECTATOR: "spectator"}
    assert game.perspective == names.get(perspective, f"seat {perspective}")


def test_every_event_kind_round_trips_alone() -> None:
    for cls, event in sample_events().items():
        obj = json.loads(json.dumps(event_to_json(event)))
        assert obj["type"] == cls.__name__
        again = event_from_json(obj)
        assert again == event
        _same_types(again, event, cls.__name__)


def test_the_header_and_seq() -> None:
    events = _game((ruleset_for("duel", 2), 2))
    lines = export_jsonl(events, 1).splitlines()
    assert json.loads(lines[0]) == {"format": "bohnanza-game", "version": 3,
                                    "perspective": "seat 1", "events": len(events),
                                    "head": chain(events)[-1].hash}
    assert [json.loads(line)["seq"] for line in lines[1:]] == list(range(1, len(events) + 1))
    assert json.loads(lines[1])["type"] == "GameStarted"


# -- secrets --------------------------------------------------------------------------


def _lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()[1:]]


def _deck_text(events: Sequence[Event]) -> list[str]:
    """JSON fragments of every secret order: runs of 5 cards as they would appear."""
    fragments = []
    for event in events:
        if isinstance(event, DeckShuffled | DiscardPileReshuffled) and event.order:
            order = list(event.order)
            for start in range(0, max(1, len(order) - 4), 5):
                if len(order[start:start + 5]) == 5:
                    fragments.append(json.dumps(order[start:start + 5], separators=(",", ":")))
    return fragments


@pytest.mark.parametrize("band", BANDS, ids=_id)
def test_redacted_exports_hold_no_secret(band: tuple[Ruleset, int]) -> None:
    players = band[1]
    events = _game(band)
    end = len(events) - 1
    assert isinstance(events[end], GameEnded)
    in_progress = events[: end * 2 // 3]
    orders = _deck_text(events)
    assert orders
    for perspective in [*range(players), SPECTATOR]:
        for record, finished in ((events, True), (in_progress, False)):
            text = export_jsonl(record, perspective)
            objs = _lines(text)
            for obj in objs:
                kind = obj["type"]
                if kind in ("CardDealt", "CardDrawn"):
                    mine = obj["seat"] == perspective
                    assert (obj["card"] is not None) == mine, obj
                if kind in ("DeckShuffled", "DiscardPileReshuffled"):
                    assert obj["order"] is None
                if kind == "GameStarted":
                    assert obj["seed"] is None and obj["salt"] is None
                    assert obj["seed_commitment"] == seed_commitment(SEED, offline_salt(SEED))
            # No trace of the seed before GameEnded, and no run of a secret order.
            body = text.splitlines()
            before_end = "\n".join(body[:-1]) if finished else text
            assert SEED not in before_end
            if finished:
                assert SEED in body[-1] and json.loads(body[-1])["type"] == "GameEnded"
            for fragment in orders:
                assert fragment not in text


def test_a_seat_sees_its_own_cards_and_the_everything_export_sees_all() -> None:
    events = _game((ruleset_for("rio-grande", 6), 6))
    dealt = [e for e in events if isinstance(e, CardDealt)]
    assert [e.seat for e in dealt].count(0) == 3 and [e.seat for e in dealt].count(5) == 6
    for seat in range(6):
        objs = _lines(export_jsonl(events, seat))
        own = [o["card"] for o in objs if o["type"] in ("CardDealt", "CardDrawn")
               and o["seat"] == seat]
        assert own == [e.card for e in events if isinstance(e, CardDealt | CardDrawn)
                       and e.seat == seat]
    everything = export_jsonl(events, EVERYTHING)
    assert SEED in everything.splitlines()[1]


# -- malformed files ------------------------------------------------------------------


def _good() -> list[str]:
    _, events = new_game(ruleset_for("classic", 3), ("A", "B", "C"), "malformed")
    return export_jsonl(events[:6]).splitlines()


def _with(lines: list[str], number: int, change: dict[str, Any] | None = None,
          drop: Sequence[str] = ()) -> list[str]:
    obj = json.loads(lines[number - 1])
    for key in drop:
        del obj[key]
    obj.update(change or {})
    out = list(lines)
    out[number - 1] = json.dumps(obj)
    return out


def _malformed_cases() -> list[tuple[str, str | list[str], str]]:
    good = _good()
    ruleset = json.loads(good[1])["ruleset"]
    return [
        ("empty", "", r"^the file is empty$"),
        ("blank", "\n  \n", r"^the file is empty$"),
        ("header not JSON", ["{nope", *good[1:]], r"^line 1: not JSON"),
        ("event not JSON", [*good[:3], "[1, 2", *good[4:]], r"^line 4: not JSON"),
        ("not our format", _with(good, 1, {"format": "chess-game"}),
         r"^line 1: not a Bohnanza game export"),
        ("header a list", ["[1]", *good[1:]], r"^line 1: not a Bohnanza game export"),
        ("wrong version", _with(good, 1, {"version": 1}), r"^line 1: unsupported version 1"),
        ("no version", _with(good, 1, drop=["version"]), r"^line 1: unsupported version None"),
        ("no perspective", _with(good, 1, drop=["perspective"]),
         r"^line 1: the header lacks its perspective"),
        ("count too high", _with(good, 1, {"events": 7}),
         r"^line 1: the header announces 7 events, the file has 6"),
        ("count missing", _with(good, 1, drop=["events"]),
         r"^line 1: the header announces None events"),
        ("count a string", _with(good, 1, {"events": "6"}), r"^line 1: the header announces"),
        ("count a float", _with(good, 1, {"events": 6.0}), r"^line 1: 6.0 is not a whole number"),
        ("line removed", [*good[:3], *good[4:]], r"^line 4: sequence number 4, expected 3"),
        ("last line removed", good[:-1], r"^line 1: the header announces 6 events, "
         r"the file has 5"),
        ("event a list", [*good[:2], "[]", *good[3:]], r"^line 3: expected an object"),
        ("seq wrong", _with(good, 4, {"seq": 7}), r"^line 4: sequence number 7, expected 3"),
        ("seq missing", _with(good, 5, drop=["seq"]),
         r"^line 5: sequence number None, expected 4"),
        ("seq a string", _with(good, 3, {"seq": "2"}), r"^line 3: sequence number '2'"),
        ("seq a float", _with(good, 3, {"seq": 2.0}), r"^line 3: 2.0 is not a whole number"),
        ("seq a bool", _with(good, 2, {"seq": True}), r"^line 2: sequence number True"),
        ("lines swapped", [good[0], good[1], good[3], good[2], *good[4:]],
         r"^line 3: sequence number 3, expected 2"),
        ("unknown type", _with(good, 4, {"type": "CardStolen"}),
         r"^line 4: unknown event type 'CardStolen'"),
        ("no type", _with(good, 4, drop=["type"]), r"^line 4: unknown event type None"),
        ("extra field", _with(good, 4, {"colour": "red"}),
         r"^line 4: CardDealt has no field\(s\) colour"),
        ("missing field", _with(good, 4, drop=["card"]),
         r"^line 4: CardDealt lacks its field 'card'"),
        ("string for int", _with(good, 4, {"seat": "1"}),
         r"^line 4 seat: expected a whole number, got '1'"),
        ("bool for int", _with(good, 4, {"seat": True}),
         r"^line 4 seat: expected a whole number, got True"),
        ("float for int", _with(good, 4, {"card": 3.0}), r"^line 4: 3.0 is not a whole number"),
        ("order not a list", _with(good, 3, {"order": 5}), r"^line 3 order: expected a list"),
        ("order of strings", _with(good, 3, {"order": ["1", "2"]}),
         r"^line 3 order: expected a whole number, got '1'"),
        ("seats not strings", _with(good, 2, {"seats": [1, 2, 3]}),
         r"^line 2 seats: expected a string, got 1"),
        ("ruleset not an object", _with(good, 2, {"ruleset": "classic"}),
         r"^line 2 ruleset: the ruleset must be an object"),
        ("ruleset unknown option", _with(good, 2, {"ruleset": {**ruleset, "colour": 1}}),
         r"^line 2 ruleset: unknown rule option\(s\): colour"),
        ("ruleset missing option", _with(good, 2, {"ruleset": {
            k: v for k, v in ruleset.items() if k != "draw_cards"}}),
         r"^line 2 ruleset: missing rule option\(s\): draw_cards"),
        ("ruleset wrong type", _with(good, 2, {"ruleset": {**ruleset, "draw_cards": "3"}}),
         r"^line 2 ruleset: rule option draw_cards: '3' is not a valid int"),
        ("ruleset bad enum", _with(good, 2, {"ruleset": {**ruleset, "tie_break": "coin toss"}}),
         r"^line 2 ruleset: rule option tie_break: 'coin toss' is not a valid"),
        ("ruleset unknown bean", _with(good, 2, {"ruleset": {**ruleset, "beans": ["jelly"]}}),
         r"^line 2 ruleset: rule option beans"),
        ("ruleset inconsistent", _with(good, 2, {"ruleset": {**ruleset, "starting_fields": 4}}),
         r"^line 2 ruleset: ruleset 'classic' is inconsistent: starting_fields"),
        ("bad enum", _with(good, 3, {"type": "BeanPlanted", "seat": 0, "card": 1, "field": 0,
                                     "source": "pocket"}, drop=["order"]),
         r"^line 3 source: 'pocket' is not a CardSource"),
        ("actor too long", _with(good, 4, {"actor": "x" * 101}),
         r"^line 4: 'actor' must be at most 100 printable characters"),
        ("actor with a line break", _with(good, 4, {"actor": "a\nb"}),
         r"^line 4: 'actor' must be at most 100 printable characters"),
        ("version 2, the unsalted chain", _with(good, 1, {"version": 2}),
         r"^line 1: unsupported version 2"),
        ("a shown card without its salt", _with(good, 4, drop=["salts"]),
         r"^line 4: the shown 'card' needs its salt"),
        ("not GameStarted first", [_with(good, 1, {"events": 5})[0], *[
            json.dumps({**json.loads(line), "seq": n}) for n, line in enumerate(good[2:], 1)]],
         r"^line 2: a game begins with GameStarted"),
    ]


@pytest.mark.parametrize("case", _malformed_cases(), ids=lambda c: c[0])
def test_malformed_files_are_refused_naming_the_line(
        case: tuple[str, str | list[str], str]) -> None:
    _, content, message = case
    text = content if isinstance(content, str) else "\n".join(content) + "\n"
    with pytest.raises(ExportError, match=message):
        read_jsonl(text)


def test_the_good_file_reads() -> None:
    assert len(read_jsonl("\n".join(_good()) + "\n").events) == 6


# -- the shuffle: known answers and an audit from a public file -------------------------


def test_shuffle_known_answers() -> None:
    """The worked example of docs/shuffle.md."""
    assert seed_commitment("table-42", "00112233445566778899aabbccddeeff") == (
        "4a51d7fdbb08ffb1a9006ef327837f5eb3ad51ce34d6bfe52c224d369fec6211"
    )
    assert seeded_shuffle(range(8), "table-42", 0) == (5, 2, 4, 7, 1, 3, 6, 0)
    assert seeded_shuffle([12, 5, 40, 7, 33], "table-42", 1) == (5, 12, 33, 7, 40)
    deck = seeded_shuffle(range(104), "table-42", 0)
    assert deck[:10] == (11, 32, 18, 7, 100, 45, 6, 35, 20, 99)
    assert deck[-3:] == (33, 12, 88)
    kinds = deck_kinds(ruleset_for("classic", 4).beans)
    assert [kinds[c].value for c in deck[:5]] == ["blue", "chili", "blue", "blue", "garden"]
    assert seeded_shuffle([], "x", 1) == () and seeded_shuffle([4], "x", 1) == (4,)
    _, events = new_game(ruleset_for("classic", 4), ("A", "B", "C", "D"), "table-42")
    assert events[1] == DeckShuffled(order=deck)
    dealt = [e for e in events if isinstance(e, CardDealt)]
    assert [(e.seat, e.card) for e in dealt[:6]] == [(0, 11), (1, 32), (2, 18), (3, 7),
                                                    (0, 100), (1, 45)]


@pytest.mark.parametrize("band", BANDS[::2], ids=_id)
def test_every_shuffle_follows_from_the_seed(band: tuple[Ruleset, int]) -> None:
    """Index 0 for the deck; index k for the k-th reshuffle, whose input is the
    discard pile bottom to top and whose output is the new draw pile top first."""
    events = _game(band)
    start = events[0]
    assert isinstance(start, GameStarted) and start.seed is not None
    state = evolve(None, start)
    k = 0
    for event in events[1:]:
        if isinstance(event, DeckShuffled):
            assert event.order == seeded_shuffle(range(band[0].deck_size), SEED, 0)
        if isinstance(event, DiscardPileReshuffled):
            k += 1
            assert event.order == seeded_shuffle(state.discard_pile, SEED, k)
            assert event.cards == len(state.discard_pile)
        evolve(state, event)
        if isinstance(event, DiscardPileReshuffled):
            assert state.draw_pile[-1:] == list(event.order[:1])  # top first
    assert state.reshuffles == k


def test_a_spectator_can_audit_the_deck_after_the_game() -> None:
    events = _game((ruleset_for("finnish", 4), 4))
    public = read_jsonl(export_jsonl(events, SPECTATOR)).events
    start, end = public[0], public[-1]
    assert isinstance(start, GameStarted) and isinstance(end, GameEnded)
    assert start.seed is None
    assert seed_commitment(end.seed, end.salt) == start.seed_commitment
    deck = list(seeded_shuffle(range(start.ruleset.deck_size), end.seed, 0))
    taken = 0
    for event in public:
        if isinstance(event, DiscardPileReshuffled):
            break
        if isinstance(event, CardDealt | CardDrawn):
            assert event.card is None
            taken += 1
        elif isinstance(event, CardTurnedOver):
            assert event.card == deck[taken]
            taken += 1
    assert taken > 20


def test_errors_name_the_line_as_an_editor_numbers_it_even_after_blank_lines() -> None:
    from bohnanza_core import new_game, ruleset_for
    from bohnanza_core.export import ExportError, export_jsonl, read_jsonl

    _, events = new_game(ruleset_for("classic", 3), ("a", "b", "c"), "lines")
    lines = export_jsonl(events).splitlines()
    lines[3] = lines[3].replace('"seq":3', '"seq":33')
    text = "\n".join([lines[0], "", "", *lines[1:]])  # two blank lines after the header
    with pytest.raises(ExportError, match=r"^line 6: sequence number 33, expected 3$"):
        read_jsonl(text)


def test_a_boolean_version_is_refused() -> None:
    from bohnanza_core.export import ExportError, read_jsonl

    with pytest.raises(ExportError, match="unsupported version True"):
        read_jsonl('{"format":"bohnanza-game","version":true,"perspective":"everything",'
                   '"events":0}\n')


def test_the_field_table_is_every_event_class_s_fields() -> None:
    """The export reads events by the field types events.py declares
    (bohnanza_core.eventfields), since compiled classes keep only rough annotations: the
    table names every field of every event class, in order, with the declared type."""
    import typing

    from bohnanza_core import events
    from bohnanza_core.events import EVENT_TYPES

    assert set(FIELD_TYPES) == set(EVENT_TYPES)
    for cls in EVENT_TYPES:
        assert tuple(FIELD_TYPES[cls]) == tuple(f.name for f in dataclasses.fields(cls))
        if str(events.__file__).endswith(".py"):  # the pure build: ask Python itself
            hints = {name: typing.get_args(hint)[0] if typing.get_origin(hint) is typing.Final
                     else hint for name, hint in typing.get_type_hints(cls).items()
                     if typing.get_origin(hint) is not typing.ClassVar}
            assert FIELD_TYPES[cls] == hints, cls.__name__
    assert FIELD_TYPES[CardDealt] == {"seat": int, "card": int | None}
    assert FIELD_TYPES[DiscardPileReshuffled]["order"] == tuple[int, ...] | None
    renamed = read_field_types("class CardDealt:\n    seat: Final[int]\n    kard: int\n")
    assert renamed == {"CardDealt": {"seat": int, "kard": int}}


def test_events_cannot_be_changed_once_made() -> None:
    """Events are immutable: Final fields (mypy) and, compiled, read-only attributes.
    The pure build relies on mypy alone; the compiled build refuses at run time."""
    from bohnanza_core import events

    dealt = CardDealt(seat=1, card=4)
    assert dealt == CardDealt(1, 4) and hash(dealt) == hash(CardDealt(1, 4))
    assert dataclasses.replace(dealt, card=None) == CardDealt(1, None)
    assert CardDealt.SECRET == ("card",) and CardDealt.OWNER == "seat"
    assert CardTurnedOver.SECRET == () and CardTurnedOver.OWNER is None
    if not str(events.__file__).endswith(".py"):
        with pytest.raises(AttributeError):
            dealt.card = 5  # type: ignore[misc]
