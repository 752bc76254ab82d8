"""The replay viewer: any stored game at any step, from one allowed perspective.

Pages and answers:

- ``games/<id>/`` (``replay``): the table at a step (the table component,
  ``templates/table/table.html``, see docs/table.md) with the log beside it, controls,
  a share box, export links and the audit details behind a disclosure. The server draws
  the step in HTML, so the page works without JavaScript; ``static/js/replay.js`` then
  steps (by decision, by event, by turn, by phase), plays and jumps by fetching the two
  JSON answers below, and ``static/js/table.js`` shows them.
- ``games/<id>/embed/`` (``replay_embed``): the same viewer without the site's chrome,
  allowed in other sites' iframes.
- ``games/<id>/steps/<n>.json`` (``replay_step``): the table answer after event ``n``
  (:func:`replays.table.table_answer`: the perspective's
  :class:`~bohnanza_core.views.GameView` dict and the same table drawn as HTML, with
  what the step's decision changed marked), the head hash there, and, at a finished
  game's last step, the end-of-game summary.
- ``games/<id>/log.json`` (``replay_log``): every event so far as one line in the
  reader's language, with where turns, phases and decisions begin; ``?from=n`` gives
  the lines from event ``n`` on. The page holds the log only as far as the end of the
  current turn; the script fetches the rest when the reader goes further or asks for
  the whole log.

Caching (:mod:`replays.caching`): a finished game's page, steps and log are built once
per perspective, language and head and kept in Django's cache; they answer
``If-None-Match`` with 304 and say who may keep them (``public`` for a public game,
``private`` for a private one or a signed-in reader's page); a running game's are
``no-store``. Pages show the game's dispute rulings, so their keys and ETags hold them.

Hidden information: everything shown is built from ``view(state, perspective)`` and
``redact(event, perspective)`` for a perspective :func:`replays.store.access` allows,
so a running game's hands (other than the viewer's own), draw pile and seed never
leave the server. A running game shows only the steps recorded so far.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache, wraps
from typing import Any
from urllib.parse import urlencode
from uuid import UUID

from csp.decorators import csp_replace
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import URLPattern, path, reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import pgettext
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.http import require_safe

from bohnanza_core.engine import command_for
from bohnanza_core.events import (
    CardTurnedOver,
    GameStarted,
    PhaseStarted,
    PlantingEnded,
    TurnStarted,
)
from bohnanza_core.games import Game, GameNotFound
from bohnanza_core.narrate import Narrator, phase_name
from bohnanza_core.record import Entry
from bohnanza_core.rulesets import display_name
from bohnanza_core.views import EVERYTHING, SPECTATOR, Perspective, redact, view
from replays.caching import Policy, answer, policy, remember, tag
from replays.disputes import rulings_of
from replays.store import (
    Access,
    Head,
    access,
    default_perspective,
    game_at,
    games,
    head_of,
    parse_game_id,
    parse_perspective,
    perspective_name,
    seats_of,
    token_matches,
)
from replays.summary import game_summary
from replays.table import (
    bot_account_mark,
    bot_accounts,
    changes_of,
    display_player,
    live_table,
    short_name,
    table_answer,
)

SPEEDS = (0.5, 1, 2, 4, 8)
"""Playback speeds offered; at 1x the viewer shows about one event a second."""

STEP = re.compile(r"-?[0-9]{1,12}")
"""A step as URLs write it: ASCII digits only (``int`` also reads "٣" and "1_0"), few
enough that ``int`` is cheap; out of range is then a 404 like any other missing step."""



# -- refusals ---------------------------------------------------------------------


def shown(text: str, limit: int = 40) -> str:
    """A value from the request, quoted for an error message and cut to ``limit``
    characters: a 100 kB query string is not echoed back whole."""
    return repr(text if len(text) <= limit else text[:limit] + "…")



class Refused(Exception):
    """A request the viewer will not answer: the HTTP status and a sentence saying why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def refusal_page(request: HttpRequest, refused: Refused) -> HttpResponse:
    """The error page: the status, what went wrong, and where to go instead."""
    titles = {400: _("Bad request"), 403: _("Not allowed"), 404: _("Not found"),
              413: _("Too large")}
    return render(request, "replays/_viewer_error.html",
                  {"title": titles.get(refused.status, _("Error")), "message": refused.message,
                   "status": refused.status}, status=refused.status)


