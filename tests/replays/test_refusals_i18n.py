"""The audit, dispute and import pages refuse in the reader's language (docs/i18n.md):
the title and the sentence saying why are translated, chosen by the browser's
Accept-Language or the language cookie; the checker's own words quoted in a sentence
stay in English, as ``bohnanza verify`` prints them."""

from __future__ import annotations

from collections.abc import Iterator
from html import unescape
from typing import Any
from uuid import uuid4

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from bohnanza_core.games import Games
from bohnanza_core.verify import read_and_verify
from replays.disputes import open_dispute, reset_disputes
from tests.factories import bot_game, running_game

PLAYERS = ["user:ann", "user:bob", "bot:random"]
NOT_UTF8 = b"\xff\xfe\x00garbage"

# (English, Hungarian, Finnish) of what each refusal says.
NO_GAME = ("No such game", "Nincs ilyen játszma", "Peliä ei ole")
PRIVATE = ("This game is private: open it with its share link.",
           "Ez a játszma privát: a megosztási hivatkozásával nyisd meg.",
           "Tämä peli on yksityinen: avaa se sen jakolinkillä.")
NO_AUDIT = ("No audit yet", "Még nincs ellenőrzés", "Ei vielä tarkastusta")
NO_DISPUTE = ("No such dispute", "Nincs ilyen vita", "Kiistaa ei ole")
NOT_YOURS = (("Not your dispute", "Only the players of the game and the arbiters may see "
              "this dispute."),
             ("Nem a te vitád", "Ezt a vitát csak a játszma játékosai és a döntőbírók "
              "láthatják."),
             ("Ei sinun kiistasi", "Tämän kiistan voivat nähdä vain pelin pelaajat ja "
              "tuomarit."))
NOT_YOUR_GAME = ("Not your game", "Nem a te játszmád", "Ei sinun pelisi")
NO_FILE = (("No file", "Choose an exported game file (.jsonl) to verify."),
           ("Nincs fájl", "Válassz ki egy exportált játékfájlt (.jsonl) az ellenőrzéshez."),
           ("Ei tiedostoa", "Valitse tarkastettava viety pelitiedosto (.jsonl)."))
VERIFY_NOT_UTF8 = (("Not an exported game", "game.jsonl is not UTF-8 text (byte 0)"),
                   ("Nem exportált játszma", "game.jsonl nem UTF-8 szöveg (bájt: 0)"),
                   ("Ei viety peli", "game.jsonl ei ole UTF-8-tekstiä (tavu 0)"))
IMPORT_NOT_UTF8 = ("The file is not UTF-8 text (byte 0): is it a game export?",
                   "A fájl nem UTF-8 szöveg (bájt: 0): biztosan exportált játszma?",
                   "Tiedosto ei ole UTF-8-tekstiä (tavu 0): onko se pelin vienti?")
IMPORT_NO_FILE = ("Choose a game file (.jsonl) to import.",
                  "Válassz ki egy importálandó játékfájlt (.jsonl).",
                  "Valitse tuotava pelitiedosto (.jsonl).")
UNREADABLE = ("The file cannot be read: ", "A fájl nem olvasható: ",
              "Tiedostoa ei voi lukea: ")
PLAYED_HERE = ("You played in this game: another arbiter must rule on it",
               "Játszottál ebben a játszmában: egy másik döntőbírónak kell döntenie",
               "Pelasit tässä pelissä: toisen tuomarin on ratkaistava se")
LANGUAGES = ("en", "hu", "fi")


@pytest.fixture
def apps(store: Games) -> Iterator[Games]:
    reset_disputes()
    yield store
    reset_disputes()


def reader(language: str, by: str, user: User | None = None) -> Client:
    """A client reading in ``language``, chosen by the browser (``by="header"``) or by
    the language switch's cookie."""
    client = Client(HTTP_ACCEPT_LANGUAGE=language) if by == "header" else Client()
    if by == "cookie":
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    if user is not None:
        client.force_login(user)
    return client


def page(response: Any, status: int, language: str) -> str:
    assert response.status_code == status
    html = unescape(response.content.decode())
    assert f'<html lang="{language}"' in html
    return html


