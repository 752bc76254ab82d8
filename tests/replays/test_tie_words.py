"""A tie the tie-break did not separate (a shared win) is told as standing, in the
end summary and in the log, never as "broken by" a rule that left it as it was."""

from __future__ import annotations

from django.template.loader import render_to_string

from bohnanza_core.events import GameEnded
from bohnanza_core.narrate import Narrator
from bohnanza_core.rulesets import TieBreak, ruleset_for
from replays.summary import game_summary

NAMES = ["ann", "heuristic 2", "heuristic 3"]


def _ended(winners: tuple[int, ...], tie_break: TieBreak | None,
           hands: tuple[int, ...] = (4, 9, 9)) -> GameEnded:
    ranks = tuple(1 if s in winners else 3 for s in range(3))
    return GameEnded(coins=(8, 12, 12), winners=winners, ranks=ranks, hand_sizes=hands,
                     tie_break=tie_break, seed="s", salt="t")


def _tie_text(event: GameEnded) -> str:
    summary = game_summary([event], NAMES, ["user:ann", "bot:heuristic", "bot:heuristic"])
    assert summary is not None
    html = render_to_string("table/_summary.html", {"s": summary})
    return " ".join(html.split("rt-tie")[1].split("</p>")[0].split())


def test_a_tie_the_tie_break_left_standing_is_a_shared_win() -> None:
    text = _tie_text(_ended((1, 2), TieBreak.MOST_CARDS_IN_HAND, (4, 9, 9)))
    assert "the tie stands" in text and "broken by" not in text
    line = Narrator(ruleset_for("classic", 3), NAMES).describe(
        _ended((1, 2), TieBreak.MOST_CARDS_IN_HAND, (4, 9, 9)))
    assert "the tie stands" in line and "broken by" not in line


def test_a_shared_win_by_the_rule_stands() -> None:
    text = _tie_text(_ended((1, 2), TieBreak.SHARED))
    assert "the tie stands" in text and "broken by" not in text
    line = Narrator(ruleset_for("finnish", 3), NAMES).describe(_ended((1, 2), TieBreak.SHARED))
    assert "the tie stands" in line and "broken by" not in line


def test_a_tie_the_tie_break_separated_is_broken() -> None:
    text = _tie_text(_ended((1,), TieBreak.MOST_CARDS_IN_HAND, (4, 10, 9)))
    assert "the tie was broken by: more cards in hand" in text
    line = Narrator(ruleset_for("classic", 3), NAMES).describe(
        _ended((1,), TieBreak.MOST_CARDS_IN_HAND, (4, 10, 9)))
    assert "tie broken by: more cards in hand" in line
