"""The bots: they see only their seat's view, play only legal moves, finish every
game under every ruleset, and the heuristic bot is the strongest."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path
from typing import ClassVar

import pytest

from bohnanza_core import PRESETS, legal_commands, new_game, ruleset_for, view
from bohnanza_core.bots import (
    BOTS,
    QUICK_BOTS,
    Bot,
    DeepSearchBot,
    HeuristicBot,
    NonTradingBot,
    RandomBot,
    SearchBot,
    legal_moves,
)
from bohnanza_core.bots.fields import field_for, harvest_loss, misfits, potential
from bohnanza_core.cards import BeanKind
from bohnanza_core.commands import Command
from bohnanza_core.events import (
    CardDealt,
    CardDrawn,
    DeckShuffled,
    DiscardPileReshuffled,
    Event,
    GameStarted,
    OfferAccepted,
    OfferDeclined,
    OfferMade,
    TurnStarted,
)
from bohnanza_core.simulator import play_game, simulate
from bohnanza_core.views import GameView

BOTS_DIR = Path(__file__).resolve().parents[2] / "bohnanza_core" / "bots"

ALL_TABLES = sorted(
    {(name, players) for name, bands in PRESETS.items() for band in bands
     for players in band.players}
)


def test_the_registry_names_exactly_the_built_in_bots():
    assert list(BOTS) == ["random", "nontrading", "heuristic", "search", "search-deep"]
    expected = {"random": RandomBot, "nontrading": NonTradingBot, "heuristic": HeuristicBot,
                "search": SearchBot, "search-deep": DeepSearchBot}
    assert expected == BOTS
    assert list(QUICK_BOTS) == ["random", "nontrading", "heuristic"]
    for name, cls in BOTS.items():
        assert cls.name == name and issubclass(cls, Bot)
        assert not cls.observes(), "none of the built-in bots needs events; the view suffices"


def test_bot_sources_never_reach_for_the_game_state():
    """The bots' code names neither GameState nor the view's private state, nor the
    engine functions that take a state."""
    forbidden = {"GameState", "_GameView__state", "legal_commands", "awaiting", "play",
                 "decide", "evolve"}
    # The search plays games of its own, on tables it fills in from its view alone
    # (bots/search.py, determinize): it names GameState and play for those, and
    # tests/core/test_search.py holds what it sees to the view.
    own_tables = {"GameState", "play"}
    # turns.py is no bot but the referee that asks bots for their moves (for the
    # simulator, the live tables and the search's rollouts): it plays on the state.
    referee = {"turns.py"}
    for path in BOTS_DIR.glob("*.py"):
        if path.name in referee:
            continue
        tree = ast.parse(path.read_text())
        names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        names |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)
                  and n.attr.startswith("_GameView")}
        imported = {alias.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                    for alias in n.names}
        allowed = own_tables if path.name == "search.py" else set()
        assert not (names | imported) & (forbidden - allowed), path.name


class Spy(HeuristicBot):
    """The heuristic bot, recording what it is given."""

    name: ClassVar[str] = "spy"
    seen: ClassVar[list[tuple[int, object]]] = []
    events: ClassVar[list[tuple[int, Event]]] = []

    def act(self, view: GameView) -> Command | None:
        Spy.seen.append((self.seat, view))
        assert isinstance(view, GameView) and view.seat == self.seat
        return super().act(view)

    def observe(self, event: Event) -> None:
        Spy.events.append((self.seat, event))


@pytest.mark.parametrize("table", [("classic", 4), ("finnish", 3), ("duel", 2)])
def test_bots_get_only_their_view_and_their_redacted_events(table):
    Spy.seen, Spy.events = [], []
    record = play_game(ruleset_for(*table), [Spy] * table[1], "spy")
    assert Spy.seen and all(isinstance(v, GameView) for _, v in Spy.seen)
    per_seat = Counter(seat for seat, _ in Spy.events)
    assert set(per_seat.values()) == {len(record.events)}, "every seat sees every event"
    for seat, event in Spy.events:
        if isinstance(event, CardDealt | CardDrawn):
            assert (event.card is None) == (event.seat != seat)
        if isinstance(event, GameStarted):
            assert event.seed is None
        if isinstance(event, DeckShuffled | DiscardPileReshuffled):
            assert event.order is None
    assert any(isinstance(e, CardDrawn) and e.card is None for _, e in Spy.events)


def test_legal_moves_from_the_view_are_the_engines_for_that_seat():
    state, _ = new_game(ruleset_for("classic", 3), ("A", "B", "C"), "lm")
    for seat in range(3):
        assert legal_moves(view(state, seat)) == legal_commands(state, seat)
    assert view(state, -1).legal_moves() == []


@pytest.mark.slow
@pytest.mark.parametrize("table", ALL_TABLES, ids=lambda t: f"{t[0]}-{t[1]}")
def test_every_bot_finishes_every_ruleset_at_every_player_count_without_illegal_moves(table):
    name, players = table
    ruleset = ruleset_for(name, players)
    for bot in QUICK_BOTS.values():
        record = play_game(ruleset, [bot] * players, f"all:{name}:{players}:{bot.name}")
        assert record.result.winners and sum(record.illegal) == 0 == sum(record.fallbacks)
    mixed = [list(QUICK_BOTS.values())[seat % 3] for seat in range(players)]
    record = play_game(ruleset, mixed, f"mixed:{name}:{players}")
    assert sum(record.illegal) == 0 == sum(record.fallbacks)


def test_the_random_bot_makes_at_most_two_offers_a_turn():
    record = play_game(ruleset_for("classic", 4), [RandomBot] * 4, "offers")
    turn = 0
    made: Counter[tuple[int, int]] = Counter()
    for event in record.events:
        if isinstance(event, TurnStarted):
            turn = event.turn
        elif isinstance(event, OfferMade):
            made[(turn, event.proposer)] += 1
    assert made and max(made.values()) <= 2


def test_the_nontrading_bot_never_trades():
    record = play_game(ruleset_for("classic", 4), [NonTradingBot, HeuristicBot, RandomBot,
                                                  HeuristicBot], "nt")
    offers = {e.offer: e for e in record.events if isinstance(e, OfferMade)}
    assert not any(o.proposer == 0 for o in offers.values())
    assert not any(isinstance(e, OfferAccepted) and e.seat == 0 for e in record.events)
    assert any(isinstance(e, OfferDeclined) and e.seat == 0 for e in record.events)


def test_heuristic_bots_trade_with_each_other():
    record = play_game(ruleset_for("classic", 4), [HeuristicBot] * 4, "trade")
    assert sum(isinstance(e, OfferAccepted) for e in record.events) >= 10


def test_bots_are_deterministic_for_a_seed():
    ruleset = ruleset_for("rio-grande", 4)
    lineup = [RandomBot, HeuristicBot, NonTradingBot, RandomBot]
    assert play_game(ruleset, lineup, "det").events == play_game(ruleset, lineup, "det").events


@pytest.mark.slow
@pytest.mark.parametrize("table, lineup", [
    (("classic", 4), ["heuristic", "nontrading", "random", "heuristic"]),
    (("classic", 4), ["heuristic", "nontrading", "nontrading", "nontrading"]),
    (("rio-grande", 3), ["heuristic", "nontrading", "random"]),
    (("duel", 2), ["heuristic", "nontrading"]),
])
def test_the_heuristic_bot_beats_the_others(table, lineup):
    report = simulate(*table, lineup, 60, "strength", rotate=True)
    stats = {b.name: b for b in report.bots}
    heuristic = stats.pop("heuristic")
    for other in stats.values():
        assert heuristic.average_coins > other.average_coins
        assert heuristic.win_rate > other.win_rate


def test_bean_sense():
    blue, red, garden = BeanKind.BLUE, BeanKind.RED, BeanKind.GARDEN
    assert [potential(blue, n) for n in (0, 2, 4, 5, 6, 10, 14)] == [0, 0.5, 1, 1.5, 2, 4, 4]
    assert harvest_loss(blue, 4) == 0 and harvest_loss(blue, 5) == 0.5
    assert harvest_loss(garden, 1) == 1 and harvest_loss(red, 9) == 0
    fields = [(blue, 3), (None, 0), (red, 1)]
    assert field_for(fields, red) == 2 and field_for(fields, BeanKind.SOY) == 1
    assert field_for([(blue, 3), (red, 1)], BeanKind.SOY) is None
    assert misfits(fields, [BeanKind.SOY, BeanKind.SOY, BeanKind.GREEN, blue]) == 1


@pytest.mark.parametrize("name, players", [("classic", 4), ("rio-grande", 5), ("classic", 3)])
def test_the_heuristic_bot_counters_an_offer_it_declines_once_with_legal_terms(name, players):
    """:meth:`HeuristicBot.counter`, asked at every offer a heuristic bot declines in
    games of heuristic bots: terms offered back to the proposer, legal there and then,
    asking for the beans offered (and at most one more) for fewer of the beans wanted,
    or for all of them; asked again about the same offer, nothing."""
    from bohnanza_core.bots.turns import voluntary_chances
    from bohnanza_core.commands import DeclineOffer, MakeOffer
    from bohnanza_core.engine import awaiting, decide, play
    from bohnanza_core.state import Offer

    countered = declined = 0
    for game in range(3):
        state, _ = new_game(ruleset_for(name, players),
                            tuple(f"h{s}" for s in range(players)), f"counter:{game}")
        bots = [HeuristicBot(s, f"counter:{game}:{s}") for s in range(players)]
        chances = -1
        while not state.finished:
            if state.phase.name == "TRADING" and chances != state.turn:
                chances = state.turn
                for seat in voluntary_chances(state):
                    proposal = bots[seat].act(view(state, seat))
                    if proposal is not None:
                        play(state, proposal)
                continue
            seat = awaiting(state)[0]
            seen = view(state, seat)
            command = bots[seat].act(seen)
            if isinstance(command, DeclineOffer):
                declined += 1
                offer = state.offers[command.offer]
                made = bots[seat].counter(seen, offer)
                assert bots[seat].counter(seen, offer) is None
                if made is not None:
                    countered += 1
                    assert isinstance(made, MakeOffer) and made.seat == seat
                    assert made.to == offer.proposer
                    assert not any(  # nothing it has open already
                        o.proposer == seat and o.counterparty == made.to
                        and o.gives == made.gives and tuple(o.wants) == made.wants
                        for o in state.offers.values())
                    decide(state, made)  # legal now (raises IllegalMove if not)
                    # The same terms already open from it: no counter-offer repeats them.
                    again = state.copy()
                    again.offers[again.next_offer] = Offer(
                        again.next_offer, seat, made.to, made.gives, made.wants)
                    again.next_offer += 1
                    assert HeuristicBot(seat, "again").counter(view(again, seat), offer) is None
                    given = Counter(state.kinds[card] for card in offer.gives)
                    asked = Counter(dict(made.wants))
                    assert given <= asked and sum(asked.values()) <= sum(given.values()) + 1
                    if asked == given:
                        assert len(made.gives) < sum(count for _, count in offer.wants)
            play(state, command)
    assert declined and countered, (declined, countered)


@pytest.mark.parametrize("name, players", [("classic", 4), ("classic", 3)])
def test_the_heuristic_bot_never_makes_again_an_offer_of_its_own_still_open(name, players):
    """Games of heuristic bots: after each offer a bot makes, the same bot asked again
    with no memory of it (a bot built afresh, as after a restart) never makes one that
    says the same (to the same player, the same kinds given, the same beans wanted)
    while that offer is still open."""
    from bohnanza_core.bots.turns import voluntary_chances
    from bohnanza_core.commands import MakeOffer
    from bohnanza_core.engine import awaiting, play
    from bohnanza_core.state import GameState

    def says(state: GameState, seat: int, made: MakeOffer) -> tuple[object, ...]:
        return (seat, made.to, sorted(state.kinds[c].value for c in made.gives),
                tuple(made.wants))

    asked = 0
    for game in range(3):
        state, _ = new_game(ruleset_for(name, players),
                            tuple(f"h{s}" for s in range(players)), f"again:{game}")
        bots = [HeuristicBot(s, f"again:{game}:{s}") for s in range(players)]
        chances = -1

        def check(state: GameState, seat: int, made: MakeOffer) -> None:
            nonlocal asked
            play(state, made)
            again = HeuristicBot(seat, "afresh").act(view(state, seat))
            asked += 1
            if isinstance(again, MakeOffer):
                assert says(state, seat, again) != says(state, seat, made), again

        while not state.finished:
            if state.phase.name == "TRADING" and chances != state.turn:
                chances = state.turn
                for seat in voluntary_chances(state):
                    proposal = bots[seat].act(view(state, seat))
                    if isinstance(proposal, MakeOffer):
                        check(state, seat, proposal)
                continue
            seat = awaiting(state)[0]
            command = bots[seat].act(view(state, seat))
            if isinstance(command, MakeOffer):
                check(state, seat, command)
            else:
                play(state, command)
    assert asked
