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
import struct
from collections.abc import Sequence
from typing import Final, TypeVar

T = TypeVar("T")

# Final: compiled, a module constant is a C static, where a plain module name is a
# dictionary lookup at every use (a tenth of a UMBC game's playout was those).
_WORD_SPAN: Final = 1 << 32
_BLOCK: Final = struct.Struct(">8I")
"""A block's eight big-endian unsigned 32-bit words."""


class _Words:
    """One shuffle's stream of words, in order. A class rather than a generator:
    compiled, reading a word is a C method call and a tuple index, where a generator's
    ``next`` goes through Python's iterator protocol (a third of a UMBC game's
    shuffling was that)."""

    def __init__(self, seed: str, shuffle_index: int) -> None:
        # Each block hashes the same prefix: hashed once, copied per block (a copy of
        # the hash's state costs a third less than hashing the prefix again).
        self.prefix = hashlib.sha256(f"bohnanza-shuffle-v1:{seed}:{shuffle_index}:".encode())
        self.counter = 0
        self.block: tuple[int, ...] = ()
        self.used = 0

    def next(self) -> int:
        if self.used == len(self.block):
            block = self.prefix.copy()
            block.update(str(self.counter).encode())
            digest = block.digest()
            self.block = _BLOCK.unpack(digest)
            self.counter += 1
            self.used = 0
        word = self.block[self.used]
        self.used += 1
        return word


def seeded_shuffle(items: Sequence[T], seed: str, shuffle_index: int) -> tuple[T, ...]:
    """``items`` in the order given by the seed's ``shuffle_index``-th stream."""
    result = list(items)
    words = _Words(seed, shuffle_index)
    for i in range(len(result) - 1, 0, -1):
        bound = i + 1
        limit = _WORD_SPAN - _WORD_SPAN % bound
        word = words.next()
        while word >= limit:
            word = words.next()
        j = word % bound
        result[i], result[j] = result[j], result[i]
    return tuple(result)
