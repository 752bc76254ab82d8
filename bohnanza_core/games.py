"""Games in an event store: the ``eventsourcing`` aggregate and application.

A :class:`Game` aggregate is one table's record. Each engine event (deal, plant,
trade step, draw...) is stored as one aggregate event, :class:`Game.Happened` (the
first one :class:`Game.Started`), carrying the engine event itself, who issued the
command it records, and the hash of the entry before it (:mod:`bohnanza_core.record`).
The aggregate's state is the engine's :class:`~bohnanza_core.state.GameState`,
rebuilt by :func:`~bohnanza_core.engine.evolve`; snapshots hold it whole, so any step
of any game rebuilds from the nearest snapshot plus a few events.

:class:`Games` is the application: start a game, play a command (validated by the
rules first, so an illegal one stores nothing), read the record, rebuild any step.
Where the events are stored is the environment's business (``PERSISTENCE_MODULE``):
the platform uses its Django-backed module ``replays.persistence``; tests and the
command line may use the library's in-memory or SQLite modules.

Two commands racing on one table are settled by the store: both are decided on the
same version, the first to be saved wins, the second hits the unique (game, version)
key and raises :class:`StaleCommand`; nothing of it is stored.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import itertools
import json
import secrets
from abc import abstractmethod
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from typing import Any, ClassVar, overload
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.domain import Aggregate
from eventsourcing.persistence import (
    IntegrityError,
    JSONTranscoder,
    Mapper,
    Recording,
    StoredEvent,
    Transcoding,
)
from eventsourcing.utils import get_topic

from bohnanza_core.cards import BeanKind
from bohnanza_core.commands import Command, seat_of
from bohnanza_core.commitments import new_salt, new_seed
from bohnanza_core.engine import evolve, new_game, play
from bohnanza_core.events import EVENT_TYPES, Event, GameStarted
from bohnanza_core.export import event_from_json, event_to_json
from bohnanza_core.fastpath import (
    DeferringAggregate,
    FastApplication,
    LazyRecordings,
    become,
    create,
    frozen,
    project_events,
)
from bohnanza_core.record import _ENCODERS as _EVENT_ENCODERS
from bohnanza_core.record import (
    GENESIS,
    Entry,
    Sealer,
    canonical_entry,
    commitments_for,
    entry_bytes,
    event_encoder,
    json_string,
    revealed,
)
from bohnanza_core.rulesets import Ruleset
from bohnanza_core.state import STATE_FIELDS, GameState, Offer, Phase, Result

SNAPSHOT_INTERVAL = 100
"""A snapshot is taken after each command that crosses a multiple of this many
events, so any step lies at most this many events plus one command's after one."""
TOURNAMENT_NAME_MAX = 100
"""The longest name of the competition a game is played in (``Game.Started.tournament``):
a competition, ladder or league is refused a longer name, and the game list holds it."""


class GameNotFound(LookupError):
    """No game with this id in the store."""


class StaleCommand(Exception):
    """The table moved on before this command could be stored: another command was
    recorded first. Nothing of this command was stored; look at the table again."""


# -- the aggregate -----------------------------------------------------------------


