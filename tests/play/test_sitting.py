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
