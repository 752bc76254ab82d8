"""The replay viewer in a real browser: step with buttons and keys, jump to a turn and an
event, change perspective, play at speed, reopen the share link, frame the embed, and
import a file through the form."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from bohnanza_core import ruleset_for
from bohnanza_core.events import BeanPlanted, TurnStarted
from bohnanza_core.export import export_jsonl, export_record
from bohnanza_core.games import Game
from bohnanza_core.simulator import bot_classes, play_game
from bohnanza_core.views import EVERYTHING
from replays.store import games, reset_games
from tests.factories import bot_game

pytestmark = pytest.mark.e2e

SCREENSHOTS = settings.BASE_DIR / "var" / "screenshots"


@pytest.fixture
def game(transactional_db: None) -> Iterator[Game]:
    """A finished four-player bot game with trades, in a fresh store."""
    reset_games()
    yield bot_game("e2e-viewer", bots=("heuristic", "heuristic", "random", "nontrading"))
    reset_games()


def shown_step(page: Page) -> int:
    return int(page.locator("#replay-table .rt").get_attribute("data-step") or 0)


def expect_step(page: Page, step: int) -> None:
    expect(page.locator("#replay-table .rt")).to_have_attribute("data-step", str(step))
    expect(page.locator("#rc-step")).to_have_value(str(step))
    expect(page.locator("#replay-log-lines li.is-current")).to_have_attribute(
        "data-seq", str(step))
    assert f"step={step}&" in page.url


def test_step_jump_perspective_play_and_share(page: Page, live_server: LiveServer,
                                              game: Game) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    record = games().record(game.id)
    base = f"{live_server.url}/replays/games/{game.id}/"

    page.goto(base)
    expect(page.locator("#replay-table .rt")).to_have_attribute("data-step", str(game.version))
    expect(page.locator("#replay-table .rt")).to_have_attribute("data-perspective", "everything")
    expect(page.locator(".rt-status")).to_contain_text("Game over")

    # Buttons, stepping by single event (the default steps by decision:
    # tests/e2e/test_table_view.py).
    page.locator("#rc-mode").select_option("event")
    page.get_by_role("link", name="First event").click()
    expect_step(page, 1)
    page.get_by_role("link", name="Forward one step").click()
    page.get_by_role("link", name="Forward one step").click()
    expect_step(page, 3)
    page.get_by_role("link", name="Back one step").click()
    expect_step(page, 2)

    # Keys: arrows, End, Home.
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect_step(page, 4)
    page.keyboard.press("ArrowLeft")
    expect_step(page, 3)
    page.keyboard.press("End")
    expect_step(page, game.version)
    page.keyboard.press("Home")
    expect_step(page, 1)

    # Jump to turn 5, then to an event by number, then by clicking a log line.
    turn5 = next(e.seq for e in record if isinstance(e.event, TurnStarted) and e.event.turn == 5)
    page.locator("#rc-turn").select_option(label="turn 5")
    expect_step(page, turn5)
    expect(page.locator(".rt-status")).to_contain_text("Turn 5")
    expect(page.locator("#replay-event")).to_contain_text(f"#{turn5}")
    expect(page.locator("#replay-event")).to_contain_text("Turn 5:")
    page.locator("#rc-step").fill("250")
    page.locator("#rc-step").press("Enter")
    expect_step(page, 250)
    page.locator('#replay-log-lines li[data-seq="230"] a').click()
    expect_step(page, 230)
    shown_hash = page.locator(".rt-hash-value").text_content() or ""
    assert games().game(game.id, 230).head_hash == shown_hash

    # Change perspective: seat 1 sees its hand and only the backs of the others'.
    at = games().game(game.id, 230).state
    page.locator("#rc-perspective").select_option("seat-1")
    expect(page.locator("#replay-table .rt")).to_have_attribute("data-perspective", "seat-1")
    expect_step(page, 230)
    assert "perspective=seat-1" in page.url
    seat1 = page.locator('.rt-seat[data-seat="1"] .rt-hand .card')
    expect(seat1).to_have_count(len(at.hands[1]))
    assert seat1.evaluate_all("cs => cs.map(c => Number(c.dataset.card))") == at.hands[1]
    expect(page.locator('.rt-seat[data-seat="0"] .rt-hand .card.back')).to_have_count(
        len(at.hands[0]))
    expect(page.locator('.rt-seat[data-seat="0"] .rt-hand [data-card]')).to_have_count(0)
    expect(page.locator(".rt-secrets")).to_have_count(0)
    # The log is the seat's now: seat 0's deals are "a card".
    deal = next(e.seq for e in record if type(e.event).__name__ == "CardDealt"
                and getattr(e.event, "seat", None) == 0)
    expect(page.locator(f'#replay-log-lines li[data-seq="{deal}"]')).to_contain_text("a card")

    # Play at 8x, then pause with the space bar.
    page.locator("#rc-speed").select_option("8")
    start = shown_step(page)
    page.get_by_role("button", name="Play").click()
    page.wait_for_function(f"() => Number(document.querySelector('#replay-table .rt')"
                           f".dataset.step) >= {start + 6}", timeout=10_000)
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press(" ")
    expect(page.get_by_role("button", name="Play")).to_be_visible()
    paused = shown_step(page)
    page.wait_for_timeout(500)
    assert shown_step(page) == paused
    assert paused >= start + 6
    expect_step(page, paused)

    # Back to a readable moment mid-trade for the screenshot.
    trade = next(e.seq for e in record if type(e.event).__name__ == "OfferMade"
                 and e.seq > 150)
    page.locator("#rc-step").fill(str(trade))
    page.locator("#rc-step").press("Enter")
    expect_step(page, trade)
    expect(page.locator(".rt-offer")).not_to_have_count(0)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "viewer.png"), full_page=True)

    # The share link reopens the same step and perspective.
    link = page.locator("#share-link").input_value()
    assert link == f"{base}?step={trade}&perspective=seat-1"
    other = page.context.new_page()
    other.goto(link)
    expect(other.locator("#replay-table .rt")).to_have_attribute("data-step", str(trade))
    expect(other.locator("#replay-table .rt")).to_have_attribute("data-perspective", "seat-1")
    other.close()
    assert errors == []


def test_a_replay_opened_at_its_end_counts_as_watched(page: Page, live_server: LiveServer,
                                                       game: Game) -> None:
    """The game lists hide a finished game's result until its reader has seen the end:
    a replay opened at its last step (as the live table's Replay link opens it) has."""
    watched = "() => JSON.parse(localStorage.getItem('bohnanza.watched') || '[]')"
    table = page.locator("#replay-table .rt")
    page.goto(f"{live_server.url}/replays/games/{game.id}/?step=3")
    expect(table).to_have_attribute("data-step", "3")
    assert page.evaluate(watched) == []
    page.goto(f"{live_server.url}/replays/games/{game.id}/?step={game.version}")
    expect(table).to_have_attribute("data-step", str(game.version))
    page.wait_for_function(f"({watched})().length > 0")
    assert page.evaluate(watched) == [str(game.id)]


def test_embed_renders_in_an_iframe(page: Page, live_server: LiveServer, game: Game) -> None:
    page.goto(f"{live_server.url}/replays/games/{game.id}/?step=120&perspective=spectator")
    snippet = page.locator("#embed-code").input_value()
    assert f"/replays/games/{game.id}/embed/?step=120&perspective=spectator" in snippet
    page.set_content(f"<!DOCTYPE html><html><body style='margin:16px;font-family:sans-serif'>"
                     f"<h1>A blog post about a game</h1>{snippet}</body></html>")
    frame_element = page.locator("iframe")
    expect(frame_element).to_be_visible()
    frame = page.frame_locator("iframe")
    expect(frame.locator("#replay-table .rt")).to_have_attribute("data-step", "120")
    expect(frame.locator(".site-header")).to_have_count(0)
    frame.locator("#rc-mode").select_option("event")
    frame.get_by_role("link", name="Forward one step").click()
    expect(frame.locator("#replay-table .rt")).to_have_attribute("data-step", "121")
    expect(frame.locator("#embed-open")).to_have_attribute(
        "href", re.compile(rf"/replays/games/{game.id}/\?step=121&perspective=spectator$"))
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": 1040, "height": 760})
    page.screenshot(path=str(SCREENSHOTS / "viewer_embed.png"), full_page=True)


def test_import_through_the_form(page: Page, live_server: LiveServer, game: Game,
                                 django_user_model: type[User]) -> None:
    django_user_model.objects.create_user("ann", password="ann-secret-pw-1")
    text = export_record(games().record(game.id), EVERYTHING)

    page.goto(f"{live_server.url}/replays/import/")
    expect(page).to_have_url(re.compile(r"/accounts/login/"))
    page.get_by_label("Username").fill("ann")
    page.get_by_label("Password").fill("ann-secret-pw-1")
    page.get_by_role("button", name=re.compile("Sign in|Log in", re.I)).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Import a game")

    # A tampered file: refused, with the audit's verdict.
    lines = text.splitlines()
    seq = next(e.seq for e in games().record(game.id)
               if isinstance(e.event, BeanPlanted) and e.seq > 100)
    entry = json.loads(lines[seq])
    entry["card"] = (entry["card"] + 1) % 104
    lines[seq] = json.dumps(entry)
    page.locator("#import-file").set_input_files(files=[{
        "name": "tampered.jsonl", "mimeType": "application/x-ndjson",
        "buffer": ("\n".join(lines) + "\n").encode()}])
    page.get_by_role("button", name="Check and import").click()
    expect(page.locator(".import-error")).to_contain_text("tampered.jsonl was not imported")
    expect(page.locator(".import-error")).to_contain_text("fails its audit")
    expect(page.locator(".verdict li.fail")).not_to_have_count(0)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "import.png"), full_page=True)

    # The real file of a game stored here: linked, not stored twice.
    page.locator("#import-file").set_input_files(files=[{
        "name": "game.jsonl", "mimeType": "application/x-ndjson", "buffer": text.encode()}])
    page.get_by_role("button", name="Check and import").click()
    expect(page).to_have_url(f"{live_server.url}/replays/games/{game.id}/")
    expect(page.locator(".messages")).to_contain_text("already stored here")

    # A game played elsewhere: imported, and opened as a replay of a new game.
    foreign = play_game(ruleset_for("classic", 3), bot_classes(["heuristic", "random",
                                                                  "nontrading"]), "e2e-import")
    page.goto(f"{live_server.url}/replays/import/")
    page.locator("#import-file").set_input_files(files=[{
        "name": "game.jsonl", "mimeType": "application/x-ndjson",
        "buffer": export_jsonl(foreign.events).encode()}])
    page.get_by_role("button", name="Check and import").click()
    expect(page).to_have_url(re.compile(r"/replays/games/[0-9a-f-]{36}/$"))
    new_id = page.url.rstrip("/").split("/")[-1]
    assert new_id != str(game.id)
    expect(page.locator("#replay-table .rt")).to_have_attribute("data-step",
                                                                str(len(foreign.events)))
    expect(page.locator(".rt-player").first).to_have_text(f"{foreign.seats[0]} (imported)")


