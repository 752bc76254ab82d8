"""Export and import: the documented JSON Lines out, and only an intact, finished, full
record back in, replayed by the rules. A bad file gets a clear error and stores nothing."""

from __future__ import annotations

import json
import re
from uuid import UUID

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from bohnanza_core import ruleset_for
from bohnanza_core.events import BeanPlanted, GameStarted
from bohnanza_core.export import export_jsonl, export_record, read_jsonl
from bohnanza_core.games import Game, Games
from bohnanza_core.record import chain, command_actors
from bohnanza_core.simulator import bot_classes, play_game
from bohnanza_core.verify import verify_record, verify_text
from bohnanza_core.views import EVERYTHING
from replays.views.transfer import MAX_IMPORT_BYTES
from tests.factories import LINEUP, bot_game, running_game

IMPORT = "/replays/import/"


def export_url(game: Game) -> str:
    return f"/replays/games/{game.id}/export.jsonl"


def stored_events(store: Games) -> int:
    """Every event stored by the platform so far, over all games."""
    return store.recorder.max_notification_id() or 0


@pytest.fixture
def ann_client(db: None) -> Client:
    client = Client()
    client.force_login(User.objects.create_user("ann", password="pw-ann-123"))
    return client


@pytest.fixture
def finished(store: Games) -> Game:
    return bot_game("transfer-finished")


@pytest.fixture
def everything_file(client: Client, finished: Game) -> str:
    return client.get(export_url(finished), {"perspective": "everything"}).content.decode()


SIMULATED = play_game(ruleset_for("classic", 3), bot_classes(list(LINEUP)), "transfer-foreign")


@pytest.fixture
def foreign_file() -> str:
    """The full record of a game played elsewhere (offline): not stored here."""
    return export_jsonl(SIMULATED.events)


def upload(client: Client, text: str | bytes, name: str = "game.jsonl",
           private: bool = False) -> object:
    data = text.encode() if isinstance(text, str) else text
    form: dict[str, object] = {"file": SimpleUploadedFile(name, data,
                                                          "application/x-ndjson")}
    if private:
        form["private"] = "on"
    return client.post(IMPORT, form)


# -- export ---------------------------------------------------------------------------


def test_export_everything_round_trips_and_verifies(
    client: Client, store: Games, finished: Game
) -> None:
    response = client.get(export_url(finished), {"perspective": "everything"})
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/x-ndjson")
    assert response["Content-Disposition"] == (
        f'attachment; filename="bohnanza-{finished.id}-everything.jsonl"'
    )
    text = response.content.decode()
    assert text == export_record(store.record(finished.id), EVERYTHING,
                                 head=finished.head_hash)
    game_file = read_jsonl(text)
    assert game_file.perspective == "everything"
    assert game_file.head == finished.head_hash
    assert list(game_file.entries) == store.record(finished.id)
    verdict = verify_text(text, expected_head=finished.head_hash)
    assert verdict.ok and verdict.finished, verdict.report()


def test_export_defaults_to_everything_for_a_finished_game(
    client: Client, store: Games, finished: Game
) -> None:
    text = client.get(export_url(finished)).content.decode()
    assert read_jsonl(text).perspective == "everything"


def test_export_spectator_leaves_the_secrets_out(
    client: Client, store: Games, finished: Game
) -> None:
    text = client.get(export_url(finished), {"perspective": "spectator"}).content.decode()
    game_file = read_jsonl(text)
    assert game_file.perspective == "spectator"
    start = game_file.events[0]
    assert isinstance(start, GameStarted) and start.seed is None
    assert '"order":null' in text
    verdict = verify_text(text)  # the game over, its revealed seed derives the rest
    assert verdict.ok and verdict.complete and verdict.head == finished.head_hash


