"""Export a stored game as JSON Lines, and import one from such a file.

Export (``games/<id>/export.jsonl``, ``replay_export``) writes the documented file
(docs/export.md) of the record as one allowed perspective sees it: the viewer's
access rules apply, so the "everything" file (every hand, the draw pile, the seed)
exists only for finished games and a seat's file only for its player while the game
runs.

Import (``import/``, ``import``) takes the "everything" file of a finished game. The
file is read strictly, audited (:func:`bohnanza_core.verify.verify_text`: chain, seed,
shuffles, rules) and then *played again* on this platform: a new game is started from
the file's ruleset, seats and seed and every decision in it is played as a command,
so the stored record is derived by the rules here, never copied from the file.

Why the imported game gets a new id, new timestamps and a new hash chain: a record's
chain proves what *this* store recorded and when; copying the file's ``at`` values
and hashes would make the store vouch for times it never saw. What carries over is
what the rules determine: the same events, in the same order, from the same seed.

Why players become ``imported:<who>``: anyone can write a file that passes the audit
while naming any account or bot as the actor (the chain is a checksum, not a
signature). Seating ``user:ann`` from a file would let a stranger put games in Ann's
name and give Ann a player's rights over them; so every seat is credited, honestly,
to ``imported:<the file's actor>`` (or ``imported:<seat name>`` where the file has
none), and the import itself is credited to the account that uploaded it (the first
event's actor). Importing needs an account for that reason.

The file's seed and salt carry over too (both are public once a game has ended), so
the stored game commits to its seed exactly as the file's did; and a file whose game
is already stored (the same events from the same seed commitment: :func:`stored_copy`)
is not stored again: the import links to the stored game.

Nothing is stored for a bad file: the game is first replayed into a throwaway
in-memory store and compared with the file event by event; only a file that replays
exactly is then played into the platform's store.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import URLPattern, path, reverse
from django.utils.formats import number_format
from django.utils.translation import gettext
from django.views.decorators.http import require_http_methods, require_safe

from bohnanza_core.commands import Command, HandSeatToBot, StopGame, seat_of
from bohnanza_core.engine import command_for
from bohnanza_core.events import GameStarted
from bohnanza_core.export import GameFile, export_record
from bohnanza_core.games import Game, Games
from bohnanza_core.verify import Verdict, read_and_verify
from replays.caching import answer, tag
from replays.models import GameSummary
from replays.store import access, games, perspective_name
from replays.views.audit import UPLOAD_MAX_LINES
from replays.views.viewer import answers_refusals, open_game, rule_for

MAX_IMPORT_BYTES = 5 * 1024 * 1024
"""The largest file accepted for import; a long five-player game is well under 1 MB."""


def too_large(name: str, size: int) -> str:
    """Why a file of ``size`` bytes is refused, its size in MB as the reader writes
    numbers ("5.2", "5,2")."""
    return gettext("%(name)s is %(size)s MB; files up to %(most)s MB are accepted.") % {
        "name": name, "size": number_format(size / 1024 / 1024, 1),
        "most": MAX_IMPORT_BYTES // 1024 // 1024}


# -- export -------------------------------------------------------------------------


@require_safe
@answers_refusals(as_json=False)
def export_game(request: HttpRequest, game_id: str) -> HttpResponse:
    """The record so far as a JSON Lines download, for one allowed perspective; a
    finished game's is built once per perspective and head (replays/caching.py)."""
    opened = open_game(request, game_id)
    game = opened.game
    rule = rule_for(request, opened)
    name = perspective_name(opened.perspective)
    etag = tag(game, opened.head, "export", name, rule.basis) if rule.cacheable else None

    def build() -> HttpResponse:
        entries = games().record(game.id)[: game.version]
        text = export_record(entries, opened.perspective, head=game.head_hash)
        response = HttpResponse(text, content_type="application/x-ndjson; charset=utf-8")
        response["Content-Disposition"] = (
            f'attachment; filename="bohnanza-{game.id}-{name}.jsonl"'
        )
        response["X-Content-Type-Options"] = "nosniff"
        return response

    # The file is the same in every language: only the sign-in decides who gets it.
    return answer(request, rule, etag, build, vary=("Cookie",))


# -- import -------------------------------------------------------------------------