class Game(DeferringAggregate):
    """One table: its engine state, the head of its hash chain, and how it is listed.

    Its events are recorded the fast way (bohnanza_core.fastpath): each command's
    events wait unchained and are chained in one loop when anything asks (the head,
    the library's pending events, a snapshot, a save); its snapshots are taken in
    memory as it plays."""

    snapshots_in_memory = True

    class Started(Aggregate.Created):
        event: GameStarted
        actor: str | None
        previous_hash: str
        players: tuple[str, ...]
        private: bool
        tournament: str | None
        share_token: str

        def apply(self, aggregate: Any) -> None:
            aggregate._record(self)

    class Happened(Aggregate.Event):
        event: Event
        actor: str | None
        previous_hash: str
        commitments: tuple[str, ...]

        def apply(self, aggregate: Any) -> None:
            aggregate._record(self)

    def __init__(
        self, players: tuple[str, ...], private: bool, tournament: str | None, share_token: str
    ) -> None:
        self._players = tuple(players)
        self.private = private
        self.tournament = tournament
        self.share_token = share_token
        self.__dict__["state"] = None  # until GameStarted is applied (:attr:`state`)
        self.head_hash = GENESIS
        self.chain_broken_at: int | None = None

    # The head of the chain lives in the instance's __dict__ under "head_hash" (where
    # snapshots keep it), behind this property, which first writes out the commands
    # played but not yet chained (see _happen).
    @property
    def head_hash(self) -> str:
        """The hash of the last entry of the record (GENESIS before the first)."""
        self._seal()
        head: str = self.__dict__["head_hash"]
        return head

    @head_hash.setter
    def head_hash(self, value: str) -> None:
        self.__dict__["head_hash"] = value

    def _record(self, stored: Game.Started | Game.Happened) -> None:
        """Apply a stored event when the game is rebuilt: check its link in the chain,
        move the head, evolve the table."""
        canonical = canonical_entry(stored.originator_version, stored.event, stored.actor,
                                    stored.timestamp.isoformat(), stored.previous_hash,
                                    _commitments(stored))
        if stored.previous_hash != self.head_hash and self.chain_broken_at is None:
            self.chain_broken_at = stored.originator_version
        self.head_hash = hashlib.sha256(canonical).hexdigest()
        self.__dict__["state"] = evolve(self.__dict__["state"], stored.event)

    # The engine's state lives in the instance's __dict__ under "state", where the
    # library's snapshots store and restore it; the property gives it typed and never
    # None (a game exists from its GameStarted on).
    @property
    def state(self) -> GameState:
        """The game as it stands now: the engine's :class:`GameState`, rebuilt from
        the events."""
        state: GameState | None = self.__dict__["state"]
        assert state is not None, "a game's state exists from its GameStarted on"
        return state

    @property
    def players(self) -> tuple[str, ...]:
        """Who sits in each seat ("user:ann", "bot:heuristic"); a tuple however the
        game was rebuilt (a snapshot's JSON gives lists)."""
        return tuple(self._players)

    def holder(self, seat: int) -> str:
        """Who plays ``seat`` now, as the record names them: its player
        (``user:ann``), or ``bot:<name>`` once the seat was handed to a bot
        (``SeatHandedToBot``). Whoever else sat there once plays and sees it no more:
        every seat's authority (a live command, a seat's view over a socket or a page)
        is decided by this, at the game's version being played or shown."""
        handed = self.state.seat_bots[seat]
        return f"bot:{handed}" if handed else self.players[seat]

    def seats_held_by(self, player: str) -> list[int]:
        """The seats ``player`` (``user:ann``) plays now (:meth:`holder`)."""
        return [seat for seat in range(len(self.players)) if self.holder(seat) == player]

    @property
    def finished(self) -> bool:
        state: GameState | None = self.__dict__["state"]
        return state is not None and state.finished

    def play(self, command: Command, actor: str | None) -> list[Event]:
        """Play ``command`` by the rules (IllegalMove: nothing happens) and record
        every event it causes, each chained to the one before.

        The engine applies the events to the table as it decides them (no copy of
        the table per command: bench/store.py), so recording them must not apply
        them again."""
        events = play(self.state, command)
        self._happen(events, actor, applied=True)
        return events

    # -- recording ---------------------------------------------------------------
    #
    # This is the platform's hottest path: every action of every game, some 650 a
    # game, against a rules engine that plays a whole game in about 8 ms. The
    # library's route (trigger_event: keyword copies, dataclass construction, version
    # checks, the mutate protocol, then a mapper per event) costs more than the rules
    # themselves, so recording is written out here in two steps (bench/store.py,
    # section record):
    #
    # - _happen, per command: the version moves on (DeferringAggregate.advance) and
    #   the command's events wait, with its actor and time, in "_unsealed";
    # - _seal, when anything asks for the head, the pending events or a snapshot:
    #   each waiting event is written in canonical form (record.entry_bytes, the one
    #   writer of an entry's layout) and chained, into "_sealed" rows, in one tight
    #   loop.
    #
    # What the library sees is unchanged: pending_events and collect_events give
    # Game.Happened events (made from the rows on demand: take_deferred_events), and
    # Games.save stores the rows' canonical bytes as they are (GameMapper).

    def _happen(self, events: list[Event], actor: str | None, *,
                applied: bool = False) -> None:
        """Record ``events`` as one command's, issued by ``actor`` (None: the table):
        one timestamp, the next versions, chained when sealed."""
        if not applied:
            done = 0
            try:
                for event in events:
                    self.__dict__["state"] = evolve(self.__dict__["state"], event)
                    done += 1
            finally:  # what the table took, even if it refused an event
                events = events[:done]
        if not events:
            return
        now = Game.Happened.create_timestamp()
        before = self.advance(len(events), now)
        waiting = self.__dict__.get("_unsealed")
        if waiting is None:
            waiting = self.__dict__["_unsealed"] = []
        waiting.append((events, actor, now, before))
        if (before + len(events)) // SNAPSHOT_INTERVAL > before // SNAPSHOT_INTERVAL:
            self.__dict__.setdefault("_snapshots_due", []).append(self._snapshot())

    def _seal(self) -> None:
        """Write every waiting event in canonical form, chained to the one before, each
        hidden value as its salted commitment (bohnanza_core.commitments), the values
        themselves kept after the canonical bytes for the store."""
        waiting = self.__dict__.get("_unsealed")
        if not waiting:
            return
        rows: list[_Row] = self.__dict__.setdefault("_sealed", [])
        append = rows.append
        encoders = _EVENT_ENCODERS
        sha256 = hashlib.sha256
        sealer = self.__dict__.get("_sealer")
        if sealer is None:
            sealer = self.__dict__["_sealer"] = Sealer(self.state.salt)
        seal = sealer.seal
        previous: str = self.__dict__["head_hash"]
        for events, actor, now, version in waiting:
            # An ISO time needs no escaping, so it is quoted by hand.
            at = '"' + now.isoformat() + '"'
            # Only the event that opens the command records the decision; what the
            # rules do after it (turning over, drawing, a planting that ends because
            # the hand is empty...) is the table's, as in record.command_actors.
            who, actor_json = actor, "null" if actor is None else json_string(actor)
            for event in events:
                version += 1
                cls = type(event)
                encode = encoders.get(cls) or event_encoder(cls)
                if cls.SECRET:
                    sealed, values = seal(event, version)
                    body = encode(event, sealed)
                else:
                    sealed, values = (), ""
                    body = encode(event)
                # previous is a hex digest: entry_bytes writes it as it is.
                canonical = entry_bytes(actor_json, at, body, previous, version)
                stored = canonical + b"\n" + values.encode() if values else canonical
                append((version, event, who, now, previous, stored, sealed))
                previous = sha256(canonical).hexdigest()
                who, actor_json = None, "null"
        waiting.clear()
        self.__dict__["head_hash"] = previous

    def _take_sealed(self) -> list[_Row]:
        """Every waiting event, chained, taken out of the game."""
        self._seal()
        rows: list[_Row] = self.__dict__.pop("_sealed", [])
        return rows

    def collect_rows(self) -> tuple[list[Any], list[_Row]]:
        """Everything to store since the last save, in order: the library's pending
        events (the first, Game.Started) and then the sealed rows."""
        rows = self._take_sealed()
        return list(self.collect_listed_events()), rows

    def take_deferred_events(self) -> list[Game.Happened]:
        """The sealed rows as Game.Happened events, for the library's pending events."""
        return [_happened(self.id, row) for row in self._take_sealed()]

    def unsaved_entries(self) -> list[Entry]:
        """The record entries of the events not yet saved, in order."""
        self._seal()
        entries = [entry_of(e) for e in self.listed_pending_events()
                   if isinstance(e, Game.Started | Game.Happened)]
        entries += [Entry(version, event, actor, now.isoformat(), previous, sealed)
                    for version, event, actor, now, previous, _, sealed in
                    self.__dict__.get("_sealed", ())]
        return entries

    def _snapshot(self) -> Any:
        """A snapshot of the game after this command, with its own copy of the table
        (the live one keeps changing until the snapshot is stored)."""
        self._seal()
        snapshot = Game.Snapshot.take(self)
        for transient in _TRANSIENT:
            snapshot.state.pop(transient, None)
        snapshot.state["state"] = self.state.copy()
        return snapshot

    def collect_snapshots(self) -> list[Any]:
        """The snapshots taken at multiples of :data:`SNAPSHOT_INTERVAL` since the
        last save, to be stored with its events (``snapshots_in_memory``)."""
        due: list[Any] = self.__dict__.pop("_snapshots_due", [])
        return due


