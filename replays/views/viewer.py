"""Pages of the replays app: viewer (filled in by its owner)."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
