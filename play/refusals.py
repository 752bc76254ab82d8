"""The refusal codes of the websockets (docs/protocol.md, "Refusal codes"): what an
``error`` frame's ``code`` says, and the close code and reason of a connection refused
at the handshake.

A program reads the code, never the reason (the server's prose, which may change). The
list is stable: a code is never renamed or given another meaning; a new one is added
here, in docs/protocol.md, in the frames' schema (docs/schema/server-frame.json), which
a test keeps equal to :data:`CODES`, and in :func:`words`.

A person reads the code too, in words: the table page carries :func:`words` in the
reader's language and shows the one for a refusal's code (static/js/live.js), so the
socket stays the same for every reader and a program's log keeps the server's prose.
"""

from __future__ import annotations

from typing import Final

from django.utils.translation import gettext as _

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
MISSING_SCOPE: Final = "missing_scope"
NO_SOCKET: Final = "no_socket"

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
    MISSING_SCOPE: "handshake: the token lacks the socket's scope: play for a table's, "
                   "read for the lobby's (closed 4407)",
    NO_SOCKET: "handshake: no socket at this address (closed 4406)",
}
"""Every code, with what it means (the documented list)."""

HANDSHAKE: Final[dict[str, int]] = {
    BAD_TABLE_ID: 4400,
    BAD_TOKEN: 4401,
    BAD_AUTHORIZATION: 4402,
    PRIVATE_TABLE: 4403,
    NO_TABLE: 4404,
    BAD_ORIGIN: 4405,
    NO_SOCKET: 4406,
    MISSING_SCOPE: 4407,
    TOO_MANY_CONNECTIONS: 4429,
}
"""The close code of each handshake refusal, one per cause: a client that cannot read
the ``error`` frame sent before the close (it closed first) still tells them apart.
The close frame's reason is the refusal's code where the ASGI server passes it on
(daphne does not: read the close code)."""


def words() -> dict[str, str]:
    """What the table page tells a person for each code, in the active language (the
    page shows the frame's ``reason`` only for a code it does not know: a newer
    server's). ``%(n)s``: the refusal's ``retry_after`` in whole seconds. A test keeps
    its codes equal to :data:`CODES`."""
    reload = _("The page sent something the table does not take: reload the page.")
    token = _("The table refused this connection's token.")
    return {
        MALFORMED: reload,
        TOO_LARGE: reload,
        UNKNOWN_TYPE: reload,
        BAD_FRAME: reload,
        NOT_STARTED: _("The game has not started yet."),
        SPECTATOR: _("Only the table's players make moves: you are a spectator here."),
        BAD_COMMAND: reload,
        # The rules' own reason follows it, as the engine words it (English).
        ILLEGAL: _("The rules do not allow that move now."),
        STALE: _("The table changed before your move arrived: nothing was played. "
                 "Choose again."),
        BUSY: _("The table was busy: nothing was played. Choose again."),
        NOT_YOUR_SEAT: _("Someone else plays this seat now. You are watching."),
        SIGNED_OUT: _("You are signed out here: sign in again to play. You are watching."),
        CANNOT_LEAVE: _("You cannot leave this game now."),
        NOT_TRADING: _("No trading phase is running now."),
        TOO_MANY_REFUSED: _("Too many moves were refused: wait %(n)s s."),
        TOO_MANY_SYNCS: _("The table was asked for too often: wait %(n)s s."),
        TOO_MANY_FRAMES: _("Too many requests: wait %(n)s s."),
        TOO_MANY_CONNECTIONS: _("This table is open in too many tabs: close some, wait a "
                                "moment and reload the page."),
        BAD_TABLE_ID: _("No such table"),
        NO_SOCKET: _("No such table"),
        NO_TABLE: _("No such table"),
        PRIVATE_TABLE: _("This table is private: open it with its invitation link."),
        BAD_ORIGIN: _("The table does not take connections from this address."),
        BAD_AUTHORIZATION: token,
        BAD_TOKEN: token,
        MISSING_SCOPE: token,
    }
