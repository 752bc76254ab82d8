"""The bot API (botapi/): tokens, challenges, seeks, joining, starting, one's games and
seat's view, competition entries; every error code answered with its status and a
body that the OpenAPI document's schema accepts, in the caller's language."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest
from django.contrib.auth.models import User
from django.test import Client

from botapi import auth
from botapi.errors import STATUS
from play import tokens
from play.authority import account_for
from play.models import ApiToken, Table
from replays.store import reset_games

pytestmark = pytest.mark.django_db

SHORT = {"draw_cards": 1}

seen_codes: set[str] = set()
"""Every error code a test here met (the last test checks none is missing)."""


@pytest.fixture(autouse=True)
def fresh(settings: Any) -> Iterator[None]:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    reset_games()
    auth._allowances.clear()
    yield
    reset_games()


@pytest.fixture(scope="module")
def openapi() -> dict[str, Any]:
    import django

    django.setup()
    from botapi.api import api

    return api.get_openapi_schema(path_prefix="/api/")  # type: ignore[no-any-return]


def _bot(owner_name: str = "olga", name: str = "robo",
         scopes: tuple[str, ...] = ("play", "read")) -> tuple[User, str]:
    owner = User.objects.filter(username=owner_name).first() or User.objects.create_user(
        owner_name, password="pw")
    account = tokens.create_bot(owner, name)
    _row, token = tokens.issue(account, "test", scopes)
    return account.user, token


def _client(token: str, language: str = "en") -> Client:
    return Client(HTTP_AUTHORIZATION=f"Bearer {token}", HTTP_ACCEPT_LANGUAGE=language)


def _error_schema(openapi: dict[str, Any]) -> dict[str, Any]:
    return {**openapi["components"]["schemas"]["Error"],
            "components": openapi["components"]}


def refused(openapi: dict[str, Any], answer: Any, code: str) -> dict[str, Any]:
    """Check a refusal: its status is the code's, its body the OpenAPI Error's."""
    body = json.loads(answer.content)
    assert body["code"] == code, body
    assert answer.status_code == STATUS[code], (answer.status_code, body)
    jsonschema.validate(body, _error_schema(openapi))
    # the operation's documented answers include this status, with the Error body
    seen_codes.add(code)
    return body


def post(client: Client, url: str, body: Any = None) -> Any:
    return client.post(url, json.dumps(body) if body is not None else "",
                       content_type="application/json")


def test_tokens_are_kept_as_a_keyed_digest_shown_once_scoped_and_revoked() -> None:
    robo, token = _bot()
    row = ApiToken.objects.get()
    assert token.startswith("bhz_") and token not in row.digest and row.hint == token[:8]
    assert len(row.digest) == 64 and row.scopes == "play read"
    bearer = account_for(token)
    assert bearer is not None and bearer.user == robo and bearer.scopes == {"play", "read"}
    account = robo.bot_account
    new_row, new_token = tokens.rotate(account, row.pk)
    assert account_for(token) is None and account_for(new_token) is not None
    assert new_row.label == "test" and new_row.scopes == "play read"
    tokens.revoke(account, new_row.pk)
    assert account_for(new_token) is None
    assert not robo.has_usable_password()


def test_a_bot_accounts_name_is_checked_as_it_is_stored() -> None:
    """A full-width name passed the case-insensitive check unnormalised, then was
    stored in ASCII: "mallory" with a full-width m failed with a 500 on the unique
    name, and MALLORY in full-width letters became a bot account MALLORY beside the
    person mallory."""
    User.objects.create_user("mallory")
    owner = User.objects.create_user("olga")
    for name in ("\uff4dallory", "\uff2d\uff21\uff2c\uff2c\uff2f\uff32\uff39", "MALLORY"):
        with pytest.raises(tokens.TokenError) as refused:
            tokens.create_bot(owner, name)
        assert refused.value.code == "name_taken"
    made = tokens.create_bot(owner, "\uff52obo")  # full-width r: stored as "robo"
    assert made.user.username == "robo"
    browser = Client()
    browser.force_login(owner)
    answer = browser.post("/account/bots/new/", {"name": "\uff4dallory"})
    assert answer.status_code == 400 and "is taken" in answer.content.decode()
    assert not User.objects.filter(username__iexact="mallory").exclude(
        username="mallory").exists()


def assert_a_token_is_found_and_marked_used_once_a_minute() -> None:
    """``account_for`` (a statement written by hand): a token's account with every
    column as the ORM reads it, its scopes, its id; its last use marked on first use,
    not again within a minute, again after; a revoked token, another account's digest
    and an unknown token find nobody."""
    from datetime import timedelta

    from django.utils import timezone

    robo, token = _bot(owner_name=f"olga-{token_suffix()}", name=f"robo-{token_suffix()}",
                       scopes=("play",))
    row = ApiToken.objects.get(account__user=robo)
    assert row.last_used_at is None
    bearer = account_for(token)
    assert bearer is not None and bearer.scopes == {"play"} and bearer.token_id == row.pk
    assert {f.attname: getattr(bearer.user, f.attname) for f in User._meta.concrete_fields} \
        == {f.attname: getattr(robo, f.attname) for f in User._meta.concrete_fields}
    first = ApiToken.objects.get(pk=row.pk).last_used_at
    assert first is not None
    account_for(token)
    assert ApiToken.objects.get(pk=row.pk).last_used_at == first
    ApiToken.objects.filter(pk=row.pk).update(last_used_at=first - timedelta(seconds=61))
    account_for(token)
    again = ApiToken.objects.get(pk=row.pk).last_used_at
    assert again is not None and again > first - timedelta(seconds=1)
    assert again <= timezone.now()
    assert account_for(token + "x") is None and account_for(row.digest) is None
    tokens.revoke(robo.bot_account, row.pk)
    assert account_for(token) is None


def token_suffix() -> str:
    from uuid import uuid4
    return uuid4().hex[:6]


def test_a_token_is_found_and_marked_used_once_a_minute() -> None:
    assert_a_token_is_found_and_marked_used_once_a_minute()


def test_the_command_lines_tokens_made_before_keep_working() -> None:
    """A token kept as its unkeyed SHA-256 (the first scheme) is still found."""
    from play.authority import legacy_digest
    from play.models import BotAccount

    robo = User.objects.create_user("robo")
    account = BotAccount.objects.create(user=robo)
    ApiToken.objects.create(account=account, label="old", digest=legacy_digest("bhz_old"),
                            hint="bhz_", scopes="play read")
    assert account_for("bhz_old") is not None and account_for("bhz_new") is None


def test_a_challenge_against_two_built_in_bots_starts_at_once(openapi: dict) -> None:
    _robo, token = _bot()
    client = _client(token)
    answer = post(client, "/api/v1/challenges", {
        "ruleset": "classic", "players": 3, "house_rules": SHORT,
        "seats": ["me", "bot:heuristic", "bot:nontrading"],
        "clock": {"move_seconds": 30, "game_seconds": 60}})
    assert answer.status_code == 201, answer.content
    table = answer.json()
    jsonschema.validate(table, {**openapi["components"]["schemas"]["TableOut"],
                                "components": openapi["components"]})
    assert table["status"] == "running" and table["your_seat"] == 0
    assert table["seats"][0]["bot_account"] and table["seats"][0]["bot"]
    assert table["socket"] == f"/ws/tables/{table['id']}/"
    view = client.get(f"/api/v1/tables/{table['id']}/view")
    assert view.status_code == 200, view.content
    frame = view.json()
    assert frame["type"] == "state" and frame["seat"] == 0 and "html" not in frame["answer"]
    assert frame["answer"]["table"]["perspective"] == 0
    games = client.get("/api/v1/games?status=running").json()
    assert [g["id"] for g in games] == [table["id"]]


def test_a_challenge_to_an_account_waits_for_its_answer(openapi: dict) -> None:
    _robo, token = _bot()
    _ann = User.objects.create_user("ann", password="pw")
    _bobo, bobo_token = _bot(name="bobo")
    robo, bobo = _client(token), _client(bobo_token)
    made = post(robo, "/api/v1/challenges", {
        "ruleset": "classic", "players": 3, "house_rules": SHORT,
        "seats": ["me", "user:bobo", "bot:random"]}).json()
    assert made["status"] == "open" and made["seats"][1]["kept_for"] == "bobo"
    assert [c["id"] for c in bobo.get("/api/v1/challenges").json()] == [made["id"]]
    # nobody else takes the kept seat
    ann_csrf = Client(enforce_csrf_checks=False)
    ann_csrf.force_login(User.objects.get(username="ann"))
    refused(openapi, post(ann_csrf, f"/api/v1/tables/{made['id']}/join"), "no_open_seat")
    refused(openapi, post(ann_csrf, f"/api/v1/challenges/{made['id']}/accept"),
            "no_challenge")
    accepted = post(bobo, f"/api/v1/challenges/{made['id']}/accept")
    assert accepted.status_code == 200 and accepted.json()["status"] == "running"
    assert accepted.json()["your_seat"] == 1
    refused(openapi, post(bobo, f"/api/v1/challenges/{made['id']}/accept"), "table_started")


def test_a_declined_challenge_is_withdrawn(openapi: dict) -> None:
    _robo, token = _bot()
    _bobo, bobo_token = _bot(name="bobo")
    made = post(_client(token), "/api/v1/challenges", {
        "ruleset": "classic", "players": 3, "seats": ["me", "user:bobo", "bot:random"]}
                ).json()
    answer = post(_client(bobo_token), f"/api/v1/challenges/{made['id']}/decline")
    assert answer.status_code == 204
    assert not Table.objects.filter(pk=made["id"]).exists()
    refused(openapi, _client(token).get(f"/api/v1/tables/{made['id']}"), "not_found")


def test_a_seek_is_joined_by_anyone_and_starts_when_full(openapi: dict) -> None:
    _robo, token = _bot()
    _bobo, bobo_token = _bot(name="bobo")
    robo, bobo = _client(token), _client(bobo_token)
    seek = post(robo, "/api/v1/seeks", {"ruleset": "classic", "players": 3,
                                        "seats": ["me", "open", "bot:random"]}).json()
    assert seek["status"] == "open"
    assert [s["id"] for s in bobo.get("/api/v1/seeks").json()] == [seek["id"]]
    refused(openapi, post(bobo, f"/api/v1/tables/{seek['id']}/start"), "not_creator")
    refused(openapi, post(robo, f"/api/v1/tables/{seek['id']}/start"), "seats_free")
    refused(openapi, post(robo, f"/api/v1/tables/{seek['id']}/join"), "already_seated")
    refused(openapi, robo.get(f"/api/v1/tables/{seek['id']}/view"), "not_running")
    joined = post(bobo, f"/api/v1/tables/{seek['id']}/join", {"seat": 1})
    assert joined.status_code == 200 and joined.json()["status"] == "running"
    refused(openapi, post(bobo, f"/api/v1/tables/{seek['id']}/join"), "table_started")
    # leaving a running game hands the seat to the table's bot
    assert post(bobo, f"/api/v1/tables/{seek['id']}/leave").status_code == 204
    # who left is told a bot plays the seat now; who never sat there, that they play none
    refused(openapi, bobo.get(f"/api/v1/tables/{seek['id']}/view"), "seat_handed")
    refused(openapi, post(bobo, f"/api/v1/tables/{seek['id']}/leave"), "seat_handed")
    _cleo, cleo_token = _bot(name="cleo")
    refused(openapi, _client(cleo_token).get(f"/api/v1/tables/{seek['id']}/view"),
            "not_seated")
    refused(openapi, post(_client(cleo_token), f"/api/v1/tables/{seek['id']}/leave"),
            "not_seated")


def test_a_seek_not_full_is_cancelled_by_its_creator_only(openapi: dict) -> None:
    _robo, token = _bot()
    _bobo, bobo_token = _bot(name="bobo")
    seek = post(_client(token), "/api/v1/seeks", {
        "ruleset": "classic", "players": 3, "seats": ["me", "open", "open"],
        "start_when_full": False}).json()
    refused(openapi, _client(bobo_token).delete(f"/api/v1/seeks/{seek['id']}"),
            "not_creator")
    assert _client(token).delete(f"/api/v1/seeks/{seek['id']}").status_code == 204
    assert not Table.objects.exists()


@pytest.mark.parametrize(("body", "code"), [
    ({"ruleset": "nope", "players": 3, "seats": ["me", "bot:random", "bot:random"]},
     "unknown_ruleset"),
    ({"ruleset": "classic", "players": 3, "house_rules": {"draw_cards": "x"},
      "seats": ["me", "bot:random", "bot:random"]}, "invalid_house_rules"),
    ({"ruleset": "classic", "players": 3, "seats": ["me", "bot:random"]}, "invalid_seats"),
    ({"ruleset": "classic", "players": 3, "seats": ["me", "me", "bot:random"]},
     "invalid_seats"),
    ({"ruleset": "classic", "players": 3, "seats": ["me", "open", "bot:random"]},
     "invalid_seats"),
    ({"ruleset": "classic", "players": 3, "seats": ["me", "bot:nope", "bot:random"]},
     "unknown_bot"),
    ({"ruleset": "classic", "players": 3, "seats": ["me", "user:nobody", "bot:random"]},
     "unknown_account"),
    ({"ruleset": "classic", "players": 3, "seats": ["me", "user:robo", "bot:random"]},
     "invalid_seat"),
    # a lone surrogate (JSON's "\ud800") once reached the database's lookup: a 500
    ({"ruleset": "classic", "players": 3, "seats": ["me", "user:\ud800", "bot:random"]},
     "unknown_account"),
    ({"ruleset": "classic", "players": 3, "seats": ["me", "bot:random", "bot:random"],
      "absence_seconds": 10**9}, "invalid_request"),
    ({"ruleset": "classic", "players": 3, "seats": ["me", "bot:random", "bot:random"],
      "replacement_bot": "nope"}, "unknown_bot"),
    ({"ruleset": "classic", "players": "three"}, "invalid_request"),
])
def test_a_challenge_refused_says_why(openapi: dict, body: dict, code: str) -> None:
    _robo, token = _bot()
    refused(openapi, post(_client(token), "/api/v1/challenges", body), code)
    assert not Table.objects.exists()


def test_a_seek_refused_says_why(openapi: dict) -> None:
    _robo, token = _bot()
    _bobo, _t = _bot(name="bobo")
    client = _client(token)
    refused(openapi, post(client, "/api/v1/seeks", {
        "ruleset": "classic", "players": 3, "seats": ["me", "bot:random", "bot:random"]}),
        "invalid_seats")
    refused(openapi, post(client, "/api/v1/seeks", {
        "ruleset": "classic", "players": 3, "seats": ["me", "user:bobo", "open"]}),
        "invalid_seats")


def test_the_play_clock_range_is_refused_by_the_table_rules(openapi: dict) -> None:
    """A clock outside what the lobby accepts: the schema's bound answers first."""
    _robo, token = _bot()
    refused(openapi, post(_client(token), "/api/v1/challenges", {
        "ruleset": "classic", "players": 3, "seats": ["me", "bot:random", "bot:random"],
        "clock": {"move_seconds": -1}}), "invalid_request")


