"""The lobby's pages: the lists of open tables and running games, creating a table,
a table's page (the waiting room before the start, the live table after), joining,
leaving, starting. Its forms are in ``play/forms.py``; accounts (signing up, a
player's profile) in ``play/accounts.py``."""

from __future__ import annotations

import threading
import time
from typing import Any
from urllib.parse import urlencode
from uuid import UUID

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.db.models import Count, Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import pgettext
from django.views.decorators.http import require_POST, require_safe

from bohnanza_core.bots import BOTS
from bohnanza_core.cards import BeanKind
from bohnanza_core.events import Handover
from bohnanza_core.rulesets import MAX_PLAYERS, PRESETS
from play import clock, driver, live, refusals
from play.forms import TableForm, default_seat
from play.models import Seat, Table, bot_account_ids, describe
from play.presets import OPTION_WORDS, PARAMETERS, explained
from play.tables import (
    TableError,
    create_table,
    hand_to_bot,
    join,
    leave,
    seats_digest,
    start,
)
from replays.store import games, token_matches
from replays.table import bean, bot_account_mark, display_player

LIST_LIMIT = 50
"""Tables and games each lobby list shows."""

MAX_HOUSE_RULES_CHARS = 2000


def lobby_lists(user: Any = None) -> dict[str, Any]:
    """The lobby's lists as they are now: tables waiting for players and games being
    played (public tables only), and ``user``'s own tables waiting or being played
    (:func:`tables_of`; empty for a visitor)."""
    return {**_public_lists(), "mine": _mine(user)}


def lobby_snapshot(user: Any, change: str | None) -> dict[str, Any]:
    """The lobby's lists for a socket: the public ones from the process's snapshot
    (:func:`public_snapshot`), ``user``'s own as they are now."""
    return {**public_snapshot(change), "mine": _mine(user)}


SNAPSHOT_SECONDS = 1.0
"""How long a socket that connects or asks again (no change told) is sent the public
lists as they were built for another: a flood of connections or ``sync`` frames builds
them once a second at most."""

_snapshot_lock = threading.Lock()
_snapshot: tuple[str, float, int, dict[str, Any]] | None = None
"""The public lists as last built in this process: (the change they were built for, or
"" for none, when, how many changes this process had told of then, the lists)."""


def public_snapshot(change: str | None) -> dict[str, Any]:
    """The lobby's public lists, built once per change in a process, however many of
    its sockets are told of the change (``lobby.changed`` carries the change's id:
    :func:`play.live.lobby_changed`); for no change (a socket connecting or asking
    again), the last ones built if younger than :data:`SNAPSHOT_SECONDS` and no change
    was told in this process since (one told by another process reaches this one's
    sockets, which build them for it). Each socket used to build them afresh for every
    frame it was sent, and for every frame it sent: 1,000 frames of anything kept a
    server busy for 40 s."""
    global _snapshot
    now, told = time.monotonic(), live.lobby_changes()
    with _snapshot_lock:
        held = _snapshot
        if held is not None and (held[0] == change if change is not None
                                 else now - held[1] < SNAPSHOT_SECONDS and held[2] == told):
            return held[3]
        lists = _public_lists()
        _snapshot = (change or "", now, told, lists)
        return lists


def forget_snapshot() -> None:
    """Drop the snapshot (tests that change tables without telling the lobby)."""
    global _snapshot
    with _snapshot_lock:
        _snapshot = None


def _public_lists() -> dict[str, Any]:
    tables = (Table.objects.filter(public=True).select_related("created_by")
              .prefetch_related("seats__user"))
    # Open to join: a table waiting with a seat nobody took (a full one waits for its
    # creator to start it, listed among its players' own tables).
    joinable = (tables.filter(status=Table.Status.OPEN)
                .annotate(free_seats=Count("seats", filter=Q(seats__bot="",
                                                             seats__user__isnull=True)))
                .filter(free_seats__gt=0))
    return {
        "open": [describe(t) for t in joinable[:LIST_LIMIT]],
        "running": [describe(t) for t in
                    tables.filter(status=Table.Status.RUNNING)[:LIST_LIMIT]],
    }


