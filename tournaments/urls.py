"""URLs of the tournaments app: the competitions' pages (tournaments/views.py), the
ladders' (tournaments/ladder_views.py), the leagues' (tournaments/league_views.py) and
each entrant's statistics (tournaments/entrant_views.py)."""

from tournaments import entrant_views, ladder_views, league_views, views

app_name = "tournaments"
urlpatterns = (views.urlpatterns + ladder_views.urlpatterns + league_views.urlpatterns
               + entrant_views.urlpatterns)
