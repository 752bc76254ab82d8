"""The leak test: over 200 full games across every ruleset, every frame the live table
sends to every seat and to the spectators is checked against the true state.

The frames are the real ones: each command goes through ``play.live.submit`` (the
store, then one update per group, built on the server for that group's perspective),
and what is checked is each update serialised as it crosses the channel layer, and
(for a sample of commands: drawing the table as HTML costs some 17 ms a frame) the
frame text a client is sent (``play.live.frame_text``: the whole drawing first, then
the regions of it that changed), HTML included. Nothing is checked
through the view function: the JSON text itself is searched for what must not be there.

Secret while a game runs (and so never in a frame): any card in another seat's hand
(unless it lies in an open offer, where its owner showed it), any card of the draw pile
and its order, the seed, the game's salt.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any
from uuid import uuid4

import orjson
import pytest

from bohnanza_core.bots import BOTS, QUICK_BOTS
from bohnanza_core.bots.turns import fallback
from bohnanza_core.commands import HandSeatToBot
from bohnanza_core.engine import awaiting
from bohnanza_core.events import Handover
from bohnanza_core.games import Games
from bohnanza_core.rulesets import PRESETS
from bohnanza_core.simulator import bot_seed
from bohnanza_core.state import GameState, Phase
from bohnanza_core.views import SPECTATOR, view
from play import live
from play.models import Table
from replays import store as platform_store
from replays.store import loaded

pytestmark = [pytest.mark.slow]

GAMES = 200
HTML_EVERY = 200
"""Every this many commands (and the last), the client's whole frame is drawn too."""

CARD_FIELDS = ("card", "cards", "gives", "order", "hand")


def _tables() -> list[tuple[str, int]]:
    """Every (preset, player count) the engine has, each preset's counts in turn."""
    return [(name, players) for name, bands in PRESETS.items() for band in bands
            for players in band.players]