def _mine(user: Any) -> list[dict[str, Any]]:
    return [describe(t) for t in tables_of(user)] if user is not None else []


def tables_of(user: Any) -> list[Table]:
    """The tables a person sits at that are waiting or being played (theirs or set for
    them, e.g. a league's fixtures), newest first: the lobby and their profile list
    them. Not a game whose seat a bot plays now (they left it, or stayed away): they
    only watch it."""
    if not user.is_authenticated:
        return []
    return list(Table.objects.filter(seats__user=user, seats__bot="", status__in=[
        Table.Status.OPEN, Table.Status.RUNNING]).distinct().select_related("created_by")
        .prefetch_related("seats__user")[:LIST_LIMIT])


def _lobby_changed() -> None:
    live.tell(live.LOBBY_GROUP, live.lobby_changed())


def house_rules_in_words(overrides: dict[str, Any]) -> list[tuple[str, str]]:
    """A table's house rules as the waiting room lists them: each parameter by its name
    in the reader's language, with its value (yes/no, numbers, the engine's words for
    an option)."""
    def value(v: Any) -> str:
        if isinstance(v, bool):
            return _("yes") if v else _("no")
        if v is None:
            return _("none")
        if isinstance(v, list | tuple):
            return ", ".join(value(item) for item in v)
        return str(OPTION_WORDS.get(v, v)) if isinstance(v, str) else str(v)

    return [(str(PARAMETERS.get(name, name)), value(v)) for name, v in sorted(overrides.items())]


def lobby_words() -> dict[str, Any]:
    """What a lobby entry says, in the reader's language: the page draws its lists with
    these, and static/js/lobby.js the lists the socket sends (built once for readers of
    every language, so with names and ids only)."""
    return {
        "players": _("%(n)s players"),
        "host": _("hosted by %(host)s"),
        "open": _("open seat"),
        # A seat a bot account plays (the entry's ``bot_accounts``), as every page marks it.
        "bot_account": _("%(name)s (bot account)"),
        "clock_none": _("no clock"),
        "clock_move": _("%(n)s s a move"),
        "clock_game": _("%(move)s, %(n)s s a game beyond"),
        "house_rules": _("house rules: %(rules)s"),
        "rules": {name: str(label) for name, label in PARAMETERS.items()},
        "bots": {name: display_player(f"bot:{name}") for name in BOTS},
        "explained": {name: explained(name) for name in PRESETS},
    }


def entry_words(t: dict[str, Any], words: dict[str, Any]) -> dict[str, str]:
    """A lobby entry in words (the same as static/js/lobby.js writes): its ruleset and
    size, its host, who sits where, its clock and its house rules."""
    marked = set(t.get("bot_accounts") or ())

    def name(seat: int, player: str | None) -> str:
        if player is None:
            return str(words["open"])
        kind, _sep, rest = player.partition(":")
        if kind == "bot":
            return str(words["bots"].get(rest, rest))
        if seat in marked:
            return str(words["bot_account"] % {"name": rest or player})
        return rest or player

    move, game = t["clock"]
    clock = (words["clock_none"] if not move else words["clock_move"] % {"n": move}
             if not game else words["clock_game"] % {
                 "move": words["clock_move"] % {"n": move}, "n": game})
    rules = ", ".join(words["rules"].get(r, r) for r in t["house_rules"])
    return {
        "size": words["players"] % {"n": t["players"]},
        "host": words["host"] % {"host": t["host"]},
        "seats": ", ".join(name(n, p) for n, p in enumerate(t["seats"])),
        "clock": clock,
        "house_rules": words["house_rules"] % {"rules": rules} if rules else "",
        "explained": words["explained"].get(t["preset"], ""),
    }


@require_safe
def lobby(request: HttpRequest) -> HttpResponse:
    """The lobby: the live lists, and a form for a new table."""
    return render(request, "play/lobby.html", _lobby_context(request, TableForm()))


def _lobby_context(request: HttpRequest, form: TableForm) -> dict[str, Any]:
    words = lobby_words()
    lists = lobby_lists()
    for key in ("open", "running"):
        lists[key] = [{**t, "words": entry_words(t, words)} for t in lists[key]]
    return {"lists": lists, "form": form, "seat_numbers": range(MAX_PLAYERS),
            "my_tables": tables_of(request.user), "lobby_words": words}


