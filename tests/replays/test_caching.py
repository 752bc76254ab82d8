"""Caching a game's pages and answers (replays/caching.py): conditional requests,
who may keep what, keys that keep perspectives, languages and readers apart, the
cached pages changing with a dispute ruling, compressed answers, and the page's log
holding only the current turn."""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import Client

from bohnanza_core.events import TurnStarted
from bohnanza_core.games import Game, Games
from replays.disputes import disputes, open_dispute, reset_disputes, rule_dispute
from replays.store import games
from replays.views import viewer
from tests.factories import bot_game, running_game

DATA_CARD = re.compile(r'data-card="(\d+)"')
SUFFIXES = ["", "embed/", "steps/40.json", "log.json", "export.jsonl"]


@pytest.fixture(autouse=True)
def empty_cache() -> Iterator[None]:
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def finished(store: Games) -> Game:
    return bot_game("caching-finished", players=("user:ann", "bot:b", "bot:c"))


@pytest.fixture
def private(store: Games) -> Game:
    return bot_game("caching-private", private=True, players=("user:ann", "bot:b", "bot:c"))


@pytest.fixture
def running(store: Games) -> Game:
    return running_game("caching-running", commands=12)


def url(game: Game, suffix: str = "") -> str:
    return f"/replays/games/{game.id}/{suffix}"


def cache_control(response: Any) -> set[str]:
    return {part.strip() for part in response.get("Cache-Control", "").split(",") if part}


# -- conditional requests ---------------------------------------------------------------


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_a_finished_public_game_answers_304_and_may_be_kept_by_anyone(
        client: Client, finished: Game, suffix: str) -> None:
    first = client.get(url(finished, suffix))
    assert first.status_code == 200
    etag = first["ETag"]
    assert etag.startswith('W/"')
    assert {"public", "max-age=300" if suffix in ("", "embed/") else "max-age=3600"} \
        <= cache_control(first)
    assert any(part.startswith("s-maxage=") for part in cache_control(first))
    again = client.get(url(finished, suffix), headers={"If-None-Match": etag})
    assert again.status_code == 304
    assert again.content == b""
    assert again["ETag"] == etag
    assert "public" in cache_control(again)
    # Another copy (another ETag) is answered in full.
    other = client.get(url(finished, suffix), headers={"If-None-Match": 'W/"0123"'})
    assert other.status_code == 200


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_a_running_game_is_never_kept_nor_answered_304(client: Client, running: Game,
                                                      suffix: str) -> None:
    if suffix == "steps/40.json":
        suffix = "steps/10.json"
    response = client.get(url(running, suffix))
    assert response.status_code == 200
    assert "ETag" not in response
    assert "no-store" in cache_control(response)
    assert "public" not in cache_control(response)
    for tag in ("*", 'W/"0123"'):
        again = client.get(url(running, suffix), headers={"If-None-Match": tag})
        assert again.status_code == 200
        assert "no-store" in cache_control(again)


def test_a_running_game_shows_each_new_move(client: Client, running: Game) -> None:
    before = client.get(url(running, "log.json")).json()
    from bohnanza_core import awaiting, legal_commands
    seat = awaiting(running.state)[0]
    games().play_on(running, legal_commands(running.state, seat)[0], running.players[seat])
    after = client.get(url(running, "log.json")).json()
    assert after["steps"] > before["steps"]
    assert len(after["lines"]) == after["steps"]


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_a_private_game_is_never_kept_by_shared_caches(client: Client, private: Game,
                                                      suffix: str) -> None:
    response = client.get(url(private, suffix), {"token": private.share_token})
    assert response.status_code == 200
    control = cache_control(response)
    assert "private" in control
    assert "public" not in control
    assert not any(part.startswith("s-maxage") for part in control)
    etag = response["ETag"]
    # The token holder's copy is still good for them...
    again = client.get(url(private, suffix), {"token": private.share_token},
                       headers={"If-None-Match": etag})
    assert again.status_code == 304
    assert "private" in cache_control(again)
    # ...and a request without the token gets no 304 and nothing of the game.
    refused = client.get(url(private, suffix), headers={"If-None-Match": etag})
    assert refused.status_code == 403
    assert "ETag" not in refused


