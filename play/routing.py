"""The websocket routes (config/asgi.py mounts them): a table's socket and the lobby's."""

from django.urls import path

from play.consumers import LobbyConsumer, TableConsumer

websocket_urlpatterns = [
    path("ws/tables/<str:table_id>/", TableConsumer.as_asgi()),
    path("ws/lobby/", LobbyConsumer.as_asgi()),
]