class ImportRefused(Exception):
    """A file that will not be imported: a message and, after an audit, its verdict."""

    def __init__(self, status: int, message: str, verdict: Verdict | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.verdict = verdict


def read_upload(data: bytes) -> tuple[str, GameFile]:
    """The file's text and its parsed form, if it is the full record of a finished
    game that passes the audit; :class:`ImportRefused` otherwise."""
    if len(data) > MAX_IMPORT_BYTES:
        raise ImportRefused(413, too_large(gettext("The file"), len(data)))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ImportRefused(400, gettext("The file is not UTF-8 text (byte %(byte)s): is it "
                                         "a game export?") % {"byte": exc.start}) from None
    game_file, verdict = read_and_verify(text, max_lines=UPLOAD_MAX_LINES)
    # The checker's own words (a check's detail, the summary) stay in English, as
    # `bohnanza verify` prints them; the sentence around them is the reader's.
    if game_file is None:
        raise ImportRefused(400, gettext("The file cannot be read: %(detail)s.")
                            % {"detail": verdict.checks[0].detail})
    if game_file.perspective != "everything":
        raise ImportRefused(400, gettext(
            "This is the %(perspective)s view of a game, with the hidden cards left out. "
            "Only the 'everything' export of a finished game can be checked and imported.")
            % {"perspective": game_file.perspective})
    if not verdict.ok:
        raise ImportRefused(400, gettext("The file fails its audit: %(summary)s.")
                            % {"summary": verdict.summary}, verdict)
    if not verdict.finished:
        raise ImportRefused(400, gettext("The record is intact but the game in it has not "
                                         "ended: only finished games can be imported."),
                            verdict)
    return text, game_file


def imported_players(game_file: GameFile) -> list[str]:
    """Who sits in each seat of the imported game: ``imported:<actor>`` from the seat's
    first decision in the file, else ``imported:<seat name>`` (see the module's
    docstring for why never the actor itself)."""
    started = game_file.events[0]
    assert isinstance(started, GameStarted)
    actors: dict[int, str] = {}
    for entry in game_file.entries:
        command = command_for(entry.event)
        # The platform's decisions are nobody's seat: a seat handed to its bot (by who
        # left, or for absence) and a game stopped (an arbiter, the deadline).
        if (command is None or not entry.actor or isinstance(command, PLATFORM_COMMANDS)):
            continue
        actors.setdefault(seat_of(command), entry.actor)
    return [f"imported:{actors.get(seat, name)}" for seat, name in enumerate(started.seats)]


PLATFORM_COMMANDS = (StopGame, HandSeatToBot)
"""The platform's decisions in a record, credited to whoever the file says took them
(``imported:arbiter:ann``), never to the seat's player."""


def credited(command: Command, actor: str | None, players: list[str]) -> str:
    """Who an imported decision is credited to: its seat's player, or for the
    platform's own decisions the file's actor (imported, as players are)."""
    if isinstance(command, PLATFORM_COMMANDS):
        return f"imported:{actor or 'platform'}"
    return players[seat_of(command)]


def replay_into(store: Games, game_file: GameFile, players: list[str], importer: str,
                private: bool) -> Game:
    """Start the file's game on ``store`` and play every decision of it, each credited
    to its seat's player; the engine derives every other event again. Only called on
    an audited file, first on a throwaway store (:func:`import_file`).

    The game is played in memory and saved whole, in one transaction: an import is
    stored entirely or not at all, even if the process is killed half-way (stored
    command by command, it once left a game half there, running for ever, that no
    ``imported:`` seat could finish)."""
    started = game_file.events[0]
    assert isinstance(started, GameStarted) and started.seed is not None
    # The file's seed and salt: the game has ended, so both are public, and with them
    # the stored game commits to its seed exactly as the file's did; its tags (what it
    # says it belongs to, in its chain) come with it as the file has them.
    game = store.start(started.ruleset, started.seats, started.seed, salt=started.salt,
                       players=players, private=private, actor=importer, save=False,
                       tags=started.tags)
    events, entries = game_file.events, game_file.entries
    index = game.version  # the deal and everything else that happens by itself
    while index < len(events):
        # As in bohnanza_core.rederive: the event that opens a command's events names
        # the command; the events it causes (some look like decisions) follow from it.
        command = command_for(events[index])
        if command is None:
            raise ImportRefused(400, gettext("Event #%(seq)s of the file is not a decision "
                                             "and does not follow from the one before.")
                                % {"seq": index + 1})
        index += len(game.play(command, credited(command, entries[index].actor, players)))
    store.save(game)
    return game


COPIES_COMPARED = 20
"""At most this many stored games with the file's seed commitment and length are read
to find a copy (more only if someone imported the same deal with other decisions over
and over: offline games of one seed)."""


def stored_copy(game_file: GameFile) -> Game | None:
    """The stored game that is the file's game, event for event, if there is one: its
    seed commitment (salted, so one game's) and length narrow the game list down, and
    the events decide (two offline games of one seed share the commitment)."""
    started = game_file.events[0]
    assert isinstance(started, GameStarted)
    candidates = GameSummary.objects.filter(
        seed_commitment=started.seed_commitment, events=len(game_file.events),
        status=GameSummary.Status.FINISHED,
    ).values_list("game_id", flat=True)[:COPIES_COMPARED]
    store = games()
    for game_id in candidates:
        entries = store.record(game_id)
        if tuple(entry.event for entry in entries) == game_file.events:
            return store.game(game_id)
    return None


def import_file(game_file: GameFile, importer: str, private: bool) -> Game:
    """Rehearse the import in memory, compare with the file, then store it for real."""
    players = imported_players(game_file)
    popo = "eventsourcing.popo"  # both names: the prefixed one would win over the plain one
    rehearsal = Games(env={"PERSISTENCE_MODULE": popo,
                           f"{Games.name.upper()}_PERSISTENCE_MODULE": popo})
    try:
        trial = replay_into(rehearsal, game_file, players, importer, private)
        derived = tuple(entry.event for entry in rehearsal.record(trial.id))
    except Exception as exc:  # the audit passed, so this is a bug: say so, store nothing
        raise ImportRefused(400, gettext("Replaying the file failed (%(error)s); nothing "
                                         "was stored.") % {"error": exc}) from exc
    finally:
        rehearsal.close()
    if derived != game_file.events:
        at = next((i for i, (a, b) in enumerate(zip(derived, game_file.events, strict=False),
                                                start=1) if a != b),
                  min(len(derived), len(game_file.events)) + 1)
        raise ImportRefused(400, gettext("Replaying the file gave a different record from "
                                         "event #%(seq)s on; nothing was stored.")
                            % {"seq": at})
    return replay_into(games(), game_file, players, importer, private)


def _form(request: HttpRequest, status: int = 200, **context: Any) -> HttpResponse:
    return render(request, "replays/import.html",
                  {"max_mb": MAX_IMPORT_BYTES // 1024 // 1024, **context}, status=status)


@require_http_methods(["GET", "POST"])
@login_required
def import_game(request: HttpRequest) -> HttpResponse:
    """The upload form, and the import of a posted file (see the module's docstring)."""
    if request.method == "GET":
        return _form(request)
    upload = request.FILES.get("file")
    private = request.POST.get("private") == "on"
    if upload is None:
        return _form(request, 400, error=gettext("Choose a game file (.jsonl) to import."),
                     private=private)
    filename = upload.name or gettext("the file")
    try:
        if upload.size is not None and upload.size > MAX_IMPORT_BYTES:
            raise ImportRefused(413, too_large(filename, upload.size))
        _, game_file = read_upload(upload.read(MAX_IMPORT_BYTES + 1))
        username = request.user.get_username()
        game = stored_copy(game_file)
        if game is not None:
            if not access(game, username, is_staff=request.user.is_staff).allowed:
                raise ImportRefused(409, gettext("This game is already stored here, as a "
                                                 "private game: ask its players for its "
                                                 "share link."))
            messages.info(request, gettext("This game was already stored here: this is its "
                                           "replay. Nothing new was stored."))
            return HttpResponseRedirect(reverse("replays:replay",
                                                kwargs={"game_id": str(game.id)}))
        game = import_file(game_file, f"user:{username}", private)
    except ImportRefused as refused:
        return _form(request, refused.status, error=refused.message, verdict=refused.verdict,
                     filename=filename, private=private)
    url = reverse("replays:replay", kwargs={"game_id": str(game.id)})
    if game.private:
        url += f"?token={game.share_token}"
    return HttpResponseRedirect(url)


urlpatterns: list[URLPattern] = [
    path("games/<str:game_id>/export.jsonl", export_game, name="replay_export"),
    path("import/", import_game, name="import"),
]