@require_POST
def new_table(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("play:lobby"))
    form = TableForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        try:
            table = create_table(
                request.user, data["preset"], data["players"],
                seats=[data.get(f"seat_{n}") or default_seat(n)
                       for n in range(data["players"])],
                overrides=data["house_rules"], public=data["public"],
                move_seconds=data["move_seconds"], game_seconds=data["game_seconds"],
                absence_seconds=data["absence_seconds"],
                replacement_bot=data["replacement_bot"] or "heuristic",
                trade_seconds=data.get("trade_seconds"))
        except TableError as error:
            form.add_error(None, str(error))
        else:
            _lobby_changed()
            return redirect("play:table", table_id=table.id)
    return render(request, "play/lobby.html", _lobby_context(request, form), status=400)


def _table(table_id: str, request: HttpRequest) -> tuple[Table, bool]:
    """The table and whether the request may see it (a private table: its players,
    staff, or the invitation link)."""
    try:
        table = Table.objects.prefetch_related("seats__user").get(pk=UUID(table_id))
    except (ValueError, Table.DoesNotExist):
        raise Http404(_("No such table")) from None
    user = request.user
    seated = user.is_authenticated and any(s.user_id == user.pk and s.person
                                           for s in table.seats.all())
    left = user.is_authenticated and any(s.user_id == user.pk and s.handed_over
                                         for s in table.seats.all())
    invite = request.GET.get("invite", "")
    invited = bool(invite) and token_matches(invite[:100], table.invite_token)
    allowed = (table.public or seated or left or invited
               or bool(getattr(user, "is_staff", False)))
    if not allowed:
        raise Http404(_("No such table"))
    return table, seated


def live_table_url(game_id: UUID, user: Any) -> str | None:
    """The live table a running game is played at, for its replay's "Watch it live"
    (``replays.table.live_table``): only where ``user`` may see the table without an
    invitation (public, or they sit or sat there, or staff), so that a private table's
    address is given to nobody else."""
    table = Table.objects.filter(game_id=game_id, status=Table.Status.RUNNING).first()
    if table is None:
        return None
    signed_in = bool(getattr(user, "is_authenticated", False))
    allowed = (table.public or bool(getattr(user, "is_staff", False))
               or (signed_in and table.seats.filter(user_id=user.pk).exists()))
    return reverse("play:table", kwargs={"table_id": table.id}) if allowed else None