def test_export_of_a_running_game_follows_the_perspective_rules(
    client: Client, ann_client: Client, store: Games
) -> None:
    game = running_game("transfer-running", commands=6)
    refused = client.get(export_url(game), {"perspective": "everything"})
    assert refused.status_code == 403
    assert "opens once the game has ended" in refused.content.decode()
    assert client.get(export_url(game), {"perspective": "seat-0"}).status_code == 403
    assert ann_client.get(export_url(game), {"perspective": "seat-1"}).status_code == 403

    mine = ann_client.get(export_url(game), {"perspective": "seat-0"})
    assert mine.status_code == 200
    game_file = read_jsonl(mine.content.decode())
    assert game_file.perspective == "seat 0"
    assert len(game_file.events) == game.version
    assert "transfer-running" not in mine.content.decode()  # the seed
    spectator = read_jsonl(client.get(export_url(game)).content.decode())
    assert spectator.perspective == "spectator"


def test_export_of_a_private_game_needs_its_token(client: Client, store: Games) -> None:
    game = bot_game("transfer-private", private=True)
    assert client.get(export_url(game)).status_code == 403
    response = client.get(export_url(game), {"token": game.share_token})
    assert response.status_code == 200
    assert read_jsonl(response.content.decode()).head == game.head_hash


def test_export_of_an_unknown_game_is_404(client: Client, store: Games) -> None:
    response = client.get("/replays/games/nope/export.jsonl")
    assert response.status_code == 404
    assert "There is no game" in response.content.decode()


# -- import: the good case --------------------------------------------------------------


def test_import_needs_an_account(client: Client, store: Games) -> None:
    response = client.get(IMPORT)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=")


def test_import_page_shows_the_form(ann_client: Client, store: Games) -> None:
    html = ann_client.get(IMPORT).content.decode()
    assert 'enctype="multipart/form-data"' in html
    assert "csrfmiddlewaretoken" in html
    assert 'name="private"' in html


def test_import_replays_a_valid_game_into_the_store(
    ann_client: Client, store: Games, foreign_file: str
) -> None:
    before = stored_events(store)
    response = upload(ann_client, foreign_file)
    assert response.status_code == 302  # type: ignore[attr-defined]
    location = response["Location"]  # type: ignore[index]
    match = re.fullmatch(r"/replays/games/([0-9a-f-]{36})/", location)
    assert match, location
    imported = store.game(UUID(match.group(1)))
    assert stored_events(store) == before + len(SIMULATED.events)
    record = store.record(imported.id)
    assert [e.event for e in record] == SIMULATED.events  # seed and salt included
    assert verify_record(record, imported.head_hash).ok
    assert imported.head_hash != read_jsonl(foreign_file).head  # a new chain: times, actors
    assert tuple(imported.players) == tuple(f"imported:{seat}" for seat in SIMULATED.seats)
    assert record[0].actor == "user:ann"  # who imported it
    assert not imported.private
    page = ann_client.get(location)
    assert page.status_code == 200
    assert imported.head_hash in page.content.decode()


def test_import_private_redirects_with_the_share_token(
    ann_client: Client, store: Games, foreign_file: str
) -> None:
    response = upload(ann_client, foreign_file, private=True)
    assert response.status_code == 302  # type: ignore[attr-defined]
    location = response["Location"]  # type: ignore[index]
    match = re.fullmatch(r"/replays/games/([0-9a-f-]{36})/\?token=(.+)", location)
    assert match, location
    imported = store.game(UUID(match.group(1)))
    assert imported.private and imported.share_token == match.group(2)
    assert Client().get(location.split("?")[0]).status_code == 403
    assert Client().get(location).status_code == 200


def test_imported_seats_are_never_credited_to_local_accounts(
    ann_client: Client, store: Games
) -> None:
    """A file may name any account; the import must not seat that account."""
    people = ["user:ann", "user:bob", "bot:random"]
    actors = [None if actor is None else people[SIMULATED.seats.index(actor)]
              for actor in command_actors(SIMULATED.events, SIMULATED.seats)]
    text = export_record(chain(SIMULATED.events, actors=actors), EVERYTHING)
    response = upload(ann_client, text)
    location = response["Location"]  # type: ignore[index]
    imported = store.game(UUID(location.split("/")[3]))
    assert tuple(imported.players) == ("imported:user:ann", "imported:user:bob",
                                       "imported:bot:random")


