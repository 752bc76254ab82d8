"""The site in English, Hungarian and Finnish: every page without an untranslated string,
the catalogues complete and compiled, the language chosen by the browser or the
switch, the move log narrated in the reader's language, and the Hungarian bean names
as the Hungarian rulebook gives them.

How an untranslated string is found: each page is rendered in English and in the
other language; every piece of text a reader sees (text nodes, and the title,
aria-label, placeholder and alt attributes) that reads the same in both, once the
names of players, seats and rulesets and the numbers are taken out, is untranslated.
Text marked as not to be translated (``translate="no"``, or ``lang="en"`` for the
audit checker's own English report and the engine's parameter names) and code
(``code``, ``kbd``, ``script``, ``style``) are left out.
"""

from __future__ import annotations

import gettext
import io
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client

from bohnanza_core.cards import BeanKind
from bohnanza_core.formats import FORMATS
from bohnanza_core.games import Game, Games
from bohnanza_core.narrate import bean_name
from bohnanza_core.rulesets import PRESETS
from config.pocompile import LOCALE, read_po, write_mo
from play import tokens
from play.tables import create_table, start
from replays.disputes import open_dispute, reset_disputes
from replays.store import games, reset_games
from tests.factories import bot_game, running_game
from tournaments.core.competition import LivePlay
from tournaments.core.rounds import run_here
from tournaments.core.store import create, reset_competitions

LANGUAGES = ("hu", "fi")
RULEBOOK = settings.BASE_DIR.parent / "shared" / "seeds" / "000_f017b717b63a1ae7.txt"
HUNGARIAN_BEANS = {
    # As the Hungarian rulebook lists them (seeds/000_f017b717b63a1ae7.txt, lines 11-22).
    BeanKind.BLUE: "kékbab", BeanKind.CHILI: "tűzbab", BeanKind.STINK: "disznóbab",
    BeanKind.GREEN: "zöldbab", BeanKind.SOY: "szójabab", BeanKind.BLACK_EYED: "szemesbab",
    BeanKind.RED: "vörösbab", BeanKind.GARDEN: "kertibab", BeanKind.COFFEE: "kávébab",
    BeanKind.WAX: "viaszbab", BeanKind.COCOA: "kakaóbab",
}
# Words that are the same in every language: the game's and the site's names, units.
SAME_EVERYWHERE = {"bohnanza", "utc", "json", "lines", "jsonl", "http", "heuristic", "max",
                   "bot"}  # Hungarian says "bot" too: "heuristic@builtin (bot)"
SKIPPED_TAGS = {"script", "style", "code", "kbd", "textarea"}
VOID_TAGS = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
             "source", "track", "wbr"}
SEEN_ATTRIBUTES = ("title", "aria-label", "placeholder", "alt")


class _Texts(HTMLParser):
    """The texts a reader sees on a page, outside what is marked not to translate."""

    def __init__(self, page_language: str) -> None:
        super().__init__(convert_charrefs=True)
        self.page_language = page_language
        self.stack: list[bool] = []  # for each open element: is its content left out?
        self.texts: list[str] = []

    def _skipped(self) -> bool:
        return bool(self.stack) and self.stack[-1]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        lang = values.get("lang")
        skip = (self._skipped() or tag in SKIPPED_TAGS or values.get("translate") == "no"
                or (lang is not None and tag != "html" and lang != self.page_language))
        if not skip:
            self.texts += [str(values[name]) for name in SEEN_ATTRIBUTES if values.get(name)]
        if tag not in VOID_TAGS:
            self.stack.append(skip)

    def handle_endtag(self, tag: str) -> None:
        if tag not in VOID_TAGS and self.stack:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        if not self._skipped() and data.strip():
            self.texts.append(" ".join(data.split()))


def texts(html: str, language: str) -> set[str]:
    parser = _Texts(language)
    parser.feed(html)
    return set(parser.texts)


