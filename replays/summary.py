"""The end-of-game summary: final score, how a tie was broken, coins over time (an SVG
chart drawn here, on the server: no charting script to load), harvests and trades per
player.

Built from the game's events as the viewer's perspective may see them; everything it
uses (harvests, third fields, offers and their answers, the final result) is public, so
every perspective gets the same summary. Shown only at the game's last step: before it,
it would spoil the game.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from bohnanza_core.events import (
    GAME_OVER_TYPES,
    Event,
    FieldHarvested,
    GameEnded,
    GameStopped,
    OfferAccepted,
    OfferMade,
    ThirdFieldBought,
    TurnStarted,
)
from bohnanza_core.narrate import bean_name, stop_reason_text, tie_break_text

SEAT_COLOURS = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#56b4e9", "#e69f00", "#1f2328")
"""Okabe and Ito's colour-blind-safe set, one a seat; each line also has its own dash
pattern and its name at its end, so colour is never the only cue."""
SEAT_DASHES = ("", "6 3", "2 2", "8 3 2 3", "1 3", "10 4", "4 2 1 2")

WIDTH, HEIGHT = 640, 240
LEFT, RIGHT, TOP, BOTTOM = 34, 110, 12, 28


@dataclass
class SeatTally:
    """One player's game in numbers."""

    harvests: int = 0
    beans_sold: int = 0
    coins_earned: int = 0
    best: tuple[int, int, str] | None = None  # coins, beans, bean name
    third_field: int | None = None
    offers_made: int = 0
    trades: int = 0
    gifts_given: int = 0
    gifts_received: int = 0
    cards_given: int = 0
    cards_received: int = 0
    coins_by_turn: list[int] = field(default_factory=lambda: [0])


def _tally(events: Sequence[Event], seats: int) -> tuple[list[SeatTally], int]:
    tallies = [SeatTally() for _seat in range(seats)]
    coins = [0] * seats
    offers: dict[int, OfferMade] = {}
    turn = 0

    def close_turn() -> None:
        for seat, tally in enumerate(tallies):
            tally.coins_by_turn.append(coins[seat])

    for event in events:
        match event:
            case TurnStarted():
                if event.turn > 1:
                    close_turn()
                turn = event.turn
            case FieldHarvested():
                tally = tallies[event.seat]
                tally.harvests += 1
                tally.beans_sold += event.beans
                tally.coins_earned += event.coins
                coins[event.seat] += event.coins
                name = bean_name(event.kind, event.beans, translation)
                if tally.best is None or (event.coins, event.beans) > tally.best[:2]:
                    tally.best = (event.coins, event.beans, name)
            case ThirdFieldBought():
                tallies[event.seat].third_field = event.cost
                coins[event.seat] -= event.cost
            case OfferMade():
                offers[event.offer] = event
                tallies[event.proposer].offers_made += 1
            case OfferAccepted():
                offer = offers.get(event.offer)
                if offer is None:
                    continue
                proposer, taker = tallies[offer.proposer], tallies[event.seat]
                if not offer.wants:  # a gift
                    proposer.gifts_given += 1
                    taker.gifts_received += 1
                elif not offer.gives:  # asked for as a gift
                    taker.gifts_given += 1
                    proposer.gifts_received += 1
                else:
                    proposer.trades += 1
                    taker.trades += 1
                proposer.cards_given += len(offer.gives)
                taker.cards_received += len(offer.gives)
                taker.cards_given += len(event.cards)
                proposer.cards_received += len(event.cards)
            case GameEnded() | GameStopped():
                close_turn()
    return tallies, turn


LABEL_GAP = 12
"""Vertical room of one line's label at the chart's end."""


def _spread_labels(lines: list[dict[str, Any]], low: float, high: float) -> None:
    """Move the end labels apart (equal scores end at one point) while keeping them in
    the plot: pushed down where they collide, then back up from the bottom edge."""
    ordered = sorted(lines, key=lambda line: line["label_y"])
    for before, after in itertools.pairwise(ordered):
        after["label_y"] = max(after["label_y"], before["label_y"] + LABEL_GAP)
    limit = high
    for line in reversed(ordered):
        line["label_y"] = round(max(low, min(line["label_y"], limit)), 1)
        limit = line["label_y"] - LABEL_GAP


