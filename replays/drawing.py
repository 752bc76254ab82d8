"""The table drawn as HTML: the one drawing of a Bohnanza table (the replay viewer's
and the live table's), from :func:`replays.table.table_context`.

It was a Django template (``templates/table/table.html`` with a template included per
card). A live table draws it once per client after every command, and the template
engine spent about 10 ms on each (bench/live.py): a hundred tables at one command a
second could not fit on two cores. Written out in Python it draws the same HTML (the
same elements, attributes, texts and messages, with the template's newlines where it
had whitespace) many times faster. The messages are the template's own msgids, looked
up with ``gettext``/``ngettext``, so the catalogues (locale/) and ``makemessages`` keep
working. The end-of-game summary, drawn once per finished game, stays a template
(``templates/table/_summary.html``).

Escaping follows the template's autoescaping: every value from the context (names,
numbers, the head hash) is escaped; translated messages are not (the template did not
escape its ``{% translate %}`` literals), and values put into a message are escaped
before they are.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from html import escape
from typing import Any, TypeVar

from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext_noop


class Words:
    """The drawing's messages in one language, each looked up in the catalogue once per
    process: Django's ``gettext`` finds the active language and its catalogue on every
    call, and a table asks for a hundred messages. It is also the narration's language
    (``bohnanza_core.narrate.Language``): a live frame's log lines asked the catalogue
    for some 20 messages (0.2-0.3 ms a frame, more than the rest of the log)."""

    def __init__(self, language: str) -> None:
        self.language = language
        self._one: dict[str, str] = {}
        self._many: dict[tuple[str, str, int], str] = {}
        self._context: dict[tuple[str, str, str, int], str] = {}

    def pgettext(self, context: str, message: str) -> str:
        key = (context, message, "", -1)
        found = self._context.get(key)
        if found is None:
            with translation.override(self.language):
                found = self._context[key] = translation.pgettext(context, message)
        return found

    def npgettext(self, context: str, singular: str, plural: str, number: int) -> str:
        key = (context, singular, plural, number)
        found = self._context.get(key)
        if found is None:
            if len(self._context) > 10_000:  # numbers are small, but bound it anyway
                self._context.clear()
            with translation.override(self.language):
                found = self._context[key] = translation.npgettext(context, singular, plural,
                                                                   number)
        return found

    def gettext(self, message: str) -> str:
        found = self._one.get(message)
        if found is None:
            with translation.override(self.language):
                found = self._one[message] = translation.gettext(message)
        return found

    def ngettext(self, singular: str, plural: str, number: int) -> str:
        key = (singular, plural, number)
        found = self._many.get(key)
        if found is None:
            if len(self._many) > 10_000:  # numbers are small, but bound it anyway
                self._many.clear()
            with translation.override(self.language):
                found = self._many[key] = translation.ngettext(singular, plural, number)
        return found


_words: dict[str, Words] = {}

IN_F_STRINGS = (
    gettext_noop("Turn %(turn)s"), gettext_noop("Setup"), gettext_noop("Phase: %(phase)s"),
    gettext_noop("Game over"), gettext_noop("Waiting for"), gettext_noop("Audit details"),
    gettext_noop("Head hash after event %(step)s"), gettext_noop("Copy"),
    gettext_noop("Seed commitment"), gettext_noop("Seed"), gettext_noop("Ruleset"),
    gettext_noop("none"), gettext_noop("Draw pile"), gettext_noop("Discard pile"),
    gettext_noop("Face up"), gettext_noop("Open offers"), gettext_noop("as a gift"),
    gettext_noop("declined by %(names)s"), gettext_noop("empty"), gettext_noop("coins"),
    gettext_noop("Its player left the game"),
    gettext_noop("The table is shown as this seat sees it"), gettext_noop("to play"),
    gettext_noop("to answer"), gettext_noop("3rd field"), gettext_noop("hidden"),
    gettext_noop("Trade area (to plant)"), gettext_noop("nothing"),
    gettext_noop("Hidden from the players during the game"), gettext_noop("Next in the draw pile"))
"""The messages the drawing asks for inside f-strings, where xgettext (``manage.py
makemessages``) does not look: named here, so that the catalogues keep them
(tests/replays/test_table_component.py checks that the list is complete)."""


def words() -> Words:
    """The messages in the active language."""
    language = translation.get_language() or settings.LANGUAGE_CODE
    found = _words.get(language)
    if found is None:
        found = _words[language] = Words(language)
    return found


_SPECIAL = re.compile("[&<>\"']")


def _e(value: object) -> str:
    """A value as the template printed it: escaped (already safe HTML as it is)."""
    if type(value) is int:
        return str(value)
    html = getattr(value, "__html__", None)
    if html is not None:
        return str(html())
    text = str(value)
    return escape(text) if _SPECIAL.search(text) else text


def _beans(step: dict[str, int | None]) -> str:
    """A beanometer step's beans, ``·`` where the kind has no such step."""
    return str(step["beans"]) if step["beans"] else "·"


