"""Issue 8, item 5: inputs that answered 500. Each gets a clear 400 (or the page with a
form error), never a 5xx, and nothing stored changes.

The walk over every URL with hostile values is ``tests/config/test_url_walker.py``;
these are the cases the issue names, one test each, so a regression says which."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from bohnanza_core.export import export_record
from bohnanza_core.games import Game, Games
from bohnanza_core.jsonlimits import MAX_DEPTH, MAX_INT_DIGITS
from replays.disputes import Disputes, disputes, reset_disputes
from tests.factories import bot_game, running_game

PLAYERS = ["user:ann", "bot:nontrading", "bot:random"]
NON_ASCII_TOKENS = ["é", "\u00a0", "\u0663", "x" * 20 + "é", "\U0001f600"]


@pytest.fixture
def ann(db: None) -> Client:
    client = Client()
    client.force_login(User.objects.create_user("ann", password="pw"))
    return client


@pytest.fixture
def apps(store: Games) -> Iterator[Disputes]:
    reset_disputes()
    yield disputes()
    reset_disputes()


def stored(store: Games) -> int:
    return store.recorder.max_notification_id() or 0


def game_urls(game: Game) -> list[str]:
    kwargs = {"game_id": str(game.id)}
    urls = [reverse(f"replays:{name}", kwargs=kwargs)
            for name in ("replay", "replay_embed", "replay_log", "replay_export", "audit")]
    return [*urls, reverse("replays:replay_step", kwargs={**kwargs, "step": "1"})]


# -- a non-ASCII ?token= ------------------------------------------------------------


@pytest.mark.parametrize("token", NON_ASCII_TOKENS)
def test_a_non_ascii_token_opens_no_private_game(client: Client, store: Games,
                                                 token: str) -> None:
    game = bot_game("hostile-private", players=PLAYERS, private=True)
    for url in game_urls(game):
        response = client.get(url, {"token": token})
        assert response.status_code == 403, (url, token)


@pytest.mark.parametrize("token", NON_ASCII_TOKENS)
def test_a_non_ascii_token_is_ignored_on_a_public_game(client: Client, store: Games,
                                                       token: str) -> None:
    game = bot_game("hostile-public", players=PLAYERS)
    for url in game_urls(game):
        assert client.get(url, {"token": token}).status_code == 200, (url, token)


def test_the_right_token_still_opens_a_private_game(client: Client, store: Games) -> None:
    game = bot_game("hostile-private-ok", players=PLAYERS, private=True)
    for url in game_urls(game):
        assert client.get(url, {"token": game.share_token}).status_code == 200, url


# -- uploads: deep nesting, huge numbers -------------------------------------------


def _everything(store: Games, game: Game) -> str:
    return export_record(store.record(game.id), head=game.head_hash)


def _with_line(text: str, index: int, line: str) -> str:
    lines = text.splitlines()
    lines[index] = line
    return "\n".join(lines) + "\n"


def hostile_files(store: Games, game: Game) -> dict[str, tuple[str, str]]:
    """name: (file text, what the refusal says)."""
    text = _everything(store, game)
    lines = text.splitlines()
    deep = "[" * 30_000 + "]" * 30_000
    deep_in_event = lines[2][:-1] + ',"x":' + "[" * 20_000 + "]" * 20_000 + "}"
    huge = "9" * 5000
    return {
        "deep header": (_with_line(text, 0, deep), "line 1: nesting deeper than"),
        "deep event": (_with_line(text, 2, deep_in_event), "line 3: nesting deeper than"),
        "deep objects": (_with_line(text, 1, '{"a":' * 5000 + "1" + "}" * 5000),
                         "line 2: nesting deeper than"),
        "huge seq": (_with_line(text, 1, lines[1].replace('"seq":1,', f'"seq":{huge},', 1)),
                     f"line 2: a number of more than {MAX_INT_DIGITS} digits"),
        "huge events count": (_with_line(text, 0, lines[0].replace(
            '"events":', f'"events":-{huge},"x":', 1)), "line 1: a number of more than"),
        # A seat's name as JSON's \ud800 (a lone surrogate: no character): hashing the
        # entry to check its chain raised UnicodeEncodeError, a 500 of 20-54 s.
        "lone surrogate": (_with_line(text, 1, lines[1].replace(
            '"seats":["', '"seats":["\\ud800', 1)), "line 2: a text holds a lone surrogate"),
        "lone surrogate key": (_with_line(text, 1, lines[1][:-1] + ',"\\udc00":1}'),
                               "line 2: a text holds a lone surrogate"),
    }


def _upload(text: str) -> SimpleUploadedFile:
    return SimpleUploadedFile("hostile.jsonl", text.encode(), "application/x-ndjson")


@pytest.mark.parametrize("case", ["deep header", "deep event", "deep objects", "huge seq",
                                  "huge events count", "lone surrogate",
                                  "lone surrogate key"])
def test_hostile_uploads_are_a_clear_400_on_verify_audit_and_import(
        store: Games, ann: Client, case: str) -> None:
    game = bot_game("hostile-upload", players=PLAYERS)
    text, message = hostile_files(store, game)[case]
    before = stored(store)
    for url, field in ((reverse("replays:verify"), "record"),
                       (reverse("replays:audit", kwargs={"game_id": str(game.id)}), "record"),
                       (reverse("replays:import"), "file")):
        response = ann.post(url, {field: _upload(text)})
        assert response.status_code == 400, (url, case)
        assert message in response.content.decode(), (url, case)
    assert stored(store) == before


def test_nesting_depth_in_the_message_is_the_bound(store: Games, ann: Client) -> None:
    game = bot_game("hostile-depth", players=PLAYERS)
    text, _ = hostile_files(store, game)["deep event"]
    response = ann.post(reverse("replays:verify"), {"record": _upload(text)})
    assert f"line 3: nesting deeper than {MAX_DEPTH} levels" in response.content.decode()


# -- the game list's dates -----------------------------------------------------------


@pytest.mark.parametrize(("params", "status"), [
    ({"started_to": "9999-12-31"}, 200),
    ({"started_from": "9999-12-31"}, 200),
    ({"started_from": "0001-01-01", "started_to": "9999-12-31"}, 200),
    ({"started_from": "0001-01-01"}, 200),
    ({"started_to": "0001-01-01"}, 200),
    ({"started_to": "10000-01-01"}, 400),
    ({"started_to": "\u0662\u0660\u0662\u0666-\u0660\u0661-\u0660\u0661"}, 400),
])
def test_the_calendars_ends_are_dates_like_any_other(client: Client, store: Games,
                                                     params: dict[str, str],
                                                     status: int) -> None:
    bot_game("hostile-dates", players=PLAYERS)
    response = client.get(reverse("replays:game_list"), params)
    assert response.status_code == status


def test_the_last_day_of_the_calendar_includes_every_game(client: Client,
                                                          store: Games) -> None:
    bot_game("hostile-dates-2", players=PLAYERS)
    response = client.get(reverse("replays:game_list"), {"started_to": "9999-12-31"})
    assert response.context["page"].paginator.count == 1
    response = client.get(reverse("replays:game_list"), {"started_from": "9999-12-31"})
    assert response.context["page"].paginator.count == 0


# -- the dispute form's seq ----------------------------------------------------------


@pytest.fixture
def dispute_game(apps: Disputes) -> Game:
    return bot_game("hostile-dispute", players=PLAYERS)


@pytest.mark.parametrize("seq", ["²", "\u0663", "①", "9" * 5000, "-1", "0", "1e3", " 3", "",
                                 "3\x00"])
def test_a_seq_that_is_not_an_event_number_prefills_nothing(ann: Client, dispute_game: Game,
                                                             seq: str) -> None:
    url = reverse("replays:open_dispute", kwargs={"game_id": str(dispute_game.id)})
    response = ann.get(url, {"seq": seq})
    assert response.status_code == 200
    assert response.context["seq"] is None


def test_a_good_seq_still_prefills(ann: Client, dispute_game: Game) -> None:
    url = reverse("replays:open_dispute", kwargs={"game_id": str(dispute_game.id)})
    assert ann.get(url, {"seq": "3"}).context["seq"] == 3


@pytest.mark.parametrize("seq", ["²", "①", "9" * 5000, "-1", "0", "1e3", "",
                                 "3\x00", str(10**30)])
def test_a_posted_seq_that_is_not_an_event_number_is_a_form_error(
        ann: Client, dispute_game: Game, apps: Disputes, seq: str) -> None:
    url = reverse("replays:open_dispute", kwargs={"game_id": str(dispute_game.id)})
    before = apps.recorder.max_notification_id()
    response = ann.post(url, {"event_seq": seq, "complaint": "this is wrong"})
    assert response.status_code == 400
    assert response.context["form"].errors["event_seq"]
    assert apps.recorder.max_notification_id() == before


# -- the viewer's perspective and step -----------------------------------------------


@pytest.mark.parametrize("perspective", ["seat-²", "seat-\u0663", "seat-" + "9" * 5000,
                                         "seat-" + "1" * 40, "seat--1", "seat-\x00"])
def test_a_perspective_that_names_no_seat_is_a_400(client: Client, store: Games,
                                                   perspective: str) -> None:
    game = bot_game("hostile-perspective", players=PLAYERS)
    for url in game_urls(game)[:4]:
        response = client.get(url, {"perspective": perspective})
        assert response.status_code == 400, (url, perspective[:20])


@pytest.mark.parametrize("step", ["\u0663", "²", "9" * 5000, "-9" * 3000, "1_0", " 3", "3\x00"])
def test_a_step_that_is_not_an_ascii_number_is_a_400(client: Client, store: Games,
                                                     step: str) -> None:
    game = bot_game("hostile-step", players=PLAYERS)
    response = client.get(game_urls(game)[0], {"step": step})
    assert response.status_code == 400, step[:20]
    assert "The step must be a whole number" in response.content.decode()


def test_a_running_games_seat_view_stays_its_players(client: Client, store: Games) -> None:
    game = running_game("hostile-running")
    response = client.get(game_urls(game)[0], {"perspective": "seat-0", "token": "é"})
    assert response.status_code == 403



# -- a token is carried in links only when it is the game's -------------------------


def test_a_long_wrong_token_is_not_repeated_in_every_link(client: Client, store: Games) -> None:
    """It was: a 100 kB ?token= on a finished game's page made a 50 MB page (the token
    in each of the log's links); now only the game's own token is carried."""
    game = bot_game("hostile-long-token", players=PLAYERS)
    token = "T0KEN" + "t" * 100_000
    for url in game_urls(game):
        response = client.get(url, {"token": token})
        assert response.status_code == 200, url
        assert len(response.content) < 1_000_000, url
        assert response.content.count(b"T0KEN") <= 1, url  # the sign-in link's ?next=


def test_the_games_own_token_is_still_carried(client: Client, store: Games) -> None:
    game = bot_game("hostile-own-token", players=PLAYERS, private=True)
    html = client.get(game_urls(game)[0], {"token": game.share_token}).content.decode()
    assert html.count(f"token={game.share_token}") > 10
    audit = client.get(game_urls(game)[4], {"token": game.share_token}).content.decode()
    assert f"token={game.share_token}" in audit


@pytest.mark.parametrize("length", ["abc", "-5", "1e9", "\u0663", "9" * 5000])
def test_a_content_length_that_is_no_number_is_no_500(client: Client, store: Games,
                                                      length: str) -> None:
    game = bot_game("hostile-length", players=PLAYERS)
    text = _everything(store, game)
    for url in (reverse("replays:verify"),
                reverse("replays:audit", kwargs={"game_id": str(game.id)})):
        response = client.post(url, {"record": _upload(text)}, CONTENT_LENGTH=length)
        assert response.status_code < 500, (url, length[:20])
