"""Consent in a real browser (issue 26): an organiser names Ann on the new league form;
the league waits, its page telling the organiser that Ann has not answered; Ann finds
the invitation from her profile, accepts it on her invitations page, and once the
organiser starts the first round her games are hers to open. Screenshots:
``var/screenshots/invitations.png`` (Ann's page), ``league-invited.png`` (the league as
Ann sees it before answering), ``league-answers.png`` (the organiser's view)."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from playwright.sync_api import Browser, Page, expect
from pytest_django.live_server_helper import LiveServer

from tests.e2e.conftest import sign_in
from tests.tournaments.conftest import competitions  # noqa: F401 (fixture)
from tournaments import tasks
from tournaments.core.store import Competitions
from tournaments.models import CompetitionTable

pytestmark = pytest.mark.e2e

SCREENSHOTS = settings.BASE_DIR / "var" / "screenshots"


def test_an_invited_person_accepts_and_gets_their_games(
        page: Page, browser: Browser, live_server: LiveServer,
        competitions: Competitions, django_user_model: Any,  # noqa: F811
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tasks, "send_deals", lambda *args: None)  # no bots' games
    django_user_model.objects.create_user("olga", password="pw-olga-1234")
    django_user_model.objects.create_user("ann", password="pw-ann-12345")
    base = live_server.url
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    sign_in(page, base, "olga", "pw-olga-1234", "/tournaments/new/league/")
    page.fill("#id_name", "Club night")
    page.fill("#id_bots", "heuristic")
    page.fill("#id_people", "ann")
    page.fill("#id_divisions", "1")
    page.fill("#id_moves", "0")
    page.fill("#id_seasons", "1")
    page.get_by_role("button", name="Create").click()
    page.wait_for_url(f"{base}/tournaments/*/")
    (lid,) = competitions.ids()
    league_url = f"{base}/tournaments/{lid}/"
    expect(page).to_have_url(league_url)
    expect(page.get_by_role("heading", name="Waiting for its first round")).to_be_visible()
    answers = page.locator("table.invitation-answers tbody tr")
    expect(answers).to_have_count(1)
    expect(answers.first).to_contain_text("ann")
    expect(answers.first).to_contain_text("not answered yet")
    assert not CompetitionTable.objects.exists()

    ann_context = browser.new_context(viewport={"width": 1280, "height": 900})
    ann = ann_context.new_page()
    try:
        sign_in(ann, base, "ann", "pw-ann-12345")
        ann.goto(league_url)
        expect(ann.get_by_role("heading", name="You are invited")).to_be_visible()
        ann.screenshot(path=str(SCREENSHOTS / "league-invited.png"), full_page=True)
        ann.get_by_role("link", name="ann", exact=True).click()  # the header's profile link
        expect(ann.locator("strong.count")).to_have_text("1 to answer")
        ann.get_by_role("link", name="Invitations").click()
        expect(ann).to_have_url(f"{base}/tournaments/invitations/")
        row = ann.locator("table.invitations tbody tr")
        expect(row).to_have_count(1)
        expect(row).to_contain_text("Club night")
        expect(row).to_contain_text("olga")
        ann.screenshot(path=str(SCREENSHOTS / "invitations.png"), full_page=True)
        row.get_by_role("button", name="Accept").click()
        expect(ann).to_have_url(f"{base}/tournaments/invitations/")
        expect(ann.locator(".message-success")).to_have_text("You are entered in Club night.")
        expect(row).to_contain_text("accepted")
        expect(row.get_by_role("button")).to_have_count(0)

        page.reload()
        expect(answers.first).to_contain_text("accepted")
        expect(page.locator("ul.entrants")).to_contain_text("ann")
        page.screenshot(path=str(SCREENSHOTS / "league-answers.png"), full_page=True)
        page.get_by_role("button", name="Start the first round").click()
        expect(page.get_by_role("heading", name="Season 1 (running)")).to_be_visible()
        league = competitions.get(lid)
        tables = CompetitionTable.objects.filter(competition_id=league.id)
        assert tables.count() == len(league.rounds[0].games) == 2

        ann.goto(league_url)
        expect(ann.locator(".my-fixtures li")).to_have_count(2)
    finally:
        ann_context.close()