_Row = tuple[int, Event, "str | None", datetime, str, bytes, tuple[str, ...]]
"""A sealed event: version, event, actor, time, previous hash, what the store keeps
(the canonical bytes, then, for an event with hidden values, a newline and the values
as a JSON object: :func:`stored_form`) and the commitments to its hidden values."""

_SAVE_FAILED = "_save_failed"
"""Set on a game whose save raised: it may be ahead of the store (Games.play_on)."""

_TRANSIENT = ("_snapshots_due", "_unsealed", "_sealed", "_sealer", _SAVE_FAILED)
"""Aggregate attributes that live only between a command and its save."""


def _happened(originator_id: UUID, row: _Row) -> Game.Happened:
    version, event, actor, now, previous, stored, sealed = row
    # _stored rides along for GameMapper, which stores exactly these bytes.
    return frozen(Game.Happened, {
        "originator_id": originator_id, "originator_version": version, "timestamp": now,
        "event": event, "actor": actor, "previous_hash": previous, "commitments": sealed,
        "_stored": stored})


def _domain_events(game_id: UUID, events: Sequence[Any], rows: Sequence[_Row]
                   ) -> Callable[[], list[Any]]:
    """How to make the domain events of a save: its library events, then its rows as
    Game.Happened events (made only if someone asks: LazyRecordings)."""
    return lambda: [*events, *(_happened(game_id, row) for row in rows)]


def _commitments(stored: Game.Started | Game.Happened) -> tuple[str, ...]:
    """What the chain holds of a stored event's hidden values: kept with a
    Game.Happened; for Game.Started (stored by the library's transcoder) computed
    from the salt it holds."""
    if isinstance(stored, Game.Happened):
        sealed: tuple[str, ...] = stored.commitments
        return sealed
    event = stored.event
    assert isinstance(event, GameStarted) and event.salt is not None
    return commitments_for(event, stored.originator_version, event.salt)