def upload(data: bytes, field: str) -> dict[str, object]:
    return {field: SimpleUploadedFile("game.jsonl", data, "application/x-ndjson")}


@pytest.mark.parametrize("by", ["header", "cookie"])
@pytest.mark.parametrize("index", range(len(LANGUAGES)), ids=LANGUAGES)
def test_the_audit_refuses_in_the_readers_language(apps: Games, index: int, by: str) -> None:
    language = LANGUAGES[index]
    missing = uuid4()
    html = page(reader(language, by).get(f"/replays/games/{missing}/audit/"), 404, language)
    assert f"<h1>{NO_GAME[index]}</h1>" in html and str(missing) in html

    private = bot_game("i18n-private", players=PLAYERS, private=True)
    html = page(reader(language, by).get(f"/replays/games/{private.id}/audit/"), 403,
                language)
    assert PRIVATE[index] in html

    running = running_game("i18n-running", commands=4)
    html = page(reader(language, by).get(f"/replays/games/{running.id}/audit/"), 403,
                language)
    assert f"<h1>{NO_AUDIT[index]}</h1>" in html


@pytest.mark.parametrize("index", range(len(LANGUAGES)), ids=LANGUAGES)
def test_the_verify_page_refuses_in_the_readers_language(apps: Games, index: int) -> None:
    language = LANGUAGES[index]
    client = reader(language, "header")
    html = page(client.post("/replays/verify/", {}), 400, language)
    title, message = NO_FILE[index]
    assert f"<h1>{title}</h1>" in html and message in html

    html = page(client.post("/replays/verify/", upload(NOT_UTF8, "record")), 400, language)
    title, message = VERIFY_NOT_UTF8[index]
    assert f"<h1>{title}</h1>" in html and message in html


@pytest.mark.parametrize("index", range(len(LANGUAGES)), ids=LANGUAGES)
def test_disputes_refuse_in_the_readers_language(apps: Games, index: int) -> None:
    language = LANGUAGES[index]
    game = bot_game("i18n-dispute", players=PLAYERS)
    ann = User.objects.create_user("ann")
    eve = User.objects.create_user("eve")
    dispute = open_dispute(ann, game.id, 10, "This draw looks wrong to me.")

    html = page(reader(language, "cookie", eve).get(f"/replays/disputes/{dispute.id}/"),
                403, language)
    title, message = NOT_YOURS[index]
    assert f"<h1>{title}</h1>" in html and message in html

    html = page(reader(language, "header", eve).get(f"/replays/disputes/{uuid4()}/"), 404,
                language)
    assert f"<h1>{NO_DISPUTE[index]}</h1>" in html

    html = page(reader(language, "header", eve).get(
        f"/replays/games/{game.id}/disputes/new/"), 403, language)
    assert f"<h1>{NOT_YOUR_GAME[index]}</h1>" in html

    # The dispute rules' own reason (replays.disputes), in the reader's words too.
    ann.is_staff = True
    ann.save()
    html = page(reader(language, "header", ann).post(
        f"/replays/disputes/{dispute.id}/", {"ruling": "upheld", "explanation": "Mine."}),
        403, language)
    assert PLAYED_HERE[index] in html


@pytest.mark.parametrize("index", range(len(LANGUAGES)), ids=LANGUAGES)
def test_an_import_is_refused_in_the_readers_language(apps: Games, index: int) -> None:
    language = LANGUAGES[index]
    client = reader(language, "cookie", User.objects.create_user("ann"))
    assert IMPORT_NOT_UTF8[index] in page(
        client.post("/replays/import/", upload(NOT_UTF8, "file")), 400, language)
    assert IMPORT_NO_FILE[index] in page(client.post("/replays/import/", {}), 400, language)

    # The checker's own words are quoted as they are, in English, inside the sentence.
    junk = b"this is not JSON\n"
    _, verdict = read_and_verify(junk.decode())
    detail = verdict.checks[0].detail
    html = page(client.post("/replays/import/", upload(junk, "file")), 400, language)
    assert f"{UNREADABLE[index]}{detail}." in html
