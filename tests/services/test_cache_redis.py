"""The production cache: Django's RedisCache at REDIS_URL (Redis at 127.0.0.1:6379).

The settings choose it from REDIS_URL; a finished game's answers are kept in it once
and served from it to every process, each perspective under its own key. Each test
uses keys of its own prefix and deletes them afterwards (never the whole database)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any
from uuid import uuid4

import pytest
from django.conf import settings as django_settings
from django.core.cache import cache
from django.test import Client

from bohnanza_core.games import Game
from replays.store import reset_games
from replays.views import viewer
from tests.factories import bot_game
from tests.services.conftest import require_service

REDIS = "redis://127.0.0.1:6379/14"


@pytest.fixture
def redis_cache(settings: Any) -> Iterator[str]:
    """The default cache on Redis, under a key prefix of this test's own."""
    require_service("Redis", "127.0.0.1", 6379)
    import redis

    prefix = f"test-{uuid4().hex[:12]}"
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                                   "LOCATION": REDIS, "KEY_PREFIX": prefix}}
    yield prefix
    client = redis.Redis.from_url(REDIS)
    for key in client.scan_iter(f"{prefix}:*"):
        client.delete(key)
    client.close()


def test_redis_url_makes_redis_the_cache() -> None:
    require_service("Redis", "127.0.0.1", 6379)
    code = ("import django; django.setup(); from django.conf import settings; "
            "from django.core.cache import cache; "
            "print(settings.CACHES['default']['BACKEND']); "
            "key = 'probe-' + __import__('uuid').uuid4().hex; cache.set(key, 'yes', 30); "
            "print(cache.get(key)); cache.delete(key)")
    env = {**os.environ, "REDIS_URL": REDIS, "DJANGO_SETTINGS_MODULE": "config.settings"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True, cwd=django_settings.BASE_DIR).stdout.split()
    assert out == ["django.core.cache.backends.redis.RedisCache", "yes"]


@pytest.fixture
def finished(db: None) -> Iterator[Game]:
    reset_games()
    yield bot_game("redis-cache-finished")
    reset_games()


def test_answers_are_kept_in_redis_once_and_apart_per_perspective(
        redis_cache: str, finished: Game, monkeypatch: pytest.MonkeyPatch) -> None:
    import redis

    built: list[tuple[str, int]] = []
    real = viewer.step_answer

    def counting(request: Any, opened: Any, step: int) -> dict[str, Any]:
        built.append((str(opened.perspective), step))
        return real(request, opened, step)

    monkeypatch.setattr(viewer, "step_answer", counting)
    client = Client()
    url = f"/replays/games/{finished.id}/steps/40.json"
    seat0 = client.get(url, {"perspective": "seat-0"})
    seat1 = client.get(url, {"perspective": "seat-1"})
    assert seat0.json()["perspective"] == "seat-0"
    assert seat1.json()["perspective"] == "seat-1"
    assert seat0.json()["html"] != seat1.json()["html"]
    # Another process (this one with its memory forgotten) finds them in Redis.
    viewer._stored_record.cache_clear()
    assert client.get(url, {"perspective": "seat-0"}).json() == seat0.json()
    assert client.get(url, {"perspective": "seat-1"}).json() == seat1.json()
    assert built == [("0", 40), ("1", 40)]
    keys = list(redis.Redis.from_url(REDIS).scan_iter(f"{redis_cache}:*"))
    assert len(keys) >= 4  # two parts and two whole answers
    assert cache.get("nothing-" + uuid4().hex) is None
