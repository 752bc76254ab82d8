"""Seeded shuffles that a program in any language can recompute (docs/shuffle.md).

Python's ``random`` is deliberately not used: its generator is an implementation
detail of CPython. Instead every shuffle reads a stream of SHA-256 blocks:

    block(counter) = SHA-256("bohnanza-shuffle-v1:{seed}:{shuffle_index}:{counter}")

Each 32-byte block gives eight big-endian unsigned 32-bit words, used in order.
The shuffle is Fisher-Yates (Durstenfeld): for i from n-1 down to 1, draw
j uniformly in [0, i] by rejection sampling (discard words >= 2**32 - 2**32 % (i+1),
else j = word % (i+1)), then swap items i and j.

``shuffle_index`` is 0 for the deck at the start and k for the k-th reshuffle of
the discard pile, so every shuffle of a game has its own stream.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")

_WORD_SPAN = 1 << 32


def _words(seed: str, shuffle_index: int) -> Iterator[int]:
    counter = 0
    while True:
        block = hashlib.sha256(
            f"bohnanza-shuffle-v1:{seed}:{shuffle_index}:{counter}".encode()
        ).digest()
        for offset in range(0, 32, 4):
            yield int.from_bytes(block[offset : offset + 4], "big")
        counter += 1


def seeded_shuffle(items: Sequence[T], seed: str, shuffle_index: int) -> tuple[T, ...]:
    """``items`` in the order given by the seed's ``shuffle_index``-th stream."""
    result = list(items)
    words = _words(seed, shuffle_index)
    for i in range(len(result) - 1, 0, -1):
        bound = i + 1
        limit = _WORD_SPAN - _WORD_SPAN % bound
        word = next(words)
        while word >= limit:
            word = next(words)
        j = word % bound
        result[i], result[j] = result[j], result[i]
    return tuple(result)
