"""Live play, the synchronous half: what the websocket consumers (``play/consumers.py``)
and the table's driver (``play/driver.py``) ask of the store, run in a worker thread
(``database_sync_to_async``).

A command goes through ``Games.play_on`` (decided by the rules, stored) before
anything is sent. What is sent is built here, per perspective, from the engine's view
and the redacted events only (:func:`seat_update`), never from the state: a seat's
group gets its own seat's view, the spectators' group the public one. The consumers
draw each answer with the table component in their reader's language
(:func:`answer_for`). The protocol is docs/protocol.md.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import threading
import uuid
from collections import OrderedDict
from dataclasses import dataclass
from json.encoder import encode_basestring_ascii
from typing import Any
from uuid import UUID

import orjson
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.utils import translation

from bohnanza_core.cards import coins_for
from bohnanza_core.commands import Command, seat_of
from bohnanza_core.engine import legal_commands
from bohnanza_core.errors import IllegalMove
from bohnanza_core.events import (
    BeanPlanted,
    Event,
    FieldHarvested,
    PhaseStarted,
    ThirdFieldBought,
)
from bohnanza_core.export import event_from_json, event_to_json
from bohnanza_core.games import Game, GameNotFound, StaleCommand
from bohnanza_core.narrate import Narrator
from bohnanza_core.rulesets import Ruleset
from bohnanza_core.state import Phase
from bohnanza_core.views import SPECTATOR, Perspective, redact, view
from bohnanza_core.wire import legal_to_json
from play import send_order
from play.authority import require_seat
from play.models import Table, running_table
from replays.drawing import words
from replays.store import caught_up, events_between, game_lock, games, load
from replays.table import (
    Changes,
    bot_account_mark,
    bot_accounts,
    changes_of,
    short_name,
    table_answer_regions,
    table_answer_undrawn,
)

logger = logging.getLogger(__name__)

PROTOCOL = 3
"""The protocol's version (docs/protocol.md); every server frame carries it. 2: a
``state`` frame's table answer carries only the regions of the drawing that changed
since the connection's previous frame (``parts``), the whole drawing (``html``) on
connecting, on ``sync`` and when the regions themselves change. 3: a whole frame
(connecting, ``sync``) carries the game's log so far (its last :data:`LOG_LINES` lines),
which replaces the client's."""

LOG_LINES = 300
"""The most lines of the log a whole frame carries: the latest, one per event. A
person who reloads the page or comes back after a lost connection sees what happened
(the whole game is the replay's); a game's whole log can be thousands of lines."""

RACE_RETRIES = 5
"""How often a command that lost a race in the store is decided again."""


class StaleFrame(Exception):
    """The client acted on a table it had not seen the latest of."""

    code = "stale"
    """Its refusal code (play.refusals)."""


class TableBusy(StaleFrame):
    """A command lost the race in the store :data:`RACE_RETRIES` times: sent again, it
    is decided afresh."""

    code = "busy"


def seat_group(table_id: UUID, seat: int) -> str:
    return f"table-{table_id.hex}-seat-{seat}"


def spectator_group(table_id: UUID) -> str:
    return f"table-{table_id.hex}-spectators"


LOBBY_GROUP = "lobby"


_lobby_changes = 0
"""How many lobby changes this process has told of (``play.lobby.public_snapshot``
keeps no snapshot across one)."""


def lobby_changed() -> dict[str, Any]:
    """The message that tells the lobby's sockets their lists changed, with the
    change's own id: a process builds the public lists once for it, however many of its
    sockets hear it (``play.lobby.public_snapshot``)."""
    global _lobby_changes
    _lobby_changes += 1
    return {"type": "lobby.changed", "change": uuid.uuid4().hex}


def lobby_changes() -> int:
    """How many lobby changes this process has told of so far."""
    return _lobby_changes


def account_group(user_id: int) -> str:
    """Every table socket of one account, in every server process: told when the
    account's credentials change (signed out, a bot's token replaced)."""
    return f"account-{user_id}"