@require_safe
def table_page(request: HttpRequest, table_id: str) -> HttpResponse:
    """The table: the waiting room until it starts, then the live table."""
    table, seated = _table(table_id, request)
    seats = list(table.seats.all())
    me = request.user.pk if request.user.is_authenticated else None
    # Who is a bot account, looked up as the page is drawn (one query): marked as bots.
    programs = bot_account_ids(s.user_id for s in seats if s.person)
    marked = [s.person and s.user_id in programs for s in seats]
    players = [s.player() if s.taken else None for s in seats]
    bots = {p for p, bot in zip(players, marked, strict=True) if bot and p}
    running = table.status == Table.Status.RUNNING
    with_marks = [_marked(s, bot) for s, bot in zip(seats, marked, strict=True)]
    context = {
        # The ruleset's name is a name, in every language (docs/i18n.md): marked so.
        "preset_name": format_html('<span translate="no">{}</span>', table.preset),
        "table": table, "seats": seats, "seated": seated,
        "left": next((s for s in seats if s.handed_over and s.user_id == me), None),
        "handed": [s for s in seats if s.handed_over],
        "running": table.status == Table.Status.RUNNING,
        # Whether clock frames will come (play.clock.has_clocks): the page keeps their
        # bar's place from the start, so that nothing moves when the first one comes.
        "clocks": running and clock.has_clocks(table, with_marks),
        "trade_window": running and clock.window_applies(table, with_marks),
        # The clocks bar's rows on a phone (static/css/live.css): two seats' chips a
        # row, two for the trading window.
        "clock_rows": ((len(seats) + 1) // 2 if table.clocked else 0)
        + (2 if running and clock.window_applies(table, with_marks) else 0),
        "mine": request.user.is_authenticated and table.created_by_id == request.user.pk,
        "players": [display_player(p, bots) if p else None for p in players],
        # The waiting room's seats by name, a bot account's marked.
        "seat_names": [(s, bot_account_mark(s.seat_name()) if bot else
                        s.seat_name() if s.taken else None)
                       for s, bot in zip(seats, marked, strict=True)],
        "invite_url": request.build_absolute_uri(
            reverse("play:table", kwargs={"table_id": table.id})
            + f"?invite={table.invite_token}") if seated else None,
        "free": any(not s.taken for s in seats),
        "game_query": "",
    }
    if table.game_id is None:
        context["house_rules"] = house_rules_in_words(table.overrides)
        # Who sits where as drawn: the room's socket says if it changed meanwhile.
        context["seats_digest"] = seats_digest(seats)
        return render(request, "play/room.html", context)
    user = request.user
    if (not table.public and not seated and context["left"] is None
            and not getattr(user, "is_staff", False)):
        # Here by the invitation link: the game's replay and audit are private too, and
        # open with the game's share token, which the links carry (the invitation lets
        # its holder watch this game, and so see its record).
        share = games().game(table.game_id).share_token
        context["game_query"] = "?" + urlencode({"token": share})
    return render(request, "play/table.html", {**context, "words": move_words()})


def _marked(seat: Seat, bot_account: bool) -> Seat:
    """``seat`` marked whether its account is a bot account, as
    ``play.models.running_table`` marks the seats it reads."""
    seat.on_bot_account = bot_account  # type: ignore[attr-defined]
    return seat


def move_words() -> dict[str, Any]:
    """The live table's labels (static/js/table.js fills in the %(name)s parts)."""
    return {
        "plant_from_hand": _("Plant the front card in field %(field)s"),
        "plant_card": _("Plant %(card)s in field %(field)s"),
        "end_planting": _("Stop planting"),
        "discard_card": pgettext("a move: put a card on the discard pile", "Discard %(card)s"),
        # What one gives and what one gets, both: the button alone says the trade.
        "accept_offer": _("Accept offer #%(offer)s: give %(cards)s, get %(gets)s"),
        "decline_offer": pgettext("a move: refuse an offer", "Decline offer #%(offer)s"),
        "withdraw_offer": _("Withdraw offer #%(offer)s"),
        "end_trading": _("End trading"),
        # A tap on a field or card that could mean several moves asks which.
        "choose_move": _("Which move?"),
        "cancel": _("Cancel"),
        "harvest": pgettext("a move: harvest and sell a field's beans",
                             "Harvest field %(field)s"),
        "buy_third_field": _("Buy the third field"),
        "face_up": _("Face up"),
        # One card among the face-up ones, beside its name ("Soy bean (face up)").
        "face_up_card": pgettext("one card", "face up"),
        "offer": _("Offer a trade or a gift"),
        "give": _("Give:"),
        "want": _("Want:"),
        "to": _("To:"),
        "everyone": _("everyone"),
        # A seat a bot account plays, where the page names seats itself (the offer's
        # "to", the clocks, an offer announced): ``facts.bot_accounts`` says which.
        "bot_account": _("%(name)s (bot account)"),
        "make_offer": _("Make the offer"),
        "nothing": _("nothing"),
        "wait": _("Nothing to do: waiting for the others."),
        "connected": _("Connected."),
        "reconnecting": _("Connection lost: reconnecting…"),
        "copied": _("Copied"),
        "left": _("You left this game: a bot plays your seat. You are watching."),
        "absent": _("You stayed away too long: a bot plays your seat. You are watching."),
        "signed_out": _("You are signed out here: sign in again to play. You are watching."),
        "taken": _("Someone else plays this seat now. You are watching."),
        # The moves (static/js/table.js): one accept per offer, stable keys, presses
        # checked, moves explained.
        "accept_choose": _("Accept offer #%(offer)s: get %(gets)s, choose your cards…"),
        "accept_which": _("Offer #%(offer)s: the cards you give"),
        "accept_go": _("Accept, giving these"),
        "accept_no_match": _("Those cards are not what the offer wants: tick one of the "
                             "ways to pay it."),
        "yes": _("Yes"),
        "no": _("Cancel"),
        "vanished": _("That move is no longer possible: the table changed. Nothing was "
                      "sent."),
        "changed": _("That button has just become “%(move)s”. Nothing was sent: press it "
                     "again if you mean it."),
        "pays": _("pays %(n)s coins"),
        "pays_one": _("pays 1 coin"),
        "forced_front": _("The front card (%(card)s) fits no field: harvest one to make "
                          "room."),
        "forced_plant": _("The beans to plant fit no field: harvest one to make room."),
        "confirm_harvest_zero": _("Harvesting field %(field)s pays nothing. Harvest it "
                                  "anyway?"),
        "confirm_end_trading": _("An offer to you is still open. End trading anyway?"),
        "last_offer": _("my last offer this turn"),
        # Telling the reader (static/js/live.js).
        "your_turn": _("Your turn."),
        "offer_for_you": _("Offer #%(offer)s for you from %(name)s."),
        "title_turn": _("Your turn"),
        "title_offer": _("Offer for you"),
        "clock_move": _("time left for this move"),
        "clock_bank": _("bank %(time)s"),
        # A seat handed to its bot (its person away past the limit, or gone): the bot's
        # name where a dead clock would read 0:00 (the seat's badge says the same).
        "clock_bot": _("played by the %(bot)s bot"),
        "clock_warning": _("%(n)s seconds left on your clock."),
        "trade_window": _("Trading open for %(time)s · then %(name)s ends trading"),
        "trade_closed": _("Trading window closed · %(name)s ends trading"),
        "beans": {kind.value: bean(kind) for kind in BeanKind},
        # A refusal (an error frame) by its code, in the reader's words.
        "refusals": refusals.words(),
    }


def _act(request: HttpRequest, table_id: str, action: str) -> HttpResponse:
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("play:table", kwargs={"table_id": table_id}))
    table, _seated = _table(table_id, request)
    try:
        if action == "join":
            join(table, request.user)
        elif action == "leave" and table.status == Table.Status.RUNNING:
            mine = [s.number for s in table.seats.all()
                    if s.user_id == request.user.pk and s.person]
            if not mine:
                raise TableError(_("you do not play a seat at this game"))
            played = hand_to_bot(table.id, mine[0], Handover.LEFT, user=request.user)
            layer = get_channel_layer()
            if layer is not None:
                async_to_sync(driver.announce_handover)(layer, table.id, played, mine[0])
        elif action == "leave":
            leave(table, request.user)
            if not Table.objects.filter(pk=table.pk).exists():
                _lobby_changed()
                return redirect("play:lobby")
        else:
            started = start(table, request.user)
            live.tell(live.room_group(started.id), {"type": "table.started"})
    except TableError as error:
        messages.error(request, str(error))
    _lobby_changed()
    invite = request.GET.get("invite", "")[:100]
    suffix = f"?invite={invite}" if invite and token_matches(invite, table.invite_token) else ""
    return redirect(reverse("play:table", kwargs={"table_id": table.id}) + suffix)


@require_POST
def join_table(request: HttpRequest, table_id: str) -> HttpResponse:
    return _act(request, table_id, "join")


@require_POST
def leave_table(request: HttpRequest, table_id: str) -> HttpResponse:
    return _act(request, table_id, "leave")


@require_POST
def start_table(request: HttpRequest, table_id: str) -> HttpResponse:
    return _act(request, table_id, "start")


urlpatterns = [
    path("play/", lobby, name="lobby"),
    path("play/tables/new/", new_table, name="new_table"),
    path("play/tables/<str:table_id>/", table_page, name="table"),
    path("play/tables/<str:table_id>/join/", join_table, name="join_table"),
    path("play/tables/<str:table_id>/leave/", leave_table, name="leave_table"),
    path("play/tables/<str:table_id>/start/", start_table, name="start_table"),
]
