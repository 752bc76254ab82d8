"""Rulesets as frozen data (RULES.md, "Rulesets").

A :class:`Ruleset` is every parameter a game is played under, for one band of player
counts. A preset name (``classic``, ``amigo-en``, ``rio-grande``, ``finnish``,
``duel``) may have several bands: ``rio-grande`` differs for 3, 4-5 and 6-7 players.
The engine reads only these values; nowhere does it ask which preset it plays.
House rules are a preset plus overrides (:func:`customize`).

Every value is checked when it is made (:meth:`Ruleset.validate`): each parameter
within its bounds (:data:`BOUNDS`, docs/rulesets.md "Bounds"), which keep every game
finite and small (:func:`event_bounds`), and consistent with the others. Parsing a
file or a form (:meth:`Ruleset.from_parameters`) bounds sizes before it loops.
:func:`preset_mismatch` tells a ruleset that uses a preset's name for other rules,
:func:`display_name` the name to show it under.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import reprlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from bohnanza_core.cards import ALL_ELEVEN, DECK_COUNTS, ORIGINAL_EIGHT, BeanKind
from bohnanza_core.errors import RulesetError


class CoinDestination(StrEnum):
    """Where the coins paid for a third field go."""

    DISCARD_PILE = "discard pile"
    OUT_OF_GAME = "out of the game"


class EndTiming(StrEnum):
    """What happens when the draw pile runs out for the last time."""

    FINISH_TURN = "finish phases 2 and 3, then end"
    AT_ONCE = "end at once"


class ReshuffleWhen(StrEnum):
    CARD_NEEDED = "when a card is needed"
    LAST_CARD_DRAWN = "as soon as the last card is drawn"


class EmptyReshuffle(StrEnum):
    """A reshuffle is due but the discard pile is empty."""

    COUNTS_AS_RUN_OUT = "the pile counts as run out again"
    ENDS_GAME = "the game ends"


class TieBreak(StrEnum):
    MOST_CARDS_IN_HAND = "more cards in hand"
    FURTHEST_CLOCKWISE = "seated furthest clockwise from the starting player"
    SHARED = "shared win"


class ReceivedCardsPlanted(StrEnum):
    """When cards received by trade or gift are planted."""

    AFTER_TRADING = "in phase 3, after trading"
    AT_ONCE = "at once, before trading goes on"


class LeftoverFaceUp(StrEnum):
    """What becomes of turned-over cards the active player did not plant."""

    PLANTED_BY_ACTIVE = "the active player must plant them"
    OFFERED_TO_NEXT_PLAYER = "they stay on the table for the next player"


# ---------------------------------------------------------------------------
# Bounds: what a ruleset may say, so that every game is finite and small
# ---------------------------------------------------------------------------

MAX_PLAYERS = 7
"""The most players any rulebook seats: 004 (fi) '2-7', 000 (hu) '(2-7 játékos)'."""

PLAYER_COUNTS = (2, MAX_PLAYERS)
"""The lowest and highest player count a ruleset may allow."""

DEAL = (0, 10)
"""Cards dealt to one seat: presets deal 3-6."""

BOUNDS: dict[str, tuple[int, int]] = {
    "starting_fields": (1, 5),
    "max_fields": (1, 5),
    "third_field_cost": (0, 20),
    "planting_from_hand": (1, 10),
    "face_up_cards": (1, 10),
    "draw_cards": (0, 10),
    "ends_on_run_out": (1, 5),
}
"""Every numeric parameter's lowest and highest value, both allowed. Generous for house
rules (the presets use at most 3 fields, 3 coins, 2 cards planted from the hand, 3
turned over, 4 drawn and 3 run-outs), tight enough that a game stays small whatever a
file or a form says (:func:`event_bounds`, docs/rulesets.md "Bounds")."""

TEXT_LIMITS: dict[str, int] = {"name": 60, "description": 300, "source": 200}
"""The most characters of each text. (The game list files a game under its preset's name,
:func:`listed_name`, never under this name.)"""

NOT_RULES = ("name", "description", "source", "house_rules")
"""Fields that describe a ruleset rather than change a game."""

_LONGEST_CHOICE = 100
"""No option value or bean kind is longer; a longer string is refused unread."""

_BIG_BITS = 64
"""Whole numbers this wide or wider are refused before any arithmetic or printing."""


class _Shown(reprlib.Repr):
    """``repr`` cut short, for quoting what a user sent in a message: a few items of a
    long list, the ends of a long string, the size of a huge number (whose full
    ``repr`` would be slow, or refused past 4,300 digits)."""

    def __init__(self) -> None:
        super().__init__()
        self.maxstring = self.maxother = 40
        self.maxlist = self.maxtuple = self.maxset = 6
        self.maxdict = 4
        self.maxlevel = 3

    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() >= _BIG_BITS:
            return f"a number of about {round(x.bit_length() * math.log10(2))} digits"
        return repr(x)


_SHOWN = _Shown()


def _shown(value: object) -> str:
    return _SHOWN.repr(value)


def _typed(value: object) -> str:
    """A parameter's value as users type it in a house-rules form or a file: JSON's
    true/false/null, an option's own words ("they stay on the table for the next
    player"), lists in brackets."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_typed(v) for v in value) + "]"
    if isinstance(value, int):
        return _shown(value)
    return str(value)


