"""The seeded shuffle and the seed commitment (bohnanza_core/shuffle.py, DESIGN.md
"Trust"): fixed known answers, and an independent reimplementation of the documented
algorithm."""

from __future__ import annotations

import hashlib

import pytest

from bohnanza_core import new_game, ruleset_for, seed_commitment, seeded_shuffle
from bohnanza_core.commitments import offline_salt
from tests.core.table import SEATS


def reference_shuffle(items, seed, shuffle_index):
    """Straight from the documentation: SHA-256 blocks of
    "bohnanza-shuffle-v1:{seed}:{shuffle_index}:{counter}", eight big-endian 32-bit
    words each; Fisher-Yates from the end, j uniform in [0, i] by rejection sampling."""
    words = []

    def word():
        if not words:
            block = hashlib.sha256(
                f"bohnanza-shuffle-v1:{seed}:{shuffle_index}:{word.counter}".encode()).digest()
            word.counter += 1
            words.extend(int(block[k:k + 4].hex(), 16) for k in range(28, -1, -4))
        return words.pop()

    word.counter = 0
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        n = i + 1
        w = word()
        while w >= 2**32 - 2**32 % n:
            w = word()
        j = w % n
        out[i], out[j] = out[j], out[i]
    return tuple(out)


def test_known_answers():
    # Computed once and frozen: any change to the algorithm changes every game.
    assert seeded_shuffle(range(10), "known-answer", 0) == (6, 7, 4, 5, 1, 9, 8, 3, 0, 2)
    assert seeded_shuffle(range(10), "known-answer", 1) == (8, 2, 5, 1, 3, 9, 7, 6, 0, 4)
    assert seeded_shuffle([7, 3, 11, 42, 5], "bohnanza", 2) == (7, 11, 42, 5, 3)
    assert seeded_shuffle([], "x", 0) == () and seeded_shuffle([9], "x", 0) == (9,)


def test_the_first_swap_by_hand():
    """For two items there is one step: j = first word % 2."""
    first = int.from_bytes(hashlib.sha256(b"bohnanza-shuffle-v1:s:0:0").digest()[:4], "big")
    expected = ("a", "b") if first % 2 == 1 else ("b", "a")
    assert seeded_shuffle(["a", "b"], "s", 0) == expected


@pytest.mark.parametrize("size", [2, 3, 8, 52, 104, 144, 150, 154])
@pytest.mark.parametrize(("seed", "index"), [("alpha", 0), ("alpha", 1), ("β-seed", 3),
                                             ("tournament/7/game/12", 0)])
def test_matches_the_documented_algorithm(size, seed, index):
    items = list(range(100, 100 + size))
    shuffled = seeded_shuffle(items, seed, index)
    assert shuffled == reference_shuffle(items, seed, index)
    assert sorted(shuffled) == items


def test_streams_differ_by_seed_and_index():
    base = seeded_shuffle(range(104), "a", 0)
    assert base == seeded_shuffle(range(104), "a", 0)
    assert base != seeded_shuffle(range(104), "a", 1)
    assert base != seeded_shuffle(range(104), "b", 0)


def test_the_deal_uses_stream_0_of_the_seed():
    ruleset = ruleset_for("rio-grande", 4)
    _, events = new_game(ruleset, SEATS[:4], "deal-seed")
    assert events[1].order == reference_shuffle(range(150), "deal-seed", 0)


def test_seed_commitment():
    """The seed's commitment is salted (docs/shuffle.md): with the seed alone it cannot
    be checked, so a guessable seed is not confirmed by its commitment."""
    salt = "0123456789abcdef0123456789abcdef"
    assert seed_commitment("known-answer", salt) == (
        "6e34298425eee2f748fe506ac9b4d57840b9e7be76019e15c0b0a5e574720f89")
    for seed in ("known-answer", "x", "β"):
        assert seed_commitment(seed, salt) == hashlib.sha256(
            f"bohnanza-seed-v2:{salt}:{seed}".encode()).hexdigest()
    assert seed_commitment("a", salt) != seed_commitment("b", salt)
    assert seed_commitment("a", salt) != seed_commitment("a", "f" * 32)
    # Offline (a simulation), the salt follows from the seed: the same file every time.
    state, events = new_game(ruleset_for("classic", 3), SEATS[:3], "known-answer")
    assert events[0].seed_commitment == state.seed_commitment == seed_commitment(
        "known-answer", offline_salt("known-answer"))
    assert offline_salt("known-answer") == "63408c175fa0e56008597448d609557a"