def test_the_log_beyond_the_current_turn_comes_when_needed_and_rulings_show(
        page: Page, live_server: LiveServer, transactional_db: None,
        django_user_model: type[User]) -> None:
    from replays.disputes import open_dispute, reset_disputes, rule_dispute

    reset_games()
    reset_disputes()
    game = bot_game("e2e-lazy-log", bots=("heuristic", "random", "nontrading"),
                    players=("user:ann", "bot:random", "bot:nontrading"))
    ann = django_user_model.objects.create_user("ann", password="pw")
    arbiter = django_user_model.objects.create_user("zed", password="pw", is_staff=True)
    disputed = 40
    rule_dispute(arbiter, open_dispute(ann, game.id, disputed, "odd draw").id, "upheld",
                 "the shuffle checks out, but the draw was misrecorded")
    record = games().record(game.id)
    turns = [e.seq for e in record if isinstance(e.event, TurnStarted)]
    base = f"{live_server.url}/replays/games/{game.id}/"
    at = f"{base}?step={turns[1]}&perspective=spectator"
    fetched: list[str] = []
    page.on("request", lambda r: fetched.append(r.url) if "log.json" in r.url else None)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))

    # The page as sent holds the log to the end of turn 2, no further.
    sent = page.request.get(at).text()
    assert sent.count("<li data-seq=") == turns[2] - 1

    page.goto(at)
    expect(page.locator("#replay-rulings li")).to_have_count(1)
    expect(page.locator("#replay-rulings")).to_contain_text(f"Event #{disputed} was disputed")
    expect(page.locator("#replay-log-lines li.log-GameEnded")).to_be_hidden()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "viewer-ruling.png"))

    # Asking for the whole log fetches the rest, once, and shows it...
    page.locator("#rc-spoilers").check()
    expect(page.locator("#replay-log-lines li.log-GameEnded")).to_be_visible()
    expect(page.locator("#replay-log-lines li")).to_have_count(game.version)
    assert [url for url in fetched if f"from={turns[2]}" in url]
    page.locator("#rc-spoilers").uncheck()
    expect(page.locator("#replay-log-lines li.log-GameEnded")).to_be_hidden()

    # ...and stepping there shows its lines, the event line included.
    page.keyboard.press("End")
    expect_step(page, game.version)
    expect(page.locator("#replay-event")).to_contain_text(f"#{game.version}")
    page.keyboard.press("Home")
    expect_step(page, 1)
    expect(page.locator("#replay-log-lines li.log-GameEnded")).to_be_hidden()
    assert len(fetched) == 1
    assert errors == []
