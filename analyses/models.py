"""One stored analysis per game and means (bot, its version, playouts a decision).

An analysis is a derived record: it names what made it, so that it can be recomputed
and is never mistaken for one made by other means. While its job runs the row holds the
judgments made so far, saved every few judgments: a worker killed with SIGKILL loses at
most those since the last save, and the job delivered again goes on from the rest
(``bohnanza_core.analysis.analyse(done=...)``).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone

LEASE = timedelta(seconds=60)
"""How long a running job's last sign of life holds its analysis: a second delivery of
the job within it waits (the first is still at work); after it, the first is taken for
dead and the second goes on from the saved judgments."""
STALE = timedelta(minutes=10)
"""A queued or running analysis that has shown no sign of life for this long is sent
to the workers again when someone asks for it (its message was lost with a worker)."""


class Analysis(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    game_id = models.UUIDField()
    bot = models.CharField(max_length=32)
    version = models.CharField(max_length=16)
    playouts = models.PositiveIntegerField(help_text="playouts a decision")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.QUEUED)
    made = models.PositiveIntegerField(default=0, help_text="decisions judged so far")
    total = models.PositiveIntegerField(default=0, help_text="decisions to judge")
    judgments = models.JSONField(
        default=list, blank=True,
        help_text="the judgments made so far (each Judgment as a dict): a job killed "
                  "goes on from them")
    result = models.JSONField(null=True, blank=True,
                              help_text="the finished Analysis (Analysis.as_dict())")
    error = models.TextField(blank=True, default="")
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                     on_delete=models.SET_NULL, related_name="analyses")
    requested_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat = models.DateTimeField(
        null=True, blank=True, help_text="the running job's last save (see LEASE)")
    worker = models.CharField(max_length=64, blank=True, default="",
                              help_text="the job delivery that holds the lease")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game_id", "bot", "version", "playouts"],
                                               name="one_analysis_per_game_and_means")]
        indexes = [models.Index(fields=["requested_by", "requested_at"])]

    def __str__(self) -> str:
        return f"{self.game_id} by {self.bot} {self.version} at {self.playouts}: {self.status}"

    @property
    def busy(self) -> bool:
        """Queued or running."""
        return self.status in (self.Status.QUEUED, self.Status.RUNNING)

    def stale(self, now: datetime | None = None) -> bool:
        """Busy, but with no sign of life for :data:`STALE`: its job was lost."""
        last = self.heartbeat or self.requested_at
        return self.busy and last < (now or timezone.now()) - STALE
