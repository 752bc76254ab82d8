"""Tests against real services: PostgreSQL, Redis, RabbitMQ.

A test (or fixture) that needs one calls ``require_service`` first. Where the service
is not reachable the test skips with the reason, unless BOHNANZA_REQUIRE_SERVICES=1
(as .ci/run sets), where it fails instead.
"""

import os
import socket

import pytest

CONNECT_TIMEOUT_SECONDS = 2.0


def services_required() -> bool:
    """Whether a missing service is a failure rather than a reason to skip."""
    return os.environ.get("BOHNANZA_REQUIRE_SERVICES") == "1"


def require_service(name: str, host: str, port: int) -> None:
    """Return if a TCP connection to host:port opens; otherwise skip (or fail) the test.

    This checks reachability only: that something accepts connections on the port,
    not that it speaks the service's protocol or lets us in.
    """
    try:
        with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_SECONDS):
            return
    except OSError as error:
        reason = f"{name} not reachable at {host}:{port} ({error.__class__.__name__}: {error})"
    if services_required():
        pytest.fail(f"{reason}; BOHNANZA_REQUIRE_SERVICES=1 requires it", pytrace=False)
    pytest.skip(reason)