def entry_of(stored: Game.Started | Game.Happened) -> Entry:
    """The record entry a stored aggregate event stands for."""
    return Entry(stored.originator_version, stored.event, stored.actor,
                 stored.timestamp.isoformat(), stored.previous_hash, _commitments(stored))


def stored_form(entry: Entry) -> bytes:
    """What the store keeps of an entry: its canonical bytes (whose hash the next
    entry holds) and, for an event with hidden values, a newline and the values as a
    canonical JSON object. A canonical entry holds no raw newline (JSON escapes it),
    so the first newline is where the values begin."""
    canonical = entry.canonical()
    if not entry.event.SECRET:
        return canonical
    return canonical + b"\n" + revealed(entry.event).encode()


# -- how events and snapshots are written (eventsourcing Transcodings) ---------------


class _EngineEventAsDict(Transcoding):
    """An engine event as its export form (docs/events.md), one transcoding per type."""

    event_type: ClassVar[type[Event]]

    def encode(self, obj: Any) -> dict[str, Any]:
        data = event_to_json(obj)
        del data["type"]
        return data

    def decode(self, data: Any) -> Event:
        return event_from_json({"type": self.name, **data}, f"stored {self.name}")


def _engine_event_transcodings() -> list[Transcoding]:
    out: list[Transcoding] = []
    for cls in EVENT_TYPES:
        transcoding = type(f"{cls.__name__}AsDict", (_EngineEventAsDict,),
                           {"type": cls, "name": cls.__name__, "event_type": cls})
        out.append(transcoding())
    return out


@functools.lru_cache(maxsize=64)
def _parameters(ruleset: Ruleset) -> dict[str, Any]:
    """A ruleset's parameters, worked out once: half of every snapshot, and a game keeps
    its ruleset (bench/store.py, record). Only read, never changed, by the encoder."""
    return ruleset.parameters()


class GameStateAsDict(Transcoding):
    """The whole table, secrets included, for snapshots (which never leave the server)."""

    type = GameState
    name = "bohnanza_game_state"

    def encode(self, obj: Any) -> dict[str, Any]:
        s: GameState = obj
        data = {name: getattr(s, name) for name in STATE_FIELDS}
        data["ruleset"] = _parameters(s.ruleset)
        data["phase"] = s.phase.value
        del data["kinds"]
        data["offers"] = [
            [o.number, o.proposer, o.counterparty, list(o.gives),
             [[kind.value, n] for kind, n in o.wants], sorted(o.declined_by)]
            for o in s.offers.values()
        ]
        data["result"] = (None if s.result is None
                          else [list(s.result.coins), list(s.result.winners),
                                list(s.result.ranks)])
        return data

    def decode(self, data: Any) -> GameState:
        ruleset = Ruleset.from_parameters(data["ruleset"])
        s = GameState(ruleset, tuple(data["seats"]), data["seed"], data["salt"],
                      data["seed_commitment"])
        for name in STATE_FIELDS:
            if name not in ("kinds", "ruleset", "seats", "phase", "offers", "result",
                            "seat_bots"):
                setattr(s, name, data[name])
        # Snapshots taken before seats could be handed to bots have no seat_bots.
        s.seat_bots = list(data.get("seat_bots") or [""] * len(data["seats"]))
        s.phase = Phase(data["phase"])
        s.offers = {
            number: Offer(number, proposer, counterparty, tuple(gives),
                          tuple((BeanKind(kind), n) for kind, n in wants), set(declined))
            for number, proposer, counterparty, gives, wants, declined in data["offers"]
        }
        result = data["result"]
        s.result = None if result is None else Result(*(tuple(part) for part in result))
        return s


_JSON = json.JSONDecoder()


@functools.lru_cache(maxsize=1024)
def _uuid(text: str) -> UUID:
    """A game's id from its text; a game's rows all carry the same one."""
    return UUID(text)