DRAWN_KEPT = 20_000
"""How many drawn cards, fields and seats a process keeps (:func:`card`, :func:`_field`,
:func:`_seat`), of each: a game has 154 cards at most, a few marks and notes each, and a
field is a kind, a count and a mark; a bound all the same (past it they are drawn
afresh)."""

_cards: dict[tuple[Any, ...], str] = {}
_fields: dict[tuple[Any, ...], str] = {}


def card(c: dict[str, Any], extra: str = "", note: str = "") -> str:
    """One card (``c``: :func:`replays.table._card`), its trailing newline included
    (between inline cards it is the space the stylesheet expects). ``extra``: more
    classes (with a leading space); ``note``: said after its name in the title.

    Drawn once per process for what it shows (the beanometer is the kind's): a live
    table draws every seat's frame after every command, and the same cards again and
    again (a third of a frame's drawing)."""
    key = (c["id"], c["kind"], c["name"], c["initials"], c["changed"], c["now"], extra, note)
    return kept(_cards, key, lambda: _card(c, extra, note))


K = TypeVar("K")
V = TypeVar("V")


def kept(memo: dict[K, V], key: K, make: Callable[[], V], bound: int = DRAWN_KEPT) -> V:
    """What ``make`` makes, kept in ``memo`` under ``key`` (emptied once it holds
    ``bound``): the drawing's cards, fields and seats, and the parts of the table's
    context made once per process (replays/table.py)."""
    found = memo.get(key)
    if found is None:
        if len(memo) >= bound:
            memo.clear()
        found = memo[key] = make()
    return found


def _card(c: dict[str, Any], extra: str, note: str) -> str:
    mark = (" chg chg-now" if c["now"] else " chg") if c["changed"] else ""
    meter = c["beanometer"]
    steps = "".join(f"{b['beans']}→{b['coins']} " for b in meter if b["beans"])
    name = _e(c["name"])
    return (f'<span class="card kind-{_e(c["kind"])}{mark}{_e(extra)}" data-card="{c["id"]}" '
            f'role="img" aria-label="{name}" title="{name}{" " + note if note else ""} · '
            f'{steps}"><span class="card-ini" aria-hidden="true">{_e(c["initials"])}</span>'
            f'<span class="card-meter" aria-hidden="true">'
            f'{"".join(f"<i>{_beans(b)}</i>" for b in meter)}</span></span>\n')


def _names(names: list[str]) -> str:
    return "".join(f'<span class="cut" title="{_e(n)}">{_e(n)}</span>'
                   + (", " if i < len(names) - 1 else "") for i, n in enumerate(names))


