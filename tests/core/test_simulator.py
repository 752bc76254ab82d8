"""The simulator: fair, deterministic scheduling; illegal answers refused and
counted; runaway games stopped; reports that add up; readable logs."""

from __future__ import annotations

from typing import ClassVar

import pytest

from bohnanza_core import legal_commands, new_game, play, ruleset_for, view
from bohnanza_core.bots import Bot, HeuristicBot, NonTradingBot, RandomBot
from bohnanza_core.bots.turns import ATTEMPTS, fallback
from bohnanza_core.commands import (
    AcceptOffer,
    Command,
    DeclineOffer,
    EndTrading,
    Harvest,
    MakeOffer,
    WithdrawOffer,
)
from bohnanza_core.events import EVENT_TYPES, GameEnded, GameStarted, PhaseStarted, TurnStarted
from bohnanza_core.narrate import describe, narrate, ordinal
from bohnanza_core.rederive import rederive
from bohnanza_core.simulator import SimulationError, play_game, seat_names, simulate
from bohnanza_core.state import Phase
from bohnanza_core.views import SPECTATOR, GameView, redact

CLASSIC4 = ruleset_for("classic", 4)


def test_the_same_seed_gives_the_same_game_and_another_seed_another():
    lineup = [HeuristicBot, RandomBot, NonTradingBot, HeuristicBot]
    first = play_game(CLASSIC4, lineup, "same")
    again = play_game(CLASSIC4, lineup, "same")
    assert first.events == again.events and first.illegal == again.illegal
    assert play_game(CLASSIC4, lineup, "other").events != first.events


def test_a_record_holds_the_whole_game_and_rederives():
    record = play_game(CLASSIC4, [HeuristicBot, RandomBot, NonTradingBot, HeuristicBot], "rec")
    assert isinstance(record.events[0], GameStarted) and record.events[-1] is record.result
    assert record.seats == seat_names(["heuristic", "random", "nontrading", "heuristic"])
    assert record.seats[0] == "heuristic 1"
    assert record.turns == max(e.turn for e in record.events if isinstance(e, TurnStarted))
    verdict = rederive(record.events)
    assert verdict.ok and verdict.finished, verdict.reason


class Stubborn(NonTradingBot):
    """Answers every required question wrongly first (alternating the ways to be
    wrong), then like the nontrading bot."""

    name: ClassVar[str] = "stubborn"

    def __init__(self, seat: int, seed: str) -> None:
        super().__init__(seat, seed)
        self.wrong = 0
        self.asked = 0

    def act(self, view: GameView) -> Command | None:
        if self.seat not in view.awaiting:
            return None
        self.asked += 1
        if self.asked % 2:
            self.wrong += 1
            return [None, Harvest(seat=self.seat, field=9), EndTrading(seat=(self.seat + 1) % 4)
                    ][self.wrong % 3]
        return super().act(view)


def test_illegal_answers_are_refused_counted_and_change_nothing():
    plain = play_game(CLASSIC4, [NonTradingBot] * 4, "stubborn")
    stubborn = play_game(CLASSIC4, [Stubborn, NonTradingBot, NonTradingBot, NonTradingBot],
                         "stubborn", names=plain.seats)
    assert stubborn.events == plain.events, "a refused answer leaves no trace in the game"
    assert stubborn.illegal[0] > 30 and stubborn.illegal[1:] == (0, 0, 0)
    assert stubborn.fallbacks == (0, 0, 0, 0)


class Junk(NonTradingBot):
    """Answers every other time with what is no command at all: a string, a legal
    move's offer shape (which names the seat), a plain object with the right seat."""

    name: ClassVar[str] = "junk"

    def __init__(self, seat: int, seed: str) -> None:
        super().__init__(seat, seed)
        self.asked = 0

    def act(self, view: GameView) -> object:
        if self.seat not in view.awaiting:
            return None
        self.asked += 1
        if self.asked % 2:
            shapes = [m for m in view.legal_moves() if not isinstance(m, Command)]
            seated = type("Seated", (), {"seat": self.seat})()
            return ["pass", shapes[0] if shapes else seated, seated][self.asked % 3]
        return super().act(view)


