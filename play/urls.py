"""URLs of the play app: the home and rules pages, the lobby and its tables, accounts
and their bot accounts."""

from django.urls import path

from play import accounts, botaccounts, lobby, views

app_name = "play"

urlpatterns = [
    path("", views.home, name="home"),
    path("rules/", views.rules, name="rules"),
    *lobby.urlpatterns,
    *accounts.urlpatterns,
    *botaccounts.urlpatterns,
]