def _status(t: dict[str, Any], w: Words) -> str:
    out = ['<div class="rt-status">\n']
    if t["turn"]:
        out.append(f'<span class="rt-chip"><strong>'
                   f'{w.gettext("Turn %(turn)s") % {"turn": _e(t["turn"])}}</strong></span>\n')
    else:
        out.append(f'<span class="rt-chip"><strong>{w.gettext("Setup")}</strong></span>\n')
    out.append(f'<span class="rt-chip rt-phase">'
               f'{w.gettext("Phase: %(phase)s") % {"phase": _e(t["phase"])}}</span>\n')
    if t["finished"]:
        out.append(f'<span class="rt-chip rt-chip-end">{w.gettext("Game over")}</span>\n')
    elif t["turn"]:
        to_play = w.gettext('<span class="cut" title="%(name)s">%(name)s</span> to play')
        out.append(f'<span class="rt-chip">{to_play % {"name": _e(t["active_name"])}}'
                   '</span>\n')
    if t["awaiting_names"]:
        out.append(f'<span class="rt-chip rt-chip-wait">{w.gettext("Waiting for")} '
                   f'{_names(t["awaiting_names"])}</span>\n')
    head = _e(t["head_hash"])
    out.append(f'<details class="rt-audit">\n<summary>{w.gettext("Audit details")}</summary>\n'
               f'<dl>\n<div><dt>'
               f'{w.gettext("Head hash after event %(step)s") % {"step": _e(t["step"])}}</dt>\n'
               f'<dd><code class="rt-hash-value">{head}</code> <button type="button" '
               f'class="rt-copy js-only" data-copy-text="{head}">{w.gettext("Copy")}</button>'
               '</dd></div>\n')
    if t["seed_commitment"]:
        out.append(f'<div><dt>{w.gettext("Seed commitment")}</dt><dd><code>'
                   f'{_e(t["seed_commitment"])}</code></dd></div>\n')
    if t["seed"]:
        out.append(f'<div><dt>{w.gettext("Seed")}</dt><dd><code>{_e(t["seed"])}</code></dd>'
                   '</div>\n')
    out.append(f'<div><dt>{w.gettext("Ruleset")}</dt><dd>{_e(t["ruleset"])}</dd></div>\n'
               '</dl>\n</details>\n</div>\n')
    return "".join(out)


def _none(w: Words) -> str:
    return f'<span class="rt-none">{w.gettext("none")}</span>'


def _middle(t: dict[str, Any], w: Words) -> str:
    label = w.gettext("Piles, face-up cards and offers")
    out = [f'<section class="rt-middle" aria-label="{label}">'
           f'\n<div class="rt-pile {_e(t["draw_mark"])}">\n<div class="rt-pile-cards">']
    if t["draw_pile_size"]:
        out.append(f'<span class="card back" role="img" aria-label="{w.gettext("Draw pile")}">'
                   '</span>')
    else:
        out.append('<span class="card empty"></span>')
    runs = w.gettext("Run-outs: %(n)s of %(of)s") % {"n": _e(t["runs_out"]),
                                                      "of": _e(t["ends_on_run_out"])}
    out.append(f'</div>\n<div class="rt-pile-text">\n<span class="rt-label">'
               f'{w.gettext("Draw pile")}</span>\n<strong class="rt-draw-size">'
               f'{_e(t["draw_pile_size"])}</strong>\n'
               f'<span class="rt-sub">{runs}</span>\n</div>\n</div>\n'
               f'<div class="rt-pile {_e(t["discard_mark"])}">\n<div class="rt-pile-cards">')
    out.append(card(t["discard_top"]) if t["discard_top"]
               else '<span class="card empty"></span>')
    out.append(f'</div>\n<div class="rt-pile-text">\n<span class="rt-label">'
               f'{w.gettext("Discard pile")}</span>\n<strong class="rt-discard-size">'
               f'{_e(t["discard_size"])}</strong>\n')
    if t["out_of_game"]:
        n = t["out_of_game"]
        gone = w.ngettext("%(n)s out of the game", "%(n)s out of the game", n) % {"n": n}
        out.append(f'<span class="rt-sub">{gone}</span>\n')
    out.append(f'</div>\n</div>\n<div class="rt-faceup {_e(t["face_up_mark"])}">\n'
               f'<span class="rt-label">{w.gettext("Face up")}</span>\n<div class="rt-cards">'
               f'{"".join(card(c) for c in t["face_up"]) or _none(w)}</div>\n</div>\n'
               f'<div class="rt-offers">\n<span class="rt-label">{w.gettext("Open offers")}'
               '</span>\n')
    if t["offers"]:
        out.append("<ul>\n")
        for o in t["offers"]:
            gives = (f'<span class="rt-cards mini">{"".join(card(c) for c in o["gives"])}</span>'
                     if o["gives"] else w.gettext("nothing"))
            # Who gives what, in one message: "nothing" then "for 1 Soy bean" read as
            # "nothing in exchange: 1 soy bean" in Hungarian, the giver left unsaid.
            body = (f'{gives}\n<em>{w.gettext("as a gift")}</em>' if o["gift"]
                    else w.pgettext("an open offer: what its proposer gives, then wants",
                                    "%(gives)s for %(wants)s")
                    % {"gives": gives, "wants": _e(o["wants"])})
            out.append(f'<li class="rt-offer {_e(o["mark"])}" data-offer="{_e(o["number"])}">\n'
                       f'<span class="rt-offer-head">#{_e(o["number"])} {_e(o["proposer"])} → '
                       f'{_e(o["to"])}</span>\n<span class="rt-offer-body">\n{body}\n</span>\n')
            if o["declined_by"]:
                names = ", ".join(_e(n) for n in o["declined_by"])
                out.append(f'<span class="rt-sub">'
                           f'{w.gettext("declined by %(names)s") % {"names": names}}</span>\n')
            out.append("</li>\n")
        out.append("</ul>\n")
    else:
        out.append(_none(w) + "\n")
    out.append("</div>\n</section>\n")
    return "".join(out)


