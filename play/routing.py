"""The websocket routes (config/asgi.py mounts them): a table's socket and the lobby's;
any other address is refused with its own code (``no_socket``), where the router raised
(an HTTP 500 and a traceback in the log)."""

from django.urls import path, re_path

from play.consumers import LobbyConsumer, NoSocketConsumer, TableConsumer

websocket_urlpatterns = [
    path("ws/tables/<str:table_id>/", TableConsumer.as_asgi()),
    path("ws/lobby/", LobbyConsumer.as_asgi()),
    re_path(r"", NoSocketConsumer.as_asgi()),
]
