"""The audit page: the stored record's verdict, uploads verified and forgotten, and no
audit (nor any secret) of a game still running."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import NoReverseMatch, reverse

from bohnanza_core import ruleset_for
from bohnanza_core.commands import Command
from bohnanza_core.engine import decide
from bohnanza_core.events import Event
from bohnanza_core.export import export_record
from bohnanza_core.games import Game, Games, StoredBoard
from bohnanza_core.record import commitments_for
from bohnanza_core.simulator import bot_classes, play_game, seat_names
from bohnanza_core.verify import verify_record
from bohnanza_core.views import SPECTATOR
from replays.disputes import disputes, reset_disputes
from replays.views.audit import MAX_UPLOAD_BYTES
from tests.factories import bot_game, running_game

PLAYERS = ["user:ann", "user:bob", "bot:random"]


@pytest.fixture
def apps(store: Games) -> Iterator[Games]:
    reset_disputes()
    yield store
    reset_disputes()


def audit_url(game: Game) -> str:
    return reverse("replays:audit", kwargs={"game_id": str(game.id)})


def stored_counts(store: Games) -> tuple[int | None, int | None]:
    """The last notification ids of both applications: unchanged means nothing stored."""
    return store.recorder.max_notification_id(), disputes().recorder.max_notification_id()


def upload(name: str, data: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type="application/x-ndjson")


def everything_export(store: Games, game: Game) -> str:
    return export_record(store.record(game.id), head=game.head_hash)


def tampered(text: str, seq: int) -> str:
    """The export with event ``seq``'s actor changed (a field outside the rules)."""
    lines = text.splitlines()
    entry = json.loads(lines[seq])
    entry["actor"] = "user:mallory"
    lines[seq] = json.dumps(entry, separators=(",", ":"))
    return "\n".join(lines) + "\n"


# -- the stored record --------------------------------------------------------------


def test_a_finished_games_audit_shows_every_check_and_the_head(apps: Games,
                                                                client: Client) -> None:
    game = bot_game("audit-ok", players=PLAYERS)
    response = client.get(audit_url(game))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Valid" in html and "Invalid" not in html
    for check in ("file", "chain", "seed", "shuffles", "rules", "actors"):
        assert f'<span class="check-name" lang="en">{check}</span>' in html
    assert html.count('class="badge badge-ok"') == 6
    assert game.head_hash in html
    assert f"{game.version} events" in html


def test_the_export_link_asks_for_everything_when_the_viewer_offers_it(
        apps: Games, client: Client) -> None:
    game = bot_game("audit-export", players=PLAYERS)
    html = client.get(audit_url(game)).content.decode()
    try:
        export = reverse("replays:replay_export", kwargs={"game_id": str(game.id)})
    except NoReverseMatch:
        assert "Download the full record" not in html
    else:
        assert f'href="{export}?perspective=everything"' in html


class TamperingBoard(StoredBoard):
    """Stores the command at step ``at`` with a forged previous hash (a broken chain)."""

    at = 40

    def play(self, command: Command) -> list[Event]:
        if self.game.version < self.at or getattr(self, "forged", False):
            return super().play(command)
        self.forged = True
        events = decide(self.game.state, command)
        for event in events:
            sealed = commitments_for(event, self.game.version + 1, self.game.state.salt)
            self.game.trigger_event(Game.Happened, event=event, actor="user:ann",
                                    previous_hash="f" * 64, commitments=sealed)
        self.games.save(self.game)
        return events


def tampered_game(store: Games) -> Game:
    """A finished game whose stored record has a chain break after step 40."""
    bots = ["heuristic", "nontrading", "random"]
    holder: list[TamperingBoard] = []

    def board(rules: Any, seats: tuple[str, ...], seed: str) -> TamperingBoard:
        game = store.start(rules, seats, seed, players=PLAYERS)
        holder.append(TamperingBoard(store, game))
        return holder[0]

    play_game(ruleset_for("classic", 3), bot_classes(bots), "audit-forged",
              names=seat_names(bots), board=board)
    return store.game(holder[0].game.id)