def account_changed(user_id: int, ended_session: str | None = None) -> None:
    """Tell the account's sockets to look its credentials up again (once the change is
    stored): a seat's socket whose session or token no longer stands for it is told
    ``left`` (``signed_out``) and sent the spectator's view (``play.authority``).
    ``ended_session``: the key of a session signing out, which Django deletes only after
    its sign-out signal: its sockets are told it ended (:func:`session_mark`), not left
    to look it up before it is gone."""
    message: dict[str, Any] = {"type": "account.changed"}
    if ended_session:
        message["ended"] = session_mark(ended_session)
    transaction.on_commit(lambda: tell(account_group(user_id), message))


def session_mark(session_key: str) -> str:
    """What an ``account.changed`` message names a session by: its key's SHA-256 (a
    key is 32 random characters: its hash gives nothing away), never the key itself."""
    return hashlib.sha256(session_key.encode()).hexdigest()


def session_ended(message: dict[str, Any], session_key: str | None) -> bool:
    """Whether an ``account.changed`` message says the session ``session_key`` signed
    out (sent before Django deletes it: looked up then, it still stood)."""
    return session_key is not None and message.get("ended") == session_mark(session_key)


def room_group(table_id: UUID) -> str:
    """Every connection to the table, whoever it is (a table starting, a seat handed to
    its bot)."""
    return f"table-{table_id.hex}-room"


def group_for(table_id: UUID, perspective: Perspective) -> str:
    return spectator_group(table_id) if perspective == SPECTATOR else seat_group(table_id,
                                                                                 perspective)


# -- what a perspective is sent -------------------------------------------------------


_rules: dict[int, tuple[Ruleset, str]] = {}


