"""Dispute pages: a player opens one, an arbiter examines the record and rules, the
players read the ruling.

- ``games/<id>/disputes/new/`` (``open_dispute``): a player of a finished game points
  at an event (prefilled from ``?seq=``) and says what is wrong.
- ``disputes/`` (``dispute_list``): an arbiter sees every dispute, open ones first;
  anyone else those about the games they played in.
- ``disputes/<uuid>/`` (``dispute_detail``): the dispute and its ruling for the players;
  for an arbiter also the full record (when, and who issued each command), the verify
  verdict, the whole table before and after the disputed event, and the ruling form.

Who is an arbiter, and the guards on every step, are in :mod:`replays.disputes`. A
refused request (wrong account, forged form, running game, no such event) gets a page
saying why, with 400, 403 or 404, and nothing is stored.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from uuid import UUID

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import URLPattern, path
from django.utils import translation
from django.utils.translation import gettext, gettext_lazy, pgettext_lazy
from django.views.decorators.http import require_http_methods

from bohnanza_core.cards import BeanKind, Card
from bohnanza_core.games import Game, GameNotFound
from bohnanza_core.narrate import Narrator
from bohnanza_core.rulesets import display_name
from bohnanza_core.verify import verify_record
from bohnanza_core.views import EVERYTHING, GameView, view
from replays.disputes import (
    MAX_COMPLAINT,
    MAX_EXPLANATION,
    Dispute,
    DisputeNotFound,
    DisputeRefused,
    NotAllowed,
    account,
    disputes,
    disputes_for,
    is_arbiter,
    person,
    rule_dispute,
    standing,
)
from replays.store import games, parse_game_id
from replays.table import bean, bot_account_mark, bot_accounts
from replays.views.audit import Refusal, refused, replay_url, url_or_none, verdict_rows
from replays.views.viewer import shown

CONTEXT_BEFORE = 8
CONTEXT_AFTER = 4
"""Events shown around the disputed one, above the full record."""


# -- forms ---------------------------------------------------------------------------


class OpenDisputeForm(forms.Form):
    event_seq = forms.IntegerField(label=gettext_lazy("Event number"), min_value=1)
    complaint = forms.CharField(
        label=gettext_lazy("What is wrong with it?"), max_length=MAX_COMPLAINT, strip=True,
        widget=forms.Textarea(attrs={"rows": 6}),
    )

    def __init__(self, *args: Any, events: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        seq = self.fields["event_seq"]
        assert isinstance(seq, forms.IntegerField)
        seq.validators.append(_at_most(events))
        seq.widget.attrs.update({"min": 1, "max": events})


def _at_most(events: int) -> Any:
    def check(value: int) -> None:
        if value > events:
            raise forms.ValidationError(
                gettext("there is no event #%(seq)s: this game's record has events #1 to "
                        "#%(events)s") % {"seq": value, "events": events})
    return check


class RulingForm(forms.Form):
    ruling = forms.ChoiceField(
        choices=[("upheld", pgettext_lazy("ruling", "Upheld")),
                 ("rejected", pgettext_lazy("ruling", "Rejected"))], widget=forms.RadioSelect,
        error_messages={"invalid_choice": gettext_lazy("a ruling is either 'upheld' or "
                                                       "'rejected'")},
    )
    explanation = forms.CharField(
        label=gettext_lazy("Explanation for the players"), max_length=MAX_EXPLANATION, strip=True,
        widget=forms.Textarea(attrs={"rows": 5}),
    )


# -- the table before and after, readable --------------------------------------------


@dataclass(frozen=True)
class Chip:
    """One card, or a field of cards of one kind, as the page draws it."""

    kind: str
    title: str
    count: int = 1


def chip(kind: BeanKind, count: int = 1) -> Chip:
    return Chip(kind.value, kind.value.capitalize(), count)


@dataclass
class SeatSnap:
    name: str
    player: str
    active: bool
    hand: list[Chip]
    fields: list[Chip | None]
    trade_area: list[Chip]
    coins: int
    third_field: bool
    changed: set[str] = field(default_factory=set)


@dataclass
class TableSnap:
    """The whole table (everything: the game has ended) after one event."""

    step: int
    phase: str
    turn: int
    seats: list[SeatSnap]
    face_up: list[Chip]
    offers: list[str]
    draw_pile_size: int
    draw_next: list[Chip]
    discard_size: int
    discard_top: list[Chip]
    changed: set[str] = field(default_factory=set)


def snapshot(game: Game, step: int, bots: Collection[str] = ()) -> TableSnap:
    """The table after event ``step``, from the everything view; a seat whose player is
    one of ``bots`` (bot accounts) marked as a bot's."""
    table: GameView = view(games().game(game.id, step).state, EVERYTHING)
    kind = table.kind
    names = table.seats

    def cards(items: tuple[Card, ...] | list[Card]) -> list[Chip]:
        return [chip(kind(c)) for c in items]

    seats = []
    for seat, name in enumerate(names):
        seats.append(SeatSnap(
            name=name,
            player=person(game.players[seat], bots) if seat < len(game.players) else "",
            active=seat == table.active and not table.finished,
            hand=cards(table.hand_of(seat) or ()),
            fields=[None if k is None else chip(k, n) for k, n in table.field_summary(seat)],
            trade_area=cards(table.trade_area(seat)),
            coins=table.coins(seat),
            third_field=table.third_field_bought(seat),
        ))
    offers = []
    for o in table.offers:
        to = gettext("anyone") if o.counterparty is None else names[o.counterparty]
        gives = ", ".join(bean(kind(c)) for c in o.gives) or gettext("nothing")
        wants = (", ".join(f"{n} {bean(k, n)}" for k, n in o.wants)
                 or gettext("nothing (a gift)"))
        offers.append(gettext("#%(number)s: %(proposer)s to %(to)s: gives %(gives)s, wants "
                              "%(wants)s") % {"number": o.number, "proposer": names[o.proposer],
                                              "to": to, "gives": gives, "wants": wants})
    draw_top = table.as_dict().get("draw_pile", [])[:5]
    discard = table.discard_pile
    return TableSnap(
        step=step, phase=table.phase.value, turn=table.turn, seats=seats,
        face_up=cards(table.face_up), offers=offers, draw_pile_size=table.draw_pile_size,
        draw_next=cards(draw_top), discard_size=len(discard), discard_top=cards(discard[-3:]),
    )


