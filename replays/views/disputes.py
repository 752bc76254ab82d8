"""Pages of the replays app: disputes (filled in by its owner)."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
