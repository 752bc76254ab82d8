"""Shared test configuration.

pytest-django reads DJANGO_SETTINGS_MODULE from pyproject.toml; tests that touch
the database ask for it with the ``db`` fixture or ``@pytest.mark.django_db``.
"""

import os
from collections.abc import Iterator

import django.conf
import pytest


def pytest_configure(config: object) -> None:
    """Tables in tests trade at the bots' pace unless a test sets a trading window
    (``create_table(..., trade_seconds=n)``): the site's default window (15 s,
    ``PLAY_TRADE_SECONDS``) would make every game of people and bots a test plays last
    minutes. Set before any live server's process is forked, which inherits it, and in
    the environment, which the servers and workers the tests start read it from."""
    os.environ["BOHNANZA_TRADE_SECONDS"] = "0"
    django.conf.settings.PLAY_TRADE_SECONDS = 0


def pytest_xdist_auto_num_workers(config: object) -> int:
    """``-n auto``: one worker more than the cores. A third of the suite's time is spent
    waiting (on browsers, servers, workers and subprocesses): with one worker a core,
    the whole run kept the two cores of the README's machine 63% busy (19.6 min of CPU
    in 16.3 min of wall time)."""
    return (os.cpu_count() or 1) + 1


@pytest.fixture(autouse=True)
def _the_default_language() -> Iterator[None]:
    """Every test starts in the site's default language: a request read in Finnish or
    Hungarian leaves its language active in the thread (LocaleMiddleware does not put
    it back), and the next test's messages would come out translated."""
    from django.utils import translation

    translation.activate(django.conf.settings.LANGUAGE_CODE)
    yield
    translation.deactivate()
