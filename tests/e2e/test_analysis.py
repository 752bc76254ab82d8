"""The viewer's analysis in a real browser, in English, Hungarian and Finnish: a
signed-in player asks for the analysis of a finished game (the job runs eagerly in the
live server), and the panel shows its evaluation charts, its tables and the flagged
decisions in the log; and, the job run off the request as a worker runs it, the progress
bar shows the decisions judged while it runs."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from celery import current_app
from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from playwright.sync_api import Browser, expect
from pytest_django.live_server_helper import LiveServer

from analyses import jobs, tasks
from bohnanza_core import analysis as core
from bohnanza_core.games import Game
from replays.store import reset_games
from tests.analyses.conftest import PLAYOUTS, short_game

pytestmark = pytest.mark.e2e

SCREENSHOTS = settings.BASE_DIR / "var" / "screenshots"
WORDS = {"en": ("Analyse this game", "better: "), "hu": ("Elemezd ezt a játszmát", "jobb: "),
         "fi": ("Analysoi tämä peli", "parempi: ")}


@pytest.fixture
def game(transactional_db: None, settings: object) -> Iterator[Game]:
    settings.ANALYSIS_PLAYOUTS = PLAYOUTS  # type: ignore[attr-defined]
    current_app.conf.task_always_eager = True
    reset_games()
    User.objects.create_user("ann", password="pw-ann-123")
    yield short_game("e2e-analysis", players=("user:ann", "bot:random", "bot:heuristic"))
    reset_games()
    current_app.conf.task_always_eager = False


def test_the_analysis_panel_in_three_languages(browser: Browser, live_server: LiveServer,
                                               game: Game) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for language in ("en", "hu", "fi"):
        ask, better = WORDS[language]
        context = browser.new_context(viewport={"width": 1280, "height": 900},
                                      locale=language)
        page = context.new_page()
        page.set_default_timeout(60_000)
        client = Client()
        client.force_login(User.objects.get(username="ann"))
        context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                              "url": live_server.url}])
        page.goto(f"{live_server.url}/replays/games/{game.id}/")
        if language == "en":  # not analysed yet: ask (the job runs in the request)
            button = page.locator("#analysis-ask")
            expect(button).to_have_text(ask)
            button.click()
        else:  # analysed: shown as the page opens
            expect(page.locator("#analysis-ask")).to_be_hidden()
        details = page.locator("#analysis-details")
        expect(details).to_be_visible()
        expect(details).to_have_attribute("open", "")  # at the last step: shown
        expect(page.locator(".an-chart")).to_have_count(2)
        expect(page.locator(".an-chart path.series")).to_have_count(6)
        expect(page.locator(".an-luck tbody tr")).to_have_count(3)
        expect(page.locator(".an-accuracy tbody tr")).to_have_count(3)
        flagged = page.locator("#replay-log-lines li .log-judged")
        assert flagged.count() > 0
        assert better in (flagged.first.text_content() or "")
        assert page.locator("#replay-log-lines li.is-judged").count() >= flagged.count()
        page.locator("#analysis").scroll_into_view_if_needed()
        page.screenshot(path=str(SCREENSHOTS / f"analysis-{language}.png"), full_page=True)
        context.close()


HELD_AT = 3 * jobs.SAVE_EVERY + 1
"""The judgment the job waits at until the test has seen the bar part of the way: by
then it has saved some judgments and not all (a short game has some 170)."""


@pytest.fixture
def gate() -> Iterator[threading.Event]:
    """Opened by the test once it has seen the progress bar part of the way; the job
    waits at judgment :data:`HELD_AT` until then (a compiled engine on an idle machine
    judges a short game in a second, faster than the viewer polls)."""
    opened = threading.Event()
    yield opened
    opened.set()


@pytest.fixture
def background(transactional_db: None, settings: object, monkeypatch: Any,
               gate: threading.Event) -> Iterator[list[threading.Thread]]:
    """Jobs sent to a thread of the live server's process, which runs them as a worker
    would (``jobs.run``, saving its progress as it goes), not in the request; the
    threads, joined after the test. The job holds at judgment :data:`HELD_AT` until
    the test opens the gate."""
    settings.ANALYSIS_PLAYOUTS = 50  # type: ignore[attr-defined]
    threads: list[threading.Thread] = []
    judged = [0]
    judge = core.judge

    def held(*args: Any, **kwargs: Any) -> Any:
        judged[0] += 1
        if judged[0] == HELD_AT:
            gate.wait(timeout=120)
        return judge(*args, **kwargs)

    monkeypatch.setattr(core, "judge", held)

    def work(pk: int) -> None:
        try:
            jobs.run(pk)
        finally:
            connection.close()

    def send(pk: int) -> None:
        threads.append(threading.Thread(target=work, args=(pk,), daemon=True))
        threads[-1].start()

    monkeypatch.setattr(tasks, "send", send)
    reset_games()
    User.objects.create_user("ann", password="pw-ann-123")
    yield threads
    for thread in threads:
        thread.join(timeout=120)
    reset_games()


def test_the_progress_bar_shows_the_decisions_judged_while_the_job_runs(
        browser: Browser, live_server: LiveServer, background: list[threading.Thread],
        gate: threading.Event) -> None:
    game = short_game("e2e-progress", players=("user:ann", "bot:random", "bot:heuristic"))
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en")
    page = context.new_page()
    page.set_default_timeout(60_000)
    client = Client()
    client.force_login(User.objects.get(username="ann"))
    context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                          "url": live_server.url}])
    page.goto(f"{live_server.url}/replays/games/{game.id}/")
    page.locator("#analysis-ask").click()
    bar = page.locator("#analysis-progress")
    # part of the way: some decisions judged, not all, and the sentence says how many
    page.wait_for_function("""() => {
        const bar = document.getElementById("analysis-progress");
        return !bar.hidden && bar.value > 0 && bar.value < bar.max;
    }""")
    assert len(background) == 1  # one job, off the request
    made, total = bar.evaluate("bar => [bar.value, bar.max]")
    assert 0 < made < total
    expect(page.locator("#analysis-state")).to_contain_text(" of ")
    gate.set()
    # and once done, the bar goes and the panel comes
    expect(page.locator("#analysis-details")).to_be_visible(timeout=120_000)
    expect(bar).to_be_hidden()
    context.close()
