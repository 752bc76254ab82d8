"""Re-deriving a recorded game (docs/export.md): an honest record is reproduced
event for event; an altered, removed, reordered or inserted event is caught and
``first_bad`` names it."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest

from bohnanza_core import EVERYTHING, SPECTATOR, ruleset_for, view
from bohnanza_core.engine import evolve
from bohnanza_core.events import (
    BeanPlanted,
    CardDealt,
    CardDrawn,
    CardSource,
    CardTurnedOver,
    DeckShuffled,
    DiscardPileReshuffled,
    Event,
    FieldHarvested,
    GameEnded,
    GameStarted,
    OfferAccepted,
    OfferMade,
    PhaseStarted,
    PlantingEnded,
    TradingEnded,
    TurnEnded,
    TurnStarted,
)
from bohnanza_core.export import export_jsonl, read_jsonl
from bohnanza_core.rederive import rederive
from bohnanza_core.rulesets import Ruleset
from bohnanza_core.state import GameState
from tests.core.invariants import random_game, ruleset_bands

BANDS = ruleset_bands()


def _id(band: tuple[Ruleset, int]) -> str:
    return f"{band[0].name}-{band[1]}p"


def _game(name: str, players: int, seed: str) -> tuple[GameState, list[Event]]:
    return random_game(ruleset_for(name, players), players, seed, check=False)


# -- an honest record -------------------------------------------------------------


@pytest.mark.parametrize("band", BANDS, ids=_id)
def test_an_exported_game_rederives_event_for_event(band: tuple[Ruleset, int]) -> None:
    state, events = random_game(band[0], band[1], f"honest-{_id(band)}", check=False)
    game = read_jsonl(export_jsonl(events))
    verdict = rederive(game.events)
    assert verdict.ok, verdict.reason
    assert verdict.first_bad is None
    assert verdict.events_checked == len(events)
    assert verdict.finished
    assert verdict.state is not None
    assert view(verdict.state, EVERYTHING).as_dict() == view(state, EVERYTHING).as_dict()


@pytest.mark.parametrize("band", BANDS[::2], ids=_id)
def test_bot_games_rederive(band: tuple[Ruleset, int]) -> None:
    from bohnanza_core.bots import QUICK_BOTS
    from bohnanza_core.simulator import play_game

    for name, cls in sorted(QUICK_BOTS.items()):
        record = play_game(band[0], [cls] * band[1], f"bots-{name}")
        verdict = rederive(read_jsonl(export_jsonl(record.events)).events)
        assert verdict.ok and verdict.finished, f"{name}: {verdict.reason}"


def _decision_boundaries(events: list[Event]) -> list[int]:
    """Lengths of prefixes that end just before a player's decision."""
    from bohnanza_core import command_for

    return [i for i in range(2, len(events)) if command_for(events[i]) is not None]


