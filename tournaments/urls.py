"""URLs of the tournaments app: the competitions' pages (tournaments/views.py)."""

from tournaments import views

app_name = "tournaments"
urlpatterns = views.urlpatterns
