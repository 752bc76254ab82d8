"""Rulesets as frozen data (RULES.md, "Rulesets").

A :class:`Ruleset` is every parameter a game is played under, for one band of player
counts. A preset name (``classic``, ``amigo-en``, ``rio-grande``, ``finnish``,
``duel``) may have several bands: ``rio-grande`` differs for 3, 4-5 and 6-7 players.
The engine reads only these values; nowhere does it ask which preset it plays.
House rules are a preset plus overrides (:func:`customize`), checked for
consistency by :meth:`Ruleset.validate`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
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


@dataclass(frozen=True)
class Ruleset:
    """Every rule parameter of one ruleset for one band of player counts."""

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
    """Names of the parameters overridden from the preset (empty for a preset)."""

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
        """Rebuild and validate a ruleset from :meth:`parameters` output."""
        known = {f.name: f for f in dataclasses.fields(cls)}
        unknown = sorted(set(params) - set(known))
        if unknown:
            raise RulesetError(f"unknown rule option(s): {', '.join(unknown)}")
        missing = sorted(name for name in known if name not in params)
        if missing:
            raise RulesetError(f"missing rule option(s): {', '.join(missing)}")
        values = {name: _coerce(name, params[name]) for name in known}
        ruleset = cls(**values)
        ruleset.validate()
        return ruleset

    # -- consistency ----------------------------------------------------------------

    def validate(self) -> None:
        """Refuse a ruleset that cannot be played, saying why."""
        problems: list[str] = []
        if not self.players or min(self.players) < 2:
            problems.append("players: every supported count must be at least 2")
        if not self.beans or len(set(self.beans)) != len(self.beans):
            problems.append("beans: list each bean kind at most once, and at least one")
        if not self.deal or min(self.deal) < 0:
            problems.append("deal: give each seat zero or more cards")
        if not 1 <= self.starting_fields <= self.max_fields:
            problems.append("starting_fields must be between 1 and max_fields")
        can_grow = self.max_fields > self.starting_fields
        if self.third_field_cost is None and can_grow:
            problems.append(
                "max_fields exceeds starting_fields but third_field_cost is None: "
                "there would be no way to get the extra field"
            )
        if self.third_field_cost is not None:
            if not can_grow:
                problems.append(
                    "third_field_cost is set but max_fields leaves no field to buy; "
                    "set third_field_cost to None"
                )
            if self.third_field_cost < 0:
                problems.append("third_field_cost cannot be negative")
        if self.planting_from_hand < 1:
            problems.append("planting_from_hand: the front card must always be planted (>= 1)")
        if self.face_up_cards < 1:
            problems.append("face_up_cards must be at least 1")
        if self.draw_cards < 0:
            problems.append("draw_cards cannot be negative")
        if self.ends_on_run_out < 1:
            problems.append("ends_on_run_out must be at least 1")
        if self.received_cards_planted is ReceivedCardsPlanted.AT_ONCE and not self.trading:
            problems.append("received_cards_planted=at once needs trading")
        if self.trading and not self.harvest_out_of_turn:
            problems.append(
                "harvest_out_of_turn=False needs trading=False: a player who receives "
                "beans in a trade must be able to harvest to plant them"
            )
        if self.trading and self.leftover_face_up is LeftoverFaceUp.OFFERED_TO_NEXT_PLAYER:
            problems.append(
                "leftover_face_up=offered to the next player needs trading=False: "
                "with trading, phase 3 plants every card left"
            )
        if self.players and self.beans and self.deal and min(self.deal) >= 0:
            dealt = sum(self.cards_dealt(seat) for seat in range(max(self.players)))
            if dealt + self.face_up_cards > self.deck_size:
                problems.append(
                    f"the deck of {self.deck_size} cards is too small to deal {dealt} "
                    f"and turn over {self.face_up_cards}"
                )
        if problems:
            raise RulesetError(f"ruleset {self.name!r} is inconsistent: " + "; ".join(problems))


def _coerce(name: str, value: Any) -> Any:
    """Turn one JSON parameter back into its typed value, refusing wrong types."""
    hint = {f.name: f.type for f in dataclasses.fields(Ruleset)}[name]
    enums: dict[str, type[StrEnum]] = {
        "paid_coins_to": CoinDestination,
        "received_cards_planted": ReceivedCardsPlanted,
        "leftover_face_up": LeftoverFaceUp,
        "run_out_while_turning_over": EndTiming,
        "run_out_while_drawing": EndTiming,
        "reshuffle_when": ReshuffleWhen,
        "empty_reshuffle": EmptyReshuffle,
        "tie_break": TieBreak,
    }
    try:
        if name in enums:
            return enums[name](value)
        if name == "beans":
            return tuple(BeanKind(v) for v in value)
        if name in ("players", "deal"):
            if not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
                raise TypeError
            return tuple(value)
        if name == "house_rules":
            return tuple(str(v) for v in value)
        if hint == "bool":
            if not isinstance(value, bool):
                raise TypeError
            return value
        if hint == "int":
            if not isinstance(value, int) or isinstance(value, bool):
                raise TypeError
            return value
        if hint == "int | None":
            if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
                raise TypeError
            return value
        if hint == "str":
            if not isinstance(value, str):
                raise TypeError
            return value
    except (TypeError, ValueError) as exc:
        raise RulesetError(f"rule option {name}: {value!r} is not a valid {hint}") from exc
    raise RulesetError(f"rule option {name} cannot be set")  # pragma: no cover


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

for _bands in PRESETS.values():
    for _ruleset in _bands:
        _ruleset.validate()


def ruleset_for(name: str, players: int) -> Ruleset:
    """The preset ``name`` for ``players`` players, or a :class:`RulesetError` that
    names the rulesets which do support that count."""
    bands = PRESETS.get(name)
    if bands is None:
        raise RulesetError(f"unknown ruleset {name!r}; known: {', '.join(PRESETS)}")
    for band in bands:
        if players in band.players:
            return band
    supported = sorted({p for band in bands for p in band.players})
    label = "-".join(str(p) for p in sorted({supported[0], supported[-1]}))
    raise RulesetError(
        f"{name} is played by {label} players, not {players}"
        + _supporting_hint(players)
    )


def _supporting_hint(players: int) -> str:
    others = [n for n, bands in PRESETS.items() if any(players in r.players for r in bands)]
    return f"; for {players} players use: {', '.join(others)}" if others else ""


def check_player_count(ruleset: Ruleset, players: int) -> None:
    """Refuse a table the ruleset does not support, naming the presets that do."""
    if players not in ruleset.players:
        raise RulesetError(
            f"{ruleset.name} is for {ruleset.players_label} players, not {players}"
            + _supporting_hint(players)
        )


def customize(
    preset: str, players: int, overrides: Mapping[str, Any], name: str | None = None
) -> Ruleset:
    """House rules: the preset for ``players`` with ``overrides`` (JSON-style values),
    validated; refused with a clear message if unknown or inconsistent."""
    base = ruleset_for(preset, players)
    params = base.parameters()
    fixed = {"name", "house_rules"}
    for key in overrides:
        if key in fixed:
            raise RulesetError(f"{key} cannot be overridden")
        if key not in params:
            raise RulesetError(
                f"unknown rule option {key!r}; options: "
                + ", ".join(k for k in params if k not in fixed)
            )
    params.update(overrides)
    params["name"] = name or f"{preset} (house rules)"
    params["house_rules"] = sorted(overrides)
    ruleset = Ruleset.from_parameters(params)
    if players not in ruleset.players:
        raise RulesetError(f"the house rules must still allow {players} players")
    return ruleset