class GameMapper(Mapper[UUID]):
    """Stores a :class:`Game.Happened` as exactly the canonical bytes of its record
    entry (:meth:`bohnanza_core.record.Entry.canonical`), whose SHA-256 is the next
    entry's ``previous_hash``, followed for an event with hidden values by those
    values (:func:`stored_form`): a database row can be checked against the chain as
    it is, and an event is encoded once, not once for the hash and again for the
    store (bench/store.py). Everything else (the first event, snapshots) goes through
    the library's transcoder. Compression and encryption, if configured, still apply."""

    happened_topic = get_topic(Game.Happened)

    def to_stored_event(self, domain_event: Any) -> StoredEvent:
        if type(domain_event) is not Game.Happened:
            return super().to_stored_event(domain_event)
        state = domain_event.__dict__.get("_stored") or stored_form(entry_of(domain_event))
        if self.compressor:
            state = self.compressor.compress(state)
        if self.cipher:
            state = self.cipher.encrypt(state)
        return frozen(StoredEvent, {"originator_id": domain_event.originator_id,
                                    "originator_version": domain_event.originator_version,
                                    "topic": self.happened_topic, "state": state})

    def stored_run(self, originator_id: UUID, head: Sequence[StoredEvent],
                   rows: Sequence[_Row]) -> StoredRun:
        """A save's stored events: ``head`` (already mapped) and then the game's sealed
        rows (Game._seal), stored as their canonical bytes."""
        states = [row[5] for row in rows]
        if self.compressor:
            states = [self.compressor.compress(state) for state in states]
        if self.cipher:
            states = [self.cipher.encrypt(state) for state in states]
        first = rows[0][0] if rows else 0
        return StoredRun(head, originator_id, self.happened_topic, first, states)

    def _read_row(self, stored_event: StoredEvent) -> tuple[Any, Event, tuple[str, ...]]:
        """A stored Game.Happened read back: its canonical data, its event (the hidden
        values put back in place of their commitments) and those commitments."""
        state = stored_event.state
        if self.cipher:
            state = self.cipher.decrypt(state)
        if self.compressor:
            state = self.compressor.decompress(state)
        canonical, _, values = state.decode("utf-8").partition("\n")
        data = _JSON.decode(canonical)
        body = data["event"]
        sealed: tuple[str, ...] = ()
        if values:
            secret = _SECRET_FIELDS.get(body.get("type"), ())
            sealed = tuple([body[name] for name in secret])
            body.update(_JSON.decode(values))
        return data, event_from_json(body, f"stored event {data['seq']}"), sealed

    def to_entry(self, stored_event: StoredEvent) -> Entry:
        """The record entry a stored event holds, read straight from its canonical
        bytes (no aggregate event, no timestamp parsed and written again)."""
        if stored_event.topic != self.happened_topic:
            return entry_of(self.to_domain_event(stored_event))
        data, event, sealed = self._read_row(stored_event)
        return Entry(stored_event.originator_version, event, data["actor"], data["at"],
                     data["previous_hash"], sealed)

    def to_domain_event(self, stored_event: StoredEvent) -> Any:
        if stored_event.topic != self.happened_topic:
            return super().to_domain_event(stored_event)
        data, event, sealed = self._read_row(stored_event)
        originator_id = stored_event.originator_id
        if not isinstance(originator_id, UUID):
            originator_id = _uuid(originator_id)
        return frozen(Game.Happened, {
            "originator_id": originator_id,
            "originator_version": stored_event.originator_version,
            "timestamp": datetime.fromisoformat(data["at"]),
            "event": event,
            "actor": data["actor"],
            "previous_hash": data["previous_hash"],
            "commitments": sealed,
        })


_SECRET_FIELDS: dict[str, tuple[str, ...]] = {cls.__name__: cls.SECRET for cls in EVENT_TYPES}