def _field(f: dict[str, Any], w: Words) -> str:
    """One field (``f``: from :func:`replays.table.table_context`), drawn once per
    process and language for its number, kind, count and mark, from which everything
    else it shows follows."""
    return kept(_fields, (w.language, *_field_shown(f)), lambda: _draw_field(f, w))


def _field_shown(f: dict[str, Any]) -> tuple[Any, ...]:
    """What a field shows: everything else follows from its number, kind, count and
    mark (and the language)."""
    return f["number"], f["kind"], f["count"], f["mark"]


def _draw_field(f: dict[str, Any], w: Words) -> str:
    number = _e(f["number"])
    if not f["kind"]:
        empty = w.gettext("Field %(number)s: empty") % {"number": number}
        return (f'<div class="rt-field is-empty {_e(f["mark"])}" data-field="{number}" '
                f'title="{empty}">\n<div class="stack"><span class="card empty"></span></div>\n'
                f'<span class="rt-field-name">{w.gettext("empty")}</span>\n</div>\n')
    kind, count = _e(f["kind"]), f["count"]
    title = w.gettext("Field %(number)s: %(count)s × %(name)s") % {  # noqa: RUF001 (the msgid)
        "number": number, "count": _e(count), "name": _e(f["name"])}
    layers = "".join(f'<span class="card kind-{kind} edge edge-{layer}"></span>'
                     for layer in f["layers"])
    meter = "".join(
        f'<i class="{"got" if b["beans"] and count >= b["beans"] else ""}'
        f'{"" if b["beans"] else " none"}">{_beans(b)}</i>' for b in f["beanometer"])
    following = f["next"]
    if following:
        more, coins = following["more"], _e(following["coins"])
        values = {"more": more, "coins": coins}
        # Two numbers, each with its own plural: the coins' phrase is made first.
        sale = w.npgettext("a field's next sale", "%(coins)s coin", "%(coins)s coins",
                           following["coins"]) % values
        upcoming = (w.ngettext("+%(more)s → %(coins)s", "+%(more)s → %(coins)s", more) % values
                    + '<span class="visually-hidden"> '
                    + w.ngettext("%(more)s more bean for %(sale)s",
                                 "%(more)s more beans for %(sale)s", more)
                    % {"more": more, "sale": sale}
                    + "</span>")
    else:
        upcoming = w.gettext("max")
    return (f'<div class="rt-field {_e(f["mark"])}" data-field="{number}" title="{title} · '
            f'{_e(f["beanometer_text"])}">\n<div class="stack">\n{layers}\n'
            f'<span class="card kind-{kind} top"><span class="card-ini">{_e(f["initials"])}'
            f'</span><span class="card-count">{_e(count)}</span></span>\n</div>\n'
            f'<span class="rt-field-name cut">{_e(f["name"])}</span>\n'
            f'<span class="meter" aria-hidden="true">{meter}</span>\n'
            f'<span class="rt-field-next">{upcoming}<span class="rt-field-worth"> · '
            f'<span class="coin" aria-hidden="true"></span>{_e(f["worth"])}</span></span>\n'
            '</div>\n')


_seats: dict[tuple[Any, ...], str] = {}


