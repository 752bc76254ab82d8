"""The formats (bohnanza_core/formats.py): pure, stateless, each pairs from a History
alone. Played here with made-up results, as a competition would with real ones."""

from __future__ import annotations

import random

import pytest

from bohnanza_core.formats import (
    FORMATS,
    MAX_TICKS,
    History,
    Moves,
    Result,
    Round,
    format_for,
    lot,
    tally,
)
from bohnanza_core.pairings import PairingError


def _result(seats: tuple[int, ...], rng: random.Random) -> Result:
    """A game's made-up result: a random order of the seats, distinct coins."""
    order = list(range(len(seats)))
    rng.shuffle(order)
    ranks = [0] * len(seats)
    coins = [0] * len(seats)
    for place, seat in enumerate(order):
        ranks[seat] = place + 1
        coins[seat] = 10 - place
    return Result(tuple(ranks), tuple(coins), (order[0],))


def _play(name: str, options: dict[str, int], entrants: int, table: int,
          seed: int = 1) -> tuple[list[Round], list[list[Result]], list[Moves]]:
    """Every round the format pairs, each ended with made-up results."""
    rules = format_for(name, options)
    rules.check(entrants, table)
    rng = random.Random(seed)
    rounds: list[Round] = []
    results: list[list[Result]] = []
    moves: list[Moves] = []
    while True:
        history = History(entrants, table, rounds, results, moves,
                          list(range(entrants)), lot("secret", "test", len(rounds)))
        paired = rules.next_round(history)
        if paired is None:
            assert rules.over(history)
            return rounds, results, moves
        assert not rules.over(history)
        rounds.append(paired)
        ended = [_result(p.seats, rng) for p in paired.games]
        moves.append(rules.moves(History(entrants, table, rounds, results, moves), ended))
        results.append(ended)


@pytest.mark.parametrize("name, options, entrants, table, rounds, games", [
    ("round-robin", {"cycles": 1}, 4, 3, 3, 12),
    ("round-robin", {"cycles": 2}, 3, 2, 4, 12),
    ("duplicate", {"deals": 2}, 3, 3, 2, 6),
    ("swiss", {"rounds": 3}, 6, 3, 3, 6),
    ("knockout", {"advance": 1}, 9, 3, 2, 12),
    ("knockout", {"advance": 2}, 8, 4, 2, 12),
    ("league", {"divisions": 2, "moves": 1, "seasons": 3}, 6, 3, 3, 18),
])
def test_each_format_plays_the_rounds_and_games_it_says_it_will(
        name: str, options: dict[str, int], entrants: int, table: int, rounds: int,
        games: int) -> None:
    played, _results, _moves = _play(name, options, entrants, table)
    rules = format_for(name, options)
    assert len(played) == rules.rounds_total(entrants, table) == rounds
    assert sum(len(r.games) for r in played) == rules.games_total(entrants, table) == games
    for paired in played:
        for pairing in paired.games:
            assert len(set(pairing.seats)) == table  # nobody sits twice at a table


def test_a_knockouts_final_table_is_the_winners_of_the_tables_before() -> None:
    played, results, _ = _play("knockout", {"advance": 1}, 9, 3, seed=7)
    first, final = played
    points = tally(9, [first], [results[0]])
    winners = set()
    for t in range(3):
        group = first.games[t * 3].seats
        winners.add(max(group, key=lambda e: (points[e].points, points[e].coins, -e)))
    assert set(final.games[0].seats) == winners


def test_a_league_moves_the_best_up_and_the_last_down_and_seeds_by_them() -> None:
    played, results, moves = _play("league", {"divisions": 2, "moves": 1, "seasons": 2},
                                   6, 3, seed=3)
    first, second = played
    assert first.divisions == ((0, 1, 2), (3, 4, 5))
    tallies = tally(6, [first], [results[0]])
    top_of_second = max((3, 4, 5), key=lambda e: (tallies[e].points, tallies[e].coins, -e))
    last_of_first = min((0, 1, 2), key=lambda e: (tallies[e].points, tallies[e].coins, -e))
    assert moves[0] == Moves((top_of_second,), (last_of_first,))
    assert top_of_second in second.divisions[0] and second.divisions[0][-1] == top_of_second
    assert last_of_first in second.divisions[1] and second.divisions[1][0] == last_of_first


