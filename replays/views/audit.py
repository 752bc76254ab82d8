"""The audit page: is the stored record of a finished game whole, fair and by the rules?

``games/<id>/audit/`` shows the verdict of :func:`bohnanza_core.verify.verify_record` on
the stored record: each check, the first bad event (linked to the replay at that step),
the head hash, and the "everything" export to check at home with ``bohnanza verify``.
Anyone may also upload an exported file to have it verified, there or at ``verify/``;
the file is read, judged and forgotten: nothing is stored.

A running game has no audit: its record holds hands, the draw pile and the seed, and
only the whole record can be audited; the page refuses (403) without telling anything
about the game. A private game opens only as :func:`replays.store.access` allows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.core.files.uploadedfile import UploadedFile
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import NoReverseMatch, URLPattern, path, reverse
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.http import require_http_methods

from bohnanza_core.games import Game, GameNotFound
from bohnanza_core.record import Entry
from bohnanza_core.rulesets import display_name
from bohnanza_core.verify import Verdict, given_head, read_and_verify, verify_record
from replays.disputes import person
from replays.store import access, games, parse_game_id, token_matches
from replays.table import bot_accounts
from replays.views.viewer import shown

MAX_UPLOAD_BYTES = 2 * 1024 * 1024
UPLOAD_MAX_LINES = 3_000
"""The most events an uploaded file may hold (the file format allows 10,000:
``bohnanza_core.jsonlimits.MAX_LINES``): over twice the longest game measured (1,361
events, finnish with 7 random bots, in 4,400 simulated games), and few enough that the
worst upload is answered in well under 100 ms (bench/uploads.py). ``bohnanza verify``
on one's own machine reads longer files."""
"""An exported game is about 150 kB; ten times the longest game is still well inside."""

QUESTIONS = {
    "file": gettext_lazy("Is the record whole and readable?"),
    "chain": gettext_lazy("Does every event carry the hash of the one before, up to the head?"),
    "seed": gettext_lazy("Does the seed match the commitment made at the start?"),
    "shuffles": gettext_lazy("Does every shuffle follow from the seed?"),
    "rules": gettext_lazy("Does every event follow from the rules and the players' decisions?"),
    "actors": gettext_lazy("Is each seat's every decision credited to the one who played it?"),
}