class _StoredEvents(Sequence[StoredEvent]):
    """A sequence of stored events built on demand: the indexing a Sequence needs
    (negative indices, slices, IndexError) around :meth:`_item`."""

    @abstractmethod
    def _item(self, index: int) -> StoredEvent:
        """The event at ``index``, already checked to be in range."""

    @overload
    def __getitem__(self, index: int) -> StoredEvent: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[StoredEvent]: ...
    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [self._item(i) for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self._item(index)


class StoredRun(_StoredEvents):
    """What a game's save stores: a few stored events (``head``), then a run of rows of
    one game and one topic with consecutive versions. Any recorder reads it as stored
    events; the platform's (replays.persistence) takes its column values straight from
    :meth:`flat_row_values`, without a StoredEvent a row: building them and reading them
    back cost a sixth of storing a game (bench/store.py, record)."""

    def __init__(self, head: Sequence[StoredEvent], originator_id: UUID, topic: str,
                 first_version: int, states: list[bytes]) -> None:
        self.head = list(head)
        self.originator_id = originator_id
        self.topic = topic
        self.first_version = first_version
        self.states = states

    def __len__(self) -> int:
        return len(self.head) + len(self.states)

    def _run_event(self, i: int) -> StoredEvent:
        return frozen(StoredEvent, {"originator_id": self.originator_id,
                                    "originator_version": self.first_version + i,
                                    "topic": self.topic, "state": self.states[i]})

    def _item(self, index: int) -> StoredEvent:
        if index < len(self.head):
            return self.head[index]
        return self._run_event(index - len(self.head))

    def __iter__(self) -> Iterator[StoredEvent]:
        yield from self.head
        for i in range(len(self.states)):
            yield self._run_event(i)

    def flat_row_values(self, encode_id: Callable[[Any], Any]) -> list[Any]:
        """Every row's (originator_id, originator_version, topic, state), in one flat
        list, with the originator id as ``encode_id`` gives it."""
        values = [value for e in self.head  # a save's first event or two
                  for value in (encode_id(e.originator_id), e.originator_version, e.topic,
                                e.state)]
        n = len(self.states)
        run = [encode_id(self.originator_id), 0, self.topic, None] * n
        run[1::4] = range(self.first_version, self.first_version + n)
        run[3::4] = self.states
        return values + run


class StoredRuns(_StoredEvents):
    """Several games' saves as one batch (:meth:`Games.save_games`): their runs one after
    another, read as stored events, or as flat column values by the platform's recorder,
    which stores them in one statement after one take of the notification counter."""

    def __init__(self, runs: Sequence[StoredRun]) -> None:
        self.runs = list(runs)
        self.ends = list(itertools.accumulate(len(run) for run in self.runs))

    def __len__(self) -> int:
        return self.ends[-1] if self.ends else 0

    def _item(self, index: int) -> StoredEvent:
        which = bisect.bisect_right(self.ends, index)
        return self.runs[which][index - (self.ends[which - 1] if which else 0)]

    def __iter__(self) -> Iterator[StoredEvent]:
        for run in self.runs:
            yield from run

    def flat_row_values(self, encode_id: Callable[[Any], Any]) -> list[Any]:
        """Every run's :meth:`StoredRun.flat_row_values`, one after another."""
        return [value for run in self.runs for value in run.flat_row_values(encode_id)]


project_game = project_events
"""How a game is rebuilt from its snapshot and events (the repository's
``projector_func``): :func:`bohnanza_core.fastpath.project_events`."""


# -- the application ---------------------------------------------------------------


class Games(FastApplication):
    """Every game of the platform, stored as events. Saving one game goes the fast way
    (bohnanza_core.fastpath): its sealed rows straight to the recorder as their
    canonical bytes (:meth:`stored_events`)."""

    name = "Games"
    snapshotting_intervals: ClassVar[dict[type[Any], int]] = {Game: SNAPSHOT_INTERVAL}

    def construct_mapper(self) -> Mapper[UUID]:
        plain: Mapper[UUID] = self.factory.mapper(transcoder=self.construct_transcoder())
        return GameMapper(plain.transcoder, compressor=plain.compressor, cipher=plain.cipher)

    def register_transcodings(self, transcoder: JSONTranscoder) -> None:
        super().register_transcodings(transcoder)
        for transcoding in _engine_event_transcodings():
            transcoder.register(transcoding)
        transcoder.register(GameStateAsDict())

    def record_aggregate(self, aggregate: DeferringAggregate) -> LazyRecordings:
        """Store a game's new events and snapshots; a game whose save failed is refused
        (StaleCommand), and one whose save fails now is marked so."""
        game = aggregate
        if game.__dict__.get(_SAVE_FAILED):
            raise StaleCommand("an earlier save of this game failed, so it no longer matches "
                               "the store: load it again (Games.game) and play on that")
        try:
            return super().record_aggregate(game)
        except BaseException:
            # Its events were taken out of it and its version moved on: saving or
            # playing on this object could only leave a gap (the store refuses one).
            # play_on loads it again; what the store holds is the truth.
            game.__dict__[_SAVE_FAILED] = True
            raise

    def stored_events(self, aggregate: DeferringAggregate
                      ) -> tuple[Sequence[StoredEvent], Callable[[], Sequence[Any]]]:
        """A game's new events as a :class:`StoredRun`: the library's pending ones
        (its first event) mapped as usual, then its sealed rows as they are."""
        if not isinstance(aggregate, Game):
            return super().stored_events(aggregate)
        game_id = aggregate.id
        events, rows = aggregate.collect_rows()
        mapper = self.game_mapper
        stored = mapper.stored_run(game_id, [mapper.to_stored_event(e) for e in events], rows)
        return stored, _domain_events(game_id, events, rows)

    @property
    def game_mapper(self) -> GameMapper:
        mapper = self.mapper
        assert isinstance(mapper, GameMapper)
        return mapper

    def save_games(self, games: Sequence[Game]) -> list[Sequence[Recording[UUID]]]:
        """Save several games' new events as one write: all or none, their rows in one
        statement after one take of the notification counter (replays.persistence), so a
        batch of games played together (a tournament task's) holds the store's counter
        row once, for the shortest time, instead of from its first game's save to the
        end. Each game's chain is sealed and mapped before anything is written.
        Returns each game's recordings, as :meth:`save` does."""
        if not games:
            return []
        for game in games:
            if game.__dict__.get(_SAVE_FAILED):
                raise StaleCommand("an earlier save of this game failed, so it no longer "
                                   "matches the store: load it again (Games.game)")
        if len({game.id for game in games}) != len(games):
            raise ValueError("a game is saved once in a batch")
        mapper = self.game_mapper
        try:
            collected = [(game, *game.collect_rows()) for game in games]
            runs = [mapper.stored_run(game.id, [mapper.to_stored_event(e) for e in events],
                                      rows) for game, events, rows in collected]
            snapshots = ([s for game in games for s in game.collect_snapshots()]
                         if self.snapshots is not None else [])
            ids = list(self._record_games(StoredRuns(runs), snapshots) or ())
            self.cache_saved(games)
        except BaseException:
            for game in games:  # as in save: what the store holds is the truth
                game.__dict__[_SAVE_FAILED] = True
            raise
        recordings: list[LazyRecordings] = []
        start = 0
        for (game, events, rows), stored in zip(collected, runs, strict=True):
            recordings.append(LazyRecordings(_domain_events(game.id, events, rows), stored,
                                             ids[start:start + len(stored)]))
            start += len(stored)
        self.notify_saved(lambda: [r for made in recordings for r in made.as_list()],
                          lambda: [e for made in recordings for e in made.domain_events()])
        return list(recordings)

    def _record_games(self, stored: StoredRuns,
                      snapshots: list[Any]) -> Sequence[int] | None:
        """Write a batch of games' events, then their snapshots (so that no snapshot is
        ever stored without its events, whatever the recorder's transactions); the
        platform's store, whose writes share one transaction, turns this round
        (replays.store)."""
        ids = self.recorder.insert_events(stored, tracking=None)
        if snapshots and self.snapshots is not None:
            self.snapshots.put(snapshots)
        return ids

    # commands

    def start(
        self,
        ruleset: Ruleset,
        seats: Sequence[str],
        seed: str | None = None,
        *,
        salt: str | None = None,
        players: Sequence[str] | None = None,
        private: bool = False,
        tournament: str | None = None,
        actor: str | None = None,
        save: bool = True,
        game_id: UUID | None = None,
        tags: Sequence[tuple[str, str]] = (),
    ) -> Game:
        """Set up a new table, deal, and store it. ``players`` says who sits in each
        seat (accounts, bots) where the seat names alone do not. ``seed`` defaults to
        a fresh secret one of 128 bits; pass one only for a deal several games share
        (and keep it secret until the last of them has ended). ``salt``, the game's
        secret salt, is always fresh, except where a finished game is brought in
        (import), whose salt is already public. With ``save=False`` nothing is stored
        yet: play on the game (``Game.play``) and save it whole, in one transaction.
        ``game_id`` (default: a fresh random one) is for games whose id must follow from
        something else, such as a tournament's pairing, so that playing it twice stores
        it once: the second save of the same id is refused by the store. ``tags``:
        what the game belongs to, recorded in its ``GameStarted`` (a competition's
        game: the competition, round, table and each seat's entrant)."""
        return self._start(ruleset, seats, seed, salt=salt, players=players,
                           private=private, tournament=tournament, actor=actor,
                           save=save, game_id=game_id, tags=tags)[0]

    def _start(
        self,
        ruleset: Ruleset,
        seats: Sequence[str],
        seed: str | None = None,
        *,
        salt: str | None = None,
        players: Sequence[str] | None = None,
        private: bool = False,
        tournament: str | None = None,
        actor: str | None = None,
        save: bool = True,
        game_id: UUID | None = None,
        tags: Sequence[tuple[str, str]] = (),
    ) -> tuple[Game, list[Event]]:
        """:meth:`start`, also giving the events stored (a bot table needs them, and
        reading them back costs as much as storing them); with ``save=False`` the
        game is only set up, to be saved whole later."""
        _, events = new_game(ruleset, seats, seed if seed is not None else new_seed(),
                             salt if salt is not None else new_salt(), tuple(tags))
        first = events[0]
        assert isinstance(first, GameStarted)
        game = create(
            Game, Game.Started, id=game_id, event=first, actor=actor, previous_hash=GENESIS,
            players=tuple(players if players is not None else seats), private=private,
            tournament=tournament, share_token=secrets.token_urlsafe(18),
        )
        game._happen(events[1:], None)
        if save:
            self.save(game)
        return game, events

    def play(
        self, game_id: UUID, command: Command, actor: str | None,
        *, expected_version: int | None = None,
    ) -> list[Entry]:
        """Play ``command`` on the stored game and store what it causes. Raises
        IllegalMove (nothing stored), GameNotFound, or StaleCommand when the table is
        not at ``expected_version`` or another command was stored first."""
        game = self.game(game_id)
        if expected_version is not None and game.version != expected_version:
            raise StaleCommand(
                f"the table is at step {game.version}, not {expected_version}: "
                "another command was recorded first"
            )
        return self.play_on(game, command, actor)

    def play_on(self, game: Game, command: Command, actor: str | None) -> list[Entry]:
        """Play ``command`` on a game held in memory (a live table's, a bot's) and store
        it. A game whose last save failed (StaleCommand included) is first loaded again
        from the store, in place, so the holder goes on from what was really stored."""
        if game.__dict__.get(_SAVE_FAILED):
            self._reload(game)
        first = game.version + 1
        game.play(command, actor)
        entries = game.unsaved_entries()
        try:
            self.save(game)
        except IntegrityError:
            raise StaleCommand(
                f"another command was recorded at step {first} first; "
                "this one was not stored"
            ) from None
        return entries

    def _reload(self, game: Game) -> None:
        """Replace everything ``game`` holds by the stored game's (GameNotFound if none of
        it was ever stored)."""
        become(game, self.game(game.id))

    # queries

    def game(self, game_id: UUID, step: int | None = None) -> Game:
        """The game as it is now, or as it was after event number ``step``."""
        try:
            game: Any = self.repository.get(game_id, version=step, projector_func=project_game)
        except AggregateNotFoundError:
            raise GameNotFound(f"no game {game_id}") from None
        assert isinstance(game, Game)
        return game

    def started(self, game_id: UUID) -> GameStarted:
        """The game's first event alone (its ruleset, seats and tags), without reading
        the rest of its record."""
        rows = self.recorder.select_events(game_id, lte=1, limit=1)
        if not rows:
            raise GameNotFound(f"no game {game_id}")
        event = self.game_mapper.to_entry(rows[0]).event
        assert isinstance(event, GameStarted)
        return event

    def record(self, game_id: UUID) -> list[Entry]:
        """Every entry of the game's record, in order, as stored."""
        mapper = self.game_mapper
        entries = [mapper.to_entry(row) for row in self.recorder.select_events(game_id)]
        if not entries:
            raise GameNotFound(f"no game {game_id}")
        return entries


class StoredBoard:
    """A table whose every command is stored as it is played (a
    :class:`bohnanza_core.simulator.Board` for bot games on the platform). Each command
    is credited to the bot in its seat: ``players[seat]``."""

    def __init__(self, games: Games, game: Game, *, save_each_command: bool = True,
                 events: Sequence[Event] | None = None) -> None:
        """``events``: the game's events so far, if known (else read from the store)."""
        self.games = games
        self.game = game
        self.players = game.players
        self.state = game.state
        self.events = (list(events) if events is not None
                       else [entry.event for entry in games.record(game.id)])
        self.save_each_command = save_each_command

    def play(self, command: Command) -> list[Event]:
        actor = self.players[seat_of(command)]
        if self.save_each_command:
            return [entry.event for entry in self.games.play_on(self.game, command, actor)]
        return self.game.play(command, actor)


def play_bot_game(
    games: Games,
    ruleset: Ruleset,
    bot_names: Sequence[str],
    seed: str | None = None,
    *,
    seats: Sequence[str] | None = None,
    players: Sequence[str] | None = None,
    private: bool = False,
    tournament: str | None = None,
    save_each_command: bool = True,
    save: bool = True,
    game_id: UUID | None = None,
    tags: Sequence[tuple[str, str]] = (),
) -> Game:
    """Play a whole bot game on the store, each command credited to ``players[seat]``
    (default ``bot:<name>``) and stored as it is played, or, with
    ``save_each_command=False`` (a tournament nobody watches live), all in one
    transaction at the end; with ``save=False`` as well, not at all (the caller saves
    several games in one transaction: a duplicate set). ``game_id``: as
    :meth:`Games.start`, and so are ``tags``. Returns the finished game."""
    from bohnanza_core.simulator import bot_classes, play_game, seat_names

    classes = bot_classes(bot_names)
    names = tuple(seats) if seats is not None else seat_names(bot_names)
    holder: list[StoredBoard] = []

    def board(rules: Ruleset, table_seats: tuple[str, ...], table_seed: str) -> StoredBoard:
        game, events = games._start(rules, table_seats, table_seed,
                                    players=(list(players) if players is not None
                                             else [f"bot:{name}" for name in bot_names]),
                                    private=private, tournament=tournament,
                                    save=save_each_command, game_id=game_id,
                                    tags=tags)
        holder.append(StoredBoard(games, game, save_each_command=save_each_command,
                                  events=events))
        return holder[0]

    # A platform game's seed is secret and unguessable (the bots' own choices follow
    # from it too); a given one is for a deal several games share.
    play_game(ruleset, classes, seed if seed is not None else new_seed(), names=names,
              board=board)
    game = holder[0].game
    if not save_each_command and save:
        games.save(game)
    return game


__all__ = ["SNAPSHOT_INTERVAL", "TOURNAMENT_NAME_MAX", "Game", "GameNotFound",
           "GameStateAsDict", "Games", "StaleCommand", "StoredBoard", "entry_of",
           "play_bot_game", "stored_form"]
