"""``run.py start``'s server serves ``/static/`` through WhiteNoise alone: a path that
climbs out of the static folder is a clean 400 there, where the debug server's own
static handler (daphne's ``runserver`` without ``--nostatic``) raised
SuspiciousFileOperation, a 500 ("Exception inside application")."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.testing import HttpCommunicator
from django.core.management import load_command_class
from django.test import override_settings

import run


def _served_application() -> Any:
    """The ASGI application daphne's ``runserver`` serves when started as run.py starts
    it (its own options parsed, in debug as ``run.py start`` is by default)."""
    command = run.server_command("8000")
    assert command[1:3] == ["manage.py", "runserver"]
    runserver = load_command_class("daphne", "runserver")
    options = vars(runserver.create_parser("manage.py", "runserver").parse_args(command[3:]))
    return runserver.get_application(options)


@pytest.mark.parametrize(("path", "content"), [
    ("/static/..%2fconfig%2fsettings.py", b"Daphne first: its runserver command"),
    ("/static/..%2f..%2fetc%2fpasswd", b"root:x:0:0"),
    ("/static/css/..%2f..%2frun.py", b"def server_command"),
])
@override_settings(DEBUG=True)
def test_a_path_out_of_the_static_folder_is_a_4xx_under_run_py_start(path: str,
                                                                      content: bytes) -> None:
    async def get() -> dict[str, Any]:
        return await HttpCommunicator(_served_application(), "GET", path).get_response(
            timeout=10)

    answer = async_to_sync(get)()
    assert 400 <= answer["status"] < 500
    assert content not in answer["body"]  # not the file (debug's error page)


@override_settings(DEBUG=True)
def test_static_files_are_still_served_under_run_py_start() -> None:
    async def get() -> list[dict[str, Any]]:
        communicator = HttpCommunicator(_served_application(), "GET", "/static/favicon.svg")
        await communicator.send_input({"type": "http.request", "body": b""})
        messages = [await communicator.receive_output(timeout=10)]
        while messages[-1]["type"] != "http.response.body" or messages[-1].get("more_body"):
            messages.append(await communicator.receive_output(timeout=10))
        return messages

    start, *bodies = async_to_sync(get)()
    assert start["status"] == 200
    assert b"<svg" in b"".join(m.get("body", b"") for m in bodies)
