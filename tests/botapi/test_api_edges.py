"""The bot API at its edges, as an outside bot author's walkthrough met them: every
answer under /api/ is the API's JSON ``{"code", "message"}`` (an address with nothing
there, a method an address does not answer, a body over a limit at each of the three
layers that bound it, a failure); input bodies are strict; refusals say what the call
takes; the OpenAPI document describes the stream, the ``status`` filter and real bots;
the built-in bots are described; docs/bots.md says what the code does."""

from __future__ import annotations

import dataclasses
import json
import re
import sys
from enum import StrEnum
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import OperationalError
from django.test import Client

from bohnanza_core import rulesets
from bohnanza_core.bots import BOTS
from bohnanza_core.rulesets import MAX_PLAYERS, PRESETS, RULE_PARAMETERS
from botapi import api as api_module
from botapi import auth
from botapi.errors import MAX_BODY_BYTES, STATUS
from config.limits import body_limit
from play import notices
from play.models import Table
from tests.botapi.test_api import _bot, _client, fresh, openapi, post, refused
from tests.config.test_daphne_limits import _channel
from tests.config.test_limits import ChunkedClient, FiftyMegabyteClient, call_asgi

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
TABLE = {"ruleset": "classic", "players": 3, "seats": ["me", "bot:heuristic", "bot:random"]}

__all__ = ["fresh", "openapi"]  # test_api.py's fixtures: a quick hasher, no games, full
# allowances (autouse); the OpenAPI document as the API builds it


def _json(answer: Any) -> dict[str, Any]:
    assert answer["Content-Type"].startswith("application/json"), answer["Content-Type"]
    return dict(json.loads(answer.content))


# -- 1. a method an address does not answer --------------------------------------------


def test_a_method_an_address_does_not_answer_is_refused_in_json(openapi: dict) -> None:
    _robo, token = _bot()
    answer = _client(token).delete("/api/v1/account")
    body = refused(openapi, answer, "method_not_allowed")
    assert answer["Allow"] == "GET" and "DELETE" in body["message"]
    # a JSON client's Accept changes nothing: the API's body, not the site's {"error"}
    answer = _client(token).put("/api/v1/challenges", HTTP_ACCEPT="application/json")
    refused(openapi, answer, "method_not_allowed")
    assert set(answer["Allow"].split(", ")) == {"GET", "POST"}


# -- 2. bodies over a limit -------------------------------------------------------------


def test_a_body_over_the_apis_bound_is_refused_in_json_before_it_is_read(
        openapi: dict) -> None:
    """Django's layer (config/limits.py, from Content-Length) refuses by the path's
    limit (``body_limit``): under /api/ the API's bound, far below the site's 5 MB, so
    a body of 100 KB is refused before it is received whole; elsewhere the site's."""
    _robo, token = _bot()
    for size in (100 * 1024, 6 * 1024 * 1024):
        answer = _client(token).post("/api/v1/challenges", b"x" * size,
                                     content_type="application/json")
        body = refused(openapi, answer, "too_large")
        assert f"{MAX_BODY_BYTES // 1024} KB" in body["message"]
    assert body_limit("/api/v1/challenges") == MAX_BODY_BYTES
    assert body_limit("/replays/import/") == settings.BOHNANZA_MAX_REQUEST_BYTES