def answers_refusals(as_json: bool) -> Callable[[Callable[..., HttpResponse]],
                                                 Callable[..., HttpResponse]]:
    """Turn :class:`Refused` raised by a view into an error page or a JSON error."""

    def decorate(func: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(func)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            try:
                return func(request, *args, **kwargs)
            except Refused as refused:
                if as_json:
                    return JsonResponse({"error": refused.message}, status=refused.status)
                return refusal_page(request, refused)

        return wrapper

    return decorate


# -- opening a game for a request --------------------------------------------------


@dataclass(frozen=True)
class Opened:
    """A game as this request may see it: the game now, what access allows, the
    perspective chosen, and the request's share token if it is the game's (for links)."""

    game: Game
    access: Access
    perspective: Perspective
    token: str | None
    head: Head
    bots: frozenset[str] = frozenset()
    """The game's players that are bot accounts (``replays.table.bot_accounts``): marked
    as bots on the seats, in the log and in the summary."""

    @property
    def game_id(self) -> UUID:
        return self.game.id

    @property
    def marks(self) -> str:
        """:attr:`bots` as one part of a cache key: who is marked changes what is drawn."""
        return ",".join(sorted(self.bots))

    @property
    def steps(self) -> int:
        """Events recorded so far: the last step that may be shown."""
        return self.game.version


def _refuse_perspective(perspective: Perspective, game: Game) -> Refused:
    if perspective == EVERYTHING:
        return Refused(403, _("The 'everything' view (every hand, the draw pile and the "
                              "seed) opens once the game has ended; this game is still "
                              "running."))
    if perspective >= 0:
        # Numbered as the page numbers seats (from 1), not as the URL's seat-N (from 0).
        return Refused(403, _("Seat %(number)s (%(name)s) holds a secret hand while the game "
                              "runs: only its player may view the game from that seat. "
                              "Choose the spectator's view.") % {
                                  "number": perspective + 1,
                                  "name": game.state.seats[perspective]})
    return Refused(403, _("This view is not open to you."))


def open_game(request: HttpRequest, game_id: str) -> Opened:
    """Load the game a URL names and check the request may see it from the
    perspective it asks for (or its default one). Raises :class:`Refused`."""
    try:
        uuid = parse_game_id(game_id)
        head = head_of(uuid)
        game = game_at(uuid, head)
    except GameNotFound:
        raise Refused(404, _("There is no game %(game)s: check the link.")
                      % {"game": shown(game_id)}) from None
    username = _username(request)
    token = request.GET.get("token") or None
    allowed = access(game, username, is_staff=request.user.is_staff, token=token)
    if not allowed.allowed:
        reason = allowed.reason
        if token is not None:
            reason = _("This game is private and the share token in the link is not its "
                       "token.")
        raise Refused(403, reason[:1].upper() + reason[1:] + ("" if reason.endswith(".")
                                                              else "."))
    text = request.GET.get("perspective")
    if text in (None, ""):
        perspective = default_perspective(game, username)
        if not allowed.may_view(perspective):
            perspective = allowed.perspectives[0]
    else:
        parsed = parse_perspective(text, len(game.players))
        if parsed is None:
            names = ", ".join(perspective_name(p) for p in allowed.perspectives)
            raise Refused(400, _("There is no perspective %(name)s at this table; you may "
                                 "choose: %(names)s.") % {"name": shown(text), "names": names})
        if not allowed.may_view(parsed):
            raise _refuse_perspective(parsed, game)
        perspective = parsed
    # Links carry the token only when it is the game's: any other is of no use there,
    # and a long one, repeated in every link of the log, made pages of megabytes.
    carried = token if token is not None and token_matches(token, game.share_token) else None
    return Opened(game, allowed, perspective, carried, head, bot_accounts(game.players))


def rule_for(request: HttpRequest, opened: Opened, *, page: bool = False) -> Policy:
    """Who may keep this request's answer (:func:`replays.caching.policy`)."""
    return policy(request, opened.game, opened.token, page=page)


def kept(opened: Opened, rule: Policy, what: str, build: Callable[[], Any]) -> Any:
    """A part of a finished game's answers (its log, a step), built once per
    perspective, language and head and kept in the cache; a running game's are built
    every time (each move makes them new)."""
    if not rule.cacheable:
        return build()
    key = "part:" + tag(opened.game, opened.head, what, perspective_name(opened.perspective),
                        rule.basis, opened.marks)
    return remember(key, build)


def parse_step(text: str | None, steps: int, finished: bool = True) -> int:
    """The step a URL asks for: 1..steps, the last one when none is given."""
    if text in (None, ""):
        return steps
    assert text is not None
    if not STEP.fullmatch(text):
        raise Refused(400, _("The step must be a whole number, not %(text)s.")
                      % {"text": shown(text)})
    step = int(text)
    if not 1 <= step <= steps:
        message = (_("There is no step %(step)s: this game has steps 1 to %(steps)s.")
                   if finished else
                   _("There is no step %(step)s: this game has steps 1 to %(steps)s so far."))
        raise Refused(404, message % {"step": step, "steps": steps})
    return step


# -- what the templates and the JSON answers show ----------------------------------


@dataclass(frozen=True)
class LogLine:
    seq: int
    turn: int
    kind: str
    text: str
    group: int
    """The step where this line's decision began (its group: a decision and the
    automatic events that followed it)."""
    folded: bool = False
    """Hidden in the log: a card of the deal, told on its seat's line."""


@lru_cache(maxsize=32)
def _stored_record(game_id: UUID, version: int, head: str) -> tuple[Entry, ...]:
    return tuple(games().record(game_id)[:version])


def _record(opened: Opened) -> tuple[Entry, ...]:
    """The game's record as far as its head (cached per head: a step, the log and the
    page all read it, and a stored step never changes)."""
    return _stored_record(opened.game_id, opened.steps, opened.head.digest)


@lru_cache(maxsize=32)
def _stored_timeline(game_id: UUID, version: int, head: str) -> Timeline:
    return timeline(_stored_record(game_id, version, head))


def timeline_of(opened: Opened) -> Timeline:
    """The game's :class:`Timeline` as far as its head (cached per head)."""
    return _stored_timeline(opened.game_id, opened.steps, opened.head.digest)


@dataclass(frozen=True)
class Timeline:
    """Where a game's steps stand: where each decision's group begins, the steps that
    end a group (the stops of stepping by decision), and where turns and phases begin."""

    groups: tuple[int, ...]
    """For each step (index step - 1), the step its group begins at."""
    stops: tuple[int, ...]
    turns: tuple[tuple[int, int], ...]
    """(turn, step of its TurnStarted) for every turn begun."""
    phases: tuple[int, ...]


def _opens_decision(entry: Entry, actors: bool) -> bool:
    """Whether a stored event opens a player's decision (a command), rather than
    following from one or from the table itself (deals, draws, turning over). Records
    that name no actors (old imports) fall back on the event's type alone."""
    if entry.seq == 1:
        return True
    if actors and entry.actor is None:
        return False
    return command_for(entry.event) is not None


def timeline(entries: Sequence[Entry]) -> Timeline:
    """The :class:`Timeline` of a record."""
    actors = any(entry.actor is not None for entry in entries[1:])
    groups: list[int] = []
    turns: list[tuple[int, int]] = []
    phases: list[int] = []
    start = 1
    planting_ended = False
    for entry in entries:
        event = entry.event
        if _opens_decision(entry, actors):
            start = entry.seq
        groups.append(start)
        if isinstance(event, TurnStarted):
            turns.append((event.turn, entry.seq))
            phases.append(entry.seq)
        elif isinstance(event, PhaseStarted):
            phases.append(entry.seq)
        elif isinstance(event, PlantingEnded):
            planting_ended = True
        elif isinstance(event, CardTurnedOver) and planting_ended:
            phases.append(entry.seq)  # turning over: a phase without a PhaseStarted
            planting_ended = False
    stops = [seq - 1 for seq, group in enumerate(groups, start=1) if group == seq and seq > 1]
    stops.append(len(entries))
    return Timeline(tuple(groups), tuple(sorted(set(stops))), tuple(turns), tuple(phases))


def log_lines(opened: Opened) -> list[LogLine]:
    """Every event recorded so far, redacted for the perspective and told in words in
    the reader's language."""
    entries = _record(opened)
    first = entries[0].event
    assert isinstance(first, GameStarted)  # every record begins so (Games.start)
    # Names cut to 40 characters: a log line tells what happened, and a 1000-character
    # seat name made every line of it a paragraph (the seats show names whole). A bot
    # account's seat is marked on every line, as a seat's player is.
    players = opened.game.players
    narrator = Narrator(first.ruleset, tuple(
        bot_account_mark(short_name(seat))
        if index < len(players) and players[index] in opened.bots else short_name(seat)
        for index, seat in enumerate(first.seats)), translation)
    groups = timeline_of(opened).groups
    events = [redact(entry.event, opened.perspective) for entry in entries]
    # The deal in one line per seat: a seat's other dealt cards are folded, hidden in
    # the log (they keep their place: a line per event, as the steps go).
    texts = narrator.describe_all(events, [entry.actor for entry in entries])
    turn = 0
    lines = []
    for entry, event, (text, folded) in zip(entries, events, texts, strict=True):
        if isinstance(event, TurnStarted):
            turn = event.turn
        lines.append(LogLine(entry.seq, turn, type(event).__name__, text,
                             groups[entry.seq - 1], folded))
    return lines


def _query(opened: Opened, step: int | None = None, *, perspective: str | None = None,
           share: bool = False) -> str:
    """The query string of a link to this game: step, perspective, and the token when
    the request came with one (or, for a share link, whenever the game is private).
    A share link of a running game never names a seat: only its player may open it."""
    params: dict[str, str] = {}
    if step is not None:
        params["step"] = str(step)
    params["perspective"] = perspective or perspective_name(opened.perspective)
    if share and not opened.game.finished and opened.perspective >= 0:
        params["perspective"] = "spectator"  # a running game's seat view is its player's only
    token = opened.game.share_token if share and opened.game.private else opened.token
    if token:
        params["token"] = token
    return "?" + urlencode(params)


def step_answer(request: HttpRequest | None, opened: Opened, step: int) -> dict[str, Any]:
    """The JSON answer for ``step`` (:func:`replays.table.table_answer`): the table
    after it as data and drawn, what its decision and its last event changed, and, at
    a finished game's last step, the summary. Built only from the perspective's view
    and its redacted events."""
    at = opened.game if step == opened.steps else games().game(opened.game_id, step)
    entries = _record(opened)
    line = timeline_of(opened)
    group = line.groups[step - 1]
    seen = [redact(entry.event, opened.perspective) for entry in entries[group - 1: step]]
    summary = None
    if opened.game.finished and step == opened.steps:
        first = entries[0].event
        assert isinstance(first, GameStarted)
        summary = game_summary([redact(e.event, opened.perspective) for e in entries],
                               first.seats, opened.game.players, opened.bots)
    answer = table_answer(view(at.state, opened.perspective).as_dict(), opened.game.players,
                          at.state.ruleset, step=step, steps=opened.steps,
                          head_hash=at.head_hash, changed=changes_of(seen),
                          now=changes_of(seen[-1:]), summary=summary, request=request,
                          bots=opened.bots)
    answer.update({
        "game": str(opened.game_id),
        "perspective": perspective_name(opened.perspective),
        "group": group,
        "phase_name": phase_name(at.state.phase, translation),
    })
    return answer


def _perspective_label(p: Perspective, seats: Sequence[str]) -> tuple[str, str]:
    if p == EVERYTHING:
        return _("Everything"), _(" (all hands, the draw pile)")
    if p == SPECTATOR:
        return _("Spectator"), _(" (only what is public)")
    return _("Seat %(number)s: %(name)s") % {"number": p + 1, "name": short_name(seats[p])}, ""


def kept_log(opened: Opened, rule: Policy) -> list[LogLine]:
    """:func:`log_lines`, kept for a finished game (:func:`kept`)."""
    lines: list[LogLine] = kept(opened, rule, "log", lambda: log_lines(opened))
    return lines


def kept_step(opened: Opened, rule: Policy, step: int) -> dict[str, Any]:
    """:func:`step_answer`, kept for a finished game (:func:`kept`). Drawn without the
    request: the table says nothing of who reads it."""
    found: dict[str, Any] = kept(opened, rule, f"step:{step}",
                                 lambda: step_answer(None, opened, step))
    return found


def log_end(line: Timeline, step: int, steps: int) -> int:
    """The last event the page's log holds at ``step``: the end of the current turn.
    The script fetches the rest when the reader goes further or asks for all of it."""
    return min((seq - 1 for _turn, seq in line.turns if seq > step), default=steps)


def _rulings(opened: Opened) -> list[dict[str, Any]]:
    """What the page says of the game's ruled disputes (each links to its event)."""
    if not opened.game.finished:
        return []
    shown_rulings = []
    for seq, ruling in rulings_of(opened.game_id):
        text = (_("Event #%(seq)s was disputed: an arbiter upheld the complaint.")
                if ruling == "upheld" else
                _("Event #%(seq)s was disputed: an arbiter rejected the complaint; the "
                  "record stands."))
        shown_rulings.append({"seq": seq, "ruling": ruling, "text": text % {"seq": seq},
                              "query": _query(opened, seq)})
    return shown_rulings


def _viewer_context(request: HttpRequest, opened: Opened, embed: bool, step: int,
                    rule: Policy) -> dict[str, Any]:
    answer = kept_step(opened, rule, step)
    line = timeline_of(opened)
    lines = kept_log(opened, rule)[: log_end(line, step, opened.steps)]
    game_id = str(opened.game_id)
    page = "replays:replay_embed" if embed else "replays:replay"
    here = reverse(page, kwargs={"game_id": game_id})
    share_path = reverse("replays:replay", kwargs={"game_id": game_id})
    embed_path = reverse("replays:replay_embed", kwargs={"game_id": game_id})
    share_url = request.build_absolute_uri(share_path + _query(opened, step, share=True))
    embed_url = request.build_absolute_uri(embed_path + _query(opened, step, share=True))
    export_path = reverse("replays:replay_export", kwargs={"game_id": game_id})
    seats = opened.game.state.seats
    tags = dict(games().started(opened.game_id).tags)
    perspectives: list[dict[str, Any]] = []
    for p in opened.access.perspectives:
        name, what = _perspective_label(p, seats)
        perspectives.append({"value": perspective_name(p), "name": name, "what": what,
                             "selected": p == opened.perspective})
    token_param = {"token": opened.token} if opened.token else {}
    config = {
        "game": game_id,
        "step": step,
        "steps": opened.steps,
        "perspective": perspective_name(opened.perspective),
        "token": opened.token or "",
        "shareToken": opened.game.share_token if opened.game.private else "",
        "page": here,
        "sharePage": share_path,
        "embedPage": embed_path,
        "stepUrl": reverse("replays:replay_step", kwargs={"game_id": game_id, "step": "0"}),
        "logUrl": reverse("replays:replay_log", kwargs={"game_id": game_id}),
        "finished": opened.game.finished,
        "logLoaded": len(lines),
        "stops": list(line.stops),
        "turns": [seq for _turn, seq in line.turns],
        "phases": list(line.phases),
        "groups": list(line.groups),
        "words": {
            "play": pgettext("replay playback", "Play"),
            "pause": pgettext("replay playback", "Pause"), "copied": _("Copied"),
            "copyFailed": _("Copying failed: select the text and copy it."),
            "noCopy": _("Copying is not available here: select the text and copy it."),
            "turn": _("turn %(turn)s"), "setup": _("setup"),
            "unreadable": _("The server answered %(status)s without a readable body."),
            "status": _("The server answered %(status)s."),
        },
    }
    current = lines[step - 1]
    previous_stop = max((s for s in line.stops if s < step), default=1)
    next_stop = min((s for s in line.stops if s > step), default=opened.steps)
    return {
        "embed": embed,
        "game": opened.game,
        "game_id": game_id,
        "title": ", ".join(short_name(seat) for seat in seats),
        "full_title": ", ".join(seats),
        "ruleset": display_name(opened.game.state.ruleset),
        "table_html": answer["html"],
        "t": {"turn": answer["turn"], "finished": answer["finished"]},
        "head_hash": answer["head_hash"],
        "seed_commitment": opened.game.state.seed_commitment,
        "step": step,
        "steps": opened.steps,
        "group": answer["group"],
        "current": current,
        "lines": lines,
        "turns": list(line.turns),
        "speeds": SPEEDS,
        "perspectives": perspectives,
        "perspective": perspective_name(opened.perspective),
        "token": opened.token,
        "players": [{"name": seats[i], "player": display_player(p, opened.bots), "id": p,
                     "entrant": tags.get(f"seat_{i}_entrant")}
                    for i, p in enumerate(opened.game.players)],
        "tags": [(key, value) for key, value in tags.items() if not key.startswith("seat_")],
        "placed": ({"round": tags["round"], "table": tags["table"]}
                   if "round" in tags and "table" in tags else None),
        "nav": {
            "first": _query(opened, 1),
            "back": _query(opened, previous_stop),
            "forward": _query(opened, next_stop),
            "last": _query(opened, opened.steps),
        },
        "line_query": _query(opened, None),
        "share_url": share_url,
        "share_as_spectator": not opened.game.finished and opened.perspective >= 0,
        "embed_url": embed_url,
        "exports": [
            {"label": p["name"],
             "href": export_path + "?" + urlencode({"perspective": p["value"], **token_param})}
            for p in perspectives
        ],
        "config": config,
        # A spectator's replay of a running game does not move on: its live table does.
        "live_url": (None if opened.game.finished
                     else live_table(opened.game.id, request.user)),
        "audit_url": (reverse("replays:audit", kwargs={"game_id": game_id})
                      + ("?" + urlencode(token_param) if token_param else "")
                      if opened.game.finished else None),
        "dispute_url": (reverse("replays:open_dispute", kwargs={"game_id": game_id})
                        if opened.game.finished and seats_of(opened.game, _username(request))
                        else None),
        "rulings": _rulings(opened),
    }


def _username(request: HttpRequest) -> str | None:
    user: Any = request.user
    return user.username if user.is_authenticated else None


# -- views --------------------------------------------------------------------------


def viewer_page(request: HttpRequest, game_id: str, *, embed: bool) -> HttpResponse:
    """The replay page or its embed, kept whole for anonymous readers of a finished
    public game (:func:`replays.caching.answer`)."""
    opened = open_game(request, game_id)
    step = parse_step(request.GET.get("step"), opened.steps, opened.game.finished)
    rule = rule_for(request, opened, page=True)
    template = "replays/embed.html" if embed else "replays/viewer.html"
    etag = None
    if rule.cacheable:
        # Everything the page shows beyond the game and the language: the step and
        # perspective, the token its links carry, the host and scheme of its share
        # links, and the rulings of the game's disputes.
        carried = hashlib.sha256(opened.token.encode()).hexdigest()[:16] if opened.token else ""
        etag = tag(opened.game, opened.head, template, step,
                   perspective_name(opened.perspective), rule.basis, carried,
                   request.get_host(), request.scheme, rulings_of(opened.game_id),
                   opened.marks)
    return answer(request, rule, etag, lambda: render(
        request, template, _viewer_context(request, opened, embed, step, rule)))


@require_safe
@answers_refusals(as_json=False)
def replay(request: HttpRequest, game_id: str) -> HttpResponse:
    """The replay page."""
    return viewer_page(request, game_id, embed=False)


@require_safe
@xframe_options_exempt
@csp_replace({"frame-ancestors": ["*"]})
@answers_refusals(as_json=False)
def replay_embed(request: HttpRequest, game_id: str) -> HttpResponse:
    """The replay for other sites' iframes: no site header, same rules of access; any
    site may frame it (X-Frame-Options and the CSP's frame-ancestors say so)."""
    return viewer_page(request, game_id, embed=True)


@require_safe
@answers_refusals(as_json=True)
def replay_step(request: HttpRequest, game_id: str, step: str) -> HttpResponse:
    """One step as JSON (see the module's docstring)."""
    opened = open_game(request, game_id)
    step_number = parse_step(step, opened.steps, opened.game.finished)
    rule = rule_for(request, opened)
    etag = (tag(opened.game, opened.head, "step", step_number,
                perspective_name(opened.perspective), rule.basis, opened.marks)
            if rule.cacheable else None)
    return answer(request, rule, etag,
                  lambda: JsonResponse(kept_step(opened, rule, step_number)))


@require_safe
@answers_refusals(as_json=True)
def replay_log(request: HttpRequest, game_id: str) -> HttpResponse:
    """The readable log so far, for the perspective, with the turns' first steps;
    ``?from=n``: only the lines from event ``n`` on (the page holds those before)."""
    opened = open_game(request, game_id)
    first = parse_step(request.GET.get("from") or "1", opened.steps, opened.game.finished)
    rule = rule_for(request, opened)
    etag = (tag(opened.game, opened.head, "log", first, perspective_name(opened.perspective),
                rule.basis, opened.marks)
            if rule.cacheable else None)

    def build() -> HttpResponse:
        lines = kept_log(opened, rule)[first - 1:]
        line = timeline_of(opened)
        return JsonResponse({
            "game": str(opened.game_id),
            "perspective": perspective_name(opened.perspective),
            "steps": opened.steps,
            "finished": opened.game.finished,
            "from": first,
            "lines": [{"seq": ln.seq, "turn": ln.turn, "kind": ln.kind, "text": ln.text,
                       "folded": ln.folded,
                       "group": ln.group} for ln in lines],
            "turns": [{"turn": turn, "step": seq} for turn, seq in line.turns],
            "stops": list(line.stops),
            "phases": list(line.phases),
        })

    return answer(request, rule, etag, build)


urlpatterns: list[URLPattern] = [
    path("games/<str:game_id>/", replay, name="replay"),
    path("games/<str:game_id>/embed/", replay_embed, name="replay_embed"),
    path("games/<str:game_id>/steps/<str:step>.json", replay_step, name="replay_step"),
    path("games/<str:game_id>/log.json", replay_log, name="replay_log"),
]
