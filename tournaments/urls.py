"""URLs of the tournaments app: the competitions' pages (tournaments/views.py) and the
ladders' (tournaments/ladder_views.py)."""

from tournaments import ladder_views, views

app_name = "tournaments"
urlpatterns = views.urlpatterns + ladder_views.urlpatterns