def test_a_broken_stored_record_names_and_links_its_first_bad_event(apps: Games,
                                                                    client: Client) -> None:
    game = tampered_game(apps)
    assert game.finished and game.chain_broken_at is not None
    response = client.get(audit_url(game))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Invalid" in html
    assert 'class="badge badge-bad"' in html
    verdict = verify_record(apps.record(game.id), game.head_hash)
    assert not verdict.ok and verdict.first_bad is not None
    assert f"the first bad event is #{verdict.first_bad}" in html
    try:
        replay = reverse("replays:replay", kwargs={"game_id": str(game.id)})
    except NoReverseMatch:
        assert f"first bad event:\n        #{verdict.first_bad}</span>" in html
    else:
        assert f'href="{replay}?step={verdict.first_bad}&amp;perspective=everything"' in html


# -- who may audit what -----------------------------------------------------------------


def test_a_running_game_has_no_audit_and_leaks_nothing(apps: Games, client: Client) -> None:
    game = running_game("audit-secret-seed", commands=3)
    response = client.get(audit_url(game))
    assert response.status_code == 403
    html = response.content.decode()
    assert "an audit needs the whole record, after the game ends" in html.lower()
    assert "audit-secret-seed" not in html
    assert game.head_hash not in html
    assert game.state.seed_commitment not in html


def test_a_running_game_refuses_uploads_too_and_stores_nothing(apps: Games,
                                                               client: Client) -> None:
    game = running_game("audit-running-upload")
    before = stored_counts(apps)
    response = client.post(audit_url(game), {"record": upload("x.jsonl", b"{}\n")})
    assert response.status_code == 403
    assert stored_counts(apps) == before


@pytest.mark.parametrize("game_id", ["not-a-uuid", "6a1f3e0c-0000-4000-8000-000000000000"])
def test_an_unknown_game_is_not_found(apps: Games, client: Client, game_id: str) -> None:
    response = client.get(reverse("replays:audit", kwargs={"game_id": game_id}))
    assert response.status_code == 404
    assert "There is no game" in response.content.decode()


def test_a_private_game_audits_only_for_players_staff_and_its_token(apps: Games,
                                                                   client: Client) -> None:
    game = bot_game("audit-private", players=PLAYERS, private=True)
    refused = client.get(audit_url(game))
    assert refused.status_code == 403
    assert game.head_hash not in refused.content.decode()
    assert client.get(audit_url(game) + "?token=wrong").status_code == 403
    assert client.get(audit_url(game) + f"?token={game.share_token}").status_code == 200
    people = [User.objects.create_user("ann"), User.objects.create_user("eve"),
              User.objects.create_user("zed", is_staff=True)]
    for person, status in zip(people, (200, 403, 200), strict=True):
        client.force_login(person)
        assert client.get(audit_url(game)).status_code == status, person.username


# -- uploads ------------------------------------------------------------------------------


def test_an_uploaded_export_is_verified_against_the_stored_head_and_not_stored(
        apps: Games, client: Client) -> None:
    game = bot_game("audit-upload", players=PLAYERS)
    text = everything_export(apps, game)
    before = stored_counts(apps)
    response = client.post(audit_url(game), {"record": upload("game.jsonl", text.encode())})
    assert response.status_code == 200
    html = response.content.decode()
    assert "Verdict on game.jsonl" in html
    assert "This file is the stored record of this game, entry for entry." in html
    assert html.count("Invalid") == 0
    assert stored_counts(apps) == before


def test_an_upload_is_checked_against_the_head_one_was_shown(apps: Games,
                                                            client: Client) -> None:
    game = bot_game("audit-head", players=PLAYERS)
    text = everything_export(apps, game)
    for head, word in ((game.head_hash.upper(), "Valid"), ("0" * 64, "Invalid")):
        response = client.post("/replays/verify/", {"record": upload("g.jsonl", text.encode()),
                                                    "head": head})
        assert response.status_code == 200
        assert f'<strong class="verdict-word">{word}</strong>' in response.content.decode()
    response = client.post("/replays/verify/", {"record": upload("g.jsonl", text.encode()),
                                                "head": game.head_hash[:12]})
    assert response.status_code == 400
    assert "is not a head hash: 64 hexadecimal digits" in response.content.decode()


def test_an_uploads_verdict_says_who_played_and_how_it_ended(apps: Games,
                                                             client: Client) -> None:
    game = bot_game("audit-played", players=PLAYERS)
    text = everything_export(apps, game)
    html = client.post("/replays/verify/",
                       {"record": upload("g.jsonl", text.encode())}).content.decode()
    for name in game.state.seats:
        assert f'<dt><span translate="no">{name}</span></dt>' in html
    assert "<dt>Ending</dt>" in html and ", by the rules; ranks " in html