def test_answers_that_are_no_command_are_refused_in_either_build():
    # Compiled, the bots' answer and the engine's door are typed object: junk is an
    # illegal answer, counted, never a TypeError out of the compiled classes.
    plain = play_game(CLASSIC4, [NonTradingBot] * 4, "junk")
    junk = play_game(CLASSIC4, [Junk, NonTradingBot, NonTradingBot, NonTradingBot], "junk",
                     names=plain.seats)
    assert junk.events == plain.events
    assert junk.illegal[0] > 30 and junk.illegal[1:] == (0, 0, 0)


class Hopeless(Bot):
    name: ClassVar[str] = "hopeless"

    def act(self, view: GameView) -> Command | None:
        return Harvest(seat=self.seat, field=7)


def test_a_bot_that_never_answers_legally_gets_the_fallback_and_the_game_ends():
    record = play_game(CLASSIC4, [Hopeless, HeuristicBot, Hopeless, RandomBot], "hopeless")
    assert isinstance(record.result, GameEnded)
    assert record.fallbacks[0] > 20 and record.fallbacks[1] == 0
    assert record.illegal[0] >= ATTEMPTS * record.fallbacks[0]
    assert rederive(record.events).ok


class Haggler(Bot):
    """Offers and withdraws forever when active: a game that would never end."""

    name: ClassVar[str] = "haggler"

    def act(self, view: GameView) -> Command | None:
        if view.phase is Phase.TRADING and view.active == self.seat:
            mine = [o for o in view.offers if o.proposer == self.seat]
            if mine:
                return WithdrawOffer(seat=self.seat, offer=mine[0].number)
            return MakeOffer(seat=self.seat, gives=(), wants=((view.ruleset.beans[0], 1),),
                             to=(self.seat + 1) % len(view.seats))
        if view.phase is Phase.TRADING:
            for offer in view.offers:
                if offer.counterparty == self.seat:
                    return DeclineOffer(seat=self.seat, offer=offer.number)
            return None
        return NonTradingBot(self.seat, self.seed).act(view)


def test_a_runaway_game_stops_with_a_clear_error():
    with pytest.raises(SimulationError, match="passed 500 commands without ending"):
        play_game(CLASSIC4, [Haggler] * 4, "runaway", command_limit=500)


class Counting(NonTradingBot):
    name: ClassVar[str] = "counting"
    voluntary: ClassVar[list[tuple[int, int, int]]] = []

    def act(self, view: GameView) -> Command | None:
        if view.phase is Phase.TRADING and self.seat not in view.awaiting:
            Counting.voluntary.append((view.turn, view.active, self.seat))
        return super().act(view)


def test_every_other_player_gets_one_voluntary_chance_per_trading_phase_clockwise():
    Counting.voluntary = []
    record = play_game(CLASSIC4, [Counting] * 4, "chances")
    trading_turns = []
    turn = 0
    for event in record.events:
        if isinstance(event, TurnStarted):
            turn = event.turn
        elif isinstance(event, PhaseStarted) and event.phase is Phase.TRADING:
            trading_turns.append(turn)
    by_turn: dict[int, list[int]] = {}
    for turn, active, seat in Counting.voluntary:
        assert seat != active
        by_turn.setdefault(turn, []).append(seat)
    assert sorted(by_turn) == trading_turns
    for turn, seats in by_turn.items():
        active = (turn - 1) % 4
        assert seats == [(active + k) % 4 for k in (1, 2, 3)]


def test_the_fallback_declines_rather_than_accepts():
    state, _ = new_game(CLASSIC4, ("A", "B", "C", "D"), "fb")
    while state.phase is not Phase.TRADING:
        command = NonTradingBot(state.active, "x").act(view(state, state.active))
        assert command is not None
        play(state, command)
    play(state, MakeOffer(seat=0, gives=(state.face_up[0],), wants=(), to=1))
    assert any(isinstance(m, AcceptOffer) for m in legal_commands(state, 1))
    assert fallback(state, 1) == DeclineOffer(seat=1, offer=1)
    assert fallback(state, 0) == EndTrading(seat=0)


