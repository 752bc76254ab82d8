"""The embedded default's broker: kombu's filesystem transport, with each message made
whole before a worker can see it.

Checked against **kombu 5.7.0** (requirements.lock pins it). Kombu's ``Channel._put``
opens the message's file in the queue folder and only then locks and writes it, while
``Channel._get`` lists the folder, moves a file out and reads it with no lock: a worker
that looks between the two reads an empty or half-written message, and Celery stops
the worker on the ``JSONDecodeError`` ("Unrecoverable error", celery/kombu#1551; seen
twice in 30 minutes under ``run.py start``). :class:`Channel` writes the message to a
staging folder on the same filesystem (``staging_folder``, beside the queue folder by
default, private like it) and renames it into the queue folder under the name kombu
would have given it: a rename within one filesystem is atomic, so a reader finds the
whole message or nothing. Everything else is kombu's: the name (which ``_get`` sorts
and filters by queue), the serialisation, the ``ChannelError`` on a failed write.

Celery's ``broker_transport`` setting names :class:`Transport` (config/settings.py).
tests/config/test_kombu_filesystem.py is the contract: the kombu functions this copies
or relies on are held to fingerprints (tests/walls.py), and the race is driven through
kombu's own channel and this one.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import uuid
from time import monotonic
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps
from kombu.utils.objects import cached_property

KOMBU_CHECKED_AGAINST = "5.7.0"
"""The kombu version this module was written against."""


class Channel(filesystem.Channel):
    """Kombu's filesystem channel whose messages appear in the queue folder whole."""

    @cached_property
    def staging_folder(self) -> str:
        """Where a message is written before it is renamed into the queue: the
        ``staging_folder`` transport option, else ``staging`` beside the queue folder
        (the same filesystem, so the rename is atomic); made private (0700)."""
        folder = self.transport_options.get("staging_folder") or os.path.join(
            os.path.dirname(os.path.abspath(self.data_folder_out)), "staging")
        os.makedirs(folder, mode=0o700, exist_ok=True)
        return str(folder)

    # kombu's own stub of filesystem.Channel._put ignores the same mismatch with its base.
    def _put(self, queue: str, payload: dict[str, Any], **kwargs: Any) -> None:  # type: ignore[override]
        """Put ``payload`` onto ``queue``: kombu's ``_put``, written to a staging file
        and renamed into the queue folder once whole."""
        filename = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        target = os.path.join(self.data_folder_out, filename)
        staged = None
        try:
            handle, staged = tempfile.mkstemp(prefix=".", suffix=".msg",
                                              dir=self.staging_folder)
            with os.fdopen(handle, "wb") as f:
                f.write(str_to_bytes(dumps(payload)))
            os.replace(staged, target)
            staged = None
        except OSError as exc:
            raise ChannelError(f"Cannot add file {target!r} to directory") from exc
        finally:
            if staged is not None:
                with contextlib.suppress(OSError):
                    os.remove(staged)


class Transport(filesystem.Transport):
    """Kombu's filesystem transport with :class:`Channel`."""

    Channel = Channel