def mark_changes(before: TableSnap, after: TableSnap) -> None:
    """Mark on both snapshots what the disputed event changed, for the eye."""
    for b, a in zip(before.seats, after.seats, strict=True):
        for part in ("hand", "fields", "trade_area", "coins"):
            if getattr(b, part) != getattr(a, part):
                b.changed.add(part)
                a.changed.add(part)
    for part in ("phase", "turn", "face_up", "offers", "draw_pile_size", "discard_size"):
        if getattr(before, part) != getattr(after, part):
            before.changed.add(part)
            after.changed.add(part)


# -- the record ----------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    seq: int
    at: datetime | None
    at_text: str
    actor: str
    is_command: bool
    text: str
    disputed: bool
    link: str | None


def narrator(game: Game, bots: Collection[str] = ()) -> Narrator:
    """The record told in the reader's language, a bot account's seat (its player one of
    ``bots``) marked on every line, as the replay's log marks it."""
    players = game.players
    return Narrator(game.state.ruleset, tuple(
        bot_account_mark(seat) if index < len(players) and players[index] in bots else seat
        for index, seat in enumerate(game.state.seats)), translation)


def record_rows(game: Game, disputed: int, bots: Collection[str] = ()) -> list[Row]:
    """Every stored entry: when it was stored, who issued it, what it says (a bot
    account, one of ``bots``, marked as a bot)."""
    told = narrator(game, bots)
    rows = []
    for entry in games().record(game.id):
        try:
            at = datetime.fromisoformat(entry.at) if entry.at else None
        except ValueError:
            at = None
        rows.append(Row(
            seq=entry.seq, at=at, at_text=entry.at or "", actor=person(entry.actor, bots),
            is_command=entry.actor is not None, text=told.describe(entry.event, entry.actor),
            disputed=entry.seq == disputed, link=replay_url(game, entry.seq),
        ))
    return rows


