"""The refusal codes of the protocol (docs/protocol.md, "Refusal codes"), as a client
acts on them."""

from __future__ import annotations

from typing import Any

CODES = (
    "malformed", "too_large", "unknown_type", "bad_frame", "not_started", "spectator",
    "bad_command", "illegal", "stale", "busy", "not_your_seat", "signed_out",
    "cannot_leave", "not_trading", "too_many_refused", "too_many_syncs",
    "too_many_frames", "too_many_connections", "bad_table_id", "no_table",
    "private_table", "bad_origin", "bad_authorization", "bad_token",
    "missing_scope", "no_socket",
)
"""Every code an ``error`` frame may carry, in the documented order."""

HANDSHAKE = {
    "bad_table_id": 4400, "bad_token": 4401, "bad_authorization": 4402,
    "private_table": 4403, "no_table": 4404, "bad_origin": 4405, "no_socket": 4406,
    "missing_scope": 4407,
    "too_many_connections": 4429,
}
"""The handshake's refusals and the close code of each."""

FINAL = frozenset(HANDSHAKE) - {"too_many_connections"}
"""Handshake refusals that connecting again does not mend."""

STATE_FOLLOWS = frozenset({"stale", "busy"})
"""Refusals after which the server sends the whole view by itself, while the
connection's ``sync`` allowance lasts (without ``retry_after``; with it, no view
follows: the table's next moves come as they are stored)."""

SEAT_LOST = frozenset({"not_your_seat", "signed_out"})
"""Refusals after which the connection plays no seat (a ``left`` frame follows)."""


class Refused(Exception):
    """The server refused a frame or the connection: its ``code`` (one of
    :data:`CODES`), its ``reason`` (prose), the ``ref`` of the frame refused."""

    def __init__(self, frame: dict[str, Any], close_code: int | None = None) -> None:
        super().__init__(f"{frame.get('code')}: {frame.get('reason')}")
        self.frame = frame
        self.code: str = str(frame.get("code"))
        self.reason: str = str(frame.get("reason"))
        self.ref: object = frame.get("ref")
        self.retry_after: float | None = frame.get("retry_after")
        self.close_code = close_code


class HandshakeRefused(Refused):
    """The connection itself was refused (``code`` in :data:`HANDSHAKE`)."""


class ConnectionLost(Exception):
    """The connection closed and the client was told not to reconnect (or gave up)."""


class SeatLost(Exception):
    """The connection no longer plays its seat (a ``left`` frame): the account left the
    game, stayed away past the table's limit, or its token stopped standing for it. Its
    ``reason`` is the frame's (``left``, ``absent``, ``taken``, ``signed_out``); the
    game goes on without this client, a bot playing the seat."""

    def __init__(self, frame: dict[str, Any]) -> None:
        self.reason: str = str(frame.get("reason"))
        super().__init__(f"the seat is no longer this connection's ({self.reason})")
        self.frame = frame


class StreamReplaced(Exception):
    """Another event stream for the same token took over (a second process of the bot
    started with it): this one stopped, and the other plays the account's games."""
