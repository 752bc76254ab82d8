"""URLs of the play app: the home and rules pages, the lobby and its tables, accounts
and their bot accounts, the websocket protocol's schemas."""

from django.urls import path

from play import accounts, botaccounts, lobby, protocol, views

app_name = "play"

urlpatterns = [
    path("", views.home, name="home"),
    path("rules/", views.rules, name="rules"),
    *lobby.urlpatterns,
    *accounts.urlpatterns,
    *protocol.urlpatterns,
    *botaccounts.urlpatterns,
]