def line_chart(series: Sequence[Sequence[float]], names: Sequence[str], turns: int, *,
               stepped: bool = True, top: float | None = None,
               suffix: str = "") -> dict[str, Any]:
    """Values over the game, one line a seat, as SVG geometry (the summary's coins
    chart, and the analysis's evaluation charts, ``analyses.panel``): stepped lines for
    what changes at a moment (coins), straight ones for estimates between points.
    ``top``: the y axis's end (the largest value by default); ``suffix``: said after
    each line's last value ("%")."""
    high = max(1, round(top) if top is not None
               else max(round(max(line)) for line in series))
    points = max(1, max(len(line) for line in series) - 1)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(i: int) -> float:
        return round(LEFT + plot_w * i / points, 1)

    def y(v: float) -> float:
        return round(TOP + plot_h * (1 - min(v, high) / high), 1)

    lines = []
    for seat, line in enumerate(series):
        path = f"M{x(0)},{y(line[0])}"
        for i in range(1, len(line)):
            path += f" H{x(i)} V{y(line[i])}" if stepped else f" L{x(i)},{y(line[i])}"
        final = line[-1]
        lines.append({"path": path, "colour": SEAT_COLOURS[seat % len(SEAT_COLOURS)],
                      "dash": SEAT_DASHES[seat % len(SEAT_DASHES)], "name": names[seat],
                      "final": f"{round(final)}{suffix}" if suffix else round(final),
                      "label_x": x(len(line) - 1) + 6, "label_y": y(final) + 4})
    _spread_labels(lines, low=TOP + 8, high=HEIGHT - BOTTOM + 4)
    step = max(1, high // 5 + (1 if high % 5 else 0))
    y_ticks = [{"value": v, "y": y(v)} for v in range(0, high + 1, step)]
    every = max(1, points // 10 + (1 if points % 10 else 0))
    x_ticks = [{"label": str(i) if i < points else _("end"), "x": x(i)}
               for i in range(0, points + 1) if i % every == 0 or i == points]
    return {"width": WIDTH, "height": HEIGHT, "lines": lines, "y_ticks": y_ticks,
            "x_ticks": x_ticks, "left": LEFT, "right": WIDTH - RIGHT, "top": TOP,
            "bottom": HEIGHT - BOTTOM, "turns": turns}


def game_summary(events: Sequence[Event], names: Sequence[str],
                 players: Sequence[str], bots: Collection[str] = ()) -> dict[str, Any] | None:
    """The summary of a finished game from its (redacted) events; None before its end.
    ``bots``: which of ``players`` are bot accounts (``replays.table.bot_accounts``)."""
    ended = next((e for e in reversed(events) if isinstance(e, GAME_OVER_TYPES)), None)
    if ended is None:
        return None
    from replays.table import display_player

    tallies, turns = _tally(events, len(names))
    rows = []
    for seat, tally in enumerate(tallies):
        rows.append({
            "seat": seat, "name": names[seat], "player": display_player(players[seat], bots)
            if seat < len(players) else "",
            "coins": ended.coins[seat], "rank": ended.ranks[seat],
            "winner": seat in ended.winners,
            "hand_size": ended.hand_sizes[seat] if isinstance(ended, GameEnded) else None,
            "colour": SEAT_COLOURS[seat % len(SEAT_COLOURS)],
            "tally": tally,
            "best": (None if tally.best is None else
                     _("%(beans)s %(bean)s for %(coins)s") % {
                         "beans": tally.best[1], "bean": tally.best[2],
                         "coins": ngettext("%(n)s coin", "%(n)s coins", tally.best[0])
                         % {"n": tally.best[0]}}),
        })
    rows.sort(key=lambda row: (row["rank"], row["seat"]))
    tie = None
    if isinstance(ended, GameEnded) and ended.tie_break is not None:
        top_coins = max(ended.coins)
        tied = [s for s, c in enumerate(ended.coins) if c == top_coins]
        how = tie_break_text(ended.tie_break, translation)
        tie = {
            "names": [names[s] for s in tied], "coins": top_coins, "how": how,
            "hands": [{"name": names[s], "cards": ended.hand_sizes[s]} for s in tied],
            "shows_hands": ended.tie_break.name == "MOST_CARDS_IN_HAND",
            # The tie-break left more than one winner (or there is none): a shared win.
            "stands": len(ended.winners) > 1,
            "shared_rule": ended.tie_break.name == "SHARED",
        }
    winners = [names[s] for s in ended.winners]
    stopped = (stop_reason_text(ended.reason, translation) if isinstance(ended, GameStopped)
               else None)
    return {
        "rows": rows, "tie": tie, "winners": winners, "turns": turns, "stopped": stopped,
        "chart": line_chart([t.coins_by_turn for t in tallies], names, turns),
    }
