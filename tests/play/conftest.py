"""Fixtures shared by the live-play tests."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest


@pytest.fixture
def serving_heap() -> Iterator[None]:
    """A server's start settles its process's garbage collector
    (``play.startup.settle_the_heap``): a test that starts one gives the test process
    its own collector back afterwards."""
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)
