"""Pages of the replays app: transfer (filled in by its owner)."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
