"""A competition's rating history as a chart: the conservative rating (mu - 3 sigma) of
the top entrants after every round, one line each, as SVG geometry drawn by the
server (the replay summary's chart geometry and colours: ``replays.summary``)."""

from __future__ import annotations

from typing import Any

from replays.summary import (
    BOTTOM,
    HEIGHT,
    LEFT,
    SEAT_COLOURS,
    SEAT_DASHES,
    TOP,
    WIDTH,
    _spread_labels,
)
from tournaments.core.competition import Competition
from tournaments.core.entrants import entrant_name

CHART_LINES = 7
"""Entrants drawn on the chart: the top of the ranking (one colour and dash each)."""
LABEL_ROOM = 150
"""Right of the plot: each line's end label (the entrant's short name and rating)."""
CHART_POINTS = 200
"""Rounds drawn at most: a long ladder's history is sampled evenly, the last kept."""


def short_name(entrant: str) -> str:
    """An entrant on the chart: a bot and its copy number without the version
    (``heuristic@builtin #2`` -> ``heuristic #2``), a person's username; the ranking
    above names it in full."""
    named = entrant_name(entrant)
    if named.person:
        return named.name[:17]
    bot, _, copy = named.name.partition(" ")
    return f"{bot[:14]} {copy}".strip()


def rating_chart(competition: Competition) -> dict[str, Any] | None:
    """The conservative rating of the top entrants after every round (0 before their
    first game), one line each, as SVG geometry; None before the first round ends."""
    history = competition.rating_history
    if not history:
        return None
    ticks = list(range(0, len(history), max(1, -(-len(history) // CHART_POINTS))))
    if ticks[-1] != len(history) - 1:
        ticks.append(len(history) - 1)
    shown = [competition.entrants[e] for e in competition.ranking()[:CHART_LINES]]
    series = [[h[e][0] - 3 * h[e][1] if e in h else 0.0 for h in (history[t] for t in ticks)]
              for e in shown]
    values = [v for line in series for v in line]
    low, high = min(0.0, *values), max(1.0, *values)
    plot_w, plot_h = WIDTH - LEFT - LABEL_ROOM, HEIGHT - TOP - BOTTOM
    span = max(1, len(ticks) - 1)

    def x(i: int) -> float:
        return round(LEFT + plot_w * i / span, 1)

    def y(v: float) -> float:
        return round(TOP + plot_h * (high - v) / (high - low), 1)

    lines = []
    for n, (entrant, line) in enumerate(zip(shown, series, strict=True)):
        points = " L".join(f"{x(i)},{y(v)}" for i, v in enumerate(line))
        lines.append({"path": f"M{points}", "colour": SEAT_COLOURS[n], "dash": SEAT_DASHES[n],
                      "name": short_name(entrant), "final": f"{line[-1]:.1f}",
                      "label_x": x(len(line) - 1) + 6, "label_y": y(line[-1]) + 4})
    _spread_labels(lines, low=TOP + 8, high=HEIGHT - BOTTOM + 4)
    step = max(1, round((high - low) / 5))
    first = int(low // step) * step
    y_ticks = [{"value": v, "y": y(v)} for v in range(first, int(high) + 1, step) if v >= low]
    every = max(1, span // 10)
    x_ticks = [{"label": str(t + 1), "x": x(i)} for i, t in enumerate(ticks)
               if i % every == 0 or i == span]
    return {"width": WIDTH, "height": HEIGHT, "lines": lines, "y_ticks": y_ticks,
            "x_ticks": x_ticks, "left": LEFT, "right": WIDTH - LABEL_ROOM, "top": TOP,
            "bottom": HEIGHT - BOTTOM}


def llr_chart(points: list[tuple[int, float]], lower: float, upper: float
              ) -> dict[str, Any]:
    """A bot test's LLR after each batch of sets, between its two bounds (the lines where
    H0 and H1 are accepted), as SVG geometry; sampled evenly past :data:`CHART_POINTS`."""
    shown = [(0, 0.0), *points]
    if len(shown) > CHART_POINTS:
        step = -(-len(shown) // CHART_POINTS)
        shown = shown[::step] + ([shown[-1]] if (len(shown) - 1) % step else [])
    low = min(lower, *(v for _, v in shown)) - 0.2
    high = max(upper, *(v for _, v in shown)) + 0.2
    last = max(1, shown[-1][0])
    plot_w, plot_h = WIDTH - LEFT - LABEL_ROOM, HEIGHT - TOP - BOTTOM

    def x(sets: int) -> float:
        return round(LEFT + plot_w * sets / last, 1)

    def y(v: float) -> float:
        return round(TOP + plot_h * (high - v) / (high - low), 1)

    path = "M" + " L".join(f"{x(s)},{y(v)}" for s, v in shown)
    bounds = [{"y": y(upper), "label": "H1", "value": f"{upper:.2f}", "label_y": y(upper) + 4},
              {"y": y(lower), "label": "H0", "value": f"{lower:.2f}", "label_y": y(lower) + 4}]
    # The LLR's label ends at the bounds' labels' x: one near a bound would be drawn
    # over its label, so the three are spread apart as the rating chart's are.
    final = {"label_y": y(shown[-1][1]) + 4}
    _spread_labels([*bounds, final], low=TOP + 8, high=HEIGHT - BOTTOM + 4)
    every = max(1, last // 5)
    x_ticks = [{"label": str(s), "x": x(s)} for s in range(0, last + 1, every)]
    y_ticks = [{"value": v, "y": y(v)} for v in range(int(low), int(high) + 1)]
    return {"width": WIDTH, "height": HEIGHT, "path": path, "bounds": bounds,
            "final": f"{shown[-1][1]:.2f}", "final_x": x(shown[-1][0]) + 6,
            "final_y": final["label_y"], "x_ticks": x_ticks, "y_ticks": y_ticks,
            "left": LEFT, "right": WIDTH - LABEL_ROOM, "top": TOP,
            "bottom": HEIGHT - BOTTOM, "colour": SEAT_COLOURS[0]}


__all__ = ["llr_chart", "rating_chart", "short_name"]
