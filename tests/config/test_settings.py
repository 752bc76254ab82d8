"""The embedded default: in-memory channel layer, eager Celery, ASGI serving HTTP."""

from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer
from channels.routing import ProtocolTypeRouter
from channels.testing import HttpCommunicator
from django.conf import settings

from config import celery_app
from config.asgi import application


def test_channel_layer_is_in_memory_without_redis() -> None:
    assert not settings.REDIS_URL
    assert isinstance(get_channel_layer(), InMemoryChannelLayer)


def test_celery_runs_tasks_eagerly_without_broker() -> None:
    assert not settings.CELERY_BROKER_URL.startswith(("amqp", "redis"))
    assert celery_app.main == "bohnanza"
    assert celery_app.conf.task_always_eager is True

    @celery_app.task
    def add(left: int, right: int) -> int:
        return left + right

    assert add.delay(2, 3).get(timeout=1) == 5


def test_asgi_application_serves_the_home_page(transactional_db: None) -> None:
    """The home page reads the game list (recent games): the database is needed."""
    assert isinstance(application, ProtocolTypeRouter)

    async def fetch() -> dict[str, Any]:
        communicator = HttpCommunicator(application, "GET", "/", headers=[(b"host", b"testserver")])
        response = await communicator.get_response(timeout=10)
        await communicator.wait(timeout=10)  # let Django finish and close the request
        return response

    response = async_to_sync(fetch)()
    assert response["status"] == 200
    assert b"Play, watch and study Bohnanza" in response["body"]
