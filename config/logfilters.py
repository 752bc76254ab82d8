"""Log lines never carry the secrets a query string holds.

A finished private replay's share link (``?token=``) and a private table's invitation
link (``?invite=``) open what they guard to whoever holds them, and the development
server's access log (daphne's ``runserver``: ``django.channels.server``) writes every
address whole. :class:`HideSecrets`, on the one handler every logger writes through
(config/settings.py, ``LOGGING``), writes ``[hidden]`` in their place, whichever
logger the line comes from. The production daphnes keep no access log (``-v 0``:
docs/serving.md); the proxy's is configured there.
"""

from __future__ import annotations

import logging
import re
from typing import Final

SECRET_PARAMETERS: Final = ("token", "invite")
"""The query parameters whose values are secrets (a share token, an invitation)."""

_NAMES = "|".join(SECRET_PARAMETERS)
_SECRET = re.compile(rf"([?&;](?:{_NAMES})=)[^&;#\s\"'\]]*", re.IGNORECASE)


def hide_secrets(text: str) -> str:
    """``text`` with the value of every secret query parameter replaced."""
    return _SECRET.sub(r"\1[hidden]", text)


class HideSecrets(logging.Filter):
    """Rewrites a record whose message names a secret query parameter's value (the
    message formatted once here, the handler's format then adds nothing to it)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        hidden = hide_secrets(message)
        if hidden != message:
            record.msg, record.args = hidden, None
        return True
