"""Errors that escape the views: pages for people, ``{"error": ...}`` for JSON clients.

The test client runs with debug off (as Django's test runner always does), so Django
answers through the handlers in config/urls.py, as in production.
"""

import json
import logging
from collections.abc import Iterator
from typing import Any
from uuid import UUID

import pytest
from django.test import Client
from pytest_django.fixtures import Settings

from tests.config.failing_urls import FAILURE


@pytest.fixture
def failing(settings: Settings) -> Client:
    """A client on URLs with a failing view, given the 500 answer instead of the error."""
    settings.ROOT_URLCONF = "tests.config.failing_urls"
    return Client(raise_request_exception=False)


def error_of(response: object) -> str:
    assert response["Content-Type"] == "application/json"  # type: ignore[index]
    body = json.loads(response.content)  # type: ignore[attr-defined]
    assert list(body) == ["error"]
    return str(body["error"])


def test_unhandled_exception_renders_500_page_and_is_logged(
        failing: Client, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="django.request"):
        response = failing.post("/fail/", {"hand": "secret-cards-in-hand"})

    assert response.status_code == 500
    page = response.content.decode()
    assert "Something went wrong" in page
    assert "has been logged" in page
    assert FAILURE not in page  # the error's details stay in the log
    [record] = [r for r in caplog.records if r.name == "django.request"]
    assert record.levelname == "ERROR"
    assert record.getMessage() == "Internal Server Error: /fail/"
    assert record.exc_info is not None and str(record.exc_info[1]) == FAILURE
    assert "secret-cards-in-hand" not in caplog.text  # request bodies are never logged


def test_unhandled_exception_on_json_path_answers_json(failing: Client) -> None:
    response = failing.get("/fail.json")

    assert response.status_code == 500
    message = error_of(response)
    assert "Server error" in message
    assert FAILURE not in message


def test_unhandled_exception_for_json_client_answers_json(failing: Client) -> None:
    response = failing.get("/fail/", HTTP_ACCEPT="application/json")

    assert response.status_code == 500
    assert "Server error" in error_of(response)
    assert "Accept" in response["Vary"]


@pytest.mark.parametrize("path", ["/replays/games/nothing/here.json", "/no-such.json"])
def test_unmatched_json_path_answers_json_404(client: Client, path: str) -> None:
    response = client.get(path)

    assert response.status_code == 404
    assert error_of(response) == f"Nothing at {path}."


def test_json_client_gets_json_404_and_browser_the_page(client: Client) -> None:
    as_json = client.get("/no-such-page/", HTTP_ACCEPT="application/json, text/plain, */*")
    as_page = client.get("/no-such-page/", HTTP_ACCEPT="text/html,application/xhtml+xml,*/*;q=0.8")
    anything = client.get("/no-such-page/", HTTP_ACCEPT="*/*")

    assert as_json.status_code == as_page.status_code == anything.status_code == 404
    assert error_of(as_json) == "Nothing at /no-such-page/."
    for response in (as_page, anything):
        assert response["Content-Type"].startswith("text/html")
        assert "This page does not exist" in response.content.decode()


def test_a_forms_address_opened_in_the_browser_answers_a_page(client: Client) -> None:
    response = client.get("/play/tables/new/", HTTP_ACCEPT="text/html")
    assert response.status_code == 405 and response["Allow"] == "POST"
    assert "<h1>Not a page</h1>" in response.content.decode()


def test_wrong_method_on_json_path_answers_json_405(client: Client) -> None:
    response = client.post("/replays/games/some-game/log.json")

    assert response.status_code == 405
    assert "method" in error_of(response)
    assert response["Allow"] == "GET, HEAD"


def test_csrf_failure_on_json_path_answers_json_403(db: None) -> None:
    response = Client(enforce_csrf_checks=True).post("/replays/games/some-game/log.json")

    assert response.status_code == 403
    assert error_of(response) == "Not allowed."


