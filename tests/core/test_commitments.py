"""Hidden values enter the chain only as salted commitments (issue 8, docs/export.md
"The hash chain"): the attack an outsider would run against a running game's export
and the head hashes published after every step recovers nothing, for every ruleset
and every perspective; and the seed's commitment confirms no guessable seed."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from bohnanza_core import SPECTATOR, Ruleset
from bohnanza_core.commitments import commit, new_salt, offline_salt, seed_commitment, value_salt
from bohnanza_core.events import CardDealt, CardDrawn, GameStarted
from bohnanza_core.export import export_record, read_jsonl
from bohnanza_core.games import Games, play_bot_game
from bohnanza_core.record import _CANONICAL, GENESIS, Sealer, chain, commitments_for, revealed
from bohnanza_core.simulator import bot_classes, play_game
from tests.core.attack import GUESSABLE_SEEDS, recover, seed_guesses
from tests.core.invariants import ruleset_bands

BOTS = ("heuristic", "nontrading", "random")


def _lineup(players: int) -> list[str]:
    return [BOTS[i % len(BOTS)] for i in range(players)]


def _lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()[1:]]


def _running(band: tuple[Ruleset, int], seed: str) -> list[Any]:
    """The first third of a bot game: dealt, a few turns played, cards still hidden."""
    ruleset, players = band
    events = play_game(ruleset, bot_classes(_lineup(players)), seed).events
    return events[: max(len(events) // 3, 60)]


@pytest.mark.parametrize("band", ruleset_bands(), ids=lambda b: f"{b[0].name}-{b[1]}p")
def test_no_hidden_card_can_be_recovered_from_a_running_game(band: tuple[Ruleset, int]) -> None:
    """Every perspective's export of a running game and every head hash published
    after each step, against every card id and kind for every hidden field."""
    ruleset, players = band
    entries = chain(_running(band, f"attack-{ruleset.name}-{players}"))
    heads = {entry.seq: entry.hash for entry in entries}
    hidden_cards = 0
    for perspective in [*range(players), SPECTATOR]:
        lines = _lines(export_record(entries, perspective))
        hidden_cards += sum(1 for line in lines if line["type"] in ("CardDealt", "CardDrawn")
                            and line["card"] is None)
        assert recover(lines, heads.get, ruleset.deck_size) == [], perspective
        # The file still re-hashes to the head everyone was shown.
        assert read_jsonl(export_record(entries, perspective)).entries[-1].hash == (
            entries[-1].hash)
    assert hidden_cards > 10 * players


def _chained_the_old_way(events: list[Any], perspective: int) -> list[dict[str, Any]]:
    """A record chained as version 2 did, with the values in the hashed entries, then
    redacted for ``perspective``: what the platform published before issue 8."""
    full = _lines(export_record(chain(events)))
    previous = GENESIS
    for line in full:
        line.pop("salts", None)
        line.pop("salt", None)
        line["previous_hash"] = previous
        event = {k: v for k, v in line.items() if k not in ("seq", "actor", "at",
                                                             "previous_hash")}
        body = {"seq": line["seq"], "event": event, "actor": line["actor"], "at": line["at"],
                "previous_hash": previous}
        previous = hashlib.sha256(_CANONICAL.encode(body).encode()).hexdigest()
    for line in full:
        if line["type"] in ("CardDealt", "CardDrawn") and line["seat"] != perspective:
            line["card"] = None
        if line["type"] == "GameStarted":
            line["seed"] = None
    return full


def test_the_attack_recovers_every_card_of_a_record_chained_the_old_way() -> None:
    """The attack is real: against the old chain it finds every hidden card."""
    events = _running((ruleset_bands()[0][0], 3), "attack-old")
    lines = _chained_the_old_way(events, SPECTATOR)
    found = {(f.seq, f.value) for f in recover(lines, lambda _: None, 104)}
    hidden = {(line["seq"], e.card) for line, e in zip(lines, events, strict=True)
              if isinstance(e, CardDealt | CardDrawn)}
    assert hidden and hidden <= found


def test_a_seat_can_check_its_own_cards_and_nothing_else() -> None:
    """A seat's file gives the salt of each of its own cards: the commitment in the
    chain opens to the card; another seat's commitment opens to none of them."""
    events = _running((ruleset_bands()[0][0], 3), "own-cards")
    lines = _lines(export_record(chain(events), 1))
    mine = [line for line in lines if line["type"] == "CardDealt" and line["seat"] == 1]
    theirs = [line for line in lines if line["type"] == "CardDealt" and line["seat"] == 2]
    full = _lines(export_record(chain(events)))
    for line in mine:
        salt = line["salts"]["card"]
        stored = full[line["seq"] - 1]["salts"]["card"]
        assert salt == stored == value_salt(events[0].salt, line["seq"], "card")
    salts = [line["salts"]["card"] for line in mine]
    for line in theirs:
        assert line["card"] is None and "salts" not in line
        assert all(commit(salt, str(card)) != line["commitments"]["card"]
                   for salt in salts for card in range(104))


def test_the_seed_commitment_confirms_no_guessable_seed() -> None:
    """A stored game draws its seed and its salt from `secrets`; even a deal several
    games share, with a guessable seed, is committed to under a fresh salt."""
    games = Games(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    try:
        started = games.start(ruleset_bands()[0][0], ("A", "B", "C"))
        first = started.state
        assert len(first.seed) == 32 and int(first.seed, 16) >= 0
        assert len(first.salt) == 32 and first.seed not in GUESSABLE_SEEDS
        assert seed_guesses(first.seed_commitment) == []
        for guessable in ("demo", "demo-running", "42"):
            game = games.start(ruleset_bands()[0][0], ("A", "B", "C"), guessable)
            assert seed_guesses(game.state.seed_commitment) == []
        bot = play_bot_game(games, ruleset_bands()[0][0], list(BOTS), save_each_command=False)
        assert len(bot.state.seed) == 32 and seed_guesses(bot.state.seed_commitment) == []
    finally:
        games.close()
    # The control: offline, the salt follows from the seed, so a guessable seed shows.
    start = play_game(ruleset_bands()[0][0], bot_classes(list(BOTS)), "demo").events[0]
    assert isinstance(start, GameStarted)
    assert seed_guesses(start.seed_commitment) == ["demo"]


def test_salts_are_128_bits_and_fresh() -> None:
    salts = {new_salt() for _ in range(100)}
    assert len(salts) == 100 and all(len(s) == 32 for s in salts)
    assert len(offline_salt("x")) == 32 and offline_salt("x") == offline_salt("x")
    assert seed_commitment("x", offline_salt("x")) != seed_commitment("x", new_salt())


def test_the_fast_sealer_is_the_reference_hmac() -> None:
    """record.Sealer (keyed SHA-256 states made once per game) writes exactly what
    commitments.value_salt (the standard library's HMAC) and commitments_for do."""
    events = _running((ruleset_bands()[0][0], 3), "sealer")
    for salt in (new_salt(), "0" * 32, offline_salt("x"), "ü" * 40):
        sealer = Sealer(salt)
        for seq in (1, 7, 123456):
            for name in ("card", "order", "seed", "salt"):
                assert sealer.value_salt(seq, name) == value_salt(salt, seq, name)
        for seq, event in enumerate(events, start=1):
            if event.SECRET:
                sealed, values = sealer.seal(event, seq)
                assert sealed == commitments_for(event, seq, salt)
                assert values == revealed(event)
