"""The services that the service tests rely on accept TCP connections.

A plain socket connect, nothing more: it tells a missing service apart from a
failing test, so that the tests that use a service need not.
"""

import pytest

from tests.services.conftest import require_service


@pytest.mark.parametrize(
    ("name", "host", "port"),
    [
        ("PostgreSQL", "127.0.0.1", 5432),
        ("Redis", "127.0.0.1", 6379),
        ("RabbitMQ", "127.0.0.1", 5672),
    ],
)
def test_service_accepts_connections(name: str, host: str, port: int) -> None:
    require_service(name, host, port)