def test_a_game_already_stored_is_linked_not_stored_again(
    ann_client: Client, store: Games, finished: Game, everything_file: str,
    foreign_file: str,
) -> None:
    before = stored_events(store)
    response = upload(ann_client, everything_file)
    assert response["Location"] == f"/replays/games/{finished.id}/"  # type: ignore[index]
    assert stored_events(store) == before
    page = ann_client.get(response["Location"])  # type: ignore[index]
    assert "This game was already stored here" in page.content.decode()
    # Imported once, a foreign file is then linked to its first import.
    first = upload(ann_client, foreign_file)["Location"]  # type: ignore[index]
    after_first = stored_events(store)
    again = upload(ann_client, foreign_file)
    assert again["Location"] == first and stored_events(store) == after_first  # type: ignore[index]


def test_a_private_game_already_stored_is_not_shown_to_a_stranger(
    ann_client: Client, store: Games
) -> None:
    game = bot_game("transfer-private", players=["user:bob", "bot:random", "bot:random"],
                    private=True)
    text = export_record(store.record(game.id), EVERYTHING)
    before = stored_events(store)
    response = upload(ann_client, text)
    assert response.status_code == 409  # type: ignore[attr-defined]
    html = response.content.decode()  # type: ignore[attr-defined]
    assert "already stored here, as a private game" in html
    assert str(game.id) not in html and game.share_token not in html
    assert stored_events(store) == before


# -- import: bad files store nothing ----------------------------------------------------


def _refused(client: Client, store: Games, text: str | bytes, status: int,
             *phrases: str) -> str:
    before = stored_events(store)
    response = upload(client, text)
    assert response.status_code == status  # type: ignore[attr-defined]
    html = response.content.decode()  # type: ignore[attr-defined]
    assert "Nothing was stored." in html
    for phrase in phrases:
        assert phrase in html, phrase
    assert stored_events(store) == before
    return html


def test_import_malformed_file(ann_client: Client, store: Games, everything_file: str) -> None:
    lines = everything_file.splitlines()
    lines[2] = lines[2][:-5]  # a cut-off line 3
    _refused(ann_client, store, "\n".join(lines), 400, "The file cannot be read",
             "line 3: not JSON")
    _refused(ann_client, store, "hello\n", 400, "line 1: not JSON")
    _refused(ann_client, store, "", 400, "the file is empty")


def test_import_tampered_event(ann_client: Client, store: Games, everything_file: str) -> None:
    lines = everything_file.splitlines()
    game_file = read_jsonl(everything_file)
    seq = next(i for i, e in enumerate(game_file.events, start=1)
               if isinstance(e, BeanPlanted) and e.field == 0)
    entry = json.loads(lines[seq])
    entry["field"] = 1
    lines[seq] = json.dumps(entry, separators=(",", ":"))
    html = _refused(ann_client, store, "\n".join(lines) + "\n", 400, "fails its audit",
                    "FAIL")
    assert f"#{seq}" in html


def test_import_reordered_events(ann_client: Client, store: Games,
                                 everything_file: str) -> None:
    lines = everything_file.splitlines()
    first, second = json.loads(lines[30]), json.loads(lines[31])
    first["seq"], second["seq"] = second["seq"], first["seq"]
    lines[30], lines[31] = json.dumps(second), json.dumps(first)
    _refused(ann_client, store, "\n".join(lines), 400, "fails its audit")


def test_import_redacted_file(client: Client, ann_client: Client, store: Games,
                              finished: Game) -> None:
    text = client.get(export_url(finished), {"perspective": "seat-1"}).content.decode()
    _refused(ann_client, store, text, 400, "This is the seat 1 view",
             "Only the &#x27;everything&#x27; export of a finished game")