class Refusal(Exception):
    """A page that cannot be shown: the HTTP status and a sentence saying why."""

    def __init__(self, status: int, title: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.title = title
        self.message = message


def refused(request: HttpRequest, refusal: Refusal) -> HttpResponse:
    """The error page of the audit and dispute pages (nothing has been changed)."""
    return render(request, "replays/dispute_refused.html",
                  {"title": refusal.title, "message": refusal.message},
                  status=refusal.status)


def url_or_none(name: str, query: dict[str, Any] | None = None, **kwargs: Any) -> str | None:
    """A URL of another page family, or None while that page does not exist yet."""
    try:
        url = reverse(name, kwargs=kwargs)
    except NoReverseMatch:
        return None
    query = {k: v for k, v in (query or {}).items() if v not in (None, "")}
    return f"{url}?{urlencode(query)}" if query else url


def replay_url(game: Game, step: int | None, token: str | None = None) -> str | None:
    """The replay of a finished game at ``step``, everything shown."""
    return url_or_none("replays:replay", {"step": step, "perspective": "everything",
                                          "token": token}, game_id=str(game.id))


@dataclass(frozen=True)
class CheckRow:
    name: str
    question: str
    ok: bool
    detail: str
    first_bad: int | None
    link: str | None
    skipped: bool = False


def verdict_rows(verdict: Verdict, game: Game | None = None,
                 token: str | None = None) -> list[CheckRow]:
    """The verdict's checks for a template; with ``game``, a bad event links to its replay."""
    return [
        CheckRow(c.name, str(QUESTIONS.get(c.name, c.name)), c.ok, c.detail, c.first_bad,
                 replay_url(game, c.first_bad, token)
                 if game is not None and c.first_bad is not None else None, c.skipped)
        for c in verdict.checks
    ]


def request_token(request: HttpRequest) -> str | None:
    return request.GET.get("token") or None


def carried_token(request: HttpRequest, game: Game) -> str | None:
    """The request's token, for the page's links, only if it is the game's share token:
    any other value is of no use in a link, and a long one, repeated in every link,
    made a page many times the size of its URL."""
    token = request_token(request)
    return token if token is not None and token_matches(token, game.share_token) else None


def finished_game(request: HttpRequest, game_id: str) -> Game:
    """The game the URL names, if this request may audit it (else a Refusal)."""
    try:
        game = games().game(parse_game_id(game_id))
    except GameNotFound:
        raise Refusal(404, gettext("No such game"), gettext("There is no game %(game)s.")
                      % {"game": shown(game_id)}) from None
    user = request.user
    allowed = access(game, user.get_username() if user.is_authenticated else None,
                     is_staff=user.is_staff, token=request_token(request))
    if not allowed.allowed:
        reason = allowed.reason  # in the reader's language (replays.store.access)
        raise Refusal(403, gettext("This game is private"), reason[:1].upper() + reason[1:]
                      + ("" if reason.endswith(".") else "."))
    if not game.finished:
        raise Refusal(403, gettext("No audit yet"), gettext(
            "An audit needs the whole record, after the game ends: until then hands, the "
            "draw pile and the seed are secret."))
    return game


@dataclass(frozen=True)
class Upload:
    """A verified upload: the verdict and how the file compares with the stored game
    (``same``: None without a game to compare with; ``differs_at``: the first event
    whose entry differs, or one past the shorter record)."""

    name: str
    verdict: Verdict
    rows: list[CheckRow]
    same: bool | None = None
    differs_at: int | None = None
    differs_link: str | None = None


def first_difference(entries: Sequence[Entry], game: Game) -> int | None:
    """The first event at which the exported file's entries and the stored record
    differ (entry hashes compared), None if they are the same record."""
    stored = games().record(game.id)
    for mine, theirs in zip(entries, stored, strict=False):
        if mine.hash != theirs.hash:
            return mine.seq
    if len(entries) != len(stored):
        return min(len(entries), len(stored)) + 1
    return None


def _declared_length(request: HttpRequest) -> int:
    """The Content-Length the client declared, 0 if it declared none that is a number
    (as Django's own request parsing reads it; ``int`` alone raised on "abc")."""
    text = request.META.get("CONTENT_LENGTH") or "0"
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 18 else 0


def read_upload(request: HttpRequest) -> str:
    """The uploaded export as text (Refusal: missing, too big, not UTF-8)."""
    declared = _declared_length(request)
    most = MAX_UPLOAD_BYTES // 1024 // 1024
    if declared > MAX_UPLOAD_BYTES + 64 * 1024:
        raise Refusal(413, gettext("File too large"), gettext(
            "An exported game is at most %(most)s MB; this upload is %(size)s kB. "
            "Nothing was stored.") % {"most": most, "size": declared // 1024})
    upload = request.FILES.get("record")
    if upload is None:
        raise Refusal(400, gettext("No file"),
                      gettext("Choose an exported game file (.jsonl) to verify."))
    name = upload.name or gettext("the file")
    if upload.size is not None and upload.size > MAX_UPLOAD_BYTES:
        raise Refusal(413, gettext("File too large"), gettext(
            "An exported game is at most %(most)s MB; %(name)s is %(size)s kB. "
            "Nothing was stored.") % {"most": most, "name": name, "size": upload.size // 1024})
    raw: bytes = upload.read(MAX_UPLOAD_BYTES + 1)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise Refusal(400, gettext("Not an exported game"), gettext(
            "%(name)s is not UTF-8 text (byte %(byte)s); an export is JSON Lines. Nothing "
            "was stored.") % {"name": name, "byte": error.start}) from None


def given_head_of(request: HttpRequest) -> str | None:
    """The head hash the form was given (one a seat was shown), if any: the file's
    chain must end in it, as with ``bohnanza verify --head``."""
    text = request.POST.get("head", "")[:200]
    if not text.strip():
        return None
    try:
        return given_head(text)
    except ValueError as error:
        raise Refusal(400, gettext("Not a head hash"), str(error)) from None


def verify_upload(request: HttpRequest, game: Game | None) -> tuple[Upload, int]:
    """Verify an uploaded export; the status is 400 when it cannot be audited at all."""
    text = read_upload(request)
    game_file, verdict = read_and_verify(text, given_head_of(request),
                                         max_lines=UPLOAD_MAX_LINES)
    upload = request.FILES["record"]
    name = (upload.name if isinstance(upload, UploadedFile) else None) or gettext("the file")
    if game_file is None or verdict.events == 0:
        return Upload(name, verdict, verdict_rows(verdict)), 400
    if game is None:
        return Upload(name, verdict, verdict_rows(verdict)), 200
    differs = first_difference(game_file.entries, game)
    link = (replay_url(game, min(differs, game.version), carried_token(request, game))
            if differs else None)
    return Upload(name, verdict, verdict_rows(verdict), differs is None, differs, link), 200


@require_http_methods(["GET", "POST"])
def audit(request: HttpRequest, game_id: str) -> HttpResponse:
    """The stored record's verdict; POST: also the verdict of an uploaded file."""
    try:
        game = finished_game(request, game_id)
        upload, status = verify_upload(request, game) if request.method == "POST" else (None, 200)
    except Refusal as refusal:
        return refused(request, refusal)
    token = carried_token(request, game)
    bots = bot_accounts(game.players)
    verdict = verify_record(games().record(game.id), game.head_hash)
    first_bad_link = (replay_url(game, verdict.first_bad, token)
                      if verdict.first_bad is not None else None)
    return render(request, "replays/audit.html", {
        "game": game,
        "verdict": verdict,
        "rows": verdict_rows(verdict, game, token),
        "first_bad_link": first_bad_link,
        "replay_link": replay_url(game, None, token),
        "export_link": url_or_none("replays:replay_export",
                                   {"perspective": "everything", "token": token},
                                   game_id=str(game.id)),
        "dispute_link": url_or_none("replays:open_dispute",
                                    {"seq": verdict.first_bad}, game_id=str(game.id)),
        # A bot account marked as a bot, looked up as the page is drawn.
        "players": ", ".join(person(p, bots) for p in game.players),
        "ruleset": display_name(game.state.ruleset),
        "upload": upload,
        "max_upload_mb": MAX_UPLOAD_BYTES // 1024 // 1024,
    }, status=status)


@require_http_methods(["GET", "POST"])
def verify(request: HttpRequest) -> HttpResponse:
    """Verify any exported game file, stored here or not (nothing is stored)."""
    upload, status = None, 200
    if request.method == "POST":
        try:
            upload, status = verify_upload(request, None)
        except Refusal as refusal:
            return refused(request, refusal)
    return render(request, "replays/audit.html", {
        "game": None, "upload": upload, "max_upload_mb": MAX_UPLOAD_BYTES // 1024 // 1024,
    }, status=status)


urlpatterns: list[URLPattern] = [
    path("games/<str:game_id>/audit/", audit, name="audit"),
    path("verify/", verify, name="verify"),
]