def test_a_game_in_progress_rederives_up_to_where_it_is() -> None:
    _, events = _game("classic", 4, "progress")
    cuts = _decision_boundaries(events)
    for cut in cuts[:: max(1, len(cuts) // 15)]:
        verdict = rederive(events[:cut])
        assert verdict.ok, verdict.reason
        assert not verdict.finished
        assert verdict.events_checked == cut


def test_a_record_cut_among_automatic_events_is_incomplete() -> None:
    _, events = _game("classic", 3, "cut")
    draws = [i for i, e in enumerate(events) if isinstance(e, CardDrawn)]
    cut = draws[4] + 1
    assert isinstance(events[cut], CardDrawn | TurnEnded)
    verdict = rederive(events[:cut])
    assert not verdict.ok
    assert verdict.first_bad == cut + 1
    assert "the record ends" in verdict.reason


def test_records_that_cannot_be_rederived() -> None:
    _, events = _game("duel", 2, "bad")
    assert rederive([]).first_bad == 1
    assert rederive(events[1:]).first_bad == 1
    redacted = read_jsonl(export_jsonl(events, SPECTATOR)).events
    verdict = rederive(redacted)
    assert not verdict.ok and verdict.first_bad == 1
    assert "seed" in verdict.reason
    verdict = rederive([*events, TurnStarted(seat=0, turn=999)])
    assert verdict.first_bad == len(events) + 1
    assert "already over" in verdict.reason


# -- tampering ----------------------------------------------------------------------

GAMES = [("classic", 4, "t1"), ("finnish", 3, "t2"), ("duel", 2, "t3"), ("rio-grande", 6, "t4"),
         ("amigo-en", 3, "t5")]


def _where(events: list[Event], test: Callable[[Event], bool]) -> list[int]:
    return [i for i, e in enumerate(events) if test(e)]


def _spread(indexes: list[int], count: int = 3) -> list[int]:
    """A few indexes from the start, middle and end of ``indexes``."""
    if len(indexes) <= count:
        return indexes
    step = (len(indexes) - 1) / (count - 1)
    return sorted({indexes[round(k * step)] for k in range(count)})


def _caught_at(tampered: list[Event], index: int) -> None:
    verdict = rederive(tampered)
    assert not verdict.ok
    assert verdict.first_bad == index + 1, (
        f"expected #{index + 1} ({tampered[index]}), got {verdict.reason}"
    )
    assert verdict.events_checked == index
    assert verdict.reason.startswith(f"#{index + 1}:")


def _state_before(events: list[Event], index: int) -> GameState:
    state = evolve(None, events[0])
    for event in events[1:index]:
        evolve(state, event)
    return state


def _alterations(events: list[Event]) -> list[tuple[str, int, Event]]:
    """Meaningful single-event alterations: (what, index, altered event)."""
    start = events[0]
    assert isinstance(start, GameStarted)
    size = start.ruleset.deck_size
    out: list[tuple[str, int, Event]] = []
    deck = events[1]
    assert isinstance(deck, DeckShuffled) and deck.order is not None
    order = list(deck.order)
    order[3], order[40] = order[40], order[3]
    out.append(("deck order", 1, DeckShuffled(order=tuple(order))))
    out.append(("seed", 0, dataclasses.replace(start, seed="forged")))
    for i in _spread(_where(events, lambda e: isinstance(e, DiscardPileReshuffled)
                            and len(e.order or ()) > 2)):
        e = events[i]
        assert isinstance(e, DiscardPileReshuffled) and e.order is not None
        out.append(("reshuffle order", i, dataclasses.replace(e, order=e.order[1:] + e.order[:1])))
    for i in _spread(_where(events, lambda e: isinstance(e, CardDealt))):
        e = events[i]
        assert isinstance(e, CardDealt) and e.card is not None
        out.append(("dealt card", i, dataclasses.replace(e, card=(e.card + 1) % size)))
    for i in _spread(_where(events, lambda e: isinstance(e, CardDrawn))):
        e = events[i]
        assert isinstance(e, CardDrawn) and e.card is not None
        out.append(("drawn card", i, dataclasses.replace(e, card=(e.card + 7) % size)))
        out.append(("drawn by", i, dataclasses.replace(e, seat=(e.seat + 1) % len(start.seats))))
    for i in _spread(_where(events, lambda e: isinstance(e, CardTurnedOver))):
        e = events[i]
        assert isinstance(e, CardTurnedOver)
        out.append(("turned-over card", i, dataclasses.replace(e, card=(e.card + 1) % size)))
    for i in _spread(_where(events, lambda e: isinstance(e, FieldHarvested) and not e.final)):
        e = events[i]
        assert isinstance(e, FieldHarvested)
        out.append(("harvest coins", i, dataclasses.replace(e, coins=e.coins + 1)))
        out.append(("harvest beans", i, dataclasses.replace(e, beans=e.beans + 1)))
    for i in _spread(_where(events, lambda e: isinstance(e, FieldHarvested) and e.final)):
        e = events[i]
        assert isinstance(e, FieldHarvested)
        out.append(("final harvest coins", i, dataclasses.replace(e, coins=e.coins + 2)))
    for i in _spread(_where(events, lambda e: isinstance(e, OfferAccepted) and bool(e.cards))):
        e = events[i]
        assert isinstance(e, OfferAccepted)
        # A card no one can give: one lying in a field, the discard pile or a treasury.
        table = _state_before(events, i)
        lying = [c for fields in table.fields for f in fields for c in f]
        lying += table.discard_pile + [c for coins in table.coins for c in coins]
        foreign = lying[len(lying) // 2]
        out.append(("trade cards", i, dataclasses.replace(e, cards=(foreign, *e.cards[1:]))))
    for i in _spread(_where(events, lambda e: isinstance(e, OfferMade) and bool(e.gives))):
        e = events[i]
        assert isinstance(e, OfferMade)
        out.append(("offer gives", i, dataclasses.replace(e, gives=(size + 5,))))
    end = len(events) - 1
    result = events[end]
    assert isinstance(result, GameEnded)
    coins = list(result.coins)
    coins[0] += 1
    out.append(("final score", end, dataclasses.replace(result, coins=tuple(coins))))
    out.append(("winners", end, dataclasses.replace(
        result, winners=tuple(s for s in range(len(coins)) if s not in result.winners)[:1])))
    return out


@pytest.mark.parametrize("game", GAMES, ids=lambda g: f"{g[0]}-{g[1]}p")
def test_an_altered_event_is_caught_where_it_is(game: tuple[str, int, str]) -> None:
    _, events = _game(*game)
    alterations = _alterations(events)
    kinds = {what for what, _, _ in alterations}
    assert {"deck order", "dealt card", "drawn card", "harvest coins", "final score"} <= kinds
    if game[0] != "duel":
        assert "trade cards" in kinds
    if game[0] in ("classic", "finnish", "amigo-en"):
        assert "reshuffle order" in kinds
    for what, index, altered in alterations:
        if altered == events[index]:
            continue
        tampered = [*events[:index], altered, *events[index + 1:]]
        verdict = rederive(tampered)
        assert not verdict.ok, what
        assert verdict.first_bad == index + 1, f"{what}: {verdict.reason}"


def _removable(events: list[Event]) -> list[int]:
    """Events whose removal leaves a record that breaks right there: automatic
    events, and decisions whose successor cannot follow without them."""
    auto = (CardDealt, CardDrawn, CardTurnedOver, TurnStarted, TurnEnded, DeckShuffled,
            DiscardPileReshuffled, PhaseStarted, GameEnded)
    picks: list[int] = []
    for cls in auto:
        picks += _spread(_where(events, lambda e, c=cls: isinstance(e, c)), 2)  # type: ignore[misc]
    if events[0].ruleset.name == "classic":  # type: ignore[attr-defined]
        # Without the end of trading, what follows is planting during trading: illegal.
        picks += _spread([i for i in _where(events, lambda e: isinstance(e, TradingEnded))
                          if isinstance(events[i + 1], BeanPlanted | PhaseStarted)], 2)
    # Without the first planting of a turn, ending planting is illegal.
    picks += _spread([i for i in _where(events, lambda e: isinstance(e, BeanPlanted)
                                        and e.source is CardSource.HAND)
                      if isinstance(events[i - 1], TurnStarted)
                      and isinstance(events[i + 1], PlantingEnded)], 2)
    return sorted(set(picks))


@pytest.mark.parametrize("game", GAMES, ids=lambda g: f"{g[0]}-{g[1]}p")
def test_a_removed_event_is_caught_where_it_was(game: tuple[str, int, str]) -> None:
    _, events = _game(*game)
    picks = _removable(events)
    assert len(picks) >= 12
    for index in picks:
        _caught_at([*events[:index], *events[index + 1:]], index)
    # Removing the last event leaves an unfinished record that says it goes on.
    verdict = rederive(events[:-1])
    assert not verdict.ok and verdict.first_bad == len(events)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: f"{g[0]}-{g[1]}p")
def test_reordered_events_are_caught_at_the_first_moved(game: tuple[str, int, str]) -> None:
    _, events = _game(*game)
    pairs: list[int] = []
    for cls in (CardDealt, CardDrawn, CardTurnedOver):
        pairs += _spread([i for i in _where(events, lambda e, c=cls: isinstance(e, c))  # type: ignore[misc]
                          if isinstance(events[i + 1], cls) and events[i + 1] != events[i]])
    pairs += _spread(_where(events, lambda e: isinstance(e, TurnEnded)), 2)
    # A PlantingEnded chosen after the first planting, swapped before it: illegal.
    pairs += _spread([i for i in range(1, len(events) - 1)
                      if isinstance(events[i], BeanPlanted) and isinstance(events[i - 1],
                                                                            TurnStarted)
                      and isinstance(events[i + 1], PlantingEnded)], 2)
    # A reshuffle before the run-out that causes it.
    pairs += _spread([i - 1 for i in _where(events, lambda e: isinstance(e,
                                                                          DiscardPileReshuffled))])
    assert len(pairs) >= 8
    for i in pairs:
        swapped = [*events[:i], events[i + 1], events[i], *events[i + 2:]]
        _caught_at(swapped, i)
    # Moving an event far away is caught where it left.
    drawn = _where(events, lambda e: isinstance(e, CardDrawn))[10]
    moved = [*events[:drawn], *events[drawn + 1:drawn + 40], events[drawn], *events[drawn + 40:]]
    _caught_at(moved, drawn)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: f"{g[0]}-{g[1]}p")
def test_an_inserted_event_is_caught_where_it_was_put(game: tuple[str, int, str]) -> None:
    _, events = _game(*game)
    start = events[0]
    assert isinstance(start, GameStarted)
    size = start.ruleset.deck_size
    insertions: list[tuple[int, Event]] = []
    turns = _where(events, lambda e: isinstance(e, TurnStarted))
    for i in _spread(turns[1:-1], 4):
        e = events[i]
        assert isinstance(e, TurnStarted)
        # An extra draw for the new active player, before it plants.
        insertions.append((i + 1, CardDrawn(seat=e.seat, card=(e.seat * 11) % size)))
        # The turn skipped: another TurnStarted at once.
        insertions.append((i + 1, TurnStarted(seat=(e.seat + 1) % len(start.seats),
                                              turn=e.turn + 1)))
        # A harvest of an empty field... or of a field that is not there.
        insertions.append((i + 1, FieldHarvested(seat=e.seat, field=5, kind=start.ruleset.beans[0],
                                                 beans=1, coins=0)))
        # The game ended early.
        insertions.append((i, GameEnded(coins=(0,) * len(start.seats), winners=(0,),
                                        ranks=(1,) * len(start.seats),
                                        hand_sizes=(0,) * len(start.seats), tie_break=None,
                                        seed=start.seed or "", salt=start.salt or "")))
    for i in _spread(_where(events, lambda e: isinstance(e, CardDealt | CardDrawn)), 4):
        insertions.append((i, events[i - 1]))  # the previous event once more
    for i in _spread(_where(events, lambda e: isinstance(e, OfferMade)), 3):
        e = events[i]
        assert isinstance(e, OfferMade)
        # Accepting an offer that was never made.
        insertions.append((i, OfferAccepted(offer=e.offer, seat=e.proposer, cards=())))
    insertions.append((len(events), TurnEnded(seat=0)))  # after the end
    for index, inserted in insertions:
        tampered = [*events[:index], inserted, *events[index:]]
        _caught_at(tampered, index)


def test_tampering_survives_the_export_round_trip() -> None:
    """The arbiter's path: a tampered file, read and re-derived."""
    _, events = _game("classic", 5, "file")
    drawn = _where(events, lambda e: isinstance(e, CardDrawn))[20]
    lines = export_jsonl(events).splitlines()
    line = lines[drawn + 1]
    card = events[drawn].card  # type: ignore[attr-defined]
    lines[drawn + 1] = line.replace(f'"card":{card}', f'"card":{(card + 1) % 104}')
    verdict = rederive(read_jsonl("\n".join(lines)).events)
    assert verdict.first_bad == drawn + 1
    assert verdict.state is not None and not verdict.finished
