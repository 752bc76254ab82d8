"""Pages of the replays app: games (filled in by its owner)."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
