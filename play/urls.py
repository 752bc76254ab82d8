from django.urls import path

from . import lobby, views

app_name = "play"

urlpatterns = [
    path("", views.home, name="home"),
    path("rules/", views.rules, name="rules"),
    *lobby.urlpatterns,
]
