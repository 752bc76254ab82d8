"""The table component: what ``templates/table/table.html`` draws, built from a table view.

One template and one script (``static/js/table.js``) draw a Bohnanza table wherever one
is shown: the replay viewer at any step, and the live table. Both feed it the same
thing, a *table answer* (:func:`table_answer`): the perspective's
:meth:`~bohnanza_core.views.GameView.as_dict` as data and the same table drawn as HTML
by the template. So the context here is built only from that dict, never from the game
state, and whatever a perspective may not see cannot reach the page.

Besides the table it marks what changed at this step (:class:`Changes`, from the
redacted events of the step), names players as people read them
(:func:`display_player`), and gives every card and field its beanometer.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from bohnanza_core.cards import BEANOMETER, BeanKind, coins_for
from bohnanza_core.events import (
    BeanPlanted,
    CardDealt,
    CardDiscarded,
    CardDrawn,
    CardSource,
    CardTakenFromDiscard,
    CardTurnedOver,
    DiscardPileReshuffled,
    DrawPileRanOut,
    Event,
    FieldHarvested,
    OfferAccepted,
    OfferDeclined,
    OfferMade,
    OfferVoided,
    OfferWithdrawn,
    ThirdFieldBought,
)
from bohnanza_core.narrate import bean_name, beans, phase_name
from bohnanza_core.rulesets import Ruleset
from bohnanza_core.state import Phase
from bohnanza_core.views import EVERYTHING, SPECTATOR, Perspective
from replays.drawing import draw_regions, draw_table, join_regions, kept
from replays.store import perspective_name

STACK_LAYERS = 6
"""At most this many card edges drawn under a field's top card."""

NAME_LIMIT = 40


def short_name(name: str, limit: int = NAME_LIMIT) -> str:
    """A seat's name cut to ``limit`` characters where a whole one cannot be shown: the
    page's title, the perspective menu, the log's lines and the offers. Names come
    from players and files; a 1000-character one made the menu as wide and every line
    of the log a paragraph. The seats' own panels show names whole (in a title)."""
    return name if len(name) <= limit else name[: limit - 1] + "…"


BOTS = {
    "heuristic": lambda: _("Heuristic bot"),
    "nontrading": lambda: _("Non-trading bot"),
    "random": lambda: _("Random bot"),
    "search": lambda: _("Search bot (0.1 s a move)"),
    "search-deep": lambda: _("Search bot (1 s a move)"),
}


BotAccountsLookup = Callable[[Collection[str]], Collection[str]]
"""Given account names, which of them are bot accounts (one query for them all)."""

_bot_accounts_lookup: BotAccountsLookup | None = None


def set_bot_accounts_lookup(lookup: BotAccountsLookup | None) -> None:
    """Install who tells bot accounts apart from people. The accounts are ``play``'s,
    and this app may not import it (the layers): ``play`` installs its lookup when it
    starts (``PlayConfig.ready``). Without one, no account is a bot account."""
    global _bot_accounts_lookup
    _bot_accounts_lookup = lookup


LiveTableLookup = Callable[[UUID, Any], str | None]
"""Given a running game and who asks, the address of its live table if there is one
they may see (None: no table plays it, or a private one of others)."""

_live_table_lookup: LiveTableLookup | None = None


def set_live_table_lookup(lookup: LiveTableLookup | None) -> None:
    """Install who finds a running game's live table. The tables are ``play``'s, which
    this app may not import (the layers): ``play`` installs it when it starts
    (``PlayConfig.ready``). Without one, no game has a live table."""
    global _live_table_lookup
    _live_table_lookup = lookup


def live_table(game_id: UUID, user: Any) -> str | None:
    """The address of the live table ``game_id`` is played at, for ``user`` to watch
    from its replay (a spectator's replay of a running game does not move on)."""
    return None if _live_table_lookup is None else _live_table_lookup(game_id, user)


