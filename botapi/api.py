"""The bot API's calls, under ``/api/v1/``; its OpenAPI document at
``/api/openapi.json``, browsable at ``/api/docs``.

Built with django-ninja rather than Django REST framework with drf-spectacular: the
calls are a dozen typed functions, not model resources, and ninja checks each body
with pydantic from the same type hints it writes the OpenAPI document from (DRF would
add serializers, viewsets and a second package to describe them, for nothing this API
uses). Ninja's own static files serve the docs page (no CDN: the site's
Content-Security-Policy allows only its own scripts).

Every call is a thin shell over what the pages do: tables through ``play.tables``
(create, join, accept, decline, leave, start, hand to a bot), views through
``play.live`` (the seat's ``state`` frame of docs/protocol.md), entries through
``tournaments.core.consent``; who holds a seat is decided at the call from the game
as stored (``play.authority``), never remembered.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any
from uuid import UUID

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from ninja import NinjaAPI, Router, Status
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.params import functions as param

from bohnanza_core.bots import BOTS, describe_bot
from bohnanza_core.events import Handover
from bohnanza_core.rulesets import PRESETS
from bohnanza_core.views import SPECTATOR
from botapi import schemas, stream
from botapi.auth import Caller, TokenOrSession, require
from botapi.errors import MAX_BODY_BYTES, STATUS, ApiError, from_code, not_found, too_large
from play import authority, driver, live, tables
from play.lobby import LIST_LIMIT
from play.models import BotAccount, Table, bot_account_ids
from play.tables import OPEN, TableError
from replays.names import USERNAME_MAX
from tournaments.core import consent, quotas
from tournaments.core.competition import CompetitionError
from tournaments.core.entrants import display_name
from tournaments.core.ratings import Rating
from tournaments.core.store import CompetitionNotFound, competitions


class BotApi(NinjaAPI):
    """Ninja's API, its operations named by their functions (``create_challenge``,
    ``event_stream``): stable ids for clients generated from the document."""

    def get_openapi_operation_id(self, operation: Any) -> str:
        return str(operation.view_func.__name__)


api = BotApi(
    title="Bohnanza bot API",
    version="1",
    description="Bot accounts' calls for a table's whole life, competition entries and "
                "an event stream. Authenticate with 'Authorization: Bearer TOKEN' "
                "(a bot account's token, made on its owner's bot accounts page), or a "
                "signed-in browser session with its CSRF token. Bodies are JSON, "
                "checked strictly: a field of the wrong type, or one the call does not "
                "take, is refused (400 invalid_request, detail naming it); a body over "
                f"{MAX_BODY_BYTES // 1024} KB is refused before it is parsed (413 "
                "too_large). Every answer under /api/ that is not a call's result is "
                "the Error body {code, message}: an address with nothing there (404 "
                "not_found), a method an address does not answer (405 "
                "method_not_allowed, its Allow header naming those it does). The "
                "tutorial and every error code: docs/bots.md.",
    auth=TokenOrSession(),
    urls_namespace="api",
    openapi_url="/openapi.json",
    docs_url="/docs",
)
v1 = Router(tags=["v1"])
ERRORS = {status: schemas.Error for status in sorted(set(STATUS.values())) if status != 405}
"""Every call may answer any error status with the one error body (but 405: that is
the answer of an address to a method none of its calls has)."""


# -- errors -------------------------------------------------------------------------


def _error(request: HttpRequest, error: ApiError) -> HttpResponse:
    body: dict[str, Any] = {"code": error.code, "message": error.message}
    if "detail" in error.extra:
        body["detail"] = error.extra["detail"]
    response = api.create_response(request, body, status=error.status)
    if "retry_after" in error.extra:
        response["Retry-After"] = str(error.extra["retry_after"])
    if error.status == 401:
        response["WWW-Authenticate"] = "Bearer"
    return response


@api.exception_handler(ApiError)
def _api_error(request: HttpRequest, error: ApiError) -> HttpResponse:
    return _error(request, error)


@api.exception_handler(AuthenticationError)
def _unauthenticated(request: HttpRequest, error: AuthenticationError) -> HttpResponse:
    return _error(request, ApiError("unauthenticated", _(
        "Sign in, or send a bot account's token: 'Authorization: Bearer <token>'.")))


def _where(loc: Any) -> list[str]:
    """A refused field's place, as the body has it: ``["body", "clock"]``. django-ninja
    puts the call's parameter between the source and the field (``["body", "body",
    "clock"]``, the parameter being named ``body``), which no bot author wrote."""
    parts = [str(p)[:40] for p in loc][:7]
    if len(parts) > 1 and parts[0] == "body" and parts[1] == "body":
        del parts[1]
    return parts[:6]


@api.exception_handler(ValidationError)
def _invalid(request: HttpRequest, error: ValidationError) -> HttpResponse:
    detail = [{"loc": _where(e.get("loc", ())),
               "msg": str(e.get("msg", ""))[:200]} for e in error.errors[:20]]
    return _error(request, ApiError("invalid_request", _("The request's fields are not "
                                                         "valid: see detail."),
                                    detail=detail))


@api.exception_handler(Http404)
def _nothing_there(request: HttpRequest, error: Http404) -> HttpResponse:
    return _error(request, not_found())


@api.exception_handler(HttpError)
def _http_error(request: HttpRequest, error: HttpError) -> HttpResponse:
    # ninja's own refusals: a body that is not JSON, a CSRF failure
    if error.status_code == 403:
        return _error(request, ApiError("csrf_failed", _("A signed-in browser's call that "
                                                         "changes anything carries the "
                                                         "CSRF token (X-CSRFToken).")))
    return _error(request, ApiError("invalid_request", _("The request could not be read "
                                                         "(JSON expected).")))


def _body_bytes(request: HttpRequest) -> int:
    """The request body's size: its Content-Length, else what was received (under ASGI
    a body without one, chunked, is in whole, bounded by config/limits.py)."""
    declared = str(request.META.get("CONTENT_LENGTH") or "").strip()
    if declared.isascii() and declared.isdigit():
        return int(declared) if len(declared) <= 18 else 10**18
    return len(request.body)


def _bounded(run: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Around each call, before its caller is looked up or its body parsed: a body over
    :data:`~botapi.errors.MAX_BODY_BYTES` is refused (413 ``too_large``)."""

    @functools.wraps(run)
    def bounded(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if _body_bytes(request) > MAX_BODY_BYTES:
            return _error(request, too_large(MAX_BODY_BYTES))
        return run(request, *args, **kwargs)

    return bounded


v1.add_decorator(_bounded, mode="view")


# -- reading tables -----------------------------------------------------------------


def _table(table_id: str, user: User) -> Table:
    """The table, if the caller may see it: public, or they sit (or sat) there, are
    challenged to it, or are staff; else 404, as if it did not exist."""
    try:
        table = (Table.objects.prefetch_related("seats__user", "seats__invited")
                 .select_related("created_by").get(pk=UUID(str(table_id)[:40])))
    except (ValueError, Table.DoesNotExist):
        raise not_found() from None
    if not (table.public or getattr(user, "is_staff", False)
            or any(user.pk in (s.user_id, s.invited_id) for s in table.seats.all())):
        raise not_found()
    return table


def _out(table: Table, user: User) -> dict[str, Any]:
    seats = list(table.seats.all())
    accounts = bot_account_ids(s.user_id for s in seats)
    return {
        "id": str(table.id), "ruleset": table.preset, "players": table.players,
        "house_rules": dict(table.overrides), "status": table.status,
        "public": table.public, "created_by": table.created_by.get_username(),
        "seats": [{
            "number": s.number,
            "player": s.player() if s.taken else None,
            "name": (s.bot if s.bot else s.user.get_username() if s.user else None),
            "bot": bool(s.bot) or s.user_id in accounts,
            "bot_account": s.person and s.user_id in accounts,
            "kept_for": (s.invited.get_username() if s.invited is not None and not s.taken
                         else None),
            "handed_over": s.handed_over,
        } for s in seats],
        "clock": {"move_seconds": table.move_seconds, "game_seconds": table.game_seconds},
        "start_when_full": table.start_when_full,
        "game": str(table.game_id) if table.game_id else None,
        "your_seat": authority.seat_of(seats, user),
        "socket": f"/ws/tables/{table.id}/",
    }


def _fresh(table_id: Any, user: User) -> dict[str, Any]:
    return _out(_table(str(table_id), user), user)


def _lobby_changed() -> None:
    live.tell(live.LOBBY_GROUP, live.lobby_changed())


def _refused(error: TableError) -> ApiError:
    return from_code(error.code, str(error))


# -- the calls ----------------------------------------------------------------------


@v1.get("/account", response={200: schemas.AccountOut, **ERRORS})
def account(request: HttpRequest) -> dict[str, Any]:
    """Who the caller is: their name, whether a bot account (and its owner), and what
    their credential may do."""
    caller: Caller = request.auth  # type: ignore[attr-defined]
    bot = BotAccount.objects.select_related("owner").filter(user=caller.user).first()
    return {"username": caller.user.get_username(), "bot": bot is not None,
            "owner": bot.owner.get_username() if bot and bot.owner else None,
            "scopes": sorted(caller.scopes)}


@v1.get("/bots", response={200: list[schemas.BotOut], **ERRORS})
def bots(request: HttpRequest) -> list[dict[str, Any]]:
    """The built-in bots a seat may name (``bot:<name>``), each described in a sentence."""
    return [{"name": name, "description": describe_bot(name)} for name in BOTS]


@v1.get("/rulesets", response={200: list[schemas.RulesetOut], **ERRORS})
def rulesets(request: HttpRequest) -> list[dict[str, Any]]:
    """Every preset's bands: its name, player counts and parameters (a table's house
    rules override these)."""
    return [{"name": name, "players": list(band.players), "parameters": band.parameters()}
            for name, bands in PRESETS.items() for band in bands]


def _encodable(text: str) -> bool:
    """Whether ``text`` encodes as UTF-8 (it holds no lone surrogate)."""
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


def _seats(caller: Caller, body: schemas.TableIn
           ) -> tuple[list[str], dict[int, User], int]:
    """A body's seats as ``play.tables.create_table`` takes them: each open or a
    built-in bot, the accounts challenged by seat, and the caller's seat."""
    choices: list[str] = []
    invited: dict[int, User] = {}
    mine = [n for n, s in enumerate(body.seats) if s == "me"]
    if len(mine) != 1:
        raise ApiError("invalid_seats", _("Name your own seat 'me', once."))
    names = {s[5:][:USERNAME_MAX] for s in body.seats if s.startswith("user:")}
    # a name no account can have (a lone surrogate, from JSON's "\\ud800") never
    # reaches the database, which cannot encode it (a 500): unknown_account
    names = {name for name in names if _encodable(name)}
    accounts = {u.get_username(): u for u in get_user_model().objects.filter(
        username__in=names)}
    for number, choice in enumerate(body.seats):
        choice = choice[:schemas.SEAT_CHOICE_MAX]
        if choice in ("me", OPEN):
            choices.append(OPEN)
        elif choice.startswith("bot:"):
            choices.append(choice[4:])
        elif choice.startswith("user:"):
            found = accounts.get(choice[5:])
            if found is None:
                raise ApiError("unknown_account", _("No account named %(name)s.")
                               % {"name": choice[5:][:USERNAME_MAX]})
            choices.append(OPEN)
            invited[number] = found
        else:
            raise ApiError("invalid_seats", _("A seat is 'me', 'open', 'bot:<name>' or "
                                              "'user:<name>', not %(seat)r.")
                           % {"seat": choice[:40]})
    return choices, invited, mine[0]


def _table_size(body: schemas.TableIn) -> None:
    """Refuse a player count the ruleset is not played by (unless its house rules change
    who plays it): ``invalid_request`` naming ``players``, where ``play.tables`` would
    blame house rules the body may not have."""
    bands = PRESETS.get(body.ruleset)
    if not bands or "players" in body.house_rules:
        return
    counts = sorted({p for band in bands for p in band.players})
    if body.players in counts:
        return
    others = [name for name, found in PRESETS.items()
              if any(body.players in band.players for band in found)]
    message = (_("%(ruleset)s is played by %(counts)s players, not %(players)s (for "
                 "%(players)s players: %(others)s).")
               % {"ruleset": body.ruleset,
                  "counts": "-".join(str(n) for n in sorted({counts[0], counts[-1]})),
                  "players": body.players, "others": ", ".join(others)})
    raise ApiError("invalid_request", message,
                   detail=[{"loc": ["body", "players"], "msg": message}])


def _create(request: HttpRequest, body: schemas.TableIn, *, start_when_full: bool,
            seek: bool) -> Status[Any]:
    caller = require(request, "play")
    _table_size(body)
    if len(body.seats) != body.players:
        if seek:
            raise ApiError("invalid_seats", _("A seek names each of its %(n)s seats: 'me' "
                                              "(once), 'open' or 'bot:<name>'.")
                           % {"n": body.players})
        raise ApiError("invalid_seats", _("A challenge names each of its %(n)s seats: 'me' "
                                          "(once), 'user:<name>' or 'bot:<name>' (open "
                                          "seats make a seek).") % {"n": body.players})
    seats, invited, mine = _seats(caller, body)
    if seek and invited:
        raise ApiError("invalid_seats", _("A seek names nobody: challenge them instead."))
    if seek and seats.count(OPEN) < 2:
        raise ApiError("invalid_seats", _("A seek leaves at least one seat 'open'."))
    if not seek and seats.count(OPEN) - 1 - len(invited) > 0:
        raise ApiError("invalid_seats", _("A challenge leaves no seat 'open': seek instead."))
    try:
        table = tables.create_table(
            caller.user, body.ruleset, body.players, seats=seats,
            overrides=body.house_rules, public=body.public,
            move_seconds=body.clock.move_seconds, game_seconds=body.clock.game_seconds,
            absence_seconds=body.absence_seconds, replacement_bot=body.replacement_bot,
            invited=invited, mine=mine, start_when_full=start_when_full)
    except TableError as error:
        raise _refused(error) from None
    _lobby_changed()
    return Status(201, _fresh(table.id, caller.user))


@v1.post("/challenges", response={201: schemas.TableOut, **ERRORS})
def create_challenge(request: HttpRequest, body: schemas.TableIn
                     ) -> Status[Any]:
    """Challenge accounts (people or bot accounts: ``user:<name>`` seats) and built-in
    bots (``bot:<name>``) to a table. Each challenged account is told (event stream:
    ``challenge``) and sits by accepting; the game starts once every seat is taken (at
    once when only bots are challenged). Scope: play."""
    return _create(request, body, start_when_full=True, seek=False)


@v1.get("/challenges", response={200: list[schemas.TableOut], **ERRORS})
def list_challenges(request: HttpRequest) -> list[dict[str, Any]]:
    """Open challenges to the caller (a seat kept for them) and by them. Scope: read."""
    caller = require(request, "read")
    found = (Table.objects.filter(status=Table.Status.OPEN)
             .filter(Q(seats__invited=caller.user, seats__user__isnull=True)
                     | Q(created_by=caller.user, seats__invited__isnull=False))
             .distinct().prefetch_related("seats__user", "seats__invited")
             .select_related("created_by")[:LIST_LIMIT])
    return [_out(t, caller.user) for t in found]


@v1.post("/challenges/{table_id}/accept", response={200: schemas.TableOut, **ERRORS})
def accept_challenge(request: HttpRequest, table_id: str) -> dict[str, Any]:
    """Sit in the seat the challenge keeps for the caller. Scope: play."""
    caller = require(request, "play")
    table = _table(table_id, caller.user)
    try:
        tables.accept(table, caller.user)
    except TableError as error:
        raise _refused(error) from None
    _lobby_changed()
    return _fresh(table.id, caller.user)


@v1.post("/challenges/{table_id}/decline", response={204: None, **ERRORS})
def decline_challenge(request: HttpRequest, table_id: str) -> Status[Any]:
    """Decline a challenge: the table is withdrawn, and everyone at it is told
    (``challengeDeclined``). Scope: play."""
    caller = require(request, "play")
    table = _table(table_id, caller.user)
    try:
        tables.decline(table, caller.user)
    except TableError as error:
        raise _refused(error) from None
    _lobby_changed()
    return Status(204, None)


@v1.post("/seeks", response={201: schemas.TableOut, **ERRORS})
def create_seek(request: HttpRequest, body: schemas.SeekIn) -> Status[Any]:
    """Open a table anyone may join (its ``open`` seats): listed in the lobby and by
    ``GET /seeks``. Scope: play."""
    return _create(request, body, start_when_full=body.start_when_full, seek=True)


@v1.get("/seeks", response={200: list[schemas.TableOut], **ERRORS})
def list_seeks(request: HttpRequest) -> list[dict[str, Any]]:
    """Public tables waiting with an open seat, newest first. Scope: read."""
    caller = require(request, "read")
    found = (Table.objects.filter(status=Table.Status.OPEN, public=True,
                                  seats__bot="", seats__user__isnull=True,
                                  seats__invited__isnull=True)
             .distinct().prefetch_related("seats__user", "seats__invited")
             .select_related("created_by")[:LIST_LIMIT])
    return [_out(t, caller.user) for t in found]


@v1.delete("/seeks/{table_id}", response={204: None, **ERRORS})
def cancel_seek(request: HttpRequest, table_id: str) -> Status[Any]:
    """Withdraw a table of one's own that has not started (a seek or a challenge).
    Scope: play."""
    caller = require(request, "play")
    table = _table(table_id, caller.user)
    if table.created_by_id != caller.user.pk:
        raise ApiError("not_creator", _("Only the table's creator withdraws it."))
    try:
        tables.leave(table, caller.user)
    except TableError as error:
        raise _refused(error) from None
    _lobby_changed()
    return Status(204, None)


@v1.get("/tables/{table_id}", response={200: schemas.TableOut, **ERRORS})
def table_detail(request: HttpRequest, table_id: str) -> dict[str, Any]:
    """One table as it is now. Scope: read."""
    caller = require(request, "read")
    return _out(_table(table_id, caller.user), caller.user)


@v1.post("/tables/{table_id}/join", response={200: schemas.TableOut, **ERRORS})
def join_table(request: HttpRequest, table_id: str, body: schemas.JoinIn | None = None
               ) -> dict[str, Any]:
    """Sit at an open seat (or the seat kept for the caller). Scope: play."""
    caller = require(request, "play")
    table = _table(table_id, caller.user)
    try:
        tables.join(table, caller.user, body.seat if body else None)
    except TableError as error:
        raise _refused(error) from None
    _lobby_changed()
    return _fresh(table.id, caller.user)


@v1.post("/tables/{table_id}/leave", response={204: None, **ERRORS})
def leave_table(request: HttpRequest, table_id: str) -> Status[Any]:
    """Stand up: before the start, the seat is free again (the creator leaving
    withdraws the table); once running, the table's bot plays the seat from now on.
    Scope: play."""
    caller = require(request, "play")
    table = _table(table_id, caller.user)
    try:
        if table.status == Table.Status.RUNNING:
            seat = authority.seat_of(list(table.seats.all()), caller.user)
            if seat is None:
                raise _no_seat(table, caller.user)
            played = tables.hand_to_bot(table.id, seat, Handover.LEFT, user=caller.user)
            layer = get_channel_layer()
            if layer is not None:
                async_to_sync(driver.announce_handover)(layer, table.id, played, seat)
        elif table.status == Table.Status.OPEN:
            tables.leave(table, caller.user)
        else:
            raise TableError(_("the game is over"), "not_running")
    except TableError as error:
        raise _refused(error) from None
    _lobby_changed()
    return Status(204, None)


@v1.post("/tables/{table_id}/start", response={200: schemas.TableOut, **ERRORS})
def start_table(request: HttpRequest, table_id: str) -> dict[str, Any]:
    """Start the game (the table's creator, once every seat is taken). Scope: play."""
    caller = require(request, "play")
    table = _table(table_id, caller.user)
    try:
        tables.start(table, caller.user)
    except TableError as error:
        raise _refused(error) from None
    _lobby_changed()
    return _fresh(table.id, caller.user)


def _no_seat(table: Table, user: Any) -> ApiError:
    """Why the caller plays no seat of the running game: ``seat_handed`` for one whose
    seat a bot plays now (they left it, or stayed away past the limit), so that a
    program that left is not told it never sat there; ``not_seated`` for anyone else."""
    if any(s.user_id == user.pk and s.handed_over for s in table.seats.all()):
        return ApiError("seat_handed", _("A bot plays your seat now."))
    return ApiError("not_seated", _("You play no seat at this game: its socket shows "
                                    "what a spectator sees."))


@v1.get("/tables/{table_id}/view", response={200: dict[str, Any], **ERRORS})
def seat_view(request: HttpRequest, table_id: str) -> dict[str, Any]:
    """The caller's seat's view now: the same ``state`` frame its socket is sent
    (docs/protocol.md; without the drawing), for the seat the caller plays at this
    moment in the game as stored. Scope: read."""
    caller = require(request, "read")
    table = _table(table_id, caller.user)
    if table.game_id is None:
        raise ApiError("not_running", _("The game has not started yet."))
    seat = authority.seat_of(list(table.seats.all()), caller.user)
    if seat is None:
        raise _no_seat(table, caller.user)
    update = live.current(table, seat)
    if update["holder"] != authority.player_name(caller.user):
        raise ApiError("seat_handed", _("A bot plays your seat now."))
    assert seat != SPECTATOR
    return live.answer_for(update, table, html=False).frame


STATUS_FILTER = param.Query(
    [], max_length=len(Table.Status.values),
    description="open (waiting for players), running or finished; repeated "
                "(status=open&status=running): any of them; left out: all")
"""``GET /games``'s ``status``: an enum in the OpenAPI document, repeatable."""


@v1.get("/games", response={200: list[schemas.TableOut], **ERRORS})
def my_games(request: HttpRequest, status: list[schemas.GameStatus] = STATUS_FILTER
             ) -> list[dict[str, Any]]:
    """The caller's tables, newest first: waiting, running or finished (``status``, or
    all). Scope: read."""
    caller = require(request, "read")
    statuses: list[str] = [*status] or list(Table.Status.values)
    found = (Table.objects.filter(seats__user=caller.user, status__in=statuses).distinct()
             .prefetch_related("seats__user", "seats__invited").select_related("created_by")
             [:LIST_LIMIT])
    return [_out(t, caller.user) for t in found]


COMPETITIONS_LOOKED_AT = 200
"""The newest competitions ``GET /competitions`` looks through (each read from the
store's per-process cache, as the site's list does)."""


@v1.get("/competitions", response={200: list[schemas.CompetitionOut], **ERRORS})
def open_competitions(request: HttpRequest) -> list[dict[str, Any]]:
    """The competitions a bot account may enter now, newest first: a ladder whose games
    are live tables (at any time), or another competition with live tables while it
    takes entries. Scope: read."""
    caller = require(request, "read")
    app = competitions()
    found: list[dict[str, Any]] = []
    for competition_id in app.ids(limit=COMPETITIONS_LOOKED_AT):
        competition = app.get(competition_id, copy=False)
        if competition.live is None or competition.finished or not (
                competition.continuous or competition.entries_open):
            continue
        found.append(_competition_out(competition, caller))
        if len(found) >= LIST_LIMIT:
            break
    return found


def _competition_out(competition: Any, caller: Caller) -> dict[str, Any]:
    play = competition.live
    return {
        "id": str(competition.id), "name": competition.name,
        "format": competition.format, "ruleset": play.preset,
        "house_rules": play.overrides, "players": competition.table,
        "clock": {"move_seconds": play.move_seconds, "game_seconds": play.game_seconds},
        "fixture_hours": play.fixture_hours, "entrants": len(competition.entrants),
        "organiser": competition.organiser,
        "page": reverse("tournaments:detail", args=[competition.id]),
        "entered": authority.player_name(caller.user) in competition.entrants}


@v1.get("/competitions/{competition_id}",
        response={200: schemas.CompetitionDetailOut, **ERRORS})
def competition_detail(request: HttpRequest, competition_id: str) -> dict[str, Any]:
    """One competition whose games are played at live tables (one a bot account may
    enter, has entered or played in, running or finished), with every entrant's rating
    now, best first: a bot reads its own (``entered``, its entrant ``user:<name>``)
    without the page. Scope: read."""
    caller = require(request, "read")
    try:
        competition = competitions().get(UUID(str(competition_id)[:40]), copy=False)
    except (ValueError, CompetitionNotFound):
        raise not_found() from None
    if competition.live is None:
        raise not_found()
    ratings = []
    for index in competition.ranking():
        entrant = competition.entrants[index]
        mu, sigma, games = competition.ratings.get(
            entrant, (Rating().mu, Rating().sigma, 0))
        ratings.append({"entrant": entrant, "name": display_name(entrant), "mu": mu,
                        "sigma": sigma, "rating": Rating(mu, sigma).conservative,
                        "games": games})
    return {**_competition_out(competition, caller), "finished": competition.finished,
            "ratings": ratings}


@v1.post("/competitions/{competition_id}/entries",
         response={201: schemas.EntryOut, **ERRORS})
def enter_competition(request: HttpRequest, competition_id: str, body: schemas.EntryIn
                      ) -> Status[Any]:
    """Enter a bot account in a competition whose games are played at live tables (a
    ladder while it runs, any competition while it takes entries): by its owner (a
    session), or by the bot itself with a token of scope ``enter`` (its owner's
    standing consent). Its games are live tables with the competition's clock; it is
    told of each (event stream). Scope: enter (a token), play (a session)."""
    caller: Caller = request.auth  # type: ignore[attr-defined]
    require(request, "enter" if caller.by_token else "play")
    account = (BotAccount.objects.select_related("user", "owner")
               .filter(user__username=body.account).first())
    if account is None:
        raise ApiError("unknown_account", _("No bot account named %(name)s.")
                       % {"name": body.account})
    if not (account.user_id == caller.user.pk if caller.by_token
            else account.owner_id == caller.user.pk):
        raise ApiError("not_owner", _("Only its owner (or the bot itself, with its owner's "
                                      "consent) enters a bot account."))
    try:
        wanted = UUID(str(competition_id)[:40])
    except ValueError:
        raise not_found() from None
    try:
        entrant = consent.enter_bot_account(competitions(), wanted, account,
                                            charge=quotas.entries_changed)
    except CompetitionNotFound:
        raise not_found() from None
    except CompetitionError as refused:  # a ValueError: caught before any other
        raise ApiError("entry_refused", str(refused)) from None
    return Status(201, {"competition": str(competition_id), "entrant": entrant,
                        "status": "entered"})


v1.add_api_operation("/stream/event", ["GET"], stream.event_stream,
                     response={200: None, **ERRORS}, summary="Stream the account's events",
                     description=stream.DESCRIPTION,
                     openapi_extra={"responses": {200: stream.OPENAPI_ANSWER}})
api.add_router("/v1", v1)


@csrf_exempt  # it changes nothing: a POST is told 404, not refused its CSRF token
def not_an_address(request: HttpRequest, rest: str | None = None) -> HttpResponse:
    """Any other address under /api/: 404 with the API's error body."""
    return _error(request, ApiError("not_found", _("No such API address.")))