def test_who_calls_is_decided_by_the_credential_at_each_call(openapi: dict) -> None:
    robo, token = _bot(scopes=("read",))
    refused(openapi, Client().get("/api/v1/account"), "unauthenticated")
    refused(openapi, Client(HTTP_AUTHORIZATION="Basic abc").get("/api/v1/account"),
            "invalid_token")
    refused(openapi, _client("bhz_nope").get("/api/v1/account"), "invalid_token")
    assert _client(token).get("/api/v1/account").json() == {
        "username": "robo", "bot": True, "owner": "olga", "scopes": ["read"]}
    refused(openapi, post(_client(token), "/api/v1/challenges", {
        "ruleset": "classic", "players": 3, "seats": ["me", "bot:random", "bot:random"]}),
        "missing_scope")
    tokens.revoke(robo.bot_account, ApiToken.objects.get().pk)
    refused(openapi, _client(token).get("/api/v1/account"), "invalid_token")


def test_a_session_call_that_changes_anything_carries_the_csrf_token(openapi: dict) -> None:
    ann = User.objects.create_user("ann", password="pw")
    client = Client(enforce_csrf_checks=True)
    client.force_login(ann)
    assert client.get("/api/v1/account").json()["bot"] is False
    body = {"ruleset": "classic", "players": 3, "house_rules": SHORT,
            "seats": ["me", "bot:random", "bot:random"]}
    refused(openapi, post(client, "/api/v1/challenges", body), "csrf_failed")
    client.get("/play/")  # the page sets the CSRF cookie
    csrf = client.cookies["csrftoken"].value
    answer = client.post("/api/v1/challenges", json.dumps(body),
                         content_type="application/json", HTTP_X_CSRFTOKEN=csrf)
    assert answer.status_code == 201, answer.content