def test_a_private_games_player_is_answered_apart_from_token_holders(
        client: Client, private: Game) -> None:
    ann = Client()
    ann.force_login(User.objects.create_user("ann", password="pw-ann-123"))
    held = client.get(url(private, "steps/40.json"), {"token": private.share_token,
                                                       "perspective": "seat-0"})
    mine = ann.get(url(private, "steps/40.json"), {"perspective": "seat-0"})
    assert held.status_code == mine.status_code == 200
    assert held["ETag"] != mine["ETag"]
    assert "private" in cache_control(mine)
    assert ann.get(url(private, "steps/40.json"), {"perspective": "seat-0"},
                   headers={"If-None-Match": held["ETag"]}).status_code == 200


# -- keys keep answers apart -------------------------------------------------------------


def test_a_seats_cached_answer_is_never_served_to_another_perspective(
        client: Client, finished: Game) -> None:
    step = 60
    table = games().game(finished.id, step).state
    seen: dict[str, set[int]] = {}
    for name in ("seat-0", "seat-1", "spectator", "seat-0", "seat-1", "spectator"):
        data = client.get(url(finished, f"steps/{step}.json"), {"perspective": name}).json()
        assert data["perspective"] == name
        cards = {int(c) for c in DATA_CARD.findall(data["html"])}
        if name in seen:
            assert cards == seen[name]  # the cached answer, the same
        seen[name] = cards
    assert set(table.hands[0]) <= seen["seat-0"]
    assert not set(table.hands[0]) & seen["seat-1"]
    assert not set(table.hands[1]) & seen["seat-0"]
    assert not (set(table.hands[0]) | set(table.hands[1])) & seen["spectator"]


def test_a_cached_answer_is_never_served_in_another_language(client: Client,
                                                            finished: Game) -> None:
    english = client.get(url(finished, "log.json"), headers={"Accept-Language": "en"})
    hungarian = client.get(url(finished, "log.json"), headers={"Accept-Language": "hu"})
    assert english["ETag"] != hungarian["ETag"]
    assert "Accept-Language" in hungarian["Vary"] and "Cookie" in hungarian["Vary"]
    turn = next(line["text"] for line in english.json()["lines"]
                if line["kind"] == "TurnStarted")
    assert turn.startswith("Turn 1")
    assert turn not in json.dumps(hungarian.json(), ensure_ascii=False)
    finnish = Client()
    finnish.cookies["django_language"] = "fi"
    page = finnish.get(url(finished), headers={"If-None-Match": client.get(
        url(finished))["ETag"]})
    assert page.status_code == 200
    assert '<html lang="fi">' in page.content.decode()
    assert client.get(url(finished)).content.decode().count('<html lang="en">') == 1