@pytest.fixture
def store(monkeypatch: pytest.MonkeyPatch) -> Iterator[Games]:
    """An in-memory store for the live code (the frames are the same on any)."""
    games = Games(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    monkeypatch.setattr(live, "games", lambda: games)
    monkeypatch.setattr(platform_store, "games", lambda: games)
    loaded.clear()
    yield games
    loaded.clear()
    games.close()


AREAS = frozenset((*CARD_FIELDS, "face_up", "trade_area", "discard_pile", "out_of_game"))
"""Keys whose value is cards (ids, or lists of them, nested)."""


def _cards_in(obj: Any, found: set[int]) -> None:
    """Every card id a frame's data names: in hands, fields, trade areas, face-up
    cards, offers, the piles, and the events' card fields.

    A loop over a stack, not a recursion: a frame has thousands of nodes and the test
    walks some 80,000 frames, so the walk is a third of the test's time."""
    stack = [obj]
    while stack:
        node = stack.pop()
        if type(node) is list:
            stack.extend(item for item in node if type(item) is dict or type(item) is list)
            continue
        for key, value in node.items():
            if key in AREAS:
                if key == "cards" and type(value) is not list:
                    continue  # DiscardPileReshuffled's count of cards, not a card
                _ids(value, found)
            elif key == "fields" and type(value) is list:
                for field in value:
                    _ids(field.get("cards") if type(field) is dict else None, found)
            elif key != "card_kinds" and (type(value) is dict or type(value) is list):
                stack.append(value)


def _found(obj: Any) -> set[int]:
    found: set[int] = set()
    _cards_in(obj, found)
    return found


def _ids(value: Any, found: set[int]) -> None:
    """The card ids in ``value``: an id, or lists of them nested (bools are not ids)."""
    if type(value) is int:
        found.add(value)
        return
    stack = [value] if type(value) is list else []
    while stack:
        for item in stack.pop():
            if type(item) is int:
                found.add(item)
            elif type(item) is list:
                stack.append(item)


def _secret_cards(state: GameState, perspective: int) -> set[int]:
    shown = {card for offer in state.offers.values() for card in offer.gives}
    hidden = set(state.draw_pile)
    for seat, hand in enumerate(state.hands):
        if seat != perspective:
            hidden |= set(hand) - shown
    return hidden


def check_frame(text: str, state: GameState, perspective: int, seeds: tuple[str, str]
                ) -> None:
    """``text``, a frame sent to ``perspective``, against the true ``state``."""
    frame = orjson.loads(text)  # some 80,000 frames: the json module took a fifth of the test
    if not state.finished:
        for secret in seeds:
            assert secret not in text, "the seed or the salt in a frame"
    table = frame["table"] if "table" in frame else frame["answer"]["table"]
    assert "draw_pile" not in table and "seed" not in table
    for event in frame.get("events", ()):
        assert event.get("order") is None, "a shuffle's order in a frame"
    for seat, entry in enumerate(table["seats"]):
        assert ("hand" in entry) == (seat == perspective)
    found: set[int] = set()
    _cards_in(frame, found)
    # OfferMade events name the offered cards, which their owner shows to all.
    offered = {c for e in frame.get("events", ()) if e["type"] == "OfferMade"
               for c in e["gives"]}
    leaked = (found - offered) & _secret_cards(state, perspective)
    assert not leaked, (f"cards {sorted(leaked)} of hidden hands or the draw pile",
                        [e for e in frame.get("events", ()) if leaked & _found(e)],
                        perspective)
    answer = frame.get("answer", {})
    # The whole drawing, or (protocol 2) the regions of it that changed.
    for html in [answer.get("html") or ""] + [h for _, h in answer.get("parts", ())]:
        drawn = {int(n) for n in re.findall(r'data-card="(\d+)"', html)}
        assert not drawn & _secret_cards(state, perspective), "a hidden card drawn"


def _update_text(update: dict[str, Any]) -> str:
    """An update (``live.seat_update``) as JSON, its view (``table_json``, text in the
    update) decoded in place, for :func:`check_frame` to search it as a frame's."""
    return orjson.dumps({**{k: v for k, v in update.items() if k != "table_json"},
                         "table": orjson.loads(update["table_json"])},
                        option=orjson.OPT_NON_STR_KEYS).decode()


def play_one(games: Games, preset: str, players: int, number: int) -> int:
    """Play one game of bots through the live code; check every frame. Returns the
    frames checked."""
    from bohnanza_core.rulesets import ruleset_for

    ruleset = ruleset_for(preset, players)
    names = sorted(QUICK_BOTS)
    seats = [names[(number + seat) % len(names)] for seat in range(players)]
    game = games.start(ruleset, [f"{name} {n + 1}" for n, name in enumerate(seats)],
                       players=[f"bot:{name}" for name in seats])
    table = Table(id=uuid4(), preset=preset, players=players, game_id=game.id)
    seeds = (game.state.seed, game.state.salt)
    bots = [BOTS[name](seat, bot_seed(f"leak-{number}", seat)) for seat, name in
            enumerate(seats)]
    checked = commands = 0
    shown: dict[str, dict[str, str]] = {}  # per group, the regions a connection holds
    trading_turn = -1
    state = game.state
    handed = False
    while not state.finished:
        if not handed and state.turn >= 2:
            # Every game has a seat handed to a bot (its person left or stayed away):
            # its frames are checked as every other move's.
            handed = True
            seat = number % players
            reason = Handover.LEFT if number % 2 else Handover.ABSENT
            played = live.submit(table.id, game.id, HandSeatToBot(seat, "heuristic", reason),
                                 "absence")
            assert played.game.state.seat_bots[seat] == "heuristic"
            # The seat's own update names its holder now, the bot: a person's socket
            # still in the seat's group is sent the spectator's view instead
            # (play.authority; tests/play/test_seat_authority.py).
            assert played.updates[live.seat_group(table.id, seat)]["holder"] == \
                "bot:heuristic"
            assert played.updates[live.spectator_group(table.id)]["holder"] is None
            bots[seat] = BOTS["heuristic"](seat, bot_seed(f"leak-{number}", seat))
            for group, update in played.updates.items():
                perspective = (SPECTATOR if group.endswith("spectators")
                               else int(group.rsplit("-", 1)[1]))
                check_frame(_update_text(update), played.game.state, perspective, seeds)
                check_frame(live.frame_text(live.answer_for(update, table),
                                            shown.setdefault(group, {})),
                            played.game.state, perspective, seeds)
                checked += 1
            state = played.game.state
            continue
        moves = []
        if state.phase is Phase.TRADING and state.turn != trading_turn:
            trading_turn = state.turn
            moves = [(s, bots[s].act(view(state, s)))
                     for s in ((state.active + k) % players for k in range(1, players))]
        else:
            seat = awaiting(state)[0]
            moves = [(seat, bots[seat].act(view(state, seat)))]
        for seat, command in moves:
            if command is None:
                continue
            try:
                played = live.submit(table.id, game.id, command, f"bot:{seats[seat]}")
            except (live.IllegalMove, live.StaleFrame):
                if moves[0][0] == seat and len(moves) == 1:
                    played = live.submit(table.id, game.id,
                                         fallback(games.game(game.id).state, seat), "bot")
                else:
                    continue
            commands += 1
            truth = state = played.game.state
            draw = commands % HTML_EVERY == 0 or truth.finished
            for group, update in played.updates.items():
                perspective = (SPECTATOR if group.endswith("spectators")
                               else int(group.rsplit("-", 1)[1]))
                check_frame(_update_text(update), truth, perspective, seeds)
                if draw:  # the text one connection of the group is sent
                    check_frame(live.frame_text(live.answer_for(update, table),
                                                shown.setdefault(group, {})),
                                truth, perspective, seeds)
                    # and a program's, which asked for no drawing (``?html=0``)
                    check_frame(live.frame_text(live.answer_for(update, table, html=False),
                                                {}), truth, perspective, seeds)
                checked += 1
            if truth.phase is not Phase.TRADING:
                break
    return checked


@pytest.mark.parametrize("preset", list(PRESETS))
def test_no_frame_of_200_games_shows_what_its_perspective_may_not_see(
        store: Games, preset: str) -> None:
    tables = [t for t in _tables() if t[0] == preset]
    share = GAMES // len(PRESETS)
    checked = sum(play_one(store, preset, tables[n % len(tables)][1], n)
                  for n in range(share))
    assert checked > share * 50


def test_the_check_finds_a_leak() -> None:
    """The checker itself: a frame with another seat's card, or the seed, fails."""
    from bohnanza_core.engine import new_game
    from bohnanza_core.rulesets import ruleset_for

    state, _ = new_game(ruleset_for("classic", 3), ["a", "b", "c"], seed="leak-check")
    honest = {"table": view(state, 0).as_dict(), "events": []}
    check_frame(json.dumps(honest), state, 0, (state.seed, state.salt))
    stolen = json.loads(json.dumps(honest))
    stolen["table"]["face_up"] = [state.hands[1][0]]
    with pytest.raises(AssertionError, match="hidden hands"):
        check_frame(json.dumps(stolen), state, 0, (state.seed, state.salt))
    seeded = dict(honest, note=state.seed)
    with pytest.raises(AssertionError, match="seed"):
        check_frame(json.dumps(seeded), state, 0, (state.seed, state.salt))
    region = dict(honest, answer={"parts": [
        ["seat-1", f'<span class="card" data-card="{state.hands[1][0]}"></span>']]})
    with pytest.raises(AssertionError, match="hidden card drawn"):
        check_frame(json.dumps(region), state, 0, (state.seed, state.salt))
    shown = json.loads(json.dumps(honest))
    shown["table"]["seats"][2]["hand"] = list(state.hands[2])
    with pytest.raises(AssertionError):
        check_frame(json.dumps(shown), state, 0, (state.seed, state.salt))