def tell(group: str, message: dict[str, Any]) -> None:
    """Send ``message`` to every connection in ``group`` from synchronous code (a view,
    a task), through the channel layer: every server process's with a shared one
    (Redis). What it tells of is stored already, so a layer that fails is logged, not
    raised: the pages show the change when next loaded."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, message)
    except Exception:
        logger.warning("%s could not be told (%s)", group, message.get("type"), exc_info=True)


def rules_text(ruleset: Ruleset) -> str:
    """The rules' parameters as JSON text, worked out once per ruleset object (a game
    keeps its own): every update carried them as a dictionary of some 25 entries, five
    times a command, packed into the channel layer's messages, unpacked and encoded
    again into every frame, the same each time."""
    found = _rules.get(id(ruleset))
    if found is None or found[0] is not ruleset:
        if len(_rules) > 1000:
            _rules.clear()
        found = _rules[id(ruleset)] = (ruleset, json_text(ruleset.parameters()))
    return found[1]


def bot_account_seats(game: Game) -> list[int]:
    """The seats whose players are bot accounts, looked up now (one query, none for a
    table of built-in bots): every frame built says it as it is when it is built, never
    as it was when a connection opened."""
    marked = bot_accounts(game.players)
    return [seat for seat, player in enumerate(game.players) if player in marked]


def seat_update(game: Game, perspective: Perspective, events: list[Event],
                since: int, actors: list[str | None] | None = None,
                bot_seats: list[int] | None = None) -> dict[str, Any]:
    """What ``perspective`` may know after ``events`` (the game moved from version
    ``since`` to ``game.version``): its view, the events redacted for it, and (a seat)
    its legal moves. ``bot_seats``: :func:`bot_account_seats`, when the caller looked
    them up once for every perspective. Plain JSON, for the channel layer; the rules (a frame's
    ``facts.rules``, :func:`rules_text`) and the view (``table_json``, a frame's
    ``answer.table``) as JSON text: the view is most of an update, dozens of lists and
    dictionaries and the kind of each of the game's cards, and packing and unpacking
    them in the channel layer's messages was 8.5% of a daphne's CPU in bench/live.py,
    five updates a command; as text it is one string each way, and spliced into the
    frames as it is."""
    state = game.state
    shown = [redact(event, perspective) for event in events]
    seat = perspective if perspective >= 0 else None
    seen = view(state, perspective)
    return {
        "since": since,
        "version": game.version,
        "head_hash": game.head_hash,
        "seat": seat,
        # Who plays the seat at this version (play.authority): a connection of anyone
        # else is sent the spectator's view instead.
        "holder": game.holder(seat) if seat is not None else None,
        "table_json": json_text(seen.as_dict()),
        "events": [event_to_json(event) for event in shown],
        # Each event's actor in the record (the clock's moves are told as the clock's).
        "actors": list(actors) if actors is not None else [None] * len(shown),
        "legal": (legal_to_json(legal_commands(state, seat))
                  if seat is not None else []),
        "players": list(game.players),
        "finished": state.finished,
        # What a program playing the seat needs beside the table (bohnanza_core.wire.
        # WireView): the rules, and facts every seat may know.
        "rules": rules_text(state.ruleset),
        "facts": {
            "planted": seen.planted_this_turn,
            "ending": seen.ending,
            "harvestable": [[seen.may_harvest(s, f) for f in range(seen.field_count(s))]
                            for s in range(state.players)],
            # What harvesting each field would pay now (the harvest buttons say it).
            "pays": [[coins_for(kind, len(cards)) if kind is not None and cards else 0
                      for kind, cards in ((state.field_kind(s, f), state.fields[s][f])
                                          for f in range(len(state.fields[s])))]
                     for s in range(state.players)],
            # The step before the final harvest (a finished game): the fields as they
            # were harvested, which the end of the live table shows.
            "harvested_at": _before_final_harvest(events, since) if state.finished else None,
            # The seats a bot account plays: the pages mark them as bots.
            "bot_accounts": bot_account_seats(game) if bot_seats is None else bot_seats,
        },
    }


def _before_final_harvest(events: list[Event], since: int) -> int | None:
    """The version just before the final harvest began, if ``events`` (from version
    ``since`` + 1) hold its start."""
    for offset, event in enumerate(events):
        if (isinstance(event, PhaseStarted) and event.phase is Phase.FINAL_HARVEST) or (
                isinstance(event, FieldHarvested) and event.final):
            return since + offset
    return None


def updates(table_id: UUID, game: Game, events: list[Event], since: int,
            actors: list[str | None] | None = None) -> dict[str, dict[str, Any]]:
    """Every group's update after a command: one per seat and the spectators' (the bot
    accounts among the players looked up once for them all)."""
    bot_seats = bot_account_seats(game)
    out = {seat_group(table_id, seat): seat_update(game, seat, events, since, actors,
                                                   bot_seats)
           for seat in range(game.state.players)}
    out[spectator_group(table_id)] = seat_update(game, SPECTATOR, events, since, actors,
                                                 bot_seats)
    return out


_rulesets: dict[tuple[str, int, str], Ruleset] = {}


def _ruleset(table: Table) -> Ruleset:
    """The table's rules, worked out once per process for each preset, player count and
    house rules (a table with house rules took 2 ms a frame to customise them again)."""
    key = (table.preset, table.players, json.dumps(table.overrides, sort_keys=True))
    found = _rulesets.get(key)
    if found is None:
        if len(_rulesets) > 1000:
            _rulesets.clear()
        found = _rulesets[key] = table.ruleset()
    return found


FRAMES_KEPT = 256
"""Frames this process keeps once drawn, for the other clients of the same group (the
spectators, a seat open in two tabs) who are sent the same update in the same language."""


class Drawn:
    """An update drawn for one perspective in one language: the ``state`` frame with the
    whole drawing in its answer, and the drawing's regions
    (``replays.drawing.draw_regions``) from which a connection is sent what changed
    (:func:`frame_text`); or the frame without the drawing (``html`` None, no regions).

    Kept as JSON text, not as the frame's dictionaries: a process keeps the last
    :data:`FRAMES_KEPT`, a few new ones a command, and as dictionaries and lists (the
    view's data, the legal moves, the log) they were tens of thousands of objects that
    lived long enough for the garbage collector to walk them again and again: its
    middle generation took 65-78 ms at a time in bench/live.py, holding the event loop.
    Text is not walked."""

    __slots__ = ("_whole", "answer_head", "head", "html", "regions")

    def __init__(self, frame: dict[str, Any], regions: list[tuple[str, str]],
                 rules: str, table: str) -> None:
        # The frame's JSON without its answer (the last key) and closing brace, and the
        # answer's without its HTML (the last key): a frame sent is spliced from them,
        # the same text as the frame encoded whole. ``rules``: the text of the rules,
        # the first of the frame's facts (:func:`rules_text`); ``table``: the text of
        # the answer's table, the key before its HTML (:func:`seat_update`).
        answer = frame["answer"]
        keys = list(frame)
        assert keys[-3:] == ["facts", "log", "answer"]
        assert list(answer)[-2:] == ["table", "html"] or list(answer)[-1] == "table"
        facts = json_text(frame["facts"])
        self.head = (f'{json_text({k: frame[k] for k in keys[:-3]})[:-1]},"facts":{{"rules":'
                     f'{rules}{"," if len(facts) > 2 else ""}{facts[1:]},"log":'
                     f'{json_text(frame["log"])}')
        self.answer_head = (json_text({k: v for k, v in answer.items()
                                       if k not in ("table", "html")})[:-1]
                            + ',"table":' + table)
        self.html: str | None = answer.get("html")
        self.regions = tuple(regions)
        self._whole: str | None = None

    @property
    def frame(self) -> dict[str, Any]:
        """The frame as a client reads it (tests, the bench; never the hot path)."""
        decoded: dict[str, Any] = json.loads(self.whole())
        return decoded

    def whole(self) -> str:
        """The frame as JSON text, encoded once for every client sent it whole."""
        if self._whole is None and self.html is None:
            self._whole = f'{self.head},"answer":{self.answer_head}}}}}'
        elif self._whole is None:
            html = encode_basestring_ascii(self.html or "")
            self._whole = f'{self.head},"answer":{self.answer_head},"html":{html}}}}}'
        return self._whole

    def with_parts(self, parts: list[tuple[str, str]]) -> str:
        """The frame as JSON text with the regions ``parts`` in its answer instead of
        the whole drawing."""
        listed = ",".join(f"[{html_text(key)},{html_text(html)}]" for key, html in parts)
        return f'{self.head},"answer":{self.answer_head},"parts":[{listed}]}}}}'


_ascii_json = json.JSONEncoder(separators=(",", ":")).encode


def json_text(value: Any) -> str:
    """Compact JSON text, ``json.dumps(value, separators=(",", ":"))`` to the byte, by
    orjson where that gives the same (ASCII text: the frames stay ASCII, a string
    Python copies and encodes to UTF-8 without converting it). The standard encoder
    took 47 µs on a frame's head (the table's data, the legal moves), orjson 4 µs.
    A string orjson refuses (a lone surrogate, which JSON's ``\\ud800`` reads as: a
    client's ``ref`` echoed) goes to the standard encoder, which escapes it; it once
    closed the client's socket with 1011."""
    try:
        text = orjson.dumps(value)
    except orjson.JSONEncodeError:
        return _ascii_json(value)
    return text.decode() if text.isascii() else _ascii_json(value)


@functools.lru_cache(maxsize=4096)
def html_text(html: str) -> str:
    """A region of the drawing (or its key) as a JSON string, encoded once per process
    for each region drawn: most of a frame's regions are a seat drawn as it was
    (``replays.drawing``'s memos hand out the same text), and encoding them afresh was
    a fifth of drawing a frame. Looking one up hashes it once (Python keeps a string's
    hash) and compares it by identity."""
    return encode_basestring_ascii(html)


def frame_text(drawn: Drawn, shown: dict[str, str]) -> str:
    """The JSON text of ``drawn``'s frame for a connection last sent the regions
    ``shown`` (empty: nothing yet, or the client asked for the whole view), which it is
    then sent: the regions that changed (``answer.parts``, ``answer.html`` left out),
    or the whole drawing if the regions are not the same ones (the game ended, a seat
    was handed to its bot). ``shown`` is updated to what the client now holds.

    Each frame is sent to the connection it was computed for, in order (a consumer
    handles its messages one at a time), so ``shown`` is what the client was sent; a
    client that drops a frame (a gap in versions) asks for the whole view again."""
    regions = drawn.regions
    if drawn.html is None:  # nothing drawn: the connection asked for no drawing
        return drawn.whole()
    if len(shown) == len(regions) and all(key in shown for key, _ in regions):
        text = drawn.with_parts([(key, html) for key, html in regions if shown[key] != html])
    else:
        text = drawn.whole()
    shown.clear()
    shown.update(regions)
    return text


_frames: OrderedDict[tuple[Any, ...], Drawn] = OrderedDict()
_frames_lock = threading.Lock()


def answer_for(update: dict[str, Any], table: Table, *, html: bool = True) -> Drawn:
    """The frame a client is sent for ``update``, in the active language: drawn once
    per update, perspective and language in this process, and shared by every client
    it serves who is sent the same (:func:`_draw_answer`). ``html``: with the table's
    drawing (a program playing a seat asks for frames without it: ``?html=0``)."""
    key = (table.id, update["since"], update["version"], update["head_hash"], update["seat"],
           tuple(update["players"]), tuple(update["facts"].get("bot_accounts") or ()),
           translation.get_language(), html)
    with _frames_lock:
        found = _frames.get(key)
        if found is not None:
            _frames.move_to_end(key)
            return found
    drawn = _draw_answer(update, table, html=html)
    with _frames_lock:
        _frames[key] = drawn
        while len(_frames) > FRAMES_KEPT:
            _frames.popitem(last=False)
    return drawn


def _draw_answer(update: dict[str, Any], table: Table, *, html: bool = True) -> Drawn:
    """The table answer (the one drawing of the table, unless not ``html``), the
    redacted events narrated, the legal moves."""
    ruleset = _ruleset(table)
    events = [event_from_json(e) for e in update["events"]]
    data = orjson.loads(update["table_json"])
    regions: list[tuple[str, str]] = []
    # The seats a bot account plays, as the update says (looked up when it was built):
    # marked on the seats drawn and on the log's lines, as the replay viewer marks them.
    marked = set(update["facts"].get("bot_accounts") or ())
    players = update["players"]
    if html:
        changed = changes_of(events) if events else Changes()
        now = changes_of(events[-1:]) if events else Changes()
        answer, regions = table_answer_regions(
            data, players, ruleset, step=update["version"], steps=update["version"],
            head_hash=update["head_hash"], changed=changed, now=now,
            bots=frozenset(players[n] for n in marked if n < len(players)))
    else:
        answer = table_answer_undrawn(data, step=update["version"], steps=update["version"],
                                      head_hash=update["head_hash"])
    narrator = Narrator(ruleset, tuple(
        bot_account_mark(short_name(s["name"])) if n in marked else short_name(s["name"])
        for n, s in enumerate(data["seats"])), words())
    told = ([event_from_json(e) for e in update["history"]] if "history" in update
            else events)
    actors = update.get("history_actors" if "history" in update else "actors") or []
    actors = list(actors) + [None] * (len(told) - len(actors))
    return Drawn({
        "type": "state",
        "protocol": PROTOCOL,
        "table_id": str(table.id),
        "game": str(table.game_id),
        "since": update["since"],
        "version": update["version"],
        "head_hash": update["head_hash"],
        "seat": update["seat"],
        "finished": update["finished"],
        "legal": update["legal"],
        "facts": update["facts"],
        # One line per event, the same in every frame that tells it (a frame carries a
        # slice of the record, so the deal is not folded here as the replay's log folds
        # it); a move the clock or the absence rule played told as theirs.
        "log": [narrator.describe(event, actor)
                for event, actor in zip(told, actors, strict=False)],
        "answer": answer,
    }, regions, update["rules"], update["table_json"])


def ref_of(value: object) -> int | str | None:
    """A frame's ``ref`` as it is echoed: a whole number or a string of at most 40
    characters (docs/protocol.md); anything else is not echoed."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        return None
    return value if len(str(value)) <= 40 else None


def error_frame(code: str, reason: str, *, ref: object = None,
                retry_after: float | None = None, version: int | None = None,
                head_hash: str | None = None) -> dict[str, Any]:
    """A refusal: ``code`` from ``play.refusals.CODES`` (what a program reads),
    ``reason`` in prose (what a person reads)."""
    frame: dict[str, Any] = {"type": "error", "protocol": PROTOCOL, "code": code,
                             "reason": reason, "ref": ref_of(ref), "version": version,
                             "head_hash": head_hash}
    if retry_after is not None:
        frame["retry_after"] = round(retry_after, 1)
    return frame


def with_ref(text: str, ref: int | str) -> str:
    """A ``state`` frame's JSON text with the ``ref`` of the command it reflects to its
    connection (the frame's text is shared by every connection sent it: the ref is
    spliced in for the one)."""
    assert text.startswith('{"type":"state"')
    return '{"type":"state","ref":' + json_text(ref) + text[len('{"type":"state"'):]


# -- reading and playing --------------------------------------------------------------


def current(table: Table, perspective: Perspective) -> dict[str, Any]:
    """The perspective's whole view, rebuilt from the store (a client that connects,
    reconnects or saw a gap), with the game's last :data:`LOG_LINES` events redacted
    for it (``history``: the frame's log, not a change to show)."""
    assert table.game_id is not None
    game = load(table.game_id, fresh=True)
    update = seat_update(game, perspective, [], game.version)
    store = games()
    rows = store.recorder.select_events(game.id, gt=max(0, game.version - LOG_LINES),
                                        lte=game.version)
    entries = [store.game_mapper.to_entry(row) for row in rows]
    if game.state.finished and entries:
        update["facts"]["harvested_at"] = _before_final_harvest(
            [entry.event for entry in entries], entries[0].seq - 1)
    update["history"] = [event_to_json(redact(entry.event, perspective)) for entry in entries]
    update["history_actors"] = [entry.actor for entry in entries]
    return update


@dataclass
class Played:
    """A command stored: the game after it and every group's update."""

    game: Game
    updates: dict[str, dict[str, Any]]


def submit(table_id: UUID, game_id: UUID, command: Command, actor: str,
           expected_version: int | None = None, *, exact: bool = False,
           person: bool = False) -> Played:
    """Decide ``command`` on the stored game and store it. ``person``: ``actor`` is a
    person (``user:<name>``), whose command is refused (``play.authority.NotYourSeat``)
    unless they play the command's seat now. ``expected_version``: the
    version the client saw; a table that had moved on when the command arrived
    refuses it (:class:`StaleFrame`), also when another process's move reaches the
    store first, unless every move since is another seat's on its own beans
    (:func:`_seen_enough`). A command without ``expected_version`` that loses a race in the store
    to another is decided again on the game as stored, while it is still legal
    (IllegalMove otherwise). Nothing is stored for a refused command.

    ``exact`` (the clock's and the bots' moves, which the driver worked out from the
    game it held): the move is stored on that game's version or not at all. Played
    again after another process's move, a clock's default move would be a second one
    (StaleFrame; the held game is read again for the driver's next look).

    Runs in any worker thread: the game held in memory is played on under its lock
    (:func:`game_lock`), so one table's commands in this process go one at a time and
    different tables' side by side."""
    with game_lock(game_id):
        return _submit(table_id, game_id, command, actor, expected_version, exact=exact,
                       person=person)


def _moved_on(game: Game, expected_version: int) -> StaleFrame:
    return StaleFrame(f"the table moved on (step {game.version}; you saw "
                      f"{expected_version}): look again")


APART_LIMIT = 32
"""The most events a command's version may be behind and still be judged as apart
(:func:`_seen_enough`): more, and it is stale without reading them."""


def _apart(event: Event, seat: int) -> bool:
    """Whether ``event`` is another seat's move on its own beans only: a plant, a
    harvest (not the end's) or a third field bought by a seat other than ``seat``. Such
    a move touches that seat's hand, trade area, fields and treasury and the discard
    pile, and changes neither the phase, the turn, nor ``seat``'s cards, fields or
    offers: it changes nothing a move of ``seat`` depends on."""
    if isinstance(event, FieldHarvested):
        return event.seat != seat and not event.final
    return isinstance(event, BeanPlanted | ThirdFieldBought) and event.seat != seat


def _seen_enough(game: Game, expected_version: int, command: Command) -> int:
    """The version ``command`` is judged on, given the version its client saw: the
    game's own when every event stored since that version is :func:`_apart` from the
    command's seat (in phase 3 every seat plants at once, and a bot's plant between a
    person's look and their harvest changes nothing the harvest depends on); else the
    command is stale (:class:`StaleFrame`). A command played on is still decided by the
    rules on the game as it is."""
    if game.version == expected_version:
        return expected_version
    since = events_between(game, expected_version, APART_LIMIT)
    if since is not None and all(_apart(event, seat_of(command)) for event in since):
        return game.version
    raise _moved_on(game, expected_version)


def _submit(table_id: UUID, game_id: UUID, command: Command, actor: str,
            expected_version: int | None, *, exact: bool, person: bool) -> Played:
    store = games()
    game = load(game_id)
    if expected_version is not None and game.version < expected_version:
        game = caught_up(game_id)  # another process moved it on
    if expected_version is not None:
        expected_version = _seen_enough(game, expected_version, command)
    fresh = False
    for attempt in range(RACE_RETRIES):
        since = game.version
        if person:
            # ``person``: a person's command, refused unless ``actor`` plays the seat in
            # the game as stored (a bot once it was handed over: the game that says so
            # wins any race in the store, and this is judged again on it).
            require_seat(game, seat_of(command), actor)
        try:
            entries = store.play_on(game, command, actor)
        except IllegalMove:
            if fresh:
                raise
            if exact:
                load(game_id, fresh=True)
                raise
            # The held game may be behind another process's commands: judge it on the
            # stored game before refusing it.
            game, fresh = load(game_id, fresh=True), True
            if expected_version is not None:
                expected_version = _seen_enough(game, expected_version, command)
            continue
        except StaleCommand:
            if exact:
                load(game_id, fresh=True)
                raise StaleFrame("another move was stored first: this one is dropped"
                                 ) from None
            if expected_version is not None:
                # Another process stored a move on the version the client saw: the
                # table moved on before this command, which is refused as stale (as
                # when this process already held that move), never judged on a table
                # the client has not seen, unless every move since is apart from it.
                game, fresh = load(game_id, fresh=True), True
                expected_version = _seen_enough(game, expected_version, command)
                continue
            logger.info("table %s: a command lost a race (try %d); deciding it again",
                        table_id, attempt + 1)
            game, fresh = load(game_id, fresh=True), True
            continue
        send_order.stored()  # its updates go after those stored before it
        events = [entry.event for entry in entries]
        return Played(game, updates(table_id, game, events, since,
                                    [entry.actor for entry in entries]))
    raise TableBusy("the table is too busy: try again")


__all__ = [
    "LOBBY_GROUP",
    "PROTOCOL",
    "Drawn",
    "GameNotFound",
    "IllegalMove",
    "Played",
    "StaleFrame",
    "TableBusy",
    "account_changed",
    "account_group",
    "answer_for",
    "bot_account_seats",
    "current",
    "error_frame",
    "frame_text",
    "group_for",
    "json_text",
    "lobby_changed",
    "ref_of",
    "running_table",
    "seat_group",
    "seat_update",
    "spectator_group",
    "submit",
    "tell",
    "updates",
    "with_ref",
]