def bot_accounts(players: Iterable[str]) -> frozenset[str]:
    """Which of these players (``user:robo``...) are bot accounts, in one lookup for a
    whole page: a page gathers its players first and passes the answer to
    :func:`display_player`, so its queries do not grow with its seats."""
    names = {rest for kind, sep, rest in (p.partition(":") for p in players)
             if kind == "user" and sep and rest}
    if not names or _bot_accounts_lookup is None:
        return frozenset()
    return frozenset(f"user:{name}" for name in _bot_accounts_lookup(names))


def bot_account_mark(name: str) -> str:
    """A bot account's name marked as a bot's, where a person's name would stand."""
    return _("%(name)s (bot account)") % {"name": name}


def display_player(player: str, bots: Collection[str] = ()) -> str:
    """Who sits in a seat, as people read it: ``user:ann`` is "ann", ``bot:heuristic``
    "Heuristic bot", ``imported:ann`` "ann (imported)", and a bot account (one of
    ``bots``, from :func:`bot_accounts`) "robo (bot account)"; the store's ids are for
    machines (the audit details still show them)."""
    kind, _sep, rest = player.partition(":")
    if not _sep:
        return short_name(player)
    if kind == "user":
        return bot_account_mark(short_name(rest)) if player in bots else short_name(rest)
    if kind == "bot":
        known = BOTS.get(rest)
        return known() if known else _("%(name)s (bot)") % {"name": short_name(rest)}
    if kind == "imported":
        return _("%(name)s (imported)") % {"name": short_name(display_player(rest) if ":" in
                                                              rest else rest)}
    return short_name(player)


def person_name(player: str, bots: Collection[str] = ()) -> str:
    """A player by the name people know, where the seat's own name is not shown: as
    :func:`display_player`, and a competition's entrant of a built-in bot
    (``bot:nontrading@builtin #2``, its id in the competition) by the bot's name."""
    kind, _sep, rest = player.partition(":")
    if kind == "bot" and "@" in rest:
        name = rest.split("@", 1)[0]
        if name in BOTS:
            return BOTS[name]()
    return display_player(player, bots)


def initials(kind: BeanKind) -> str:
    """Two letters printed large on a card, unique among the kinds in each language,
    so a card is told apart without its colour (the pattern is the other cue)."""
    match kind:
        case BeanKind.COFFEE:
            return pgettext("bean initials", "Cf")
        case BeanKind.WAX:
            return pgettext("bean initials", "Wx")
        case BeanKind.BLUE:
            return pgettext("bean initials", "Bl")
        case BeanKind.CHILI:
            return pgettext("bean initials", "Ch")
        case BeanKind.STINK:
            return pgettext("bean initials", "St")
        case BeanKind.GREEN:
            return pgettext("bean initials", "Gr")
        case BeanKind.SOY:
            return pgettext("bean initials", "So")
        case BeanKind.BLACK_EYED:
            return pgettext("bean initials", "BE")
        case BeanKind.RED:
            return pgettext("bean initials", "Rd")
        case BeanKind.GARDEN:
            return pgettext("bean initials", "Ga")
        case BeanKind.COCOA:
            return pgettext("bean initials", "Co")
    raise ValueError(kind)  # pragma: no cover - every kind has its case


def bean(kind: BeanKind | str, count: int = 1) -> str:
    """The kind's name in the reader's language ("Chili bean", "tűzbab", "chilipapu")."""
    return bean_name(BeanKind(kind), count, translation)


def beanometer(kind: BeanKind | str) -> list[dict[str, int | None]]:
    """The kind's beanometer: for 1, 2, 3 and 4 coins, how many beans (None: no step)."""
    return [{"coins": n, "beans": needed}
            for n, needed in enumerate(BEANOMETER[BeanKind(kind)], start=1)]


def beanometer_text(kind: BeanKind | str) -> str:
    """ "4 beans: 1 coin, 7: 2, 10: 3, 12: 4" for a title."""
    parts = [_("%(beans)s → %(coins)s") % {"beans": step["beans"], "coins": step["coins"]}
             for step in beanometer(kind) if step["beans"] is not None]
    return _("Beanometer (beans → coins): %(steps)s") % {"steps": ", ".join(parts)}


