"""URLs of the tournaments app: the competitions' pages, one set for every format
(tournaments/views.py), each entrant's statistics (tournaments/entrant_views.py), and
the bot tests (tournaments/bottest_views.py)."""

from tournaments import bottest_views, entrant_views, views

app_name = "tournaments"
urlpatterns = bottest_views.urlpatterns + views.urlpatterns + entrant_views.urlpatterns