def test_a_private_table_is_not_found_by_others(openapi: dict) -> None:
    _robo, token = _bot()
    _bobo, bobo_token = _bot(name="bobo")
    made = post(_client(token), "/api/v1/seeks", {
        "ruleset": "classic", "players": 3, "seats": ["me", "open", "bot:random"],
        "public": False}).json()
    refused(openapi, _client(bobo_token).get(f"/api/v1/tables/{made['id']}"), "not_found")
    refused(openapi, _client(bobo_token).get("/api/v1/tables/not-a-uuid"), "not_found")
    refused(openapi, _client(bobo_token).get("/api/v1/nowhere"), "not_found")
    refused(openapi, _client(bobo_token).get("/api/v1/games?status=nope"), "invalid_request")


def test_messages_are_in_the_callers_language(openapi: dict) -> None:
    _robo, token = _bot()
    body = refused(openapi, post(_client(token, "hu"), "/api/v1/challenges", {
        "ruleset": "classic", "players": 3, "seats": ["me", "bot:nope", "bot:random"]}),
        "unknown_bot")
    english = refused(openapi, post(_client(token, "en"), "/api/v1/challenges", {
        "ruleset": "classic", "players": 3, "seats": ["me", "bot:nope", "bot:random"]}),
        "unknown_bot")
    assert body["message"] != english["message"]
    finnish = refused(openapi, _client("bhz_nope", "fi").get("/api/v1/account"),
                      "invalid_token")
    assert "token" not in finnish["message"].split()[0:1]
    assert finnish["message"] != refused(openapi, _client("bhz_nope").get(
        "/api/v1/account"), "invalid_token")["message"]


