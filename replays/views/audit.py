"""Pages of the replays app: audit (filled in by its owner)."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
