"""URLs of the tournaments app: the competitions' pages, one set for every format
(tournaments/views.py), and each entrant's statistics (tournaments/entrant_views.py)."""

from tournaments import entrant_views, views

app_name = "tournaments"
urlpatterns = views.urlpatterns + entrant_views.urlpatterns
