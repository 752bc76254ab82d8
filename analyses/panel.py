"""What the replay viewer shows of a finished analysis, in the reader's language: the
evaluation charts, each seat's accuracy, the trades judged, luck apart from play, and
a note for each judged decision of the log ("mistake; better: <move>").

The best moves are told as the log tells moves: the event the move would have made
(``decide`` on the state before the decision) narrated by the viewer's narrator. An
analysis is only ever of a finished game, whose every card is public, so nothing here
hides anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from bohnanza_core import analysis as core
from bohnanza_core.engine import decide, evolve
from bohnanza_core.events import Event, GameStarted, OfferAccepted
from bohnanza_core.narrate import Narrator
from bohnanza_core.state import GameState
from replays.summary import SEAT_COLOURS, line_chart
from replays.table import short_name


def flag_name(flag: str) -> str:
    """A flag in the reader's language."""
    return {"inaccuracy": pgettext("analysis flag", "inaccuracy"),
            "mistake": pgettext("analysis flag", "mistake"),
            "blunder": pgettext("analysis flag", "blunder")}.get(flag, "")


def _signed(value: float) -> str:
    return f"{value:+.1f}".replace("-", "\u2212")  # a minus sign, as wide as the plus


def _states(events: Sequence[Event], wanted: set[int]) -> dict[int, GameState]:
    """The state before each of the events ``wanted`` (copies: the game goes on)."""
    found: dict[int, GameState] = {}
    state: GameState | None = None
    for index, event in enumerate(events):
        if index in wanted and state is not None:
            found[index] = state.copy()
        state = evolve(state, event)
    return found


def build(result: core.Analysis, events: Sequence[Event]) -> dict[str, Any]:
    """The panel's HTML and the log's notes (by log line: event index + 1)."""
    first = events[0]
    assert isinstance(first, GameStarted)
    names = [short_name(seat) for seat in first.seats]
    narrator = Narrator(first.ruleset, tuple(names), translation)
    flagged = {j.event for j in result.judgments if j.flag}
    trades = {t.event for t in result.trades}
    states = _states(events, flagged | trades)
    notes: dict[str, dict[str, Any]] = {}
    for j in result.judgments:
        note: dict[str, Any] = {"flag": j.flag, "loss": round(j.loss, 2)}
        if j.flag:
            best = decide(states[j.event], core.command_of(j.best, j.seat))[0]
            note["text"] = _("%(flag)s (%(loss)s coins); better: %(move)s") % {
                "flag": flag_name(j.flag), "loss": f"{j.loss:.1f}",
                "move": narrator.describe(best)}
        notes[str(j.event + 1)] = note
    context = {
        "analysis": result,
        "decisions": len(result.judgments),
        "charts": _charts(result, names, getattr(events[-1], "winners", ())),
        "accuracy": _accuracy(result, names),
        "trades": _trades(result, events, states, narrator, names),
        "luck": _luck(result, names),
    }
    return {"html": render_to_string("analyses/_panel.html", context), "notes": notes}


def _charts(result: core.Analysis, names: Sequence[str],
            winners: Sequence[int]) -> dict[str, Any] | None:
    """Each seat's chance of winning and expected final coins at the start of every
    turn, from its own view, and at the end what it got."""
    if not result.chart:
        return None
    seats = len(names)
    shares = [100.0 / len(winners) if seat in winners else 0.0 for seat in range(seats)]
    wins = [[point[2][seat].win * 100 for point in result.chart] + [shares[seat]]
            for seat in range(seats)]
    coins = [[point[2][seat].coins for point in result.chart] + [float(result.coins[seat])]
             for seat in range(seats)]
    turns = len(result.chart)
    return {"win": line_chart(wins, names, turns, stepped=False, top=100, suffix="%"),
            "coins": line_chart(coins, names, turns, stepped=False)}


def _accuracy(result: core.Analysis, names: Sequence[str]) -> list[dict[str, Any]]:
    rows = []
    for seat, name in enumerate(names):
        mine = [j for j in result.judgments if j.seat == seat]
        rows.append({
            "name": name, "colour": SEAT_COLOURS[seat % len(SEAT_COLOURS)],
            "decisions": len(mine),
            "loss": f"{sum(j.loss for j in mine) / len(mine):.2f}" if mine else "\u2013",
            "inaccuracies": sum(j.flag == "inaccuracy" for j in mine),
            "mistakes": sum(j.flag == "mistake" for j in mine),
            "blunders": sum(j.flag == "blunder" for j in mine)})
    return rows


def _trades(result: core.Analysis, events: Sequence[Event], states: dict[int, GameState],
            narrator: Narrator, names: Sequence[str]) -> list[dict[str, Any]]:
    rows = []
    for t in result.trades:
        event = events[t.event]
        assert isinstance(event, OfferAccepted)
        offer = states[t.event].offers[event.offer]
        rows.append({
            "seq": t.event + 1, "proposer": names[t.proposer], "acceptor": names[t.acceptor],
            "gave": narrator.cards(offer.gives), "got": narrator.cards(event.cards),
            "gift": not event.cards,
            "proposer_gain": _signed(t.proposer_gain),
            "acceptor_gain": _signed(t.acceptor_gain)})
    return rows


def _luck(result: core.Analysis, names: Sequence[str]) -> list[dict[str, Any]]:
    rows = []
    for luck in result.luck:
        if luck.deal >= 0.5:
            deal = _("a good deal: %(coins)s coins above the table's average") % {
                "coins": f"{luck.deal:.1f}"}
        elif luck.deal <= -0.5:
            deal = _("a poor deal: %(coins)s coins below the table's average") % {
                "coins": f"{-luck.deal:.1f}"}
        else:
            deal = _("an average deal")
        if luck.play >= 0.5:
            play = _("played %(coins)s coins better than the reference bot") % {
                "coins": f"{luck.play:.1f}"}
        elif luck.play <= -0.5:
            play = _("played %(coins)s coins worse than the reference bot") % {
                "coins": f"{-luck.play:.1f}"}
        else:
            play = _("played as well as the reference bot")
        rows.append({"name": names[luck.seat],
                     "colour": SEAT_COLOURS[luck.seat % len(SEAT_COLOURS)],
                     "coins": luck.coins, "reference": f"{luck.reference:.0f}",
                     "deal": _signed(luck.deal), "play": _signed(luck.play),
                     "words": _("%(deal)s; %(play)s.") % {"deal": deal, "play": play}})
    return rows