# -- pages ---------------------------------------------------------------------------


def _game(game_id: str) -> Game:
    try:
        return games().game(parse_game_id(game_id))
    except GameNotFound:
        raise Refusal(404, gettext("No such game"), gettext("There is no game %(game)s.")
                      % {"game": shown(game_id)}) from None


def _event_text(game: Game, seq: int | None, bots: Collection[str] = ()) -> str | None:
    if seq is None or not 1 <= seq <= game.version:
        return None
    entry = games().record(game.id)[seq - 1]
    return narrator(game, bots).describe(entry.event, entry.actor)


def _initial_seq(request: HttpRequest, game: Game) -> int | None:
    text = request.GET.get("seq", "")
    # ASCII digits, few of them: str.isdigit() says yes to "²", which int() refuses,
    # and int() refuses more than 4,300 digits.
    if len(text) <= 9 and text.isascii() and text.isdigit() and 1 <= int(text) <= game.version:
        return int(text)
    return None


@login_required
@require_http_methods(["GET", "POST"])
def open_dispute(request: HttpRequest, game_id: str) -> HttpResponse:
    """A player of a finished game says what is wrong with one of its events."""
    try:
        game = _game(game_id)
        if not standing(request.user, game).player:
            raise Refusal(403, gettext("Not your game"),
                          gettext("Only a player of this game may open a dispute about it."))
        if not game.finished:
            raise Refusal(403, gettext("The game is still running"), gettext(
                "A dispute is opened once the game has ended, on its whole record."))
    except Refusal as refusal:
        return refused(request, refusal)
    status = 200
    if request.method == "POST":
        form = OpenDisputeForm(request.POST, events=game.version)
        if form.is_valid():
            try:
                who = account(request.user)
                assert who is not None
                dispute = disputes().open(game, form.cleaned_data["event_seq"],
                                          form.cleaned_data["complaint"], who)
            except NotAllowed as error:
                # The reason is the dispute rules' own sentence (replays.disputes).
                return refused(request, Refusal(403, gettext("Not allowed"),
                                                str(error).capitalize()))
            except DisputeRefused as error:
                form.add_error(None, str(error))
            else:
                return redirect("replays:dispute_detail", dispute_id=dispute.id)
        status = 400
        seq = form.cleaned_data.get("event_seq")
    else:
        seq = _initial_seq(request, game)
        form = OpenDisputeForm(initial={"event_seq": seq}, events=game.version)
    bots = bot_accounts(game.players)  # marked as bots, looked up as the page is drawn
    return render(request, "replays/dispute_open.html", {
        "game": game,
        "form": form,
        "seq": seq,
        "event_text": _event_text(game, seq, bots),
        "events": game.version,
        "players": ", ".join(person(p, bots) for p in game.players),
        "ruleset": display_name(game.state.ruleset),
        "replay_link": replay_url(game, seq),
        "audit_link": url_or_none("replays:audit", game_id=str(game.id)),
        "max_complaint": MAX_COMPLAINT,
    }, status=status)


@login_required
def dispute_list(request: HttpRequest) -> HttpResponse:
    """Every dispute for an arbiter, open ones first; a player's own otherwise."""
    arbiter = is_arbiter(request.user)
    found = disputes_for(request.user)
    # The bot accounts among every row's players, looked up once for the page.
    bots = bot_accounts(p for _d, g in found for p in g.players)
    rows = [{"dispute": d, "game": g, "opened_by": person(d.opened_by, bots),
             "players": ", ".join(person(p, bots) for p in g.players)} for d, g in found]
    return render(request, "replays/dispute_list.html", {
        "rows": rows, "arbiter": arbiter,
        "open_count": sum(1 for d, _ in found if not d.ruled),
    })


