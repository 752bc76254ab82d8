"""The contract of config/kombu_filesystem.py with kombu (checked against 5.7.0): the
kombu functions it copies or relies on are held to fingerprints (tests/walls.py), and the
race of celery/kombu#1551 is driven deterministically through kombu's own channel and
the wall's: a worker's ``_get`` made while a ``_put`` is between making the message's
file and writing it (the serialiser ``dumps`` the channel's ``_put`` calls, patched to
read first)."""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from queue import Empty
from typing import Any

import kombu
import pytest
from kombu import Connection
from kombu.transport import filesystem

from config import kombu_filesystem
from config.celery import app
from tests.walls import changed_shapes

PINNED = {
    # Copied by the wall's _put: the message's name and serialisation, the ChannelError.
    "kombu filesystem Channel._put": (filesystem.Channel._put, "781fc7456e04540f"),
    # Lists the queue folder, sorts the names, filters by queue, moves one out and reads
    # it: a rename into the folder is what it sees whole.
    "kombu filesystem Channel._get": (filesystem.Channel._get, "4d32b0a982cd7423"),
    # Where the wall's _put renames to, and where it finds the staging folder's option.
    "kombu filesystem Channel.data_folder_out": (
        filesystem.Channel.__dict__["data_folder_out"].func, "f67b6837e881fd19"),
    "kombu filesystem Channel.transport_options": (
        filesystem.Channel.__dict__["transport_options"].fget, "75922c0630e2822c"),
}

MESSAGE = {"body": "x" * 4096, "headers": {"task": "tournaments.tick"}, "properties": {}}


def test_the_checked_version_is_installed() -> None:
    assert kombu.__version__ == kombu_filesystem.KOMBU_CHECKED_AGAINST, (
        "kombu was upgraded: run this file, read the failures against "
        "config/kombu_filesystem.py, then update KOMBU_CHECKED_AGAINST and its docstring")


def test_the_kombu_functions_the_wall_relies_on_are_unchanged() -> None:
    assert not changed_shapes(PINNED, "config/kombu_filesystem.py")


def channel(transport: str, tmp_path: Path) -> Any:
    queue = tmp_path / "queue"
    queue.mkdir(exist_ok=True)
    connection = Connection(
        "filesystem://localhost/", transport=transport,
        transport_options={"data_folder_in": str(queue), "data_folder_out": str(queue),
                           "control_folder": str(tmp_path / "control")})
    return connection.default_channel


def put_reading_midway(chan: Any, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """``chan._put`` of :data:`MESSAGE`, with a ``_get`` of the same queue made between
    the message's file being made and being written; what that ``_get`` read (a
    message, ``Empty``, or the error of a partial one)."""
    seen: list[Any] = []
    module = sys.modules[type(chan)._put.__module__]
    real: Callable[[Any], str] = module.dumps

    def dumps_reading_first(payload: Any) -> str:
        try:
            seen.append(chan._get("ticks"))
        except Empty:
            seen.append(Empty)
        except json.JSONDecodeError as error:
            seen.append(error)
        return real(payload)

    monkeypatch.setattr(module, "dumps", dumps_reading_first)
    chan._put("ticks", MESSAGE)
    monkeypatch.setattr(module, "dumps", real)
    return seen


def test_kombu_s_own_channel_lets_a_reader_see_a_partial_message(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The race as kombu 5.7.0 has it: this is what the wall is for (if kombu fixes it,
    this test says so, and the wall may go)."""
    seen = put_reading_midway(channel("filesystem", tmp_path), monkeypatch)
    assert len(seen) == 1 and isinstance(seen[0], json.JSONDecodeError)


def test_the_wall_s_channel_lets_a_reader_see_nothing_or_the_whole_message(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    chan = channel("config.kombu_filesystem:Transport", tmp_path)
    assert isinstance(chan, kombu_filesystem.Channel)
    assert put_reading_midway(chan, monkeypatch) == [Empty]
    assert chan._get("ticks") == MESSAGE
    assert put_reading_midway(chan, monkeypatch) == [Empty]
    assert put_reading_midway(chan, monkeypatch) == [MESSAGE]  # the one before, whole
    assert chan._get("ticks") == MESSAGE
    with pytest.raises(Empty):
        chan._get("ticks")


def test_the_staging_folder_is_private_and_left_empty(tmp_path: Path) -> None:
    chan = channel("config.kombu_filesystem:Transport", tmp_path)
    for _ in range(3):
        chan._put("ticks", MESSAGE)
    staging = tmp_path / "staging"
    assert stat.S_IMODE(staging.stat().st_mode) & 0o077 == 0
    assert not list(staging.iterdir())
    assert len(os.listdir(tmp_path / "queue")) == 3


def test_the_embedded_default_names_the_wall_s_transport() -> None:
    assert app.conf.broker_transport == "config.kombu_filesystem:Transport"
    with app.connection_for_write() as connection:
        assert isinstance(connection.default_channel, kombu_filesystem.Channel)
