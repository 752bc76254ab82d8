"""Sign-in throttling (django-axes): N failures for a username from one address lock
that pair out for the cool-off, with a 429 sign-in page that says so."""

import json

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.http import HttpRequest
from django.test import Client
from pytest_django.fixtures import Settings

LOGIN = "/accounts/login/"
PASSWORD = "pw-ann-correct-1"


@pytest.fixture(autouse=True)
def fast_hashing(settings: Settings) -> None:
    """Every try checks a password: a fast hasher keeps these many tries cheap."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def ann(db: None) -> User:
    return User.objects.create_user("ann", password=PASSWORD)


def sign_in(password: str, address: str = "203.0.113.7", username: str = "ann",
            **headers: str) -> tuple[Client, int, str]:
    client = Client(REMOTE_ADDR=address)
    response = client.post(LOGIN, {"username": username, "password": password}, **headers)
    return client, response.status_code, response.content.decode()


def test_defaults() -> None:
    assert settings.AXES_FAILURE_LIMIT == 5
    assert settings.AXES_COOLOFF_TIME.total_seconds() == 15 * 60
    assert settings.AXES_LOCKOUT_PARAMETERS == [["username", "ip_address"]]
    assert settings.AUTHENTICATION_BACKENDS[0] == "axes.backends.AxesStandaloneBackend"


def test_lockout_after_the_failure_limit(ann: User) -> None:
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        _, status, page = sign_in("wrong")
        assert status == 200
        assert "did not match" in page

    client, status, page = sign_in("wrong")  # the last failure allowed locks the pair
    assert status == 429
    assert "Too many failed sign-ins" in page
    assert "try again in 15 minutes" in page
    assert 'name="password"' not in page  # no form to try (and prolong the wait) again

    # Even the right password is refused now, with the wait in Retry-After.
    response = Client(REMOTE_ADDR="203.0.113.7").post(
        LOGIN, {"username": "ann", "password": PASSWORD})
    assert response.status_code == 429
    assert response["Retry-After"] == str(15 * 60)
    assert "_auth_user_id" not in client.session


def test_lockout_is_per_username_and_address(ann: User) -> None:
    User.objects.create_user("bob", password="pw-bob-correct-1")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        sign_in("wrong")

    _, from_elsewhere, _ = sign_in(PASSWORD, address="198.51.100.20")
    _, other_user, _ = sign_in("pw-bob-correct-1", username="bob")
    assert from_elsewhere == other_user == 302  # signed in


def test_success_resets_the_count(ann: User) -> None:
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        sign_in("wrong")
    assert sign_in(PASSWORD)[1] == 302
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert sign_in("wrong")[1] == 200


def test_lockout_in_json_for_json_clients(ann: User) -> None:
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        sign_in("wrong")

    _, status, body = sign_in("wrong", HTTP_ACCEPT="application/json")
    assert status == 429
    assert "Too many failed sign-ins" in json.loads(body)["error"]


def test_client_login_with_a_request_passes_the_throttle(ann: User) -> None:
    assert Client().login(request=HttpRequest(), username="ann", password=PASSWORD)
    assert not Client().login(request=HttpRequest(), username="ann", password="wrong")