def test_too_many_calls_are_refused_with_retry_after(openapi: dict, monkeypatch: Any
                                                    ) -> None:
    monkeypatch.setattr(auth, "CALLS_PER_SECOND", 0.01)
    _robo, token = _bot()
    client = _client(token)
    for _ in range(auth.CALLS_BURST):
        assert client.get("/api/v1/bots").status_code == 200
    answer = client.get("/api/v1/bots")
    refused(openapi, answer, "rate_limited")
    assert int(answer["Retry-After"]) >= 1


def test_the_openapi_document_describes_every_call_and_its_errors(openapi: dict) -> None:
    served = Client().get("/api/openapi.json")
    assert served.status_code == 200
    document = served.json()
    assert document["paths"].keys() == openapi["paths"].keys()
    for path, methods in document["paths"].items():
        assert path.startswith("/api/v1/")
        for method, operation in methods.items():
            for status in ("400", "401", "403", "404", "409", "429"):
                assert status in operation["responses"], (path, method, status)
    docs = Client().get("/api/docs")
    assert docs.status_code == 200 and b"swagger-ui" in docs.content


def test_entries_are_the_owners_or_the_bots_with_its_consent(openapi: dict) -> None:
    from bohnanza_core.rulesets import customize
    from tournaments.core.competition import LivePlay
    from tournaments.core.store import create, reset_competitions

    reset_competitions()
    ruleset = customize("classic", 3, SHORT)
    ladder = create("API Ladder", "ladder", {}, ruleset, 3,
                    ["heuristic@builtin", "random@builtin"], every=60,
                    live=LivePlay("classic", SHORT, 60, 0, 1, False))
    bots_only = create("Bots Ladder", "ladder", {}, ruleset, 3,
                       ["heuristic@builtin", "random@builtin"], every=60)
    _robo, play_token = _bot()
    _robo_again, enter_token = tokens.issue(User.objects.get(username="robo").bot_account,
                                            "enter", ("enter",))
    _bobo, bobo_token = _bot(owner_name="zed", name="bobo", scopes=("enter",))
    # What a bot may enter now: the live ladder, not the bots-only one.
    listed = _client(play_token).get("/api/v1/competitions")
    assert listed.status_code == 200
    (open_one,) = listed.json()
    jsonschema.validate(open_one, {**openapi["components"]["schemas"]["CompetitionOut"],
                                   "components": openapi["components"]})
    assert open_one["id"] == str(ladder.id) and open_one["format"] == "ladder"
    assert open_one["clock"] == {"move_seconds": 60, "game_seconds": 0}
    assert open_one["page"] == f"/tournaments/{ladder.id}/" and open_one["entrants"] == 2
    url = f"/api/v1/competitions/{ladder.id}/entries"
    refused(openapi, post(_client(play_token), url, {"account": "robo"}), "missing_scope")
    refused(openapi, post(_client(bobo_token), url, {"account": "robo"}), "not_owner")
    refused(openapi, post(_client(enter_token), url, {"account": "nobody"}),
            "unknown_account")
    refused(openapi, post(_client(enter_token), "/api/v1/competitions/nope/entries",
                          {"account": "robo"}), "not_found")
    refused(openapi, post(_client(enter_token),
                          "/api/v1/competitions/00000000-0000-0000-0000-000000000000/entries",
                          {"account": "robo"}), "not_found")
    refused(openapi, post(_client(enter_token), f"/api/v1/competitions/{bots_only.id}/entries",
                          {"account": "robo"}), "entry_refused")
    assert not open_one["entered"]
    assert post(_client(enter_token), url, {"account": "robo"}).status_code == 201
    refused(openapi, post(_client(enter_token), url, {"account": "robo"}), "entry_refused")
    # the bot reads that it entered, and its rating, without the page
    (listed_again,) = _client(play_token).get("/api/v1/competitions").json()
    assert listed_again["entered"]
    detail = _client(play_token).get(f"/api/v1/competitions/{ladder.id}")
    assert detail.status_code == 200
    jsonschema.validate(detail.json(), {
        **openapi["components"]["schemas"]["CompetitionDetailOut"],
        "components": openapi["components"]})
    body = detail.json()
    assert body["entered"] and not body["finished"]
    assert {r["entrant"] for r in body["ratings"]} == {
        "heuristic@builtin", "random@builtin", "user:robo"}
    mine = next(r for r in body["ratings"] if r["entrant"] == "user:robo")
    assert (mine["name"], mine["games"], mine["rating"]) == ("robo", 0, 0.0)
    for missing in (f"/api/v1/competitions/{bots_only.id}", "/api/v1/competitions/nope",
                    "/api/v1/competitions/00000000-0000-0000-0000-000000000000"):
        refused(openapi, _client(play_token).get(missing), "not_found")
    # its owner, signed in, enters it too (here: bobo, owned by zed)
    zed = Client()
    zed.force_login(User.objects.get(username="zed"))
    answer = post(zed, url, {"account": "bobo"})
    assert answer.status_code == 201 and answer.json()["entrant"] == "user:bobo"
    reset_competitions()