def next_coin(kind: BeanKind | str, count: int) -> dict[str, int] | None:
    """How many more beans the field's next coin needs, and how many coins it would
    then sell for; None when the field already pays the most it can."""
    now = coins_for(BeanKind(kind), count)
    for step in beanometer(kind):
        needed, paid = step["beans"], step["coins"]
        if needed is not None and paid is not None and paid > now and needed > count:
            return {"more": needed - count, "coins": paid}
    return None


# -- what changed --------------------------------------------------------------------


@dataclass
class Changes:
    """What the events of a step touched, for highlighting: fields as (seat, field),
    seats whose coins, hand or trade area changed, card ids moved, offers made or
    answered, and whether the face-up cards or the piles changed."""

    fields: set[tuple[int, int]] = field(default_factory=set)
    coins: set[int] = field(default_factory=set)
    hands: set[int] = field(default_factory=set)
    trade_areas: set[int] = field(default_factory=set)
    cards: set[int] = field(default_factory=set)
    offers: set[int] = field(default_factory=set)
    face_up: bool = False
    discard: bool = False
    draw_pile: bool = False

    def add(self, event: Event) -> None:
        """Note what ``event`` (redacted for the viewer) changes on the table."""
        match event:
            case CardDealt() | CardDrawn():
                self.hands.add(event.seat)
                self.draw_pile = True
                if event.card is not None:
                    self.cards.add(event.card)
            case BeanPlanted():
                self.fields.add((event.seat, event.field))
                self.cards.add(event.card)
                if event.source is CardSource.HAND:
                    self.hands.add(event.seat)
                elif event.source is CardSource.TRADE_AREA:
                    self.trade_areas.add(event.seat)
                else:
                    self.face_up = True
            case FieldHarvested():
                self.fields.add((event.seat, event.field))
                self.coins.add(event.seat)
                self.discard = True
            case ThirdFieldBought():
                self.fields.add((event.seat, 2))
                self.coins.add(event.seat)
                self.discard = True
            case CardTurnedOver() | CardTakenFromDiscard():
                self.face_up = True
                self.cards.add(event.card)
                self.draw_pile = True
                self.discard = True
            case CardDiscarded():
                self.discard = True
                self.hands.add(event.seat)
                self.cards.add(event.card)
            case OfferMade():
                self.offers.add(event.offer)
                self.cards.update(event.gives)
            case OfferAccepted():
                self.offers.add(event.offer)
                self.cards.update(event.cards)
                self.trade_areas.add(event.seat)
                self.hands.add(event.seat)
            case OfferDeclined() | OfferWithdrawn() | OfferVoided():
                self.offers.add(event.offer)
            case DiscardPileReshuffled() | DrawPileRanOut():
                self.draw_pile = True
                self.discard = True


def changes_of(events: Iterable[Event]) -> Changes:
    changes = Changes()
    for event in events:
        changes.add(event)
    return changes


# -- the context ---------------------------------------------------------------------


_METERS = {kind.value: beanometer(kind) for kind in BeanKind}
"""Every kind's beanometer (the same in every language)."""

CONTEXT_KEPT = 5000
"""How many kinds' words and fields a process keeps (:func:`_words`, :func:`_field`)."""

_kind_words: dict[tuple[str, str, int], tuple[str, str, str]] = {}


def _words(language: str, kind: str, count: int = 1) -> tuple[str, str, str]:
    """The kind's name after ``count``, its initials and its beanometer's title in
    ``language`` (the active one), looked up once per process: a table shows dozens of
    cards, and each lookup in the catalogue finds the active language again."""
    return kept(_kind_words, (language, kind, count), lambda: (
        bean(kind, count), initials(BeanKind(kind)), beanometer_text(kind)), CONTEXT_KEPT)


def _card(card: int, kinds: Sequence[str], changed: Changes, now: Changes,
          language: str) -> dict[str, Any]:
    kind = kinds[card]
    name, letters, _title = _words(language, kind)
    return {"id": card, "kind": kind, "name": name, "initials": letters,
            "beanometer": _METERS[kind], "changed": card in changed.cards,
            "now": card in now.cards}


_fields: dict[tuple[str, int, str | None, int, str], dict[str, Any]] = {}