def test_a_ladder_waits_for_entrants_and_draws_its_tables_by_lot_alone() -> None:
    rules = format_for("ladder", {})
    assert rules.next_round(History(2, 3)) is None and not rules.over(History(2, 3))
    history = History(7, 3, (), (), (), list(range(7)), lot("s", "x", 0))
    again = History(7, 3, (), (), (), list(range(7)), lot("s", "x", 0))
    other = History(7, 3, (), (), (), list(range(7)), lot("t", "x", 0))
    paired = rules.next_round(history)
    assert paired is not None and paired == rules.next_round(again)
    assert len(paired.games) == 2 and all(len(p.seats) == 3 for p in paired.games)
    assert rules.over(History(7, 3, [paired] * MAX_TICKS))
    # Tables drawn from another secret's lot may differ; never the same entrant twice.
    drawn = rules.next_round(other)
    assert drawn is not None
    assert len({e for p in drawn.games for e in p.seats}) == 6


def test_every_format_refuses_options_and_entrants_it_cannot_play() -> None:
    for name in FORMATS:
        with pytest.raises(PairingError):
            format_for(name, {"nonsense": 1})
    with pytest.raises(PairingError, match="format is one of"):
        format_for("bracket", {})
    with pytest.raises(PairingError, match="do not fill tables"):
        format_for("swiss", {"rounds": 2}).check(7, 3)
    with pytest.raises(PairingError):
        format_for("knockout", {"advance": 1}).check(7, 3)
    with pytest.raises(PairingError, match="same number in every division"):
        format_for("league", {"divisions": 2, "moves": 1, "seasons": 1}).check(7, 3)
    with pytest.raises(PairingError, match="moves at most half"):
        format_for("league", {"divisions": 2, "moves": 0, "seasons": 1}).check(6, 3)


def test_a_swiss_podium_breaks_ties_on_points_by_buchholz() -> None:
    """Two entrants level on points: the one who met the stronger field ranks higher,
    whatever their coins."""
    from bohnanza_core.formats import buchholz
    from bohnanza_core.pairings import Pairing

    # round 1: 0 beats 1, 2 beats 3; round 2: 0 beats 2, 3 beats 1 (with more coins)
    rounds = [Round((Pairing((0, 1), 0), Pairing((2, 3), 1))),
              Round((Pairing((0, 2), 0), Pairing((1, 3), 1)))]
    results = [[Result((1, 2), (5, 1), (0,)), Result((1, 2), (5, 1), (0,))],
               [Result((1, 2), (5, 1), (0,)), Result((2, 1), (1, 30), (1,))]]
    history = History(4, 2, rounds, results)
    tallies = tally(4, rounds, results)
    assert [t.points for t in tallies] == [2.0, 0.0, 1.0, 1.0]
    assert buchholz(4, rounds, results, tallies) == [1.0, 3.0, 3.0, 1.0]
    swiss = format_for("swiss", {"rounds": 2})
    # 2 and 3 share 1 point; 3 has more coins, but 2 met the stronger field
    assert swiss.placings(history) == [0, 2, 3, 1]
    assert swiss.podium(history).places == (0, 2, 3) and swiss.podium(history).rule == "swiss"
    assert format_for("round-robin", {"cycles": 1}).placings(history)[:3] == [0, 3, 2]


def test_a_knockouts_placings_are_its_final_then_who_went_out_later() -> None:
    played, results, _ = _play("knockout", {"advance": 1}, 9, 3, seed=7)
    rules = format_for("knockout", {"advance": 1})
    history = History(9, 3, played, results)
    first, final = rules.matches(history, 0), rules.matches(history, 1)
    assert all(m.played and [r.through for r in m.rows] == [True, False, False]
               for m in first)
    assert [r.through for r in final[0].rows] == [True, False, False]  # the winner alone
    placings = rules.placings(history)
    assert placings[:3] == [r.entrant for r in final[0].rows]
    assert sorted(placings) == list(range(9))
    assert set(placings[3:]) == {r.entrant for m in first for r in m.rows if not r.through}
    podium = rules.podium(history)
    assert podium.rule == "final" and podium.places == tuple(placings[:3])
    # a running round: its tables unplayed, in seeding order, nobody through yet
    running = History(9, 3, played, results[:1])
    assert not any(r.through for r in rules.matches(running, 1)[0].rows)
    assert set(rules.placings(running)[:3]) == {r.entrant for r in final[0].rows}