@pytest.mark.parametrize("code", ["stale", "illegal", "seat_handed"])
def test_a_race_lost_while_leaving_says_why(openapi: dict, monkeypatch: Any,
                                            code: str) -> None:
    """A seat handed over by another process between the call and the store: the
    store's refusal comes back with its code."""
    from play import tables
    from play.tables import TableError

    _robo, token = _bot()
    made = post(_client(token), "/api/v1/challenges", {
        "ruleset": "classic", "players": 3, "house_rules": SHORT,
        "seats": ["me", "bot:random", "bot:random"]}).json()

    def lost(*_args: Any, **_kwargs: Any) -> None:
        raise TableError("lost the race", code)

    monkeypatch.setattr(tables, "hand_to_bot", lost)
    refused(openapi, post(_client(token), f"/api/v1/tables/{made['id']}/leave"), code)


def test_every_error_code_has_a_test() -> None:
    """Each code of botapi.errors.STATUS is checked by a test of this file or of
    test_api_edges.py (by :func:`refused`, which checks its status and body; the tests
    may run in several workers, so the files are read rather than the codes met
    counted)."""
    from pathlib import Path

    here = Path(__file__).parent
    source = "".join((here / name).read_text() for name in ("test_api.py",
                                                            "test_api_edges.py"))
    checks = "".join(re.findall(r'refused\(.*?"([a-z_]+)"\)', source, re.S))
    codes = set(re.findall(r'refused\(openapi, .*?, (?:"([a-z_]+)"|code)\)', source, re.S))
    parametrized = set(re.findall(r'"([a-z_]+)"\),?\n', source)) | set(
        re.findall(r'\["(stale)", "(illegal)", "(seat_handed)"\]', source)[0])
    assert checks
    missing = sorted(c for c in STATUS if c not in codes | parametrized | seen_codes)
    assert not missing, missing


def test_a_bot_account_is_marked_in_standings_and_the_lobby() -> None:
    from play.models import describe
    from play.tables import create_table
    from tournaments.templatetags.entrants import entrant

    robo, _token = _bot()
    ann = User.objects.create_user("ann")
    assert "bot-mark" in entrant("user:robo") and "bot-mark" not in entrant("user:ann")
    table = create_table(ann, "classic", 3, seats=["open", "open", "random"])
    from play.tables import join

    join(table, robo)
    line = describe(Table.objects.get(pk=table.pk))
    assert line["bot_accounts"] == [1] and line["seats"][1] == "user:robo"