def _field(language: str, number: int, kind: str | None, count: int, mark: str
           ) -> dict[str, Any]:
    """A field's part of the context (``number`` as players count them: the first field
    is 1), made once per process for each language, number, kind, count and mark: a
    live table's every frame shows a dozen fields, nearly all as they were. Shared, so
    read only."""
    return kept(_fields, (language, number, kind, count, mark),
                lambda: _make_field(language, number, kind, count, mark), CONTEXT_KEPT)


def _make_field(language: str, number: int, kind: str | None, count: int, mark: str
                ) -> dict[str, Any]:
    name, letters, title = _words(language, kind, count or 1) if kind else (None, None, "")
    return {
        "number": number,
        "kind": kind,
        "name": name,
        "initials": letters,
        "count": count,
        "layers": range(min(count, STACK_LAYERS) - 1, 0, -1),
        "worth": coins_for(BeanKind(kind), count) if kind else 0,
        "next": next_coin(kind, count) if kind else None,
        "beanometer": _METERS[kind] if kind else [],
        "beanometer_text": title,
        "mark": mark,
    }


def _mark(flag: bool, now: bool) -> str:
    """The class a changed element carries: ``chg`` for the step (a decision and what
    followed it), ``chg chg-now`` for the very last event; the script's mode picks
    which is highlighted."""
    return ("chg chg-now" if now else "chg") if flag else ""


def table_context(data: dict[str, Any], players: Sequence[str], ruleset: Ruleset, *, step: int,
                  head_hash: str, changed: Changes | None = None, now: Changes | None = None,
                  summary: dict[str, Any] | None = None,
                  bots: Collection[str] = ()) -> dict[str, Any]:
    """The template's context for the table ``data`` (a ``GameView.as_dict()``) after
    ``step``, with ``changed`` (the step's events) and ``now`` (its last event) marked.
    ``players``: who sits in each seat (account or bot ids, as the record has them);
    ``ruleset``: the table's (public) rules, for the third field and the game's end;
    ``bots``: which of ``players`` are bot accounts (:func:`bot_accounts`), marked so."""
    changed = changed or Changes()
    now = now or Changes()
    perspective: Perspective = data["perspective"]
    kinds: list[str] = data["card_kinds"]
    names = [seat["name"] for seat in data["seats"]]
    result = data.get("result")
    phase = Phase(data["phase"])
    language = translation.get_language() or ""

    def card(number: int) -> dict[str, Any]:
        return _card(number, kinds, changed, now, language)

    seats = []
    for index, seat in enumerate(data["seats"]):
        fields = []
        for number, fld in enumerate(seat["fields"]):
            key = (index, number)
            fields.append(_field(language, number + 1, fld["kind"], len(fld["cards"]),
                                 _mark(key in changed.fields, key in now.fields)))
        hand = seat.get("hand")
        player = players[index] if index < len(players) else ""
        shown_player = display_player(player, bots) if player else ""
        seats.append({
            "index": index,
            "name": seat["name"],
            "player": shown_player if shown_player.casefold() != seat["name"].casefold()
            else "",
            "player_id": player,
            "bot": seat.get("bot"),
            "you": perspective == index,
            "active": data["active"] == index and phase not in (Phase.DEALING,
                                                                Phase.GAME_OVER),
            "awaiting": index in data["awaiting"],
            "hand": None if hand is None else [card(c) for c in hand],
            "hand_size": seat["hand_size"],
            "backs": range(seat["hand_size"]),
            "fields": fields,
            "locked_field": (len(fields) < ruleset.max_fields
                             and ruleset.third_field_cost is not None),
            "coins": seat["coins"],
            "coins_mark": _mark(index in changed.coins, index in now.coins),
            "hand_mark": _mark(index in changed.hands, index in now.hands),
            "trade_mark": _mark(index in changed.trade_areas, index in now.trade_areas),
            "trade_area": [card(c) for c in seat["trade_area"]],
            "rank": None if result is None else result["ranks"][index],
            "winner": result is not None and index in result["winners"],
        })
    offers = []
    for offer in data["offers"]:
        counterparty = offer["counterparty"]
        number = offer["offer"]
        offers.append({
            "number": number,
            "proposer": short_name(names[offer["proposer"]]),
            "to": _("everyone") if counterparty is None else short_name(names[counterparty]),
            "gives": [card(c) for c in offer["gives"]],
            "wants": ", ".join(beans(BeanKind(k), n, translation) for k, n in offer["wants"]),
            "gift": not offer["wants"],
            "declined_by": [short_name(names[s]) for s in offer["declined_by"]],
            "mark": _mark(number in changed.offers, number in now.offers),
        })
    discard = data["discard_pile"]
    draw_pile = data.get("draw_pile")
    return {
        "perspective": perspective_name(perspective),
        "everything": perspective == EVERYTHING,
        "spectator": perspective == SPECTATOR,
        "phase": phase_name(phase, translation),
        "phase_value": phase.value,
        "turn": data["turn"],
        "active_name": names[data["active"]],
        "awaiting_names": [names[s] for s in data["awaiting"]],
        "seats": seats,
        "seat_count": len(seats),
        "face_up": [card(c) for c in data["face_up"]],
        "face_up_mark": _mark(changed.face_up, now.face_up),
        "offers": offers,
        "draw_pile_size": data["draw_pile_size"],
        "draw_mark": _mark(changed.draw_pile, now.draw_pile),
        "draw_pile_next": (None if draw_pile is None
                           else [card(c) for c in draw_pile[:8]]),
        "discard_top": card(discard[-1]) if discard else None,
        "discard_size": len(discard),
        "discard_mark": _mark(changed.discard, now.discard),
        "out_of_game": len(data["out_of_game"]),
        "runs_out": data["runs_out"],
        "ends_on_run_out": ruleset.ends_on_run_out,
        "third_field_cost": ruleset.third_field_cost,
        "ruleset": data["ruleset"],
        "seed": data.get("seed"),
        "seed_commitment": data.get("seed_commitment"),
        "finished": result is not None,
        "step": step,
        "head_hash": head_hash,
        "summary": summary,
    }