def leftover_words(text: str, names: list[str]) -> list[str]:
    """The words of ``text`` left once names, numbers and shared words are taken out."""
    for name in sorted(names, key=len, reverse=True):
        text = text.replace(name, " ")
    words = re.findall(r"[^\W\d_]{3,}", text)
    return [w for w in words if w.casefold() not in SAME_EVERYWHERE]


def in_language(client: Client, language: str) -> Client:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    return client


@pytest.fixture
def store(db: None) -> Iterator[Games]:
    """The platform's Games application on the test database (rolled back after)."""
    reset_games()
    yield games()
    reset_games()


@pytest.fixture
def world(store: Games) -> Iterator[dict[str, object]]:
    reset_disputes()
    finished = bot_game("i18n-finished", players=("user:ann", "bot:heuristic", "bot:random"))
    running = running_game("i18n-running", commands=8)
    ann = User.objects.create_user("ann", password="pw-ann-123")
    staff = User.objects.create_user("zed", password="pw-zed-123", is_staff=True)
    dispute = open_dispute(ann, finished.id, 40, "This draw looks wrong to me.")
    reset_competitions()
    cup = create("Cup", "knockout", {"advance": 1}, PRESETS["duel"][0], 2,
                 ["heuristic@builtin", "random@builtin", "nontrading@builtin",
                  "heuristic@builtin #2"])
    run_here(cup.id)
    waiting = create_table(ann, "classic", 3, seats=["open", "heuristic", "open"],
                           move_seconds=30, overrides={"trading": False})
    live = start(create_table(ann, "duel", 2, seats=["open", "random"]), ann)
    ladder = create("Ladder", "ladder", {}, PRESETS["duel"][0], 2,
                    ["heuristic@builtin", "random@builtin", "nontrading@builtin"], every=60)
    run_here(ladder.id, rounds=3)
    league = run_here(create(
        "League", "league", {"divisions": 2, "moves": 1, "seasons": 2}, PRESETS["duel"][0], 2,
        ["heuristic@builtin", "random@builtin", "nontrading@builtin", "random@builtin #2"]).id)
    # waiting for its first season: zed organises, ann is invited (issue 26, consent)
    invited = create("Invited", "league", {"divisions": 1, "moves": 0, "seasons": 1},
                     PRESETS["duel"][0], 2, ["heuristic@builtin"], organiser="user:zed",
                     live=LivePlay("duel", {}, 60, 0, 24, False), invited=["user:ann"])
    robo = tokens.create_bot(ann, "robo")  # ann's bot account, with a token
    tokens.issue(robo, "laptop", ("play", "read"))
    yield {"finished": finished, "running": running, "ann": ann, "staff": staff,
           "dispute": str(dispute.id), "cup": str(cup.id), "waiting": str(waiting.id),
           "live": str(live.id), "live_seats": list(games().game(live.game_id).state.seats),
           "ladder": str(ladder.id), "league": str(league.id), "invited": str(invited.id)}
    reset_competitions()
    reset_disputes()


def pages(world: dict[str, object]) -> list[tuple[str, str]]:
    """(who, path) for every page of the site."""
    finished, running = world["finished"], world["running"]
    assert isinstance(finished, Game) and isinstance(running, Game)
    game, live = f"/replays/games/{finished.id}/", f"/replays/games/{running.id}/"
    return [
        ("anyone", "/"), ("anyone", "/rules/"), ("anyone", "/replays/games/"),
        ("anyone", "/accounts/login/"), ("anyone", "/replays/verify/"),
        ("anyone", game + "?step=1"), ("anyone", game + "?step=120&perspective=seat-1"),
        ("anyone", game), ("anyone", game + "embed/?step=60"),
        ("anyone", live), ("anyone", game + "?step=99999"),
        ("anyone", "/replays/games/no-such-game/"),
        ("ann", "/replays/mine/"), ("ann", "/replays/import/"), ("ann", "/replays/disputes/"),
        ("ann", f"/replays/games/{finished.id}/disputes/new/?seq=40"),
        ("ann", f"/replays/games/{finished.id}/audit/"),
        ("staff", f"/replays/disputes/{world['dispute']}/"),
        ("anyone", "/tournaments/"), ("anyone", f"/tournaments/{world['cup']}/"),
        ("anyone", f"/tournaments/{world['cup']}/?round=1"), ("ann", "/tournaments/new/"),
        ("anyone", "/play/"), ("ann", "/play/"), ("anyone", "/accounts/signup/"),
        ("anyone", "/players/ann/"), ("ann", "/players/ann/"),
        ("ann", f"/play/tables/{world['waiting']}/"),
        ("anyone", f"/play/tables/{world['waiting']}/"),
        ("ann", f"/play/tables/{world['live']}/"),
        ("anyone", "/tournaments/?format=ladder"),
        ("anyone", f"/tournaments/{world['ladder']}/"),
        ("anyone", f"/tournaments/{world['league']}/"),
        *[("ann", f"/tournaments/new/{format}/") for format in FORMATS],
        ("ann", "/tournaments/invitations/"),
        ("ann", f"/tournaments/{world['invited']}/"),
        ("staff", f"/tournaments/{world['invited']}/"),
        ("ann", "/account/bots/"), ("ann", "/account/bots/robo/"),
        ("anyone", "/players/robo/"),
    ]


