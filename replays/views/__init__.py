"""The replays app's pages, one module per page family; each exports ``urlpatterns``."""
