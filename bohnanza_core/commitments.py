"""Salted commitments: how hidden values enter the public record (docs/export.md).

A game's record is hash-chained and its head hash is published to every seat after
every step, so anything the chain is taken over is, in effect, published. A hidden
value (a card dealt to another seat, the deck order, the seed) cannot go into the
chain as itself: a card is one of at most 154 ids, so the hash of an entry that
holds it is a lookup table of 154 tries. It goes in as a *commitment*:

    commitment = hex(SHA-256(UTF-8(salt + ":" + canonical JSON of the value)))

with a salt of 128 bits that nobody can guess. Each value's salt is derived from the
game's own salt, a secret of 128 random bits drawn when the table is set:

    value_salt(seq, field) = first 32 hex digits of HMAC-SHA-256(key = game salt,
                                                     message = "{seq}:{field}")

so the server keeps one secret per game, a seat can be handed the salts of its own
cards (and check them against the chain) without learning any other, and revealing
the game's salt with the seed at the end opens every commitment at once.

The seed's own commitment, published in ``GameStarted``, is salted the same way:

    seed_commitment = hex(SHA-256(UTF-8("bohnanza-seed-v2:" + game salt + ":" + seed)))

Games played offline (``bohnanza simulate``) derive their salt from their seed, so
that the same seed still gives the same file to the byte; their commitments are
only as secret as their seed. The platform draws both from :mod:`secrets`.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

SALT_HEX_DIGITS = 32
"""128 bits, written as 32 lowercase hex digits: every salt, the game's and each value's."""


def new_salt() -> str:
    """A fresh game salt: 128 bits from the operating system's secure source."""
    return secrets.token_hex(SALT_HEX_DIGITS // 2)


def new_seed() -> str:
    """A fresh seed for a platform game: 128 bits from :mod:`secrets`, so that nobody
    can guess it and rebuild the deck before it is revealed."""
    return secrets.token_hex(16)


def offline_salt(seed: str) -> str:
    """The salt of a game played offline from a chosen seed (a simulation): derived
    from the seed, so the same seed gives the same record to the byte."""
    return hashlib.sha256(f"bohnanza-offline-salt-v1:{seed}".encode()).hexdigest()[
        :SALT_HEX_DIGITS]


COMMITMENT_HEX_DIGITS = hashlib.sha256().digest_size * 2
"""A commitment (a seed's, a hidden value's) is a SHA-256 digest written in hex."""


def seed_commitment(seed: str, salt: str) -> str:
    """The hash published before the first card is dealt; the seed and salt revealed
    at the end must hash to it."""
    return hashlib.sha256(f"bohnanza-seed-v2:{salt}:{seed}".encode()).hexdigest()


def value_salt(game_salt: str, seq: int, field: str) -> str:
    """The salt of the hidden ``field`` of the event numbered ``seq``."""
    digest = hmac.digest(game_salt.encode(), f"{seq}:{field}".encode(), "sha256")
    return digest.hex()[:SALT_HEX_DIGITS]


def commit(salt: str, canonical_value: str) -> str:
    """The commitment to a value written as canonical JSON (``57``, ``[3,1,2]``,
    ``"a seed"``), under ``salt``."""
    return hashlib.sha256(f"{salt}:{canonical_value}".encode()).hexdigest()


_SALT = re.compile(f"[0-9a-f]{{{SALT_HEX_DIGITS}}}")


def is_salt(value: object) -> bool:
    """Whether ``value`` is written as a salt is: 32 lowercase hex digits."""
    return isinstance(value, str) and _SALT.fullmatch(value) is not None


__all__ = ["COMMITMENT_HEX_DIGITS", "SALT_HEX_DIGITS", "commit", "is_salt", "new_salt",
           "new_seed", "offline_salt", "seed_commitment", "value_salt"]