def test_csrf_failure_page_says_what_to_do(db: None) -> None:
    response = Client(enforce_csrf_checks=True).post("/accounts/login/",
                                                     {"username": "ann", "password": "x"})

    assert response.status_code == 403
    page = response.content.decode()
    assert "The form could not be checked" in page
    assert "reload the page" in page


def test_bad_request_answers_page_or_json(client: Client) -> None:
    # A host outside ALLOWED_HOSTS is a SuspiciousOperation: Django answers 400.
    page = client.get("/", HTTP_HOST="evil.example")
    as_json = client.get("/replays/games/x/log.json", HTTP_HOST="evil.example")

    assert page.status_code == as_json.status_code == 400
    assert "The server could not make sense of this request" in page.content.decode()
    assert "Bad request" in error_of(as_json)


def test_error_pages_render_without_request_or_database() -> None:
    """500 and its siblings render from the template alone (no request, no context
    processors, no database access: this test has none)."""
    from django.template.loader import render_to_string

    for template, title in [("500.html", "Something went wrong"), ("400.html", "Bad request"),
                            ("403.html", "Not allowed"), ("413.html", "Too large")]:
        page = render_to_string(template, {"limit_mb": "5"})
        assert title in page
        assert "/static/css/site.css" in page
        assert 'href="/"' in page


@pytest.mark.parametrize("accept", ["", ",", ";;;", "text/html;q=abc", "application/json;q=nan",
                                    "a/b/c", "*/*;q=2", "\t", "application/json;q=inf"])
def test_odd_accept_headers_get_an_answer_not_a_server_error(client: Client,
                                                             accept: str) -> None:
    response = client.get("/no-such-page/", HTTP_ACCEPT=accept)

    assert response.status_code == 404


# -- the database unavailable: 503, not 500 (issue 9) ---------------------------------


@pytest.fixture
def database_down(transactional_db: None, tmp_path: Any,
                  monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The database cannot be opened, as when its server is down: the real driver fails
    to connect (the file's folder does not exist). Put back afterwards."""
    from django.db import connection

    from replays.store import reset_games

    reset_games()
    connection.close()
    monkeypatch.setitem(connection.settings_dict, "NAME", str(tmp_path / "gone" / "db.sqlite3"))
    yield
    connection.close()
    monkeypatch.undo()
    reset_games()


@pytest.mark.parametrize("path", [
    "/replays/games/",  # the game list (Django's ORM)
    f"/replays/games/{UUID(int=7)}/",  # a replay (the event store)
])
def test_database_unavailable_answers_503_page(database_down: None, path: str,
                                               caplog: pytest.LogCaptureFixture) -> None:
    client = Client(raise_request_exception=False)
    with caplog.at_level(logging.WARNING):
        response = client.get(path)

    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    page = response.content.decode()
    assert "Back in a moment" in page and "/static/css/site.css" in page
    # Django's line for every 5xx, and the cause; no traceback, no "Internal Server Error".
    assert [r.getMessage() for r in caplog.records if r.name == "django.request"] == [
        f"Service Unavailable: {path}"]
    assert not [r for r in caplog.records if r.exc_info]
    assert any("answered 503" in r.getMessage() for r in caplog.records)


def test_database_unavailable_answers_json_503(database_down: None) -> None:
    response = Client(raise_request_exception=False).get(
        "/replays/games/", HTTP_ACCEPT="application/json")

    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert "unavailable" in error_of(response)


def test_the_next_request_after_the_outage_is_served(
        transactional_db: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    from django.db import connection

    client = Client(raise_request_exception=False)
    connection.close()
    with monkeypatch.context() as down:
        down.setitem(connection.settings_dict, "NAME", str(tmp_path / "gone" / "db.sqlite3"))
        assert client.get("/replays/games/").status_code == 503
        connection.close()
    assert client.get("/replays/games/").status_code == 200
