"""A competition's page in a real browser: the progress bar follows the workers live
(progress.json, polled) until the competition ends, then the page shows its standings
and every game's replay link; a ladder's page its rating history, a league's its
divisions; the new competition's form for each format."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from bohnanza_core.rulesets import ruleset_for
from tests.e2e.conftest import sign_in
from tests.e2e.test_long_names import widest
from tests.tournaments.conftest import competitions, worker  # noqa: F401 (fixtures)
from tournaments import tasks
from tournaments.core import bottests
from tournaments.core.rounds import run_here, start_round
from tournaments.core.store import Competitions, create

pytestmark = pytest.mark.e2e

SCREENSHOTS = settings.BASE_DIR / "var" / "screenshots"
ENTRANTS = ["heuristic@builtin", "nontrading@builtin", "random@builtin",
            "heuristic@builtin #2", "nontrading@builtin #2", "random@builtin #2",
            "heuristic@builtin #3", "nontrading@builtin #3"]


def test_the_progress_bar_follows_the_workers_to_the_end(page: Page, live_server: LiveServer,
                                                         worker: Competitions) -> None:  # noqa: F811
    cup = create("Browser Cup", "swiss", {"rounds": 3}, ruleset_for("classic", 4), 4, ENTRANTS)
    page.goto(f"{live_server.url}/tournaments/{cup.id}/")
    expect(page.locator("#competition-status")).to_have_text("running")
    tasks.start(cup)
    expect(page.locator("#competition-status")).to_have_text("finished", timeout=60_000)
    expect(page.locator("#competition-count")).to_have_text("6 of 6 games")
    expect(page.locator("table.standings tbody tr")).to_have_count(8)
    links = page.get_by_role("link", name="replay", exact=True)
    expect(links).to_have_count(2)  # the last round's two tables
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "tournament.png"), full_page=True)
    href = links.first.get_attribute("href")
    assert href is not None and href.startswith("/replays/games/")
    links.first.click()
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    page.goto(f"{live_server.url}/tournaments/{cup.id}/")
    page.locator("table.statistics a", has_text="heuristic #2").click()  # its entrant page
    expect(page).to_have_url(f"{live_server.url}/tournaments/entrants/heuristic@builtin/")
    # The three copies' games, from the game list's read model: six games of 4 players,
    # each copy at a table in every round.
    expect(page.locator(".lede")).to_contain_text("9 finished public games")
    expect(page.locator("table.entrant-statistics tr.overall td").first).to_have_text("9")
    page.screenshot(path=str(SCREENSHOTS / "entrant.png"), full_page=True)
    page.goto(f"{live_server.url}/tournaments/")
    expect(page.get_by_role("link", name="Browser Cup")).to_be_visible()
    page.screenshot(path=str(SCREENSHOTS / "tournaments.png"), full_page=True)


def test_a_ladder_page_draws_its_rating_history(page: Page, live_server: LiveServer,
                                               competitions: Competitions) -> None:  # noqa: F811
    ladder = create("Browser Ladder", "ladder", {}, ruleset_for("duel", 2), 2, ENTRANTS[:5],
                    every=60)
    run_here(ladder.id, rounds=12)
    page.goto(f"{live_server.url}/tournaments/ladders/{ladder.id}/")  # its old address
    expect(page).to_have_url(f"{live_server.url}/tournaments/{ladder.id}/")
    expect(page.locator("table.standings tbody tr")).to_have_count(5)
    expect(page.locator(".rating-chart path.series")).to_have_count(5)
    expect(page.get_by_role("link", name="replay", exact=True)).to_have_count(2)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    second = page.locator("table.standings .entrant[title=\"heuristic@builtin #2\"]")
    expect(second).to_contain_text("heuristic #2")
    expect(second.locator("small")).to_have_text("built in")
    expect(page.locator("table.standings")).not_to_contain_text("@builtin")
    expect(page.get_by_role("link", name="Download every game")).to_have_attribute(
        "href", f"/tournaments/{ladder.id}/games.zip")
    page.screenshot(path=str(SCREENSHOTS / "ladder.png"), full_page=True)
    page.goto(f"{live_server.url}/tournaments/ladders/")
    expect(page).to_have_url(f"{live_server.url}/tournaments/?format=ladder")
    expect(page.get_by_role("link", name="Browser Ladder")).to_be_visible()


def test_a_league_page_shows_its_divisions_and_moves(page: Page, live_server: LiveServer,
                                                     competitions: Competitions) -> None:  # noqa: F811
    league = run_here(create("Browser League", "league",
                             {"divisions": 3, "moves": 1, "seasons": 2}, ruleset_for("duel", 2),
                             2, ENTRANTS[:6]).id)
    page.goto(f"{live_server.url}/tournaments/{league.id}/")
    expect(page.get_by_role("heading", level=3)).to_have_count(6)  # 3 divisions, 2 seasons
    # the first season's moves; the last season has no next one: nobody moves
    expect(page.locator("td", has_text="promoted")).to_have_count(2)
    expect(page.locator("td", has_text="relegated")).to_have_count(2)
    expect(page.locator(".podium .podium-places li")).to_have_count(3)
    # divisions of two: the third place is the second division's winner, as it says
    expect(page.locator(".podium")).to_contain_text("By the last season's divisions")
    expect(page.locator(".podium")).to_contain_text("third place to the second division")
    last = len(league.rounds) - 1
    second = league.entrants[league.divisions(last)[1][0]]
    expect(page.locator(".podium .place-3 .entrant")).to_have_attribute("title", second)
    expect(page.get_by_role("link", name="Download every game")).to_have_attribute(
        "href", f"/tournaments/{league.id}/games.zip")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "league.png"), full_page=True)


def test_the_new_ladder_and_league_forms_refuse_and_create(
        page: Page, live_server: LiveServer, competitions: Competitions,  # noqa: F811
        django_user_model: Any) -> None:
    django_user_model.objects.create_user("organiser", password="pw-organiser-1")
    base = live_server.url
    sign_in(page, base, "organiser", "pw-organiser-1", "/tournaments/new/")
    page.get_by_role("link", name="Ladder").click()  # the format first
    expect(page).to_have_url(f"{base}/tournaments/new/ladder/")
    page.fill("#id_name", "Form ladder")
    page.fill("#id_bots", "heuristic, nosuchbot")
    page.get_by_role("button", name="Create").click()
    expect(page.locator(".problems")).to_contain_text("nosuchbot")
    page.screenshot(path=str(SCREENSHOTS / "new_ladder.png"), full_page=True)
    assert competitions.ids() == []
    page.goto(f"{base}/tournaments/leagues/new/")  # its old address
    expect(page).to_have_url(f"{base}/tournaments/new/league/")
    page.fill("#id_name", "Form league")
    page.get_by_role("button", name="Create").click()
    page.wait_for_url(f"{base}/tournaments/*/")
    (made,) = competitions.ids()
    expect(page).to_have_url(f"{base}/tournaments/{made}/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Form league")
    assert competitions.get(made).format == "league"
    page.goto(f"{base}/tournaments/new/league/")
    page.screenshot(path=str(SCREENSHOTS / "new_league.png"), full_page=True)


def test_a_person_sees_their_game_and_opens_its_table(page: Page, live_server: LiveServer,
                                                         competitions: Competitions) -> None:  # noqa: F811
    from django.contrib.auth.models import User

    from bohnanza_core.rulesets import customize
    from tournaments.core.competition import LivePlay
    from tournaments.models import CompetitionTable

    User.objects.create_user("alice", password="pw-league-123")
    short = {"beans": ["wax", "blue", "chili", "stink"]}
    league = create("People League", "league", {"divisions": 1, "moves": 0, "seasons": 1},
                    customize("duel", 2, short), 2, ["user:alice", "heuristic@builtin"],
                    organiser="user:alice", live=LivePlay("duel", short, 60, 0, 24, False))
    start_round(league, lambda *_: None)
    sign_in(page, live_server.url, "alice", "pw-league-123")
    page.goto(f"{live_server.url}/tournaments/{league.id}/")
    mine = page.locator(".my-fixtures li")
    expect(mine).to_have_count(2)
    expect(page.locator("table.standings .entrant.person")).to_have_text("alice")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "league-people.png"), full_page=True)
    first = CompetitionTable.objects.get(competition_id=league.id, index=0).table_id
    mine.first.get_by_role("link", name="Open the table").click()
    expect(page).to_have_url(f"{live_server.url}/play/tables/{first}/")
    expect(page.locator(".live-table")).to_be_attached()  # drawn once its socket answers


@pytest.mark.parametrize("language", ["en", "hu", "fi"])
def test_the_competition_pages_fit_a_phone(page: Page, live_server: LiveServer,
                                           competitions: Competitions,  # noqa: F811
                                           language: str) -> None:
    """At 390 px, in each language, no competition page is wider than the window: the
    wide tables (the list, standings, statistics, games, bot tests) scroll inside their
    own ``.table-scroll`` box, as the game list's and the profile's do."""
    duel = ruleset_for("duel", 2)
    swiss = run_here(create("Phone Swiss", "swiss", {"rounds": 2}, ruleset_for("classic", 4),
                            4, ENTRANTS).id)
    cup = run_here(create("Phone Cup", "knockout", {"advance": 1}, duel, 2, ENTRANTS[:4]).id)
    ladder = run_here(create("Phone Ladder", "ladder", {}, duel, 2, ENTRANTS[:4], every=60).id,
                      rounds=2)
    league = run_here(create("Phone League", "league", {"divisions": 2, "moves": 1,
                                                         "seasons": 1}, duel, 2,
                             ENTRANTS[:4]).id)
    test = bottests.create("heuristic", "random", "duel", 2, 0, 5, 0.05, 0.05, 400, "phone")
    bottests.play_batch(test.id, sets=2)
    pages = {"list": "/tournaments/", "swiss": f"/tournaments/{swiss.id}/",
             "knockout": f"/tournaments/{cup.id}/", "ladder": f"/tournaments/{ladder.id}/",
             "league": f"/tournaments/{league.id}/",
             "entrant": "/tournaments/entrants/heuristic@builtin/",
             "bot tests": "/tournaments/bot-tests/",
             "bot test": f"/tournaments/bot-tests/{test.id}/"}
    page.set_viewport_size({"width": 390, "height": 800})
    page.context.add_cookies([{"name": settings.LANGUAGE_COOKIE_NAME, "value": language,
                               "url": live_server.url}])
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    wide = {}
    for name, path in pages.items():
        response = page.goto(live_server.url + path)
        assert response is not None and response.status == 200, name
        assert page.get_attribute("html", "lang") == language
        width = page.evaluate("() => document.documentElement.scrollWidth")
        if width > 390:
            wide[name] = f"{width} px: {widest(page)}"
            page.screenshot(path=str(SCREENSHOTS / f"phone-{name}-{language}.png"),
                            full_page=True)
    assert not wide, f"pages wider than a 390 px phone: {wide}"


def test_its_organiser_stops_a_round_robin_mid_way(page: Page, live_server: LiveServer,
                                                   competitions: Competitions) -> None:  # noqa: F811
    from django.contrib.auth.models import User

    from tournaments.core.games import play_deals
    from tournaments.core.rounds import advance

    User.objects.create_user("olga", password="pw-olga-1234")
    cup = create("Broken Cup", "round-robin", {"cycles": 1}, ruleset_for("duel", 2), 2,
                 ENTRANTS[:5], organiser="user:olga")
    sent: list[tuple[int, int]] = []
    start_round(cup, lambda _cid, r, deals: sent.extend((r, d) for d in deals))
    for r, deal in list(sent):  # the first round, in full; the second is paired
        play_deals(cup.id, r, [deal])
        advance(cup.id, lambda _cid, r, deals: None)
    sign_in(page, live_server.url, "olga", "pw-olga-1234", f"/tournaments/{cup.id}/")
    page.get_by_text("Stop this competition").click()
    page.fill("#stop-reason", "a bot never answers")
    page.get_by_role("button", name="Stop it for good").click()
    expect(page.locator(".stopped-note")).to_contain_text(
        "Stopped by olga on ")
    expect(page.locator(".stopped-note")).to_contain_text(": a bot never answers")
    expect(page.locator("#competition-status")).to_have_text("stopped")
    expect(page.get_by_text("Stop this competition")).to_have_count(0)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "tournament-stopped.png"), full_page=True)
