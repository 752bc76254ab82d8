"""The audit and dispute flow in a real browser: a player audits a finished game and opens
a dispute, an arbiter examines the record and rules, the player reads the ruling."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from bohnanza_core.events import BeanPlanted
from bohnanza_core.export import export_record
from bohnanza_core.games import Game
from replays.disputes import disputes, reset_disputes
from replays.store import games, reset_games
from tests.e2e.conftest import sign_in
from tests.factories import bot_game

pytestmark = pytest.mark.e2e

SCREENSHOTS = settings.BASE_DIR / "var" / "screenshots"
PASSWORD = "a-long-test-password-1"


@pytest.fixture
def finished(transactional_db: None, django_user_model: type[User]) -> Iterator[Game]:
    """A finished game of Ann against two bots; Zed is an arbiter."""
    reset_games()
    reset_disputes()
    game = bot_game("e2e-dispute", players=("user:ann", "bot:nontrading", "bot:random"))
    django_user_model.objects.create_user("ann", password=PASSWORD)
    django_user_model.objects.create_user("zed", password=PASSWORD, is_staff=True)
    yield game
    reset_disputes()
    reset_games()


def sign_out(page: Page) -> None:
    page.get_by_role("button", name="Sign out").click()
    page.wait_for_load_state()


def test_a_player_disputes_an_event_and_an_arbiter_rules(
        page: Page, live_server: LiveServer, finished: Game, tmp_path: Path) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    base = live_server.url
    game = finished
    record = games().record(game.id)
    disputed = next(e for e in record if isinstance(e.event, BeanPlanted)
                    and e.actor == "bot:nontrading" and e.seq > 30)

    # Ann audits the game: the stored record is valid; a copy she edited is not.
    audit = f"/replays/games/{game.id}/audit/"
    sign_in(page, base, "ann", PASSWORD, audit)
    expect(page.get_by_role("heading", level=1)).to_contain_text("Audit of game")
    stored = page.locator(".verdict").first
    expect(stored).to_have_class("verdict verdict-ok")
    expect(stored).to_contain_text(f"{len(record)} events; the chain is intact")
    expect(page.locator("table.checks").first.locator(".badge-ok")).to_have_count(6)
    expect(page.get_by_text(game.head_hash).first).to_be_visible()

    lines = export_record(record, head=game.head_hash).splitlines()
    entry = json.loads(lines[disputed.seq])
    entry["field"] = 1 - entry["field"]  # the bean planted in the other field
    lines[disputed.seq] = json.dumps(entry)
    edited = tmp_path / "edited.jsonl"
    edited.write_text("\n".join(lines) + "\n")
    page.set_input_files("#id_record", str(edited))
    page.get_by_role("button", name="Verify").click()
    result = page.locator(".upload-result")
    expect(result).to_contain_text("Verdict on edited.jsonl")
    expect(result.locator(".verdict")).to_have_class("verdict verdict-bad")
    expect(result).to_contain_text("the first bad event is #")
    expect(result).to_contain_text(f"differs from the stored record of this game from "
                                   f"event #{disputed.seq}")
    page.screenshot(path=str(SCREENSHOTS / "audit.png"), full_page=True)

    # Ann opens a dispute about that event.
    page.get_by_role("link", name="Something wrong? Open a dispute").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Open a dispute")
    page.fill("#id_event_seq", str(disputed.seq))
    complaint = "The nontrading bot planted into a field it could not use here."
    page.fill("#id_complaint", complaint)
    page.get_by_role("button", name="Open the dispute").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text(
        f"Dispute about event #{disputed.seq}")
    expect(page.locator("h1 .status")).to_have_text("open")
    expect(page.locator(".complaint")).to_contain_text(complaint)
    expect(page.locator("table.record")).to_have_count(0)  # the evidence is the arbiter's
    # (event store tables outlive other browser tests' flushes: look for this game's)
    (dispute,) = [d for d in disputes().all() if d.game_id == game.id]
    detail = f"/replays/disputes/{dispute.id}/"
    sign_out(page)

    # Zed, an arbiter, finds it in the list and examines the evidence.
    sign_in(page, base, "zed", PASSWORD, "/")
    page.get_by_role("link", name="Disputes").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Disputes")
    page.get_by_role("link", name=complaint).click()
    page.wait_for_url(f"{base}{detail}")
    expect(page.locator(".verdict").first).to_have_class("verdict verdict-ok")
    around = page.locator("table.record").first
    expect(around.locator("tr.disputed")).to_contain_text("bot nontrading")
    at = disputed.at or ""
    expect(around.locator("tr.disputed td.at")).to_contain_text(at[:19].replace("T", " "))
    for heading in (f"Before (after event #{disputed.seq - 1})", f"After event #{disputed.seq}"):
        expect(page.get_by_role("heading", name=heading, exact=True)).to_be_visible()
    expect(page.locator("table.snap-seats")).to_have_count(2)
    changed = page.locator(".snap-box").nth(1).locator("td.changed")
    expect(changed.first).to_be_visible()
    page.screenshot(path=str(SCREENSHOTS / "dispute_arbiter.png"), full_page=True)

    page.get_by_label("Rejected").check()
    explanation = ("Both fields were legal for this bean: the rules let a player plant "
                   "into any field that is empty or holds the same kind.")
    page.fill("#id_explanation", explanation)
    page.get_by_role("button", name="Record the ruling").click()
    expect(page.locator(".ruling-box")).to_contain_text("Rejected: the record stands.")
    assert disputes().dispute(dispute.id).ruling == "rejected"
    sign_out(page)

    # Ann reads the ruling.
    sign_in(page, base, "ann", PASSWORD, detail)
    expect(page.locator("h1 .status")).to_have_text("rejected")
    box = page.locator(".ruling-box")
    expect(box).to_contain_text("Rejected: the record stands.")
    expect(box).to_contain_text(explanation)
    expect(box).to_contain_text("Ruled by zed")
    expect(page.get_by_role("link", name=f"Watch the game at event #{disputed.seq}"))\
        .to_be_visible()
    page.screenshot(path=str(SCREENSHOTS / "dispute_player.png"), full_page=True)