def test_a_tampered_upload_is_pinpointed(apps: Games, client: Client) -> None:
    game = bot_game("audit-tampered", players=PLAYERS)
    text = tampered(everything_export(apps, game), 57)
    response = client.post(audit_url(game), {"record": upload("edited.jsonl", text.encode())})
    assert response.status_code == 200
    html = response.content.decode()
    assert "Verdict on edited.jsonl" in html
    assert "Invalid" in html
    assert "the first bad event is #" in html
    assert "This file differs from the stored record of this game from event #57 on" in html


@pytest.mark.parametrize(("data", "status", "message"), [
    (b"this is not JSON\n", 400, "cannot be read"),
    (b"\xff\xfe\x00garbage", 400, "not UTF-8 text"),
    (b"", 400, "cannot be read"),
])
def test_an_unreadable_upload_is_a_clear_400(apps: Games, client: Client, data: bytes,
                                             status: int, message: str) -> None:
    game = bot_game("audit-garbage", players=PLAYERS)
    before = stored_counts(apps)
    response = client.post(audit_url(game), {"record": upload("bad.jsonl", data)})
    assert response.status_code == status
    assert message in response.content.decode()
    assert stored_counts(apps) == before


def test_a_spectators_export_of_a_finished_game_is_audited_whole(apps: Games,
                                                                  client: Client) -> None:
    """Its chain re-hashes (hidden values are there as commitments) to the stored one,
    entry for entry; the seed the end reveals derives every hidden card again."""
    game = bot_game("audit-spectator", players=PLAYERS)
    text = export_record(apps.record(game.id), SPECTATOR, head=game.head_hash)
    response = client.post(audit_url(game), {"record": upload("spectator.jsonl", text.encode())})
    assert response.status_code == 200
    html = response.content.decode()
    assert '<strong class="verdict-word">Valid</strong>' in html
    assert "every event, as the spectator view sees it, follows from the rules" in html
    assert 'class="badge badge-skip"' not in html
    assert "This file is the stored record of this game, entry for entry" in html


def test_no_file_and_too_big_a_file_are_refused(apps: Games, client: Client) -> None:
    game = bot_game("audit-size", players=PLAYERS)
    before = stored_counts(apps)
    missing = client.post(audit_url(game), {})
    assert missing.status_code == 400
    assert "Choose an exported game file" in missing.content.decode()
    big = client.post(audit_url(game),
                      {"record": upload("big.jsonl", b"x" * (MAX_UPLOAD_BYTES + 1))})
    assert big.status_code == 413
    assert "at most 2 MB" in big.content.decode()
    assert stored_counts(apps) == before


def test_uploads_need_the_csrf_token(apps: Games) -> None:
    game = bot_game("audit-csrf", players=PLAYERS)
    strict = Client(enforce_csrf_checks=True)
    text = everything_export(apps, game)
    response = strict.post(audit_url(game), {"record": upload("g.jsonl", text.encode())})
    assert response.status_code == 403
    page = strict.get(audit_url(game))
    token = page.cookies["csrftoken"].value
    response = strict.post(audit_url(game), {"record": upload("g.jsonl", text.encode()),
                                             "csrfmiddlewaretoken": token})
    assert response.status_code == 200


def test_the_verify_page_checks_any_file(apps: Games, client: Client) -> None:
    game = bot_game("audit-anywhere", players=PLAYERS)
    url = reverse("replays:verify")
    assert client.get(url).status_code == 200
    good = client.post(url, {"record": upload("g.jsonl",
                                              everything_export(apps, game).encode())})
    assert good.status_code == 200
    html = good.content.decode()
    assert "Valid" in html and "Invalid" not in html
    assert "stored record of this game" not in html
    bad = client.post(url, {"record": upload("g.jsonl", b"nope")})
    assert bad.status_code == 400


def test_an_upload_holds_at_most_so_many_events(client: Client) -> None:
    """An upload is bounded tighter than the file format (bench/uploads.py: the worst
    upload within the bounds is answered in well under 100 ms)."""
    from replays.views.audit import UPLOAD_MAX_LINES

    data = b"{}\n" * (UPLOAD_MAX_LINES + 1)
    response = client.post("/replays/verify/", {"record": upload("long.jsonl", data)})
    assert response.status_code == 400
    assert f"more than the {UPLOAD_MAX_LINES:,} taken here (a game file may have 10,000" in (
        response.content.decode())
