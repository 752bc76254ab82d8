"""``play.models.sitting``, the driver's read of a table at every look (two statements
written by hand), reads what the ORM reads (``play.models.running_table``): every
column of the table and of each seat, converted as the models say, the seats in order,
the bot-account marks, each seat's account. On SQLite here, on PostgreSQL in
tests/services/test_hand_written_sql_postgres.py."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from uuid import uuid4

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from play.models import BotAccount, Seat, Table, on_bot_account, running_table, sitting
from play.tables import create_table, join, start


def _columns(row: Table | Seat) -> dict[str, Any]:
    return {f.attname: getattr(row, f.attname) for f in type(row)._meta.concrete_fields}


def assert_sitting_reads_what_the_orm_reads() -> None:
    """A running table of a person, a bot account and a built-in bot, with every kind
    of column set (a clock, a trading window, house rules, a seat's deadline); a table
    that does not exist."""
    ann = User.objects.create_user(f"ann-{uuid4().hex[:6]}")
    robo = User.objects.create_user(f"robo-{uuid4().hex[:6]}")
    BotAccount.objects.create(user=robo)
    table = create_table(ann, "classic", 3, seats=["open", "open", "heuristic"],
                         overrides={"beans": ["wax", "blue", "chili", "stink"]},
                         move_seconds=30, game_seconds=120, trade_seconds=15)
    join(table, robo)
    table = start(table, ann)
    now = timezone.now()
    Table.objects.filter(pk=table.pk).update(trade_turn=1,
                                             trade_deadline=now + timedelta(seconds=15))
    Seat.objects.filter(table=table, number=0).update(absence_deadline=now, bank_used=2.5)
    read, seats = sitting(table.pk)
    orm = running_table(table.pk)
    assert _columns(read) == _columns(orm)
    assert read.overrides == {"beans": ["wax", "blue", "chili", "stink"]}
    assert read.trade_deadline is not None and read.trade_deadline.tzinfo is not None
    expected = sorted(orm.seats.all(), key=lambda s: s.number)
    assert [_columns(s) for s in seats] == [_columns(s) for s in expected]
    assert [on_bot_account(s) for s in seats] == [on_bot_account(s) for s in expected] == [
        False, True, False]
    assert [s.player() for s in seats] == [f"user:{ann.username}", f"user:{robo.username}",
                                           "bot:heuristic"]
    assert all(s.table is read for s in seats)
    with pytest.raises(Table.DoesNotExist):
        sitting(uuid4())


@pytest.mark.django_db
def test_sitting_reads_what_the_orm_reads() -> None:
    assert_sitting_reads_what_the_orm_reads()


def assert_a_session_is_read_as_get_user_reads_it() -> None:
    """``play.authority.session_account`` (one statement written by hand, every seat
    frame) answers what ``django.contrib.auth.get_user`` answers, the reference it is
    held to (a Django upgrade that changes how a session stands fails here): a session
    signed in, another account's, expired, signed out, after a password change, of an
    inactive account, and one of another backend (left to ``get_user``)."""
    from django.contrib.sessions.backends.db import SessionStore
    from django.contrib.sessions.models import Session
    from django.test import Client

    from play import authority

    def signed_in(user: User) -> str:
        client = Client()
        client.force_login(user, backend=authority.MODEL_BACKEND)
        return str(client.session.session_key)

    def both(key: str, user: User) -> tuple[Any, Any]:
        credential = authority.Credential(session_key=key, user_id=user.pk)
        return (authority.session_account(key, user.pk),
                authority.signed_in_account(credential))

    ann = User.objects.create_user(f"ann-{uuid4().hex[:6]}", password="pw")
    bob = User.objects.create_user(f"bob-{uuid4().hex[:6]}", password="pw")
    key = signed_in(ann)
    fast, reference = both(key, ann)
    assert fast == reference == ann and fast.username == ann.username
    assert both(key, bob) == (None, None)  # signed in as ann, asked for bob
    assert both("no-such-session", ann) == (None, None)
    expired = signed_in(ann)
    Session.objects.filter(session_key=expired).update(expire_date=timezone.now())
    assert both(expired, ann) == (None, None)
    other = signed_in(ann)
    store = SessionStore(other)
    store["_auth_user_backend"] = "axes.backends.AxesStandaloneBackend"
    store.save()
    assert authority.session_account(other, ann.pk) is authority.ANOTHER_BACKEND
    ann.is_active = False
    ann.save()
    assert both(key, ann) == (None, None)
    ann.is_active = True
    ann.save()
    assert both(key, ann) == (ann, ann)
    ann.set_password("another")
    ann.save()
    assert both(key, ann) == (None, None)  # get_user flushes it, too
    key = signed_in(bob)
    Session.objects.filter(session_key=key).delete()  # signed out
    assert both(key, bob) == (None, None)


@pytest.mark.django_db
def test_a_session_is_read_as_get_user_reads_it() -> None:
    assert_a_session_is_read_as_get_user_reads_it()