def _count(number: int, noun: str) -> str:
    """'1 card', '2 cards'."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


@dataclass(frozen=True)
class Ruleset:
    """Every rule parameter of one ruleset for one band of player counts.

    Every value is checked when it is made (:meth:`validate`), so nothing is ever
    dealt under a ruleset that breaks a bound or contradicts itself."""

    name: str
    description: str
    source: str
    players: tuple[int, ...]
    beans: tuple[BeanKind, ...]
    deal: tuple[int, ...] = (5,)
    """Cards dealt to seat 1, 2, ...; the last number holds for every further seat."""
    starting_fields: int = 2
    max_fields: int = 3
    third_field_cost: int | None = 3
    """Coins for the third field, bought once; None: it cannot be bought."""
    paid_coins_to: CoinDestination = CoinDestination.DISCARD_PILE
    planting_from_hand: int = 2
    """Phase 1: the front card must be planted, then up to this many in all."""
    discard_from_hand_after_planting: bool = False
    """Duel step 2: after planting, one hand card (any position) may be discarded."""
    face_up_cards: int = 2
    take_matching_discards: bool = False
    """Duel step 3: while the discard pile's top card matches a face-up kind, take it."""
    trading: bool = True
    received_cards_planted: ReceivedCardsPlanted = ReceivedCardsPlanted.AFTER_TRADING
    leftover_face_up: LeftoverFaceUp = LeftoverFaceUp.PLANTED_BY_ACTIVE
    draw_cards: int = 3
    ends_on_run_out: int = 3
    """The game ends when the draw pile runs out for this many times."""
    run_out_while_turning_over: EndTiming = EndTiming.FINISH_TURN
    run_out_while_drawing: EndTiming = EndTiming.AT_ONCE
    reshuffle_when: ReshuffleWhen = ReshuffleWhen.CARD_NEEDED
    empty_reshuffle: EmptyReshuffle = EmptyReshuffle.COUNTS_AS_RUN_OUT
    tie_break: TieBreak = TieBreak.MOST_CARDS_IN_HAND
    harvest_out_of_turn: bool = True
    house_rules: tuple[str, ...] = field(default=())
    """Names of the parameters that differ from the preset (empty for a preset)."""

    def __post_init__(self) -> None:
        self.validate()

    # -- derived --------------------------------------------------------------

    @property
    def deck_size(self) -> int:
        return sum(DECK_COUNTS[kind] for kind in self.beans)

    def cards_dealt(self, seat: int) -> int:
        return self.deal[min(seat, len(self.deal) - 1)]

    @property
    def players_label(self) -> str:
        low, high = min(self.players), max(self.players)
        return str(low) if low == high else f"{low}-{high}"

    # -- (de)serialisation ------------------------------------------------------

    def parameters(self) -> dict[str, Any]:
        """Every parameter as plain JSON values (enums as their value strings)."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, tuple):
                value = [str(v) if isinstance(v, StrEnum) else v for v in value]
            elif isinstance(value, StrEnum):
                value = value.value
            out[f.name] = value
        return out

    @classmethod
    def from_parameters(cls, params: Mapping[str, Any]) -> Ruleset:
        """Rebuild and validate a ruleset from :meth:`parameters` output (a file, a
        form). Sizes are checked before anything is looped over or built, so a hostile
        payload costs no more to refuse than a preset costs to read (bench/uploads.py)."""
        if not isinstance(params, Mapping):
            raise RulesetError(f"a ruleset is an object of rule options, not {_shown(params)}")
        missing = [name for name in _FIELD_NAMES if name not in params]
        unknown_count = len(params) - (len(_FIELD_NAMES) - len(missing))
        if unknown_count:
            first = itertools.islice((k for k in params if k not in _FIELD_HINTS), 5)
            names = sorted(k if isinstance(k, str) and len(k) <= 40 else _shown(k) for k in first)
            more = f" and {unknown_count - len(names)} more" if unknown_count > len(names) else ""
            raise RulesetError(f"unknown rule option(s): {', '.join(names)}{more}")
        if missing:
            raise RulesetError(f"missing rule option(s): {', '.join(missing)}")
        return cls(**{name: _coerce(name, params[name]) for name in _FIELD_NAMES})

    # -- consistency ----------------------------------------------------------------

    def validate(self) -> None:
        """Refuse a ruleset that breaks a bound or cannot be played, saying why in the
        values users type. Bounds and sizes first, each checked without looping over
        anything unbounded; only when they all hold, the checks that add up or loop."""
        problems = _out_of_bounds(self)
        if problems:
            raise RulesetError(f"ruleset {_shown(self.name)} is out of bounds: "
                               + "; ".join(problems), "ruleset_out_of_bounds",
                               name=self.name, problems="; ".join(problems))
        problems = _inconsistencies(self)
        if problems:
            raise RulesetError(f"ruleset {_shown(self.name)} is inconsistent: "
                               + "; ".join(problems), "ruleset_inconsistent",
                               name=self.name, problems="; ".join(problems))


_FIELD_HINTS: dict[str, str] = {f.name: str(f.type) for f in dataclasses.fields(Ruleset)}
_FIELD_NAMES: tuple[str, ...] = tuple(_FIELD_HINTS)

RULE_PARAMETERS: tuple[str, ...] = tuple(n for n in _FIELD_NAMES if n not in NOT_RULES)
"""The parameters that change a game: what house rules may override, and name."""

LIST_LIMITS: dict[str, int] = {
    "players": PLAYER_COUNTS[1] - PLAYER_COUNTS[0] + 1,
    "beans": len(BeanKind),
    "deal": MAX_PLAYERS,
    "house_rules": len(RULE_PARAMETERS),
}
"""The most items of each list: each count, kind or option once, one deal per seat."""

_LIST_ITEMS = {"players": "counts", "beans": "bean kinds", "deal": "numbers (one per seat)",
               "house_rules": "option names"}


def _too_long(name: str, length: int) -> str | None:
    limit = LIST_LIMITS[name]
    if length > limit:
        return f"{name}: at most {limit} {_LIST_ITEMS[name]}, not {length}"
    return None


def _out_of_bounds(r: Ruleset) -> list[str]:
    """What breaks a bound: each check costs the same whatever the ruleset holds."""
    problems: list[str] = []
    for name, limit in TEXT_LIMITS.items():
        length = len(getattr(r, name))
        if length > limit:
            problems.append(f"{name}: at most {limit} characters, not {length}")
    if len(r.name) <= TEXT_LIMITS["name"]:
        if not r.name.strip():
            problems.append("name: at least one character that is not a space")
        elif not r.name.isprintable():
            problems.append("name: no control characters or invisible spaces")
    for name in LIST_LIMITS:
        too_long = _too_long(name, len(getattr(r, name)))
        if too_long:
            problems.append(too_long)
    if problems:
        return problems  # the checks below loop over the lists
    low, high = PLAYER_COUNTS
    if not r.players:
        problems.append("players: at least one count")
    elif (bad := next((p for p in r.players if not low <= p <= high), None)) is not None:
        problems.append(f"players: each count between {low} and {high}, not {_shown(bad)}")
    elif any(a >= b for a, b in itertools.pairwise(r.players)):
        problems.append("players: list each count once, smallest first")
    if not r.beans:
        problems.append("beans: at least one bean kind")
    elif len(set(r.beans)) != len(r.beans):
        problems.append("beans: list each bean kind at most once")
    low, high = DEAL
    if not r.deal:
        problems.append("deal: at least one number")
    elif (bad := next((d for d in r.deal if not low <= d <= high), None)) is not None:
        problems.append(f"deal: each seat between {low} and {high} cards, not {_shown(bad)}")
    for name, (low, high) in BOUNDS.items():
        value = getattr(r, name)
        if value is not None and not low <= value <= high:
            problems.append(f"{name} must be between {low} and {high}, not {_shown(value)}")
    unknown = next((h for h in r.house_rules if h not in RULE_PARAMETERS), None)
    if unknown is not None:
        problems.append(f"house_rules: {_shown(unknown)} is no rule option")
    elif len(set(r.house_rules)) != len(r.house_rules):
        problems.append("house_rules: list each option once")
    return problems


def _inconsistencies(r: Ruleset) -> list[str]:
    """Parameters within their bounds that contradict each other."""
    problems: list[str] = []
    start, most = r.starting_fields, r.max_fields
    if start > most:
        problems.append(f"starting_fields={start} exceeds max_fields={most}")
    elif most > start + 1:
        # Every rulebook sells one field, once (004 (fi): 'Koska tahansa (mutta vain
        # kerran pelin aikana) voi myös ostaa kolmannen papupellon').
        problems.append(
            f"max_fields={most} cannot be reached: with starting_fields={start} and one "
            f"field for sale, max_fields is {start} or {start + 1} (a third field is "
            "bought once)"
        )
    can_grow = most > start
    cost = r.third_field_cost
    if cost is None and can_grow:
        problems.append(
            f"max_fields={most} exceeds starting_fields={start} but third_field_cost=null: "
            "there would be no way to get the extra field"
        )
    if cost is not None and not can_grow:
        problems.append(
            f"third_field_cost={cost} but max_fields={most} leaves no field to buy; "
            "set it to null"
        )
    if r.received_cards_planted is ReceivedCardsPlanted.AT_ONCE and not r.trading:
        problems.append(f"received_cards_planted={_typed(r.received_cards_planted)} "
                        "needs trading=true")
    if r.trading and not r.harvest_out_of_turn:
        problems.append(
            "harvest_out_of_turn=false needs trading=false: a player who receives "
            "beans in a trade must be able to harvest to plant them"
        )
    if r.trading and r.leftover_face_up is LeftoverFaceUp.OFFERED_TO_NEXT_PLAYER:
        problems.append(
            f"leftover_face_up={_typed(r.leftover_face_up)} needs trading=false: "
            "with trading, phase 3 plants every card left"
        )
    most_players = max(r.players)
    dealt = sum(r.cards_dealt(seat) for seat in range(most_players))
    if dealt + r.face_up_cards > r.deck_size:
        computed_for = (f" (the most players {r.players_label} allows)"
                        if len(r.players) > 1 else "")
        problems.append(
            f"the deck of {r.deck_size} cards is too small to deal {_count(dealt, 'card')} "
            f"to {most_players} players{computed_for} and turn over {r.face_up_cards}"
        )
    return problems


_ENUMS: dict[str, type[StrEnum]] = {
    "paid_coins_to": CoinDestination,
    "received_cards_planted": ReceivedCardsPlanted,
    "leftover_face_up": LeftoverFaceUp,
    "run_out_while_turning_over": EndTiming,
    "run_out_while_drawing": EndTiming,
    "reshuffle_when": ReshuffleWhen,
    "empty_reshuffle": EmptyReshuffle,
    "tie_break": TieBreak,
}


def _not_valid(name: str, value: object) -> RulesetError:
    return RulesetError(f"rule option {name}: {_shown(value)} is not a valid {_FIELD_HINTS[name]}")


def _whole_number(name: str, value: object) -> int:
    """An int (not a bool) of sane width: huge ones are refused before any arithmetic."""
    if type(value) is not int:
        raise _not_valid(name, value)
    if value.bit_length() >= _BIG_BITS:
        raise RulesetError(f"rule option {name}: {_shown(value)} is out of bounds")
    return value


def _choice(name: str, value: object, kind: type[StrEnum]) -> Any:
    if isinstance(value, str) and len(value) <= _LONGEST_CHOICE:
        try:
            return kind(value)
        except ValueError:
            pass
    raise _not_valid(name, value)


def _coerce(name: str, value: Any) -> Any:
    """Turn one JSON parameter back into its typed value, refusing wrong types and, for
    lists, numbers and strings, sizes past the bounds before looking further."""
    hint = _FIELD_HINTS[name]
    if name in _ENUMS:
        return _choice(name, value, _ENUMS[name])
    if name in LIST_LIMITS:
        if not isinstance(value, list | tuple):
            raise _not_valid(name, value)
        too_long = _too_long(name, len(value))
        if too_long:
            raise RulesetError(f"rule option {too_long}")
        if name == "beans":
            return tuple(_choice(name, v, BeanKind) for v in value)
        if name == "house_rules":
            if not all(isinstance(v, str) and len(v) <= _LONGEST_CHOICE for v in value):
                raise _not_valid(name, value)
            return tuple(value)
        if not all(type(v) is int for v in value):
            raise _not_valid(name, value)
        return tuple(_whole_number(name, v) for v in value)
    if hint == "bool":
        if not isinstance(value, bool):
            raise _not_valid(name, value)
        return value
    if hint == "int":
        return _whole_number(name, value)
    if hint == "int | None":
        return None if value is None else _whole_number(name, value)
    if hint == "str":
        if not isinstance(value, str):
            raise _not_valid(name, value)
        return value  # its length is checked by validate(): len() costs nothing
    raise RulesetError(f"rule option {name} cannot be set")  # pragma: no cover


# ---------------------------------------------------------------------------
# How many events a game can hold
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class EventBounds:
    """The most events one command causes (``new_game`` included) and a whole game
    holds under a ruleset. Trading steps are the players' own doing and not counted:
    ``command`` leaves out the ``OfferVoided`` an accepted offer or a planting closes
    (one per open offer), ``game`` every offer, answer, withdrawal and voided offer."""

    command: int
    game: int


def event_bounds(ruleset: Ruleset) -> EventBounds:
    """Upper bounds on events, from the parameters alone (docs/rulesets.md, "Bounds").

    With P players at most, a deck of N, F fields, R run-outs, U cards turned over and
    W drawn a turn, D dealt, and N more that the duel's step 3 may take back from the
    discard pile (``take_matching_discards``, else 0):

    * the automatic events after one command cover at most the rest of one turn and
      the start of the next up to its first decision: 7 phase events, W draws, U cards
      turned over, the discards taken back, R run-outs and R-1 reshuffles, and the
      final harvest (P x F fields and GameEnded). A command adds its own event;
      ``new_game`` adds GameStarted, DeckShuffled and the D cards dealt instead;
    * cards leave the draw pile at most R x N times (one pass per reshuffle); every
      turn but the last turns over at least one, so there are at most R x N - D + 1
      turns; every card that enters a hand or the face-up cards (from the pile, or
      taken back) is planted or discarded at most once, and every harvest empties a
      field planted since; each turn has at most 7 phase events, each seat buys at
      most one field.
    """
    players = max(ruleset.players)
    deck = ruleset.deck_size
    run_outs = ruleset.ends_on_run_out
    fields = players * ruleset.max_fields
    dealt = sum(ruleset.cards_dealt(seat) for seat in range(players))
    taken_back = deck if ruleset.take_matching_discards else 0
    pile_events = 2 * run_outs - 1
    tail = (7 + ruleset.draw_cards + ruleset.face_up_cards + taken_back + pile_events
            + fields + 1)
    from_pile = run_outs * deck
    turns = from_pile - dealt + 1
    into_play = from_pile + turns * taken_back
    game = 3 + 3 * into_play + fields + players + 7 * turns + 2 * run_outs
    return EventBounds(command=2 + dealt + tail, game=game)


HU = "seeds/000_f017b717b63a1ae7.txt (Hungarian, German edition)"
EN = "seeds/001_ae006c0888c16f88.txt (English, current edition)"
FI = "seeds/004_b47807b08d5735a9.txt (Finnish, 154-card edition)"

_WITHOUT_COCOA = tuple(k for k in ALL_ELEVEN if k is not BeanKind.COCOA)
_WITHOUT_COCOA_GARDEN = tuple(k for k in _WITHOUT_COCOA if k is not BeanKind.GARDEN)

PRESETS: dict[str, tuple[Ruleset, ...]] = {
    "classic": (
        Ruleset(
            name="classic",
            description="The German edition: 104 cards, 3-5 players.",
            source=HU,
            players=(3, 4, 5),
            beans=ORIGINAL_EIGHT,
        ),
    ),
    "amigo-en": (
        Ruleset(
            name="amigo-en",
            description="The current English rulebook, 3 players: three fields from the start.",
            source=EN,
            players=(3,),
            beans=ORIGINAL_EIGHT,
            starting_fields=3,
            third_field_cost=None,
            tie_break=TieBreak.FURTHEST_CLOCKWISE,
            # 001: "When you draw the last card from the draw pile, re-shuffle".
            reshuffle_when=ReshuffleWhen.LAST_CARD_DRAWN,
        ),
        Ruleset(
            name="amigo-en",
            description="The current English rulebook, 4-5 players.",
            source=EN,
            players=(4, 5),
            beans=ORIGINAL_EIGHT,
            tie_break=TieBreak.FURTHEST_CLOCKWISE,
            reshuffle_when=ReshuffleWhen.LAST_CARD_DRAWN,
        ),
    ),
    "rio-grande": (
        Ruleset(
            name="rio-grande",
            description="154-card edition, 3 players: third field free, ends at the 2nd run-out.",
            source=HU,
            players=(3,),
            beans=_WITHOUT_COCOA,
            starting_fields=3,
            third_field_cost=None,
            ends_on_run_out=2,
        ),
        Ruleset(
            name="rio-grande",
            description="154-card edition, 4-5 players, without Cocoa beans.",
            source=HU,
            players=(4, 5),
            beans=_WITHOUT_COCOA,
        ),
        Ruleset(
            name="rio-grande",
            description="154-card edition, 6-7 players: deal 3/4/5/6, draw 4, third field 2.",
            source=HU,
            players=(6, 7),
            beans=_WITHOUT_COCOA_GARDEN,
            deal=(3, 4, 5, 6),
            third_field_cost=2,
            draw_cards=4,
        ),
    ),
    "finnish": (
        Ruleset(
            name="finnish",
            description="The Finnish translation: 154 cards, 2-7 players, the end comes at once, "
            "traded beans are planted at once.",
            source=FI,
            players=(2, 3, 4, 5, 6, 7),
            beans=ALL_ELEVEN,
            received_cards_planted=ReceivedCardsPlanted.AT_ONCE,
            run_out_while_turning_over=EndTiming.AT_ONCE,
            tie_break=TieBreak.SHARED,
        ),
    ),
    "duel": (
        Ruleset(
            name="duel",
            description="Bean duel (Babpárbaj) for 2: no trading, leftovers go to the opponent.",
            source=HU,
            players=(2,),
            beans=_WITHOUT_COCOA_GARDEN,
            paid_coins_to=CoinDestination.OUT_OF_GAME,
            discard_from_hand_after_planting=True,
            face_up_cards=3,
            take_matching_discards=True,
            trading=False,
            leftover_face_up=LeftoverFaceUp.OFFERED_TO_NEXT_PLAYER,
            draw_cards=2,
            ends_on_run_out=1,
            run_out_while_turning_over=EndTiming.AT_ONCE,
            harvest_out_of_turn=False,
        ),
    ),
}

def ruleset_for(name: str, players: int) -> Ruleset:
    """The preset ``name`` for ``players`` players, or a :class:`RulesetError` that
    names the rulesets which do support that count."""
    bands = PRESETS.get(name)
    if bands is None:
        raise RulesetError(f"unknown ruleset {_shown(name)}; known: {', '.join(PRESETS)}")
    for band in bands:
        if players in band.players:
            return band
    supported = sorted({p for band in bands for p in band.players})
    label = "-".join(str(p) for p in sorted({supported[0], supported[-1]}))
    raise RulesetError(
        f"{name} is played by {label} players, not {_shown(players)}"
        + _supporting_hint(players)
    )


def _supporting_hint(players: object) -> str:
    others = [n for n, bands in PRESETS.items() if any(players in r.players for r in bands)]
    return f"; for {players} players use: {', '.join(others)}" if others else ""


def check_player_count(ruleset: Ruleset, players: int) -> None:
    """Refuse a table the ruleset does not support, naming the presets that do."""
    if players not in ruleset.players:
        raise RulesetError(
            f"{ruleset.name} is for {ruleset.players_label} players, not {_shown(players)}"
            + _supporting_hint(players)
        )


def _base_band(preset: str, players: int, counts: object) -> Ruleset:
    """The band house rules start from: the one for ``players``, or, when the overrides
    change the player counts to include ``players``, the band sharing most of them
    (``customize("classic", 2, {"players": [2, 3, 4, 5]})`` starts from classic 3-5)."""
    bands = PRESETS.get(preset, ())
    if counts is not None and not any(players in band.players for band in bands):
        wanted = set(_coerce("players", counts))
        if players in wanted:
            best = max(bands, key=lambda band: len(wanted.intersection(band.players)))
            if wanted.intersection(best.players):
                return best
    return ruleset_for(preset, players)


def customize(
    preset: str, players: int, overrides: Mapping[str, Any], name: str | None = None
) -> Ruleset:
    """House rules: the preset for ``players`` with ``overrides`` (JSON-style values),
    validated; refused with a clear message if unknown or inconsistent.

    Only the overrides that change something are house rules: ``house_rules`` names
    exactly the parameters that differ from the preset, and overrides that all equal
    the preset give the preset itself, under its own name."""
    if not isinstance(overrides, Mapping):
        raise RulesetError(f"overrides are an object of rule options, not {_shown(overrides)}")
    for key in overrides:  # stops at the first bad one: at most 23 keys are looked at
        if key in NOT_RULES:
            raise RulesetError(f"{key} cannot be overridden: it describes the rules, "
                               "it is not one")
        if key not in RULE_PARAMETERS:
            options = ", ".join(RULE_PARAMETERS)
            raise RulesetError(f"unknown rule option {_shown(key)}; options: {options}",
                               "unknown_rule", option=key, options=options)
    base = _base_band(preset, players, overrides.get("players"))
    params = base.parameters() | dict(overrides)
    params["name"] = house_rules_name(preset) if name is None else name
    params["house_rules"] = []
    candidate = Ruleset.from_parameters(params)
    if players not in candidate.players:
        raise RulesetError(f"the house rules must still allow {_shown(players)} players")
    changed = differing_parameters(candidate, base)
    if not changed:
        return base
    ruleset = dataclasses.replace(candidate, house_rules=changed)
    mismatch = preset_mismatch(ruleset)
    if mismatch is not None:
        raise RulesetError(mismatch)
    return ruleset


MAX_RULE_OPTION = 200
"""Characters of one ``KEY=VALUE`` house rule from a command line or a form."""


def rule_overrides(options: Sequence[str]) -> dict[str, Any]:
    """House rules written ``KEY=VALUE`` (``draw_cards=3``, ``trading=false``,
    ``players=[2,3,4]``, ``tie_break=shared win``) as overrides for :func:`customize`:
    a VALUE that reads as JSON is taken as that JSON, anything else as text. Bounded
    (at most one option per rule parameter, :data:`MAX_RULE_OPTION` characters each)
    before anything is parsed; unknown keys are refused by :func:`customize`."""
    from bohnanza_core.jsonlimits import JSONLimitError, loads_line

    if len(options) > len(RULE_PARAMETERS):
        raise RulesetError(f"{len(options)} house rules; there are only "
                           f"{len(RULE_PARAMETERS)} rule options")
    overrides: dict[str, Any] = {}
    for option in options:
        if len(option) > MAX_RULE_OPTION:
            raise RulesetError(f"a house rule is KEY=VALUE of at most {MAX_RULE_OPTION} "
                               f"characters, not {len(option)}")
        key, equals, text = option.partition("=")
        key = key.strip()
        if not equals or not key:
            raise RulesetError(f"a house rule is written KEY=VALUE, not {_shown(option)}")
        if key in overrides:
            raise RulesetError(f"{_shown(key)} is given twice")
        try:
            value = loads_line(text.strip(), key)
        except (JSONLimitError, ValueError):
            value = text.strip()
        overrides[key] = value
    return overrides


# ---------------------------------------------------------------------------
# A preset's name over other rules
# ---------------------------------------------------------------------------


def differing_parameters(ruleset: Ruleset, other: Ruleset) -> tuple[str, ...]:
    """The rule parameters whose values differ, in the order of the fields."""
    return tuple(name for name in RULE_PARAMETERS if getattr(ruleset, name) != getattr(other, name))


def _named_preset(name: str) -> str | None:
    """The preset a name claims: its own name or "<preset> (house rules)", whatever the
    case and spaces around it ("Classic " is classic too)."""
    key = name.strip().casefold().removesuffix("(house rules)").strip()
    return key if key in PRESETS else None


def _where(band: Ruleset) -> str:
    return f"{band.name} ({band.players_label} players)"


def preset_mismatch(ruleset: Ruleset) -> str | None:
    """Why ``ruleset`` misstates its rules, or None if it is honest.

    A ruleset is honest when ``house_rules`` names exactly the parameters that differ
    from a preset band: nothing for the preset itself. A name that claims a preset
    ("classic", "classic (house rules)") is compared with that preset's bands, any
    other name with every band. So a record named ``classic`` without house rules must
    carry classic's exact rules, and whatever it changes must be listed: a difference
    that changes no event (a third field for 9 coins nobody bought) included. Only
    rules count: ``description`` and ``source`` are prose, not rules."""
    preset = _named_preset(ruleset.name)
    bands = PRESETS[preset] if preset else tuple(b for bs in PRESETS.values() for b in bs)
    claimed = set(ruleset.house_rules)
    differences = [(band, differing_parameters(ruleset, band)) for band in bands]
    if any(set(diff) == claimed for _, diff in differences):
        return None
    band, diff = min(differences, key=lambda bd: (bd[0].players != ruleset.players,
                                                  len(claimed.symmetric_difference(bd[1]))))
    name = _shown(ruleset.name)
    if claimed:
        return (f"ruleset {name}: house_rules lists {', '.join(sorted(claimed))}, but what "
                f"differs from {_where(band)} is: {', '.join(diff) or 'nothing'}")
    details = ", ".join(f"{p}={_typed(getattr(ruleset, p))} ({band.name}: "
                        f"{_typed(getattr(band, p))})" for p in diff)
    if preset:
        return (f"ruleset {name} differs from {_where(band)} in {details}: a ruleset under "
                "a preset's name carries exactly its rules, or lists what it changes in "
                "house_rules")
    return (f"ruleset {name} lists no house rules but is no preset: it differs from "
            f"{_where(band)} in {details}")


def house_rules_name(preset: str) -> str:
    """The name of a preset played with house rules: "classic (house rules)"."""
    return f"{preset} (house rules)"


def display_name(ruleset: Ruleset) -> str:
    """The name to show a ruleset under: the preset's own name only when it is exactly
    that preset, "<preset> (house rules)" when a preset's name covers other rules
    (listed or not), otherwise the ruleset's own name."""
    preset = _named_preset(ruleset.name)
    if preset is None:
        return ruleset.name
    if not ruleset.house_rules and preset_mismatch(ruleset) is None:
        return preset
    return house_rules_name(preset)


def listed_name(ruleset: Ruleset) -> str:
    """The name a list of games files ``ruleset`` under: the preset's name for exactly
    that preset, else "<preset> (house rules)" for the preset it claims or, under a
    name of its own, the one it is closest to (fewest differing rules). So a list's
    ruleset menu holds presets and their house rules only, whatever names uploaded
    files bring; the ruleset's own name is shown with the game itself."""
    preset = _named_preset(ruleset.name)
    if preset is not None:
        return display_name(ruleset)
    bands = [band for bands in PRESETS.values() for band in bands]
    nearest = min(bands, key=lambda band: (len(differing_parameters(ruleset, band)),
                                            band.players != ruleset.players))
    if not differing_parameters(ruleset, nearest):
        return nearest.name
    return house_rules_name(nearest.name)


PRESET_NAME_MAX = max(len(name) for name in PRESETS)
"""The longest preset's name: a table is set for a preset."""
LISTED_NAME_MAX = max(len(house_rules_name(name)) for name in PRESETS)
"""The longest name :func:`listed_name` gives: a preset's, with its house rules."""
