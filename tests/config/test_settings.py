"""The embedded default: in-memory channel layer, Celery over files, ASGI serving HTTP."""

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


def test_celery_keeps_its_messages_in_files_under_var_without_broker() -> None:
    """The embedded default: kombu's filesystem transport, for the worker process that
    run.py start starts (tests/tournaments/test_embedded_worker.py runs one)."""
    assert settings.CELERY_BROKER_URL == "filesystem://localhost/"
    assert celery_app.main == "bohnanza"
    assert not celery_app.conf.task_always_eager
    options = celery_app.conf.broker_transport_options
    queue = settings.VAR_DIR / "celery" / "queue"
    assert options["data_folder_in"] == options["data_folder_out"] == str(queue)
    assert queue.is_dir()
    assert celery_app.conf.task_acks_late and celery_app.conf.task_reject_on_worker_lost


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


def test_the_embedded_broker_url_names_a_host_so_kombu_does_not_warn(caplog) -> None:
    """kombu warns "No hostname was supplied" for a URL without one, on every manage.py
    call that sends a task."""
    import logging

    with caplog.at_level(logging.WARNING, logger="kombu.connection"), \
            celery_app.connection_for_write() as connection:
        connection.info()
    assert "No hostname" not in caplog.text