def test_simulate_reports_add_up():
    report = simulate("classic", 4, ["heuristic", "nontrading", "random", "heuristic"], 8,
                      "report", rotate=True)
    stats = {b.name: b for b in report.bots}
    assert [b.name for b in report.bots] == ["heuristic", "nontrading", "random"]
    assert stats["heuristic"].seat_games == 16 and stats["random"].seat_games == 8
    wins = sum(b.win_rate * b.seat_games for b in report.bots)
    assert wins == pytest.approx(8)
    assert sum(s.win_rate for s in report.seats) == pytest.approx(1)
    coins = sum(b.average_coins * b.seat_games for b in report.bots)
    assert coins == pytest.approx(sum(s.average_coins for s in report.seats) * 8)
    assert report.games_per_second > 0 and report.events_per_second > 0
    assert report.average_turns > 10
    text = report.table()
    for needle in ("heuristic", "nontrading", "random", "average turns", "games per second",
                   "events per second", "win rate"):
        assert needle in text


def test_simulate_plays_game_i_with_seed_i_and_rotates_the_lineup():
    seen = []
    simulate("duel", 2, ["random", "heuristic"], 3, "rot", rotate=True,
             on_game=lambda i, r: seen.append((i, r.seed, r.bots)))
    assert seen == [(0, "rot:0", ("random", "heuristic")), (1, "rot:1", ("heuristic", "random")),
                    (2, "rot:2", ("random", "heuristic"))]


def test_simulate_refuses_bad_requests():
    with pytest.raises(SimulationError, match=r"unknown bot.*known: random, nontrading"):
        simulate("classic", 3, ["random", "clever", "random"], 1, "x")
    with pytest.raises(SimulationError, match="3 players need 3 bots"):
        simulate("classic", 3, ["random"], 1, "x")


def test_every_event_reads_as_game_words():
    record = play_game(ruleset_for("finnish", 3), [RandomBot, HeuristicBot, RandomBot], "words")
    duel = play_game(ruleset_for("duel", 2), [HeuristicBot, RandomBot], "words")
    events = record.events + duel.events[1:]
    kinds_seen = {type(e) for e in events}
    assert len(kinds_seen) >= len(EVENT_TYPES) - 3
    lines = list(narrate(record.events))
    assert len(lines) == len(record.events)
    for line, event in zip(lines, record.events, strict=True):
        assert line and line != type(event).__name__
    assert lines[0].startswith("A game of finnish begins: random 1, heuristic 2, random 3")
    assert any(line.startswith("Turn 3: random 3's turn") for line in lines)
    assert lines[-1].startswith("Game over: random 1 ")
    assert any(" plants a" in line and "in field" in line for line in lines)
    assert any(" harvests " in line and " from field " in line for line in lines)
    assert any(" offers " in line for line in lines)
    assert any(line.startswith("The draw pile runs out (1st time)") for line in lines)


def test_a_redacted_card_is_a_card():
    record = play_game(CLASSIC4, [NonTradingBot] * 4, "redacted")
    drawn = next(e for e in record.events if type(e).__name__ == "CardDrawn")
    hidden = redact(drawn, SPECTATOR)
    seats = record.seats
    assert describe(hidden, CLASSIC4, seats).endswith("draws a card")
    assert "bean" in describe(drawn, CLASSIC4, seats)
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st"]


def test_the_deal_is_told_in_one_line_per_seat():
    """The log folds the deal (a card at a time round the table) into a line per seat
    on its last card: its own cards named for the seat, counted for the others."""
    from bohnanza_core.events import CardDealt
    from bohnanza_core.narrate import Narrator

    record = play_game(CLASSIC4, [NonTradingBot] * 4, "deal")
    narrator = Narrator(CLASSIC4, record.seats)
    told = narrator.describe_all(record.events)
    assert len(told) == len(record.events)
    dealt = [i for i, e in enumerate(record.events) if isinstance(e, CardDealt)]
    shown = [told[i][0] for i in dealt if not told[i][1]]
    assert len(shown) == 4 and len(dealt) == 20
    assert shown[0].startswith(f"{record.seats[0]} is dealt 5 cards: ")
    assert len(shown[0].split(": ", 1)[1].split(", ")) == 5
    assert all(not folded for e, (_, folded) in zip(record.events, told, strict=True)
               if not isinstance(e, CardDealt))
    hidden = Narrator(CLASSIC4, record.seats).describe_all(
        [redact(e, SPECTATOR) for e in record.events])
    assert [hidden[i][0] for i in dealt if not hidden[i][1]][1] == (
        f"{record.seats[1]} is dealt 5 cards")
