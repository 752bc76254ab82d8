"""The replay viewer: who may see which perspective, that a running game's secrets
never leave the server, step bounds, bad ids, and the head hash in every answer."""

from __future__ import annotations

import html as html_module
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from bohnanza_core.events import DeckShuffled
from bohnanza_core.games import Game, Games
from tests.factories import bot_game, running_game

SECRET_SEED = "s3cret-seed-of-the-running-table"
DATA_CARD = re.compile(r'data-card="(\d+)"')


def page(game: Game | str) -> str:
    return f"/replays/games/{getattr(game, 'id', game)}/"


def step_url(game: Game, step: int | str) -> str:
    return f"/replays/games/{game.id}/steps/{step}.json"


def log_url(game: Game) -> str:
    return f"/replays/games/{game.id}/log.json"


@pytest.fixture
def ann(db: None) -> User:
    return User.objects.create_user("ann", password="pw-ann-123")


@pytest.fixture
def ann_client(ann: User) -> Client:
    client = Client()
    client.force_login(ann)
    return client


@pytest.fixture
def staff_client(db: None) -> Client:
    client = Client()
    client.force_login(User.objects.create_user("arbiter", password="pw", is_staff=True))
    return client


@pytest.fixture
def finished(store: Games) -> Game:
    return bot_game("viewer-finished")


@pytest.fixture
def running(store: Games) -> Game:
    game = running_game(SECRET_SEED, commands=12)
    assert not game.finished
    return game


# -- a finished public game ----------------------------------------------------------


def test_finished_game_page_shows_the_last_step_from_everything(
    client: Client, store: Games, finished: Game
) -> None:
    response = client.get(page(finished))
    assert response.status_code == 200
    html = response.content.decode()
    assert f'data-step="{finished.version}"' in html
    assert 'data-perspective="everything"' in html
    assert finished.head_hash in html  # the full head hash, in the title and copy button
    assert "Game over" in html
    # Every seat's hand is shown face up, in order.
    for seat in range(3):
        for card in finished.state.hands[seat]:
            assert f'data-card="{card}"' in html
    # The perspective menu: everything, spectator, each seat.
    menu = re.search(r'<select name="perspective" id="rc-perspective">(.*?)</select>', html, re.S)
    assert menu is not None
    values = re.findall(r'value="([^"]+)"', menu.group(1))
    assert values == ["everything", "spectator", "seat-0", "seat-1", "seat-2"]
    # The log holds every event, the current one marked.
    assert html.count('<li data-seq="') == finished.version
    assert f'data-seq="{finished.version}"' in html
    assert re.search(r'class="log-GameEnded is-current[^"]*"', html)
    assert response["X-Frame-Options"] == "DENY"


def test_step_answers_carry_the_head_hash_at_that_step(
    client: Client, store: Games, finished: Game
) -> None:
    for step in (1, 2, 40, 41, 137, finished.version):
        response = client.get(step_url(finished, step), {"perspective": "spectator"})
        assert response.status_code == 200
        data = response.json()
        at = store.game(finished.id, step)
        assert data["step"] == step
        assert data["steps"] == finished.version
        assert data["head_hash"] == at.head_hash
        assert at.head_hash in data["html"]
        assert data["turn"] == at.state.turn
        assert data["perspective"] == "spectator"
        assert not any("hand" in seat for seat in data["table"]["seats"])  # no hands


def test_page_at_a_step_draws_that_step(client: Client, store: Games, finished: Game) -> None:
    at = store.game(finished.id, 200)
    html = client.get(page(finished), {"step": 200, "perspective": "seat-1"}).content.decode()
    assert 'data-step="200"' in html
    assert at.head_hash[:12] in html
    cards = {int(c) for c in DATA_CARD.findall(html)}
    assert set(at.state.hands[1]) <= cards
    assert not cards & (set(at.state.hands[0]) | set(at.state.hands[2]))
    assert f"Turn {at.state.turn}" in html


def test_fields_and_seats_are_counted_from_one_as_players_count_them(
    client: Client, store: Games, finished: Game,
) -> None:
    # The first field is "Field 1" and the first seat "Seat 1" on the page, and the log
    # plants "in field 1" what an event plants in field 0; URLs keep the events' numbers.
    from bohnanza_core.events import BeanPlanted

    entries = store.record(finished.id)
    planted = next(e for e in entries if isinstance(e.event, BeanPlanted) and e.event.field == 0)
    html = client.get(page(finished), {"step": planted.seq, "perspective": "seat-0"}
                      ).content.decode()
    assert 'data-field="1" title="Field 1: ' in html and 'data-field="0"' not in html
    seat0 = finished.state.seats[0]
    assert re.search(rf'<option value="seat-0"[^>]*>Seat 1: {re.escape(seat0)}<', html)
    assert f">Seat 1: {seat0}</a>" in html  # the download of that seat's record
    log = client.get(log_url(finished)).json()
    line = next(item for item in log["lines"] if item["seq"] == planted.seq)
    assert "in field 1 (" in line["text"]