def names_of(world: dict[str, object]) -> list[str]:
    """Names that read the same in every language: seats, accounts, rulesets."""
    names = ["ann", "bob", "cy", "zed", "robo", "laptop", "Games",
             "This draw looks wrong to me.", *PRESETS,
             *world.get("live_seats", [])]  # type: ignore[misc]
    names += ["Cup", "Ladder", "League", "Invited", "random@builtin #2", "heuristic@builtin",
              "random@builtin", "nontrading@builtin",
              "heuristic@builtin #2", "random 1", "random 2", "nontrading 1", "heuristic 1",
              "heuristic 2", "nontrading 2", "random #2", "heuristic #2", "nontrading",
              "random", "heuristic"]  # the competition's name, entrants and seats
    for key in ("finished", "running"):
        game = world[key]
        assert isinstance(game, Game)
        names += [*game.state.seats, game.state.ruleset.name]
    return names


def client_for(who: str, world: dict[str, object]) -> Client:
    client = Client()
    if who != "anyone":
        user = world[who]
        assert isinstance(user, User)
        client.force_login(user)
    return client


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_page_is_translated(world: dict[str, object], language: str) -> None:
    names = names_of(world)
    untranslated: dict[str, list[str]] = {}
    for who, path in pages(world):
        english = client_for(who, world).get(path)
        other = in_language(client_for(who, world), language).get(path)
        assert english.status_code == other.status_code, path
        assert f'<html lang="{language}"' in other.content.decode(), path
        same = texts(other.content.decode(), language) & texts(english.content.decode(), "en")
        found = [text for text in sorted(same) if leftover_words(text, names)]
        if found:
            untranslated[path] = found
    assert not untranslated, f"untranslated in {language}: {untranslated}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_table_and_the_log_answer_in_the_readers_language(
        world: dict[str, object], language: str) -> None:
    finished = world["finished"]
    assert isinstance(finished, Game)
    names = names_of(world)
    english, other = Client(), in_language(Client(), language)
    for step in (1, 40, 150, finished.version):
        url = f"/replays/games/{finished.id}/steps/{step}.json"
        en_html, html = english.get(url).json()["html"], other.get(url).json()["html"]
        same = texts(html, language) & texts(en_html, "en")
        assert not [t for t in same if leftover_words(t, names)], (step, same)
    log = f"/replays/games/{finished.id}/log.json"
    en_lines = [line["text"] for line in english.get(log).json()["lines"]]
    lines = [line["text"] for line in other.get(log).json()["lines"]]
    assert len(lines) == len(en_lines)
    same = [a for a, b in zip(lines, en_lines, strict=True)
            if a == b and leftover_words(a, names)]
    assert not same, same[:5]