def test_the_asgi_and_daphne_layers_refuse_an_api_body_in_json_too(openapi: dict) -> None:
    client = FiftyMegabyteClient()
    status, headers, content = call_asgi(
        "/api/v1/challenges", [(b"content-length", str(MAX_BODY_BYTES + 1).encode())],
        client)
    assert client.chunks_asked == 0  # refused by its declared length: nothing read
    assert status == 413 and headers[b"Content-Type"].startswith(b"application/json")
    assert json.loads(content)["code"] == "too_large"
    channel, transport = _channel()
    channel.dataReceived(b"POST /api/v1/challenges?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                         b"Content-Length: 100000\r\n\r\n")  # over the API's bound
    head, _, content = transport.value().partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 413 ") and b"application/json" in head
    assert json.loads(content)["code"] == "too_large"
    # elsewhere the site's answers are unchanged: a page (or {"error"} for JSON clients)
    channel, transport = _channel()
    channel.dataReceived(b"POST /replays/verify/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                         b"Content-Length: 6291456\r\n\r\n")
    assert b"text/html" in transport.value().partition(b"\r\n\r\n")[0]


def test_a_refusal_before_django_runs_is_in_the_readers_language() -> None:
    """The ASGI layer answers before Django's LocaleMiddleware: it reads the language
    from the request itself."""
    _status, _headers, content = call_asgi(
        "/replays/import/", [(b"content-length", str(6 * 1024 * 1024).encode()),
                             (b"accept-language", b"hu")], FiftyMegabyteClient())
    assert "Túl nagy" in content.decode()


def _longest_house_rules() -> dict[str, Any]:
    """Every rule parameter at its longest legitimate value: the presets' longest, each
    option's longest wording, every bean kind, every player count, a deal for each
    seat."""
    found: dict[str, Any] = {}
    for bands in PRESETS.values():
        for band in bands:
            for name, value in band.parameters().items():
                if name in RULE_PARAMETERS and (name not in found or len(
                        json.dumps(value)) > len(json.dumps(found[name]))):
                    found[name] = value
    for field in dataclasses.fields(rulesets.Ruleset):
        kind = getattr(rulesets, str(field.type).split("|")[0].strip(), None)
        if field.name in RULE_PARAMETERS and isinstance(kind, type) and issubclass(
                kind, StrEnum):
            found[field.name] = max((m.value for m in kind), key=len)
    found["beans"] = [kind.value for kind in rulesets.BeanKind]
    found["players"] = list(range(2, MAX_PLAYERS + 1))
    found["deal"] = [10] * MAX_PLAYERS
    assert set(found) == set(RULE_PARAMETERS)
    return found


def test_the_api_parses_no_body_over_its_bound_which_fits_the_largest_with_room(
        openapi: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    """The largest legitimate body (every house rule; 7 seats of 150-character names,
    each character written as two ``\\u`` escapes, pretty-printed) is parsed; a body
    over MAX_BODY_BYTES is refused before the parser sees it."""
    largest = {"ruleset": max(PRESETS, key=len), "players": MAX_PLAYERS,
               "house_rules": _longest_house_rules(),
               "seats": ["me"] + ["user:" + "\U00020000" * 150] * (MAX_PLAYERS - 1),
               "clock": {"move_seconds": 86400, "game_seconds": 86400}, "public": True,
               "absence_seconds": 604800, "replacement_bot": "search-deep",
               "start_when_full": True}
    text = json.dumps(largest, indent=8)
    assert 4 * len(text.encode()) <= MAX_BODY_BYTES, len(text.encode())
    assert 10 * MAX_BODY_BYTES < settings.BOHNANZA_MAX_REQUEST_BYTES
    _robo, token = _bot()
    client = _client(token)
    answer = client.post("/api/v1/seeks", text, content_type="application/json")
    # parsed, and every field taken: the seats' accounts are what it refuses
    assert answer.status_code != 413 and answer.json()["code"] == "unknown_account"

    parsed: list[int] = []
    parse_body = api_module.api.parser.parse_body

    def counted(request: Any) -> Any:
        parsed.append(len(request.body))
        return parse_body(request)

    monkeypatch.setattr(api_module.api.parser, "parse_body", counted)
    over = {**TABLE, "house_rules": {"draw_cards": 1, "x": "y" * MAX_BODY_BYTES}}
    body = refused(openapi, post(client, "/api/v1/challenges", over), "too_large")
    assert f"{MAX_BODY_BYTES // 1024} KB" in body["message"]
    assert parsed == []
    assert post(client, "/api/v1/challenges", TABLE).status_code == 201
    assert len(parsed) == 1


def test_a_chunked_api_body_over_the_bound_is_refused_too() -> None:
    """Under ASGI a body without Content-Length (chunked) is counted as received."""

    status, _headers, content = call_asgi(
        "/api/v1/challenges", [(b"transfer-encoding", b"chunked"),
                               (b"content-type", b"application/json")],
        ChunkedClient(b" " * MAX_BODY_BYTES, 2))
    assert status == 413 and json.loads(content)["code"] == "too_large"


# -- 3. addresses with nothing there ----------------------------------------------------


@pytest.mark.parametrize("path", ["/api", "/api/", "/api/v1", "/api/v1/", "/api/v1/x/y"])
def test_every_address_under_api_without_a_call_is_the_apis_404(openapi: dict,
                                                                path: str) -> None:
    refused(openapi, Client().get(path), "not_found")
    # a POST there is told so, not asked for a CSRF token it has no use for
    _robo, token = _bot()
    guarded = Client(enforce_csrf_checks=True, HTTP_AUTHORIZATION=f"Bearer {token}")
    refused(openapi, guarded.post(path, "{}", content_type="application/json"), "not_found")
    hungarian = Client(HTTP_ACCEPT_LANGUAGE="hu").get(path)
    assert _json(hungarian)["message"] != _json(Client().get(path))["message"]


# -- failures ---------------------------------------------------------------------------


def test_a_failure_under_api_is_answered_in_json(openapi: dict,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    class Broken:
        def __init__(self, error: Exception) -> None:
            self.error = error

        def items(self) -> Any:
            raise self.error

    _robo, token = _bot()
    client = Client(HTTP_AUTHORIZATION=f"Bearer {token}", raise_request_exception=False)
    monkeypatch.setattr(api_module, "PRESETS", Broken(RuntimeError("a bug")))
    refused(openapi, client.get("/api/v1/rulesets"), "server_error")
    monkeypatch.setattr(api_module, "PRESETS", Broken(OperationalError("gone")))
    answer = client.get("/api/v1/rulesets")
    refused(openapi, answer, "unavailable")
    assert int(answer["Retry-After"]) >= 1


# -- 4. strict input --------------------------------------------------------------------


@pytest.mark.parametrize(("url", "body", "field"), [
    ("/api/v1/challenges", {**TABLE, "clock": "fast"}, "clock"),
    ("/api/v1/challenges", {**TABLE, "clock": [1, 2]}, "clock"),
    ("/api/v1/challenges", {**TABLE, "clock": None}, "clock"),
    ("/api/v1/challenges", {**TABLE, "clock": {"move_seconds": 60, "bogus": 1}}, "bogus"),
    ("/api/v1/challenges", {**TABLE, "clock": {"move_seconds": "60"}}, "move_seconds"),
    ("/api/v1/challenges", {**TABLE, "colour": "red"}, "colour"),
    ("/api/v1/challenges", {**TABLE, "players": 3.0}, "players"),
    ("/api/v1/challenges", {**TABLE, "players": "3"}, "players"),
    ("/api/v1/challenges", {**TABLE, "public": "yes"}, "public"),
    ("/api/v1/seeks", {**TABLE, "seats": ["me", "open", "open"], "start_when_full": 1},
     "start_when_full"),
    ("/api/v1/seeks", {**TABLE, "seats": ["me", "open", "open"], "start": True}, "start"),
    ("/api/v1/competitions/x/entries", {"account": "robo", "bot": True}, "bot"),
    # a number of players its ruleset is not played by (checked by the call itself)
    ("/api/v1/challenges", {**TABLE, "players": 2, "seats": ["me", "bot:random"]},
     "players"),
])
def test_input_bodies_are_strict(openapi: dict, url: str, body: dict, field: str) -> None:
    """A value of another type is refused, not converted (``"60"``, ``3.0``, ``"yes"``,
    ``1`` for a flag; ``"fast"``, ``[1, 2]`` or ``null`` for the clock, which
    django-ninja's Schema read as no clock), and a field the call does not take is
    refused, not ignored."""
    _robo, token = _bot(scopes=("play", "read", "enter"))
    answer = refused(openapi, post(_client(token), url, body), "invalid_request")
    assert any(entry["loc"][-1] == field for entry in answer["detail"]), answer
    # where the body has it (ninja's parameter, also named body, left out)
    assert all(entry["loc"][:2] != ["body", "body"] for entry in answer["detail"]), answer
    assert not Table.objects.exists()


def test_a_join_body_is_strict(openapi: dict) -> None:
    _robo, token = _bot()
    _bobo, bobo_token = _bot(name="bobo")
    seek = post(_client(token), "/api/v1/seeks", {
        **TABLE, "seats": ["me", "open", "open"], "start_when_full": False}).json()
    url = f"/api/v1/tables/{seek['id']}/join"
    for body, field in (({"seat": "1"}, "seat"), ({"seat": 1, "now": True}, "now")):
        answer = refused(openapi, post(_client(bobo_token), url, body), "invalid_request")
        assert answer["detail"][0]["loc"][-1] == field
    assert post(_client(bobo_token), url, {"seat": None}).status_code == 200


def test_what_the_client_package_sends_is_accepted() -> None:
    """Strict bodies refuse nothing the client package (clients/python) sends."""
    sys.path.insert(0, str(ROOT / "clients" / "python"))
    try:
        from bohnanza_client.account import Account
    finally:
        sys.path.remove(str(ROOT / "clients" / "python"))
    _robo, token = _bot()
    client = _client(token)
    body = Account._table_body(["me", "bot:heuristic", "bot:random"], "classic", None,
                               60, 0, {"draw_cards": 1}, True)
    assert post(client, "/api/v1/challenges", body).status_code == 201
    seek = post(client, "/api/v1/seeks", {
        **Account._table_body(["me", "open", "open"], "classic", 3, 0, 0, None, True),
        "start_when_full": False})
    assert seek.status_code == 201
    _bobo, bobo_token = _bot(name="bobo")
    joined = post(_client(bobo_token), f"/api/v1/tables/{seek.json()['id']}/join", {})
    assert joined.status_code == 200


# -- 5. refusals that say what the call takes ------------------------------------------


def test_a_wrong_number_of_seats_is_told_what_the_call_takes(openapi: dict) -> None:
    _robo, token = _bot()
    client = _client(token)
    challenge = refused(openapi, post(client, "/api/v1/challenges", {
        **TABLE, "seats": ["me", "bot:heuristic"]}), "invalid_seats")
    assert "user:<name>" in challenge["message"] and "3" in challenge["message"]
    assert "open, or a bot" not in challenge["message"]
    seek = refused(openapi, post(client, "/api/v1/seeks", {
        **TABLE, "seats": ["me", "open"]}), "invalid_seats")
    assert "'open'" in seek["message"] and "user:" not in seek["message"]


def test_a_table_size_the_ruleset_is_not_played_by_is_told_as_such(openapi: dict) -> None:
    _robo, token = _bot()
    body = refused(openapi, post(_client(token), "/api/v1/challenges", {
        "ruleset": "classic", "players": 7, "seats": ["me"] + ["bot:random"] * 6}),
        "invalid_request")
    assert body["detail"][0]["loc"][-1] == "players"
    assert "3-5" in body["message"] and "finnish" in body["message"]
    # house rules that change who plays it are the house rules' to refuse or allow
    refused(openapi, post(_client(token), "/api/v1/challenges", {
        "ruleset": "classic", "players": 7, "house_rules": {"players": [3, 4, 5]},
        "seats": ["me"] + ["bot:random"] * 6}), "invalid_house_rules")


# -- 6. the OpenAPI document ------------------------------------------------------------


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _value in pairs]
    assert len(set(keys)) == len(keys), f"a key twice: {keys}"
    return dict(pairs)


def test_the_openapi_document_describes_the_stream_the_filter_and_real_bots() -> None:
    served = Client().get("/api/openapi.json")
    # as the docs page (Swagger UI) reads it: an object with a key twice is refused
    openapi = json.loads(served.content, object_pairs_hook=_unique_keys)
    answer = openapi["paths"]["/api/v1/stream/event"]["get"]["responses"]["200"]
    line = answer["content"]["application/x-ndjson"]["schema"]
    assert line["properties"]["type"]["enum"] == [*notices.KINDS, "replaced"]
    [status] = openapi["paths"]["/api/v1/games"]["get"]["parameters"]
    assert status["name"] == "status"
    assert status["schema"]["items"]["enum"] == list(Table.Status.values)
    seats = openapi["components"]["schemas"]["TableIn"]["properties"]["seats"]
    named = [s[4:] for example in seats["examples"] for s in example if s.startswith("bot:")]
    assert named and all(name in BOTS for name in named)
    assert set(openapi["components"]["schemas"]["Error"]["properties"]["code"]["enum"]) \
        == set(STATUS)


def test_games_takes_one_status_or_several(openapi: dict) -> None:
    _robo, token = _bot()
    client = _client(token)
    running = post(client, "/api/v1/challenges", {**TABLE, "house_rules": {"draw_cards": 1}}
                   ).json()
    waiting = post(client, "/api/v1/seeks", {**TABLE, "seats": ["me", "open", "open"]}).json()

    def ids(query: str) -> set[str]:
        answer = client.get(f"/api/v1/games{query}")
        assert answer.status_code == 200, answer.content
        return {table["id"] for table in answer.json()}

    assert ids("?status=running") == {running["id"]}
    assert ids("?status=open&status=running") == {running["id"], waiting["id"]}
    assert ids("") == {running["id"], waiting["id"]}
    assert ids("?status=finished") == set()
    refused(openapi, client.get("/api/v1/games?status=open&status=nope"), "invalid_request")


# -- 7. the built-in bots described -----------------------------------------------------


def test_every_built_in_bot_is_described_in_a_sentence() -> None:
    _robo, token = _bot()
    listed = _client(token).get("/api/v1/bots").json()
    assert [bot["name"] for bot in listed] == list(BOTS)
    for bot in listed:
        text = bot["description"]
        assert text and text.endswith(".") and "\n" not in text, bot
        assert 20 <= len(text) <= 250, bot


# -- 8. docs/bots.md --------------------------------------------------------------------


def test_a_challenge_is_withdrawn_as_the_docs_say_and_the_docs_list_every_code(
        openapi: dict) -> None:
    docs = (ROOT / "docs" / "bots.md").read_text(encoding="utf-8")
    _robo, token = _bot()
    _bobo, bobo_token = _bot(name="bobo")
    made = post(_client(token), "/api/v1/challenges", {
        **TABLE, "seats": ["me", "user:bobo", "bot:random"]}).json()
    assert _client(bobo_token).get("/api/v1/challenges").json()
    refused(openapi, _client(bobo_token).delete(f"/api/v1/seeks/{made['id']}"),
            "not_creator")
    assert _client(token).delete(f"/api/v1/seeks/{made['id']}").status_code == 204
    assert _client(bobo_token).get("/api/v1/challenges").json() == []
    assert re.search(r"withdr\w+ [^.]*challenge[^.]*`DELETE /api/v1/seeks/\{id\}`", docs), \
        "docs/bots.md says how a challenge is withdrawn"
    table = docs.split("### Errors", 1)[1]
    listed = set(re.findall(r"`([a-z_]+)`", table))
    assert set(STATUS) <= listed, sorted(set(STATUS) - listed)
    assert f"{auth.CALLS_BURST} calls in a row" in table
    assert f"{auth.CALLS_PER_SECOND:g} a second" in table
    assert f"{MAX_BODY_BYTES // 1024} KB" in docs

