"""An arbiter's ruling on a running table (``manage.py stop_game``): the game ends with the
platform's ``GameStopped``, the table refuses every command after it, and the game's
readers (the game list, the replay viewer and its summary, the export, the audit) show a
stopped game as a finished one, saying why it stopped."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client

from bohnanza_core.commands import EndTrading
from bohnanza_core.errors import IllegalMove
from bohnanza_core.events import GameStopped, StopReason
from bohnanza_core.verify import verify_text
from play import live
from play.models import Table
from replays.models import GameSummary
from replays.projections import catch_up
from replays.store import games
from tests.play.test_live import _people, _table, fresh

pytestmark = pytest.mark.django_db(transaction=True)

__all__ = ["fresh"]


def _stop(*args: str) -> str:
    out = StringIO()
    call_command("stop_game", *args, stdout=out)
    return out.getvalue()


def test_an_arbiter_stops_a_running_game_and_every_reader_shows_it() -> None:
    people = _people(3)
    table = _table(people, ["open", "open", "open"])
    zoe = User.objects.create_user("zoe", password="pw", is_staff=True)
    # Refused, nothing stored: not an arbiter, a player, bad places, a bad id.
    with pytest.raises(CommandError, match="not an active staff account"):
        _stop(str(table.id), "--arbiter", people[1].username)
    people[0].is_staff = True
    people[0].save()
    with pytest.raises(CommandError, match="no one rules on a game they played in"):
        _stop(str(table.id), "--arbiter", people[0].username)
    with pytest.raises(CommandError, match="ranks count from 1"):
        _stop(str(table.id), "--arbiter", "zoe", "--ranks", "1,3,3")
    with pytest.raises(CommandError, match="whole numbers"):
        _stop(str(table.id), "--arbiter", "zoe", "--ranks", "1,x,3")
    with pytest.raises(CommandError, match="one place per seat"):
        _stop(str(table.id), "--arbiter", "zoe", "--ranks", "1," * 60)
    with pytest.raises(CommandError, match="not a table's or game's id"):
        _stop("nope", "--arbiter", "zoe")
    before = len(games().record(table.game_id))
    assert not games().game(table.game_id).finished
    # The ruling, by the game's id: the places as ruled.
    said = _stop(str(table.game_id), "--arbiter", zoe.username, "--ranks", "2,1,2")
    assert "places 2, 1, 2" in said
    record = games().record(table.game_id)
    assert len(record) == before + 1
    stopped = record[-1]
    assert isinstance(stopped.event, GameStopped) and stopped.actor == "arbiter:zoe"
    assert stopped.event.reason is StopReason.RULING and stopped.event.winners == (1,)
    assert Table.objects.get(pk=table.pk).status == Table.Status.FINISHED
    # The table refuses everything after it, and a second ruling.
    game = live.load(table.game_id, fresh=True)
    with pytest.raises(IllegalMove, match="the game is over"):
        live.submit(table.id, game.id, EndTrading(seat=0), f"user:{people[0].username}",
                    person=True)
    with pytest.raises(CommandError, match="the game is over"):
        _stop(str(table.id), "--arbiter", "zoe")
    assert len(games().record(table.game_id)) == before + 1
    # The game list: finished, with the stop's reason and the places ruled.
    catch_up()
    row = GameSummary.objects.get(pk=table.game_id)
    assert row.finished and row.stopped == "ruling"
    assert [s.rank for s in row.seats.order_by("seat")] == [2, 1, 2]
    assert row.winners == people[1].username
    # The viewer's last step: everything shown, the summary says the platform stopped it.
    web = Client()
    page = web.get(f"/replays/games/{table.game_id}/").content.decode()
    assert "The platform stopped this game before its end: an arbiter&#x27;s ruling." in page
    assert "rt-summary" in page
    exported = web.get(f"/replays/games/{table.game_id}/export.jsonl")
    text = (b"".join(exported.streaming_content) if exported.streaming
            else exported.content).decode()
    assert '"type":"GameStopped"' in text and '"seed":' in text.splitlines()[-1]
    assert verify_text(text).ok
    audit = web.get(f"/replays/games/{table.game_id}/audit/").content
    assert b"verdict verdict-ok" in audit and b"verdict-bad" not in audit
    story = web.get(f"/replays/games/{table.game_id}/log.json").content.decode()
    assert "The platform stops the game (an arbiter" in story
