"""The competitions' forms say what is wrong in words that fit the case (the review of
the competition pages): the limit that was passed, the rule that was broken, in the
reader's language."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from bohnanza_core.pairings import MAX_ENTRANTS
from tournaments.core.store import Competitions


@pytest.fixture
def organiser() -> Client:
    client = Client()
    client.force_login(User.objects.create(username="organiser"))
    return client


def test_too_many_bots_names_the_entrant_limit(competitions: Competitions, organiser: Client):
    answer = organiser.post(reverse("tournaments:new_format", args=["round-robin"]), {
        "name": "Crowd", "ruleset": "classic", "table": "4", "cycles": "1", "rules": "",
        "bots": ", ".join(["random"] * 100)})
    text = answer.content.decode()
    assert answer.status_code == 400
    assert f"at most {MAX_ENTRANTS} entrants" in text and "The competition is full" not in text
    assert competitions.ids() == []
