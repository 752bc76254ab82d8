"""A competition's page marks its bot accounts as bots (issue 29), looked up once for
all its entrants: the page's queries do not grow with them."""

from __future__ import annotations

import re
from datetime import timedelta

from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from play.models import BotAccount
from tests.tournaments.test_people import open_swiss, stored
from tournaments.core.store import Competitions

MARKED = re.compile(r'title="user:(\w+)">\1 <small class="bot-mark">')


def _page(url: str) -> tuple[str, int]:
    with CaptureQueriesContext(connection) as captured:
        page = Client().get(url).content.decode()
    return page, len(captured)


def test_a_competitions_page_marks_its_bot_accounts_once(competitions: Competitions) -> None:
    now = timezone.now()
    few = open_swiss(cap=8, deadline=now + timedelta(hours=1), now=now)
    many = open_swiss(cap=8, deadline=now + timedelta(hours=1), now=now)
    User.objects.create_user("ann")
    few.join("user:ann", now)
    many.join("user:ann", now)
    for n in range(4):
        BotAccount.objects.create(user=User.objects.create_user(f"robo{n}"))
        many.join(f"user:robo{n}", now)
    few.join("user:robo0", now)
    few, many = stored(competitions, few), stored(competitions, many)
    few_page, few_queries = _page(reverse("tournaments:detail", args=[few.id]))
    many_page, many_queries = _page(reverse("tournaments:detail", args=[many.id]))
    assert set(MARKED.findall(few_page)) == {"robo0"}
    assert set(MARKED.findall(many_page)) == {"robo0", "robo1", "robo2", "robo3"}
    assert 'title="user:ann">ann</span>' in many_page
    assert many_queries <= few_queries