@login_required
@require_http_methods(["GET", "POST"])
def dispute_detail(request: HttpRequest, dispute_id: UUID) -> HttpResponse:
    """The dispute; for an arbiter also the evidence and the ruling form."""
    try:
        dispute = disputes().dispute(dispute_id)
    except DisputeNotFound:
        return refused(request, Refusal(404, gettext("No such dispute"), gettext(
            "There is no dispute %(id)s.") % {"id": dispute_id}))
    game = games().game(dispute.game_id)
    you = standing(request.user, game)
    if not you.may_see:
        return refused(request, Refusal(403, gettext("Not your dispute"), gettext(
            "Only the players of the game and the arbiters may see this dispute.")))
    status = 200
    form = RulingForm()
    if request.method == "POST":
        form = RulingForm(request.POST)
        if not you.arbiter:
            return refused(request, Refusal(403, gettext("Not an arbiter"), gettext(
                "Only an arbiter (a staff account) may rule on a dispute. Nothing was "
                "stored.")))
        if form.is_valid():
            try:
                rule_dispute(request.user, dispute.id, form.cleaned_data["ruling"],
                             form.cleaned_data["explanation"])
            except NotAllowed as error:
                # The reason is the dispute rules' own sentence (replays.disputes).
                return refused(request, Refusal(403, gettext("Not allowed"), gettext(
                    "%(reason)s. Nothing was stored.") % {"reason": str(error).capitalize()}))
            except DisputeRefused as error:
                form.add_error(None, str(error))
            else:
                return redirect("replays:dispute_detail", dispute_id=dispute.id)
        status = 400
    # Bot accounts marked as bots, looked up as the page is drawn (one query).
    bots = bot_accounts([*game.players, dispute.opened_by, dispute.arbiter or ""])
    context: dict[str, Any] = {
        "dispute": dispute,
        "game": game,
        "you": you,
        "opened_by": person(dispute.opened_by, bots),
        "arbiter_name": person(dispute.arbiter, bots) if dispute.arbiter else "",
        "players": ", ".join(person(p, bots) for p in game.players),
        "ruleset": display_name(game.state.ruleset),
        "event_text": _event_text(game, dispute.event_seq, bots),
        "replay_link": replay_url(game, dispute.event_seq),
        "audit_link": url_or_none("replays:audit", game_id=str(game.id)),
        "list_link": url_or_none("replays:dispute_list"),
    }
    if you.arbiter:
        verdict = verify_record(games().record(game.id), game.head_hash)
        seq = dispute.event_seq
        after = snapshot(game, seq, bots)
        before = snapshot(game, seq - 1, bots) if seq > 1 else None
        if before is not None:
            mark_changes(before, after)
        rows = record_rows(game, seq, bots)
        context.update({
            "verdict": verdict,
            "rows": verdict_rows(verdict, game),
            "first_bad_link": (replay_url(game, verdict.first_bad)
                               if verdict.first_bad is not None else None),
            "before": before,
            "after": after,
            "record": rows,
            "around": rows[max(0, seq - 1 - CONTEXT_BEFORE):seq + CONTEXT_AFTER],
            "may_rule": not you.player and not dispute.ruled,
            "form": form,
        })
    return render(request, "replays/dispute_detail.html", context, status=status)


urlpatterns: list[URLPattern] = [
    path("games/<str:game_id>/disputes/new/", open_dispute, name="open_dispute"),
    path("disputes/", dispute_list, name="dispute_list"),
    path("disputes/<uuid:dispute_id>/", dispute_detail, name="dispute_detail"),
]

__all__ = ["Dispute", "dispute_detail", "dispute_list", "open_dispute", "urlpatterns"]