def render_table(context: dict[str, Any], request: Any = None) -> str:
    """The table drawn by the one drawing every table page uses (replays/drawing.py)."""
    return draw_table(context, request)


def table_answer(data: dict[str, Any], players: Sequence[str], ruleset: Ruleset, *,
                 step: int, steps: int,
                 head_hash: str, changed: Changes | None = None, now: Changes | None = None,
                 summary: dict[str, Any] | None = None, request: Any = None,
                 bots: Collection[str] = ()) -> dict[str, Any]:
    """What ``static/js/table.js`` is fed: the table as data (``data``, the view's
    dict as it is) and drawn as HTML, with where the game stands. The replay's
    ``steps/<n>.json`` is one; a live table sends the same after every event."""
    answer, _regions = table_answer_regions(data, players, ruleset, step=step, steps=steps,
                                            head_hash=head_hash, changed=changed, now=now,
                                            summary=summary, request=request, bots=bots)
    return answer


def table_answer_regions(data: dict[str, Any], players: Sequence[str], ruleset: Ruleset, *,
                         step: int, steps: int, head_hash: str,
                         changed: Changes | None = None, now: Changes | None = None,
                         summary: dict[str, Any] | None = None, request: Any = None,
                         bots: Collection[str] = ()
                         ) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """:func:`table_answer` and the drawing's regions (``replays.drawing.draw_regions``),
    which a live table sends one by one as they change."""
    context = table_context(data, players, ruleset, step=step, head_hash=head_hash, changed=changed,
                            now=now, summary=summary, bots=bots)
    regions = draw_regions(context, request)
    answer = table_answer_undrawn(data, step=step, steps=steps, head_hash=head_hash)
    answer["html"] = join_regions(context, regions)
    return answer, regions


def table_answer_undrawn(data: dict[str, Any], *, step: int, steps: int, head_hash: str
                         ) -> dict[str, Any]:
    """:func:`table_answer` without its drawing: what a program playing a seat reads
    (docs/protocol.md, ``?html=0``)."""
    return {
        "step": step,
        "steps": steps,
        "turn": data["turn"],
        "phase": data["phase"],
        "finished": data.get("result") is not None,
        "head_hash": head_hash,
        "table": data,
    }