def test_import_running_game(ann_client: Client, store: Games) -> None:
    game = running_game("transfer-unfinished", commands=8)
    text = export_record(store.record(game.id), EVERYTHING)
    _refused(ann_client, store, text, 400, "has not ended")


def test_import_oversize_file(ann_client: Client, store: Games) -> None:
    _refused(ann_client, store, b"x" * (MAX_IMPORT_BYTES + 1), 413, "files up to 5 MB")


def test_import_binary_file(ann_client: Client, store: Games) -> None:
    _refused(ann_client, store, b"\xff\xfe\x00garbage", 400, "not UTF-8 text")


def test_import_without_a_file(ann_client: Client, store: Games) -> None:
    before = stored_events(store)
    response = ann_client.post(IMPORT, {})
    assert response.status_code == 400
    assert "Choose a game file" in response.content.decode()
    assert stored_events(store) == before


def test_import_without_csrf_token_is_refused(store: Games, everything_file: str) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(User.objects.create_user("eve", password="pw-eve-123"))
    before = stored_events(store)
    response = upload(client, everything_file)
    assert response.status_code == 403  # type: ignore[attr-defined]
    assert stored_events(store) == before


def test_an_imported_game_keeps_the_tags_its_file_names(ann_client: Client,
                                                         store: Games) -> None:
    """A competition's game played elsewhere: what it says it belongs to (its tags,
    in its chain) is stored as the file has it."""
    import dataclasses

    tags = (("competition", "Elsewhere Cup"), ("round", "3"), ("seat_0_entrant", "x@1"))
    events = [dataclasses.replace(SIMULATED.events[0], tags=tags), *SIMULATED.events[1:]]
    text = export_jsonl(events)
    assert verify_text(text).ok
    response = upload(ann_client, text)
    assert response.status_code == 302  # type: ignore[attr-defined]
    game_id = UUID(response["Location"].split("/")[-2])  # type: ignore[index]
    assert store.started(game_id).tags == tags
    assert [e.event for e in store.record(game_id)] == events


def test_a_game_the_platform_stopped_imports_with_its_decisions_credited(
        ann_client: Client, store: Games) -> None:
    """A seat handed to its bot and an arbiter's ruling are the platform's decisions:
    the import credits them to who the file says took them, and the seats to their
    players (a ruling's command names no seat: the import once answered 500)."""
    from bohnanza_core import PlantFromHand, new_game, play
    from bohnanza_core.commands import HandSeatToBot, StopGame
    from bohnanza_core.events import Handover, StopReason

    state, events = new_game(ruleset_for("classic", 3), ("Ann", "Bob", "Cy"), seed="stop-1")
    actors: list[str | None] = [None] * len(events)
    for command, actor in ((PlantFromHand(seat=0, field=0), "user:ann"),
                           (HandSeatToBot(seat=1, bot="heuristic", reason=Handover.LEFT),
                            "user:bob"),
                           (StopGame(reason=StopReason.RULING, ranks=(1, 1, 3)),
                            "arbiter:judy")):
        happened = play(state, command)
        events += happened
        actors += [actor] + [None] * (len(happened) - 1)
    text = export_record(chain(events, actors=actors), EVERYTHING)
    assert verify_text(text).ok
    response = upload(ann_client, text)
    assert response.status_code == 302, response.content  # type: ignore[attr-defined]
    imported = store.game(UUID(response["Location"].split("/")[3]))  # type: ignore[index]
    assert tuple(imported.players) == ("imported:user:ann", "imported:Bob", "imported:Cy")
    record = store.record(imported.id)
    assert [e.event for e in record] == events
    decided = {type(e.event).__name__: e.actor for e in record}
    assert decided["SeatHandedToBot"] == "imported:user:bob"
    assert decided["GameStopped"] == "imported:arbiter:judy"
