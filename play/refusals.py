"""The refusal codes of the websockets (docs/protocol.md, "Refusal codes"): what an
``error`` frame's ``code`` says, and the close code and reason of a connection refused
at the handshake.

A program reads the code, never the reason (prose, in the reader's language, which may
change). The list is stable: a code is never renamed or given another meaning; a new
one is added here, in docs/protocol.md and in the frames' schema
(docs/schema/server-frame.json), which a test keeps equal to :data:`CODES`.
"""

from __future__ import annotations

from typing import Final

MALFORMED: Final = "malformed"
TOO_LARGE: Final = "too_large"
UNKNOWN_TYPE: Final = "unknown_type"
BAD_FRAME: Final = "bad_frame"
NOT_STARTED: Final = "not_started"
SPECTATOR: Final = "spectator"
BAD_COMMAND: Final = "bad_command"
ILLEGAL: Final = "illegal"
STALE: Final = "stale"
BUSY: Final = "busy"
NOT_YOUR_SEAT: Final = "not_your_seat"
SIGNED_OUT: Final = "signed_out"
CANNOT_LEAVE: Final = "cannot_leave"
NOT_TRADING: Final = "not_trading"
TOO_MANY_REFUSED: Final = "too_many_refused"
TOO_MANY_SYNCS: Final = "too_many_syncs"
TOO_MANY_FRAMES: Final = "too_many_frames"
TOO_MANY_CONNECTIONS: Final = "too_many_connections"
BAD_TABLE_ID: Final = "bad_table_id"
NO_TABLE: Final = "no_table"
PRIVATE_TABLE: Final = "private_table"
BAD_ORIGIN: Final = "bad_origin"
BAD_AUTHORIZATION: Final = "bad_authorization"
BAD_TOKEN: Final = "bad_token"

CODES: Final[dict[str, str]] = {
    MALFORMED: "the frame is not a JSON object with a type, or breaks the JSON bounds",
    TOO_LARGE: "the frame is longer than 8,192 characters",
    UNKNOWN_TYPE: "no frame of that type on this socket",
    BAD_FRAME: "a known frame with a field it does not take or a value of the wrong type",
    NOT_STARTED: "the table's game has not started",
    SPECTATOR: "a spectator's connection sent a command or a leave",
    BAD_COMMAND: "the command is not a command: unknown kind, stray or missing field, "
                 "a value out of bounds, another seat",
    ILLEGAL: "the rules refuse the command now",
    STALE: "the command's version is not the table's: a state frame follows",
    BUSY: "the command lost the race in the store too often: send it again",
    NOT_YOUR_SEAT: "the connection's account no longer plays the seat: a left frame follows",
    SIGNED_OUT: "the connection's session or token no longer stands for its account: "
                "a left frame follows",
    CANNOT_LEAVE: "the seat cannot be left now (the game is not running, a bot plays it)",
    NOT_TRADING: "a pass when there is no trading phase to pass in",
    TOO_MANY_REFUSED: "past the allowance of refused commands: wait retry_after seconds",
    TOO_MANY_SYNCS: "past the allowance of sync frames: wait retry_after seconds",
    TOO_MANY_FRAMES: "the lobby socket: past its allowance of frames",
    TOO_MANY_CONNECTIONS: "handshake: past the allowance of connections to this table "
                          "(closed 4429)",
    BAD_TABLE_ID: "handshake: the address's table id is not a table id (closed 4400)",
    NO_TABLE: "handshake: no such table (closed 4404)",
    PRIVATE_TABLE: "handshake: a private table, and the connection has no seat, "
                   "invitation or staff account (closed 4403)",
    BAD_ORIGIN: "handshake: Origin is not a URL of an allowed host, or is missing "
                "without a bearer token (closed 4405)",
    BAD_AUTHORIZATION: "handshake: an Authorization header that is not "
                       "'Bearer <token>' (closed 4402)",
    BAD_TOKEN: "handshake: no bot account has this token (closed 4401)",
}
"""Every code, with what it means (the documented list)."""

HANDSHAKE: Final[dict[str, int]] = {
    BAD_TABLE_ID: 4400,
    BAD_TOKEN: 4401,
    BAD_AUTHORIZATION: 4402,
    PRIVATE_TABLE: 4403,
    NO_TABLE: 4404,
    BAD_ORIGIN: 4405,
    TOO_MANY_CONNECTIONS: 4429,
}
"""The close code of each handshake refusal, one per cause: a client that cannot read
the ``error`` frame sent before the close (it closed first) still tells them apart.
The close frame's reason is the refusal's code where the ASGI server passes it on
(daphne does not: read the close code)."""