def test_log_answer_is_redacted_for_the_perspective(
    client: Client, store: Games, finished: Game
) -> None:
    data = client.get(log_url(finished), {"perspective": "seat-2"}).json()
    assert data["perspective"] == "seat-2"
    assert len(data["lines"]) == finished.version
    assert [line["seq"] for line in data["lines"]] == list(range(1, finished.version + 1))
    deals = [line["text"] for line in data["lines"] if line["kind"] == "CardDealt"]
    seats = finished.state.seats
    assert all(t.endswith("a card") for t in deals if t.startswith(seats[0] + " is dealt a"))
    assert not any(t.endswith("a card") for t in deals if t.startswith(seats[2]))
    # The deal in one line per seat, the others' cards counted, the seat's own named.
    told = [line["text"] for line in data["lines"]
            if line["kind"] == "CardDealt" and not line["folded"]]
    assert told[0] == f"{seats[0]} is dealt 5 cards"
    assert told[2].startswith(f"{seats[2]} is dealt 5 cards: ")
    turns = data["turns"]
    assert turns[0] == {"turn": 1, "step": next(
        line["seq"] for line in data["lines"] if line["kind"] == "TurnStarted")}
    assert [t["turn"] for t in turns] == list(range(1, len(turns) + 1))


def test_everything_shows_the_draw_pile_and_seed_of_a_finished_game(
    client: Client, store: Games, finished: Game
) -> None:
    data = client.get(step_url(finished, 100), {"perspective": "everything"}).json()
    at = store.game(finished.id, 100)
    assert data["table"]["draw_pile"] == list(reversed(at.state.draw_pile))
    assert data["table"]["seed"] == "viewer-finished"
    assert "Next in the draw pile" in data["html"]


# -- bad input: ids, steps, perspectives ---------------------------------------------


@pytest.mark.parametrize("suffix", ["", "embed/", "log.json", "steps/3.json", "export.jsonl"])
@pytest.mark.parametrize("game_id", ["not-a-game", "3b78f181-4d24-4d73-9e1d-4f87552f3f19"])
def test_unknown_or_malformed_game_is_404_with_a_message(
    client: Client, store: Games, game_id: str, suffix: str
) -> None:
    response = client.get(f"/replays/games/{game_id}/{suffix}")
    assert response.status_code == 404
    body = response.content.decode()
    assert f"There is no game &#x27;{game_id}&#x27;" in body or (
        f"There is no game '{game_id}'" in body)


@pytest.mark.parametrize("step", ["0", "-1", "99999"])
def test_step_out_of_range_is_404(client: Client, store: Games, finished: Game,
                                  step: str) -> None:
    response = client.get(step_url(finished, step))
    assert response.status_code == 404
    assert response.json()["error"] == (
        f"There is no step {step}: this game has steps 1 to {finished.version}."
    )
    response = client.get(page(finished), {"step": step})
    assert response.status_code == 404
    assert f"There is no step {step}" in response.content.decode()


@pytest.mark.parametrize("step", ["abc", "1.5", "%20"])
def test_malformed_step_is_400(client: Client, store: Games, finished: Game, step: str) -> None:
    response = client.get(page(finished), {"step": step})
    assert response.status_code == 400
    assert "The step must be a whole number" in response.content.decode()
    assert client.get(step_url(finished, step)).status_code in (400, 404)


@pytest.mark.parametrize("name", ["seat-3", "seat-x", "seat--1", "all", "Spectator"])
def test_unknown_perspective_is_400(client: Client, store: Games, finished: Game,
                                    name: str) -> None:
    response = client.get(step_url(finished, 5), {"perspective": name})
    assert response.status_code == 400
    message = response.json()["error"]
    assert f"There is no perspective '{name}'" in message
    assert "everything, spectator, seat-0, seat-1, seat-2" in message


def test_post_is_refused(client: Client, store: Games, finished: Game) -> None:
    assert client.post(page(finished)).status_code == 405
    assert client.post(step_url(finished, 1)).status_code == 405


# -- a running game: perspectives --------------------------------------------------