def test_the_browsers_language_is_the_default_and_the_switch_overrides_it(
        store: Games) -> None:
    client = Client()
    assert '<html lang="hu"' in client.get("/", HTTP_ACCEPT_LANGUAGE="hu-HU,hu;q=0.9"
                                           ).content.decode()
    assert '<html lang="fi"' in client.get("/", HTTP_ACCEPT_LANGUAGE="fi").content.decode()
    assert '<html lang="en"' in client.get("/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    response = client.post("/i18n/setlang/", {"language": "fi", "next": "/rules/"})
    assert response.status_code == 302 and response["Location"] == "/rules/"
    page = client.get("/rules/", HTTP_ACCEPT_LANGUAGE="hu").content.decode()
    assert '<html lang="fi"' in page and "Säännöt" in page
    assert client.post("/i18n/setlang/", {"language": "xx"}).status_code in (302, 400)


def test_hungarian_bean_names_are_the_rulebooks() -> None:
    translations = gettext.translation("django", LOCALE, languages=["hu"])
    if RULEBOOK.exists():  # shared/ beside the checkout, as on the team's machines and CI
        rulebook = RULEBOOK.read_text(encoding="utf-8")
        for name in HUNGARIAN_BEANS.values():
            assert re.search(rf"\d+ {name} \(", rulebook), name
    for kind, name in HUNGARIAN_BEANS.items():
        assert bean_name(kind, 1, translations) == name
        assert bean_name(kind, 3, translations) == name  # Hungarian: singular after a number


def test_every_message_is_translated_and_the_compiled_catalogues_are_current() -> None:
    for language in LANGUAGES:
        po = LOCALE / language / "LC_MESSAGES" / "django.po"
        text = po.read_text(encoding="utf-8")
        assert "#, fuzzy" not in text, f"{po}: fuzzy entries"
        entries = text.count("\nmsgid ")
        catalogue = read_po(po)
        assert len(catalogue) == entries, f"{po}: untranslated entries"  # header included
        committed = gettext.GNUTranslations(io.BytesIO(Path(po.with_suffix(".mo"))
                                                       .read_bytes()))
        built = gettext.GNUTranslations(io.BytesIO(write_mo(catalogue)))
        for messages in (committed, built):
            messages._catalog.pop("", None)  # type: ignore[attr-defined]
        assert committed._catalog == built._catalog, (  # type: ignore[attr-defined]
            f"{po.with_suffix('.mo')} is older than its .po: run python -m config.pocompile")


def test_bean_initials_are_unique_in_every_language() -> None:
    from django.utils import translation

    from replays.table import initials

    for language in ("en", *LANGUAGES):
        with translation.override(language):
            shown = [initials(kind) for kind in BeanKind]
        assert len(set(shown)) == len(shown), (language, shown)


def test_bean_initials_differ_at_a_glance() -> None:
    """Two kinds' letters never differ by an accent or a letter's case alone (Hungarian
    "Ké" kékbab and "Ke" kertibab did, on a 35 px card)."""
    import unicodedata

    from django.utils import translation

    from replays.table import initials

    def plain(letters: str) -> str:
        return "".join(c for c in unicodedata.normalize("NFD", letters)
                       if not unicodedata.combining(c)).casefold()

    for language in ("en", *LANGUAGES):
        with translation.override(language):
            shown = [plain(initials(kind)) for kind in BeanKind]
        assert len(set(shown)) == len(shown), (language, shown)


AMBIGUOUS = {
    # One English word, two meanings: each its own message (docs/i18n.md).
    "Play": ("site menu: the lobby, where games are played", "replay playback"),
    "Leave": ("a table before its game", "a competition"),
    "Decline": ("an invitation", None),
}
CONTEXTS = (
    ("a move: put a card on the discard pile", "Discard %(card)s"),
    ("a move: refuse an offer", "Decline offer #%(offer)s"),
    ("a move: harvest and sell a field's beans", "Harvest field %(field)s"),
    ("one card", "face up"),
    ("an invitation", "Accept"),
    ("a table's game", "Start"),
    ("an open offer: what its proposer gives, then wants", "%(gives)s for %(wants)s"),
)


def _catalogue(language: str) -> gettext.GNUTranslations:
    return gettext.GNUTranslations(io.BytesIO(
        (LOCALE / language / "LC_MESSAGES" / "django.mo").read_bytes()))


def test_one_word_two_meanings_are_two_messages() -> None:
    """The menu's "Play" (the lobby) and the viewer's play button are two messages, and
    read differently in each language; so are the other words with two meanings. No
    page asks for such a word without its context (the plain msgid is gone from the
    catalogues, where makemessages --no-obsolete keeps only what the code asks for)."""
    for language in LANGUAGES:
        messages = _catalogue(language)
        catalogue = messages._catalog  # type: ignore[attr-defined]
        for word, (first, second) in AMBIGUOUS.items():
            assert word not in catalogue, (language, word, "asked for without a context")
            one = messages.pgettext(first, word)
            other = messages.pgettext(second, word) if second else messages.gettext(word)
            assert one != word and one != other, (language, word, one, other)
        for context, message in CONTEXTS:
            assert f"{context}\x04{message}" in catalogue, (language, context, message)
    page = (settings.BASE_DIR / "templates" / "base.html").read_text(encoding="utf-8")
    assert '{% translate "Play" %}' not in page


GLOSSARY_TERMS = {
    # The messages each glossary term is checked in: the move's button, the log's line.
    "harvest": ((("a move: harvest and sell a field's beans", "Harvest field %(field)s"),
                 (None, "{seat} harvests {beans} from field {field} for {coins}"),
                 (None, "At the end, {seat} harvests {beans} from field {field} for {coins}"))),
    "sell": (((None, "The final harvest: every field is sold"),)),
    "discard": ((("a move: put a card on the discard pile", "Discard %(card)s"),
                 (None, "{seat} discards {bean} (from hand)"),
                 (None, "{seat} discards {bean} (left face up)"))),
    "decline": ((("a move: refuse an offer", "Decline offer #%(offer)s"),
                 (None, "{seat} declines offer {offer}"))),
}
RULEBOOKS = {"hu": "000_", "en": "001_", "fi": "004_"}


def glossary() -> list[tuple[str, str, str, str, str]]:
    """(term, language, word, rulebook number, passage) from docs/i18n.md's glossary."""
    text = (settings.BASE_DIR / "docs" / "i18n.md").read_text(encoding="utf-8")
    section = text.split("## Glossary", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0] in GLOSSARY_TERMS:
            book, passage = re.fullmatch(r'(\d{3}): "(.+)"', cells[3]).groups()  # type: ignore[union-attr]
            rows.append((cells[0], cells[1], cells[2], book, passage))
    return rows


def test_the_glossary_follows_the_rulebooks_and_the_catalogues_follow_the_glossary(
) -> None:
    """docs/i18n.md names, for harvest, sell, discard and decline, each language's word
    and the rulebook's passage: the passage stands in the rulebook word for word, and
    the word in every translation of the move's button and log line."""
    rows = glossary()
    assert {(term, language) for term, language, *_ in rows} == {
        (term, language) for term in GLOSSARY_TERMS for language in ("en", *LANGUAGES)}
    seeds = RULEBOOK.parent
    for term, language, word, book, passage in rows:
        assert book == RULEBOOKS[language][:3], (term, language, book)
        if seeds.exists():  # shared/ beside the checkout, as on the team's machines and CI
            found = [p for p in seeds.glob(f"{book}_*.txt")]
            assert found and passage in found[0].read_text(encoding="utf-8"), (
                term, language, passage)
        for context, message in GLOSSARY_TERMS[term]:
            if language == "en":
                said = message
            else:
                messages = _catalogue(language)
                said = (messages.pgettext(context, message) if context
                        else messages.gettext(message))
                assert said != message, (language, message, "untranslated")
            assert word.casefold() in said.casefold(), (term, language, word, said)
    # Finnish: "korjata" (repair) is not the harvest, "hylätä" not both discard and decline.
    fi = _catalogue("fi")
    for context, message in GLOSSARY_TERMS["harvest"] + GLOSSARY_TERMS["discard"]:
        said = fi.pgettext(context, message) if context else fi.gettext(message)
        assert "korja" not in said.casefold() and "hylk" not in said.casefold(), said