def _cards_shown(cards: list[dict[str, Any]] | None) -> tuple[Any, ...] | None:
    """What a row of cards shows (:func:`card`: its name and look follow from its kind
    and the language)."""
    return None if cards is None else tuple((c["id"], c["kind"], c["changed"], c["now"])
                                            for c in cards)


def _seat(s: dict[str, Any], t: dict[str, Any], w: Words) -> str:
    """One seat (``s``: from :func:`replays.table.table_context`), drawn once per
    process for what it shows. A live table draws every perspective's frame after
    every command, and a command changes one or two seats: the others are drawn as
    they were, for this perspective's last frame and for the other seats' frames (a
    seat not your own looks the same to every other seat)."""
    key = (w.language, t["third_field_cost"], s["index"], s["name"], s["player"],
           s.get("bot"), s["you"], s["active"], s["awaiting"], s["rank"], s["winner"],
           s["coins"], s["coins_mark"], s["hand_mark"], s["trade_mark"], s["locked_field"],
           s["hand_size"], _cards_shown(s["hand"]), _cards_shown(s["trade_area"]),
           tuple(_field_shown(f) for f in s["fields"]))
    return kept(_seats, key, lambda: _draw_seat(s, t, w))


def _draw_seat(s: dict[str, Any], t: dict[str, Any], w: Words) -> str:
    name = _e(s["name"])
    classes = ((" is-active" if s["active"] else "") + (" is-you" if s["you"] else "")
               + (" is-winner" if s["winner"] else ""))
    coins = s["coins"]
    out = [f'<article class="rt-seat{classes}" data-seat="{_e(s["index"])}" aria-label="{name}">'
           f'\n<header class="rt-seat-head">\n<h3 class="cut" title="{name}">{name}</h3>\n']
    if s["player"]:
        player = _e(s["player"])
        out.append(f'<span class="rt-player cut" title="{player}">{player}</span>\n')
    held = w.ngettext("%(n)s coin", "%(n)s coins", coins) % {"n": _e(coins)}
    out.append(f'<span class="rt-coins {_e(s["coins_mark"])}" title="{held}">'
               f'<span class="coin" aria-hidden="true"></span><strong>{_e(coins)}</strong>'
               f'<span class="visually-hidden"> {w.gettext("coins")}</span></span>\n'
               '<span class="rt-badges">\n')
    if s.get("bot"):
        played = w.gettext("played by the %(bot)s bot") % {"bot": _e(s["bot"])}
        out.append(f'<span class="rt-badge rt-badge-bot" '
                   f'title="{w.gettext("Its player left the game")}">{played}</span>\n')
    if s["you"]:
        badge = w.gettext("this seat's view")
        out.append(f'<span class="rt-badge rt-badge-you" '
                   f'title="{w.gettext("The table is shown as this seat sees it")}">'
                   f'{badge}</span>\n')
    if s["active"]:
        out.append(f'<span class="rt-badge rt-badge-turn">{w.gettext("to play")}</span>\n')
    if s["awaiting"] and not s["active"]:
        out.append(f'<span class="rt-badge rt-badge-wait">{w.gettext("to answer")}</span>\n')
    if s["rank"]:
        rank = (w.gettext("winner") if s["winner"]
                else w.gettext("rank %(rank)s") % {"rank": _e(s["rank"])})
        out.append(f'<span class="rt-badge rt-badge-rank">{rank}</span>\n')
    out.append('</span>\n</header>\n<div class="rt-fields">\n')
    out.extend(_field(f, w) for f in s["fields"])
    if s["locked_field"]:
        cost = t["third_field_cost"]
        locked = w.ngettext("Third field not bought: it costs %(n)s coin",
                          "Third field not bought: it costs %(n)s coins", cost) % {"n": _e(cost)}
        out.append(f'<div class="rt-field is-locked" title="{locked}">\n<div class="stack">'
                   f'<span class="card locked"><span class="card-count">{_e(cost)}</span></span>'
                   f'</div>\n<span class="rt-field-name">{w.gettext("3rd field")}</span>\n</div>\n')
    size, hand = s["hand_size"], s["hand"]
    label = w.ngettext("Hand · %(n)s card", "Hand · %(n)s cards", size) % {"n": _e(size)}
    if hand is None and size:
        label += f' <span class="rt-sub">({w.gettext("hidden")})</span>'
    out.append(f'</div>\n<div class="rt-hand {_e(s["hand_mark"])}">\n'
               f'<span class="rt-label">{label}</span>\n<div class="rt-cards hand">\n')
    if hand is not None:
        front = w.gettext("(front: planted next)")
        # The front card, planted next, marked on the hand itself, not by a tooltip only.
        front_word = w.pgettext("hand", "front")
        mark = f'<span class="rt-front-mark">{front_word}</span>'
        cards = "".join(f'<span class="slot is-front">{card(c, " front", front)}{mark}</span>'
                        if i == 0 else f'<span class="slot">{card(c)}</span>'
                        for i, c in enumerate(hand))
    else:
        cards = '<span class="slot"><span class="card back"></span></span>' * size
    empty = f'<span class="rt-none">{w.gettext("empty")}</span>'
    out.append((cards or empty) + "\n</div>\n</div>\n")
    if s["trade_area"]:
        out.append(f'<div class="rt-trade {_e(s["trade_mark"])}">\n<span class="rt-label">'
                   f'{w.gettext("Trade area (to plant)")}</span>\n<div class="rt-cards">'
                   f'{"".join(card(c) for c in s["trade_area"])}</div>\n</div>\n')
    out.append("</article>\n")
    return "".join(out)