def test_what_is_kept_is_built_once(client: Client, finished: Game,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[int] = []
    real = viewer.step_answer

    def counting(request: Any, opened: Any, step: int) -> dict[str, Any]:
        built.append(step)
        return real(request, opened, step)

    monkeypatch.setattr(viewer, "step_answer", counting)
    first = client.get(url(finished, "steps/50.json")).json()
    assert client.get(url(finished, "steps/50.json")).json() == first
    # The page at that step draws the table from the same kept part.
    assert client.get(url(finished), {"step": 50}).status_code == 200
    assert built == [50]


def test_kept_answers_go_out_compressed(client: Client, finished: Game) -> None:
    plain = client.get(url(finished, "log.json"))
    packed = client.get(url(finished, "log.json"), headers={"Accept-Encoding": "gzip"})
    assert packed["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in packed["Vary"]
    assert len(packed.content) * 4 < len(plain.content)
    assert json.loads(gzip.decompress(packed.content)) == plain.json()
    page = client.get(url(finished), headers={"Accept-Encoding": "gzip"})
    assert gzip.decompress(page.content).decode().startswith("<!DOCTYPE html>")


def test_a_public_page_holds_no_csrf_token_and_sets_no_cookie(client: Client,
                                                             finished: Game) -> None:
    response = client.get(url(finished))
    assert "csrfmiddlewaretoken" not in response.content.decode()
    assert not response.cookies
    # The language switch works without one (it only sets the language cookie).
    switched = client.post("/i18n/setlang/", {"language": "hu", "next": url(finished)})
    assert switched.status_code == 302
    assert client.get(url(finished)).content.decode().count('<html lang="hu">') == 1


def test_a_signed_in_readers_page_is_theirs_alone(finished: Game) -> None:
    ann = Client()
    ann.force_login(User.objects.create_user("ann", password="pw-ann-123"))
    response = ann.get(url(finished))
    assert response.status_code == 200
    assert "ann" in response.content.decode()
    control = cache_control(response)
    assert "public" not in control
    assert "ETag" not in response
    # Their JSON answers are everyone's (nothing in them is theirs).
    assert "public" in cache_control(ann.get(url(finished, "steps/3.json"),
                                             {"perspective": "seat-1"}))


# -- disputes ----------------------------------------------------------------------------------


@pytest.fixture
def arbiter(db: None) -> Iterator[User]:
    reset_disputes()
    yield User.objects.create_user("zed", password="pw", is_staff=True)
    reset_disputes()


@pytest.mark.parametrize("ruling", ["upheld", "rejected"])
def test_a_ruling_changes_the_cached_page(client: Client, finished: Game, arbiter: User,
                                          ruling: str) -> None:
    ann = User.objects.create_user("ann", password="pw")
    page = client.get(url(finished), {"step": 30})
    embed = client.get(url(finished, "embed/"), {"step": 30})
    assert "replay-rulings" not in page.content.decode()
    dispute = open_dispute(ann, finished.id, 25, "the draw looks wrong")
    # An open dispute shows nothing yet: the same page, still 304.
    assert client.get(url(finished), {"step": 30},
                      headers={"If-None-Match": page["ETag"]}).status_code == 304
    rule_dispute(arbiter, dispute.id, ruling, "checked the shuffle")
    assert disputes().dispute(dispute.id).ruling == ruling
    for suffix, before in (("", page), ("embed/", embed)):
        after = client.get(url(finished, suffix), {"step": 30},
                           headers={"If-None-Match": before["ETag"]})
        assert after.status_code == 200
        assert after["ETag"] != before["ETag"]
        text = after.content.decode()
        assert 'id="replay-rulings"' in text
        assert f"an arbiter {ruling} the complaint" in text
        assert 'data-seq="25"' in text
    # The step answers show no ruling: they stay as they were.
    step = client.get(url(finished, "steps/30.json"))
    assert client.get(url(finished, "steps/30.json"),
                      headers={"If-None-Match": step["ETag"]}).status_code == 304


# -- the page's log ------------------------------------------------------------------------


def test_the_page_holds_the_log_to_the_end_of_the_current_turn(client: Client,
                                                               finished: Game) -> None:
    record = games().record(finished.id)
    starts = [e.seq for e in record if isinstance(e.event, TurnStarted)]
    step = starts[3] + 2
    html = client.get(url(finished), {"step": step}).content.decode()
    seqs = [int(s) for s in re.findall(r'<li data-seq="(\d+)"', html)]
    assert seqs == list(range(1, starts[4]))
    config = json.loads(re.search(r'<script id="replay-config" type="application/json">'
                                  r"(.*?)</script>", html, re.S)[1])
    assert config["logLoaded"] == starts[4] - 1
    rest = client.get(url(finished, "log.json"), {"from": starts[4]}).json()
    assert rest["from"] == starts[4]
    assert [line["seq"] for line in rest["lines"]] == list(range(starts[4],
                                                                 finished.version + 1))
    assert client.get(url(finished, "log.json"), {"from": 0}).status_code == 404
    assert client.get(url(finished, "log.json"),
                      {"from": finished.version + 1}).status_code == 404
    assert client.get(url(finished, "log.json"), {"from": "1e3"}).status_code == 400
