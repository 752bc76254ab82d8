"""URLs of the replays app: the game list, the replay viewer, share links and embeds,
export and import, the audit page and disputes. Each page family keeps its own
``urlpatterns`` next to its views."""

from replays.views import audit, disputes, games, transfer, viewer

app_name = "replays"

urlpatterns = [
    *games.urlpatterns,
    *viewer.urlpatterns,
    *transfer.urlpatterns,
    *audit.urlpatterns,
    *disputes.urlpatterns,
]