def test_running_game_opens_for_anyone_as_spectator_only(
    client: Client, store: Games, running: Game
) -> None:
    response = client.get(page(running))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-perspective="spectator"' in html
    assert f"of <span id=\"rc-steps\">{running.version}</span> so far" in html
    menu = re.search(r'<select name="perspective" id="rc-perspective">(.*?)</select>', html, re.S)
    assert menu is not None
    assert re.findall(r'value="([^"]+)"', menu.group(1)) == ["spectator"]

    refused = client.get(step_url(running, 5), {"perspective": "everything"})
    assert refused.status_code == 403
    assert "opens once the game has ended" in refused.json()["error"]
    refused = client.get(page(running), {"perspective": "seat-0"})
    assert refused.status_code == 403
    assert "only its player may view the game from that seat" in refused.content.decode()
    # Numbered as the page numbers the seats, from 1.
    assert f"Seat 1 ({running.state.seats[0]}) holds a secret hand" in refused.content.decode()


def test_a_player_sees_their_own_seat_and_no_other(
    ann_client: Client, store: Games, running: Game
) -> None:
    html = ann_client.get(page(running)).content.decode()
    assert 'data-perspective="seat-0"' in html  # a player's default view is their seat
    menu = re.search(r'<select name="perspective" id="rc-perspective">(.*?)</select>', html, re.S)
    assert menu is not None
    assert re.findall(r'value="([^"]+)"', menu.group(1)) == ["seat-0", "spectator"]
    for card in running.state.hands[0]:
        assert f'data-card="{card}"' in html
    for name in ("seat-1", "seat-2", "everything"):
        assert ann_client.get(step_url(running, 3), {"perspective": name}).status_code == 403
        assert ann_client.get(log_url(running), {"perspective": name}).status_code == 403
    # Her share link opens the spectator's view: her seat's view is hers alone.
    assert "perspective=spectator" in re.search(r'id="share-link" readonly value="([^"]+)"',
                                                html).group(1)  # type: ignore[union-attr]


def test_running_game_shows_steps_only_up_to_now(
    client: Client, store: Games, running: Game
) -> None:
    assert client.get(step_url(running, running.version)).status_code == 200
    response = client.get(step_url(running, running.version + 1))
    assert response.status_code == 404
    assert "so far" in response.json()["error"]
    assert client.get(log_url(running)).json()["steps"] == running.version


def _hidden(store: Games, game: Game, step: int, seat: int | None) -> set[int]:
    """Cards the perspective may not see at ``step``: other hands and the draw pile."""
    table = store.game(game.id, step).state
    hidden = set(table.draw_pile)
    for other, hand in enumerate(table.hands):
        if other != seat:
            hidden |= set(hand)
    return hidden


