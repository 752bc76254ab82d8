"""The workers' heartbeat (tournaments/core/workers.py): the beat's schedule holds it, a
worker's run of it stamps the row, and ``/health/`` and a running competition's page say
when the workers have been away longer than ``WORKER_SILENCE_SECONDS`` while a
competition waits for them, and not otherwise."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.test import Client
from django.urls import reverse
from django.utils import timezone

from bohnanza_core.rulesets import ruleset_for
from config.celery import app
from tournaments import tasks
from tournaments.core import workers
from tournaments.core.store import Competitions, create
from tournaments.models import WorkersSeen

BOTS = ["heuristic@builtin", "random@builtin", "nontrading@builtin"]
LINE = "The workers have not been seen since"


def test_the_beat_sends_the_heartbeat_to_a_worker_often(settings: Any) -> None:
    entry = app.conf.beat_schedule["workers seen"]
    assert entry["task"] == workers.HEARTBEAT_TASK in app.tasks
    assert entry["schedule"] == settings.WORKER_HEARTBEAT_SECONDS < settings.WORKER_SILENCE_SECONDS
    assert entry["options"]["expires"] == settings.WORKER_HEARTBEAT_SECONDS


def test_a_worker_s_heartbeat_stamps_the_one_row(competitions: Competitions) -> None:
    assert workers.last_seen() is None
    tasks.workers_seen.apply()
    first = workers.last_seen()
    assert first is not None and timezone.now() - first < timedelta(seconds=5)
    tasks.workers_seen.apply()
    assert WorkersSeen.objects.count() == 1 and workers.last_seen() >= first  # type: ignore[operator]


def health() -> tuple[int, dict[str, Any]]:
    answer = Client().get("/health/")
    return answer.status_code, answer.json()


def test_health_is_ok_with_silent_workers_while_nothing_waits_for_them(
        competitions: Competitions) -> None:
    assert health() == (200, {**health()[1], "ok": True,
                              "worker": {"seen_seconds_ago": None, "silent": False}})
    workers.seen(timezone.now() - timedelta(hours=1))
    status, body = health()
    assert status == 200 and body["worker"] == {"seen_seconds_ago": 3600, "silent": False}


def test_a_ladder_waiting_for_silent_workers_makes_health_503_and_its_page_say_so(
        competitions: Competitions, settings: Any) -> None:
    settings.WORKER_SILENCE_SECONDS = 30
    ladder = create("Waiting ladder", "ladder", {}, ruleset_for("classic", 3), 3, BOTS,
                    every=60)
    tasks.schedule_ticks(ladder)
    page = reverse("tournaments:ladder", args=[ladder.id])

    workers.seen(timezone.now() - timedelta(seconds=20))
    status, body = health()
    assert (status, body["ok"], body["worker"]) == (
        200, True, {"seen_seconds_ago": 20, "silent": False})
    assert LINE not in Client().get(page, follow=True).content.decode()

    workers.seen(timezone.now() - timedelta(seconds=31))
    status, body = health()
    assert (status, body["ok"], body["worker"]) == (
        503, False, {"seen_seconds_ago": 31, "silent": True})
    text = Client().get(page, follow=True).content.decode()
    assert LINE in text and "its games wait for them." in text

    WorkersSeen.objects.all().delete()
    assert health()[1]["worker"] == {"seen_seconds_ago": None, "silent": True}
    assert ("The workers have not been seen yet: its games wait for them."
            in Client().get(page, follow=True).content.decode())

    tasks.workers_seen.apply()
    assert health()[0] == 200
    assert "have not been seen" not in Client().get(page, follow=True).content.decode()
