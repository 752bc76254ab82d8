"""The admin's pages of accounts (play/admin.py): bounded like every other page."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client

from play.admin import MAX_QUERY, MAX_SEARCH


@pytest.fixture
def staff(db: None, settings: Any) -> Client:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    client = Client()
    client.force_login(User.objects.create_user("boss", password="pw", is_staff=True,
                                                is_superuser=True))
    return client


@pytest.mark.parametrize("url", ["/admin/auth/user/", "/admin/auth/group/"])
def test_a_search_too_long_for_sqlite_is_refused_with_a_message(staff: Client,
                                                                url: str) -> None:
    # SQLite refuses LIKE patterns over 50,000 bytes: that was a 500.
    response = staff.get(url, {"q": "x" * 100_000}, follow=True)
    assert response.status_code == 200
    assert response.redirect_chain == [(url, 302)]
    assert f"a list takes at most {MAX_QUERY:,}" in response.content.decode()


def test_a_long_search_term_finds_nothing_and_says_why(staff: Client) -> None:
    response = staff.get("/admin/auth/user/", {"q": "b" * (MAX_SEARCH + 1)})
    assert response.status_code == 200
    assert response.context["cl"].result_count == 0
    assert f"A search is at most {MAX_SEARCH} characters" in response.content.decode()
    assert staff.get("/admin/auth/user/", {"q": "bos"}).context["cl"].result_count == 1


@pytest.mark.parametrize("param", ["o", "all", "p"])
def test_a_long_query_is_not_repeated_in_every_link(staff: Client, param: str) -> None:
    response = staff.get("/admin/auth/user/", {param: "x" * 100_000}, follow=True)
    assert response.status_code in (200, 400)
    assert len(response.content) < 200_000


def test_an_empty_to_field_means_the_primary_key(staff: Client) -> None:
    user = User.objects.get(username="boss")
    group = Group.objects.create(name="g")
    for url in (f"/admin/auth/user/{user.pk}/change/", f"/admin/auth/group/{group.pk}/change/",
                f"/admin/auth/group/{group.pk}/delete/"):
        assert staff.get(url, {"_to_field": ""}).status_code == 200, url  # was a 500