def _cards_in(value: Any) -> Iterator[int]:
    """Every int in a step's table dict, except the public card-kind table."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key not in ("card_kinds", "coins", "hand_size", "turn", "active", "perspective",
                           "draw_pile_size", "runs_out", "offer", "proposer", "counterparty",
                           "awaiting", "declined_by", "wants"):
                yield from _cards_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from _cards_in(item)
    elif isinstance(value, int) and not isinstance(value, bool):
        yield value


@pytest.mark.parametrize("who", ["spectator", "ann"])
def test_running_game_secrets_never_leave_the_server(
    client: Client, ann_client: Client, store: Games, running: Game, who: str
) -> None:
    """At every step, for a spectator and for seat 0's player: no card of another hand
    or of the draw pile, no draw-pile order and no seed in any page or JSON answer."""
    viewer, seat = (client, None) if who == "spectator" else (ann_client, 0)
    record = store.record(running.id)
    order = next(e.event.order for e in record if isinstance(e.event, DeckShuffled))
    assert order is not None
    order_runs = [",".join(map(str, order[i:i + 6])) for i in range(0, len(order) - 6, 6)]
    answers: list[str] = []
    for step in range(1, running.version + 1):
        hidden = _hidden(store, running, step, seat)
        data = viewer.get(step_url(running, step)).json()
        assert "draw_pile" not in data["table"] and "seed" not in data["table"]
        for index, entry in enumerate(data["table"]["seats"]):
            assert ("hand" in entry) == (index == seat)
        leaked = set(_cards_in(data["table"])) & hidden
        assert not leaked, f"step {step}: hidden cards {leaked} in the JSON table"
        shown = {int(c) for c in DATA_CARD.findall(data["html"])}
        assert not shown & hidden, f"step {step}: hidden cards drawn in the HTML"
        answers.append(json.dumps(data, separators=(",", ":")))
        html = viewer.get(page(running), {"step": step}).content.decode()
        assert not {int(c) for c in DATA_CARD.findall(html)} & hidden
        answers.append(html)
    log = viewer.get(log_url(running)).json()
    seats = running.state.seats
    for line in log["lines"]:
        if line["kind"] in ("CardDealt", "CardDrawn"):
            mine = seat is not None and line["text"].startswith(seats[seat] + " ")
            # hidden: "a card", or the deal's line "... is dealt 5 cards" (no kinds)
            hidden = line["text"].endswith(("a card", " cards", " card"))
            assert hidden != mine, line
    answers.append(json.dumps(log, separators=(",", ":")))
    answers.append(viewer.get(page(running) + "embed/").content.decode())
    answers.append(viewer.get(f"/replays/games/{running.id}/export.jsonl").content.decode())
    for text in answers:
        assert SECRET_SEED not in text
        for run in order_runs:
            assert run not in text.replace(" ", "")


# -- private games and share tokens -------------------------------------------------


@pytest.fixture
def private(store: Games) -> Game:
    return bot_game("viewer-private", private=True,
                    players=["user:ann", "bot:nontrading", "bot:random"])


@pytest.mark.parametrize("suffix", ["", "embed/", "log.json", "steps/7.json", "export.jsonl"])
def test_private_game_is_refused_without_its_token(
    client: Client, store: Games, private: Game, suffix: str
) -> None:
    url = f"/replays/games/{private.id}/{suffix}"
    response = client.get(url)
    assert response.status_code == 403
    assert "private" in response.content.decode()
    wrong = private.share_token[:-1] + ("x" if private.share_token[-1] != "x" else "y")
    response = client.get(url, {"token": wrong})
    assert response.status_code == 403
    assert "not its token" in response.content.decode()
    assert client.get(url, {"token": private.share_token}).status_code == 200


def test_private_game_share_link_carries_the_token(
    client: Client, ann_client: Client, staff_client: Client, store: Games, private: Game
) -> None:
    for viewer, params in ((client, {"token": private.share_token}), (ann_client, {}),
                           (staff_client, {})):
        html = viewer.get(page(private), {"step": 30, **params}).content.decode()
        link = re.search(r'id="share-link" readonly value="([^"]+)"', html)
        assert link is not None
        assert f"token={private.share_token}" in link.group(1)
        assert "step=30" in link.group(1)
        assert f"/replays/games/{private.id}/embed/?step=30" in html


def test_public_game_share_link_has_no_token(client: Client, store: Games,
                                             finished: Game) -> None:
    html = client.get(page(finished), {"step": 12, "perspective": "seat-1"}).content.decode()
    link = re.search(r'id="share-link" readonly value="([^"]+)"', html)
    assert link is not None
    assert html_module.unescape(link.group(1)) == (f"http://testserver/replays/games/{finished.id}/"
                             "?step=12&perspective=seat-1")
    assert finished.share_token not in html


# -- the embed -------------------------------------------------------------------------


def test_embed_has_no_site_chrome_and_may_be_framed(
    client: Client, store: Games, finished: Game
) -> None:
    response = client.get(page(finished) + "embed/", {"step": 50, "perspective": "spectator"})
    assert response.status_code == 200
    assert "X-Frame-Options" not in response
    html = response.content.decode()
    assert "site-header" not in html
    assert 'data-step="50"' in html
    assert 'id="replay-log-lines"' in html
    assert f"/replays/games/{finished.id}/?step=50&amp;perspective=spectator" in html


def test_a_finished_game_links_its_audit_and_its_players_to_a_dispute(
        client: Client, ann_client: Client, store: Games) -> None:
    mine = bot_game("viewer-dispute", players=["user:ann", "bot:nontrading", "bot:random"])
    html = ann_client.get(page(mine), {"step": 40}).content.decode()
    assert reverse("replays:audit", kwargs={"game_id": mine.id}) in html
    dispute = reverse("replays:open_dispute", kwargs={"game_id": mine.id})
    assert f'href="{dispute}?seq=40"' in html
    # Someone who did not play may audit, not dispute.
    other = client.get(page(mine)).content.decode()
    assert reverse("replays:audit", kwargs={"game_id": mine.id}) in other
    assert dispute not in other


def test_a_running_game_offers_neither_audit_nor_dispute(ann_client: Client,
                                                        store: Games) -> None:
    game = running_game("viewer-no-audit", players=("user:ann", "user:bob", "user:cy"))
    html = ann_client.get(page(game)).content.decode()
    assert "/audit/" not in html and "/disputes/new/" not in html