def _secrets(t: dict[str, Any], w: Words) -> str:
    cards = ("".join(card(c) for c in t["draw_pile_next"] or ())
             or f'<span class="rt-none">{w.gettext("nothing")}</span>')
    out = [f'<section class="rt-secrets" '
           f'aria-label="{w.gettext("Hidden from the players during the game")}">\n'
           f'<span class="rt-label">{w.gettext("Next in the draw pile")}</span>\n'
           f'<div class="rt-cards mini">\n'
           f'{cards}\n']
    if t["draw_pile_size"] > 8:
        more = w.gettext("… %(n)s more") % {"n": _e(t["draw_pile_size"] - 8)}
        out.append(f'<span class="rt-sub">{more}</span>\n')
    out.append("</div>\n</section>\n")
    return "".join(out)


def _root(t: dict[str, Any]) -> str:
    return (f'\n<div class="rt rt-n{_e(t["seat_count"])}" data-step="{_e(t["step"])}" '
            f'data-perspective="{_e(t["perspective"])}" '
            f'data-finished="{"1" if t["finished"] else "0"}">\n')


SEATS_OPEN = '<section class="rt-seats" aria-label="{label}">\n'


def draw_regions(t: dict[str, Any], request: Any = None) -> list[tuple[str, str]]:
    """The table (context ``t``: :func:`replays.table.table_context`) as its regions, in
    order: ``(key, html)`` for the status, the summary (a finished game), the middle,
    each seat (``seat-<n>``) and the secrets (a finished game). A live table sends a
    client only the regions that changed since its last frame (docs/protocol.md); each
    region is one element, found by :data:`REGION_SELECTORS`. Joined by
    :func:`draw_table`, they are the whole drawing."""
    w = words()
    out = [("status", _status(t, w))]
    if t["summary"]:
        out.append(("summary", render_to_string("table/_summary.html", {"s": t["summary"]},
                                                request=request)))
    out.append(("middle", _middle(t, w)))
    out.extend((f"seat-{s['index']}", _seat(s, t, w)) for s in t["seats"])
    if t["everything"]:
        out.append(("secrets", _secrets(t, w)))
    return out


def join_regions(t: dict[str, Any], regions: list[tuple[str, str]]) -> str:
    """The whole drawing from its regions (:func:`draw_regions`)."""
    w = words()
    out = [_root(t)]
    seats = False
    for key, html in regions:
        if key.startswith("seat-") and not seats:
            out.append(SEATS_OPEN.format(label=w.gettext("Players")))
            seats = True
        elif seats and not key.startswith("seat-"):
            out.append("</section>\n")
            seats = False
        out.append(html)
    if seats:
        out.append("</section>\n")
    out.append("</div>\n")
    return "".join(out)


def draw_table(t: dict[str, Any], request: Any = None) -> str:
    """The whole table (context ``t``: :func:`replays.table.table_context`) as HTML, in
    the active language. ``request``: for the summary's template only."""
    return join_regions(t, draw_regions(t, request))
