"""The platform's event store: one :class:`bohnanza_core.games.Games` application per
process, on Django's database (``replays.persistence``), and who may see what of it.

Everything Django code does with games goes through here:

- :func:`games` gives the application (start, play, game at a step, record);
- :func:`head_of` reads where a game's record ends now (one indexed query), and
  :func:`game_at` the game as it is there, rebuilt once per process and head and shared
  by the pages that read it;
- :func:`after_save` hooks are called after each stored command (the read models'
  catch-up registers one), inside nothing: the events are already committed;
- :func:`access` decides, for a request, whether a game may be opened at all and
  which perspectives may be shown: a seat (its own hand), the spectator (only what
  is public), or everything, the last only once the game has ended.
"""

from __future__ import annotations

import hashlib
import hmac
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext
from eventsourcing.persistence import Recording

from bohnanza_core.events import Event
from bohnanza_core.games import _SAVE_FAILED, Game, GameNotFound, Games, StoredRuns, project_game
from bohnanza_core.views import EVERYTHING, SPECTATOR, Perspective
from replays.persistence import DjangoApplicationRecorder

_lock = threading.Lock()
_games: Games | None = None
_after_save: list[Callable[[], None]] = []

class LoadedGames:
    """The games this process holds in memory: its one cache of them, with one bound
    each for its two kinds of entry, and one lock.

    - **Held to play on** (live tables): the latest of each game, mutated by every
      command played on it, each under its own lock (:meth:`lock`): whoever plays on it
      or reads it holds that lock (the consumers' commands run in several worker threads
      at once, one game's one at a time; the driver's looks in another). At most
      :data:`HELD` (the least recently played dropped first).
    - **Read at a head** (pages): a game rebuilt once per head and shared, never played
      on (:meth:`at`). At most :data:`READ` (a 700-event game is a few hundred kB).

    The two are kept apart because a page drawn from a held game could see it change
    under it as a command is played."""

    HELD = 500
    READ = 64

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._held: OrderedDict[UUID, Game] = OrderedDict()
        self._locks: dict[UUID, threading.RLock] = {}
        self._read: OrderedDict[tuple[UUID, int, str], Game] = OrderedDict()

    def lock(self, game_id: UUID) -> threading.RLock:
        """The lock of a held game (made on first use)."""
        with self._guard:
            lock = self._locks.get(game_id)
            if lock is None:
                lock = self._locks[game_id] = threading.RLock()
            return lock

    def held(self, game_id: UUID) -> Game | None:
        with self._guard:
            return self._held.get(game_id)

    def hold(self, game: Game) -> Game:
        """Keep ``game`` as the one held to play on (the least recently played beyond
        :data:`HELD` dropped, and their locks: a game read again is a new object)."""
        with self._guard:
            self._held[game.id] = game
            self._held.move_to_end(game.id)
            while len(self._held) > self.HELD:
                dropped, _ = self._held.popitem(last=False)
                self._locks.pop(dropped, None)
        return game

    def at(self, game_id: UUID, head: Head) -> Game:
        """The game as it is at ``head``: rebuilt once per process and head, then
        shared (readers only: nothing may play on it)."""
        key = (game_id, head.version, head.digest)
        with self._guard:
            found = self._read.get(key)
            if found is not None:
                self._read.move_to_end(key)
                return found
        game = games().game(game_id)
        if game.version == head.version:  # a command stored in between: not kept
            with self._guard:
                self._read[key] = game
                while len(self._read) > self.READ:
                    self._read.popitem(last=False)
        return game

    def clear(self) -> None:
        with self._guard:
            self._held.clear()
            self._locks.clear()
            self._read.clear()


loaded = LoadedGames()
"""This process's games in memory."""


class PlatformGames(Games):
    """Games that tell the read models when something was stored."""

    name = "Games"  # the store's tables are the Games application's, not the subclass's

    def save(self, *objs: Any, **kwargs: Any) -> Any:
        recordings = super().save(*objs, **kwargs)
        for hook in list(_after_save):
            hook()
        return recordings

    def save_games(self, games: Sequence[Game]) -> list[Sequence[Recording[UUID]]]:
        recordings = super().save_games(games)
        for hook in list(_after_save) if games else ():
            hook()
        return recordings

    def _record_games(self, stored: StoredRuns, snapshots: list[Any]) -> Sequence[int] | None:
        """The snapshots first, then the events, in one transaction (the caller's if it
        has one): the events' statement takes the store's counter row, which every other
        writer of games waits for until the commit, so it comes last."""
        recorder = self.recorder
        if not isinstance(recorder, DjangoApplicationRecorder):
            return super()._record_games(stored, snapshots)
        with transaction.atomic(using=recorder.datastore.alias, savepoint=False):
            if snapshots and self.snapshots is not None:
                self.snapshots.put(snapshots)
            return recorder.insert_events(stored, tracking=None)


def store_env() -> dict[str, str]:
    """The eventsourcing environment of the platform's applications."""
    return {
        "PERSISTENCE_MODULE": getattr(settings, "EVENT_STORE_PERSISTENCE_MODULE",
                                      "replays.persistence"),
        "DJANGO_DB_ALIAS": getattr(settings, "EVENT_STORE_DB_ALIAS", "default"),
    }


def games() -> Games:
    """The process's Games application (created on first use)."""
    global _games
    with _lock:
        if _games is None:
            _games = PlatformGames(env=store_env())
        return _games


def reset_games() -> None:
    """Forget the application and the games rebuilt from it (tests that change the
    database between them)."""
    global _games
    with _lock:
        if _games is not None:
            _games.close()
        _games = None
    forget_games()


# -- the game as stored now ---------------------------------------------------------


@dataclass(frozen=True)
class Head:
    """Where a game's record ends in the store: its version and the hash of its last
    stored row (the head hash, for every row but a lone first event)."""

    version: int
    digest: str


def head_of(game_id: UUID) -> Head:
    """The game's last stored row, read from the store (GameNotFound if none)."""
    rows = games().recorder.select_events(game_id, desc=True, limit=1)
    if not rows:
        raise GameNotFound(f"no game {game_id}")
    row = rows[0]
    # A chained row is its canonical bytes, then a newline and its hidden values;
    # the hash of the canonical bytes is the game's head hash.
    return Head(row.originator_version,
                hashlib.sha256(bytes(row.state).split(b"\n", 1)[0]).hexdigest())


def game_at(game_id: UUID, head: Head) -> Game:
    """The game as it is at ``head``, rebuilt once per process and head
    (:meth:`LoadedGames.at`; readers only)."""
    return loaded.at(game_id, head)


def forget_games() -> None:
    """Drop the games held in memory (tests that change the store under the same ids)."""
    loaded.clear()


def game_lock(game_id: UUID) -> threading.RLock:
    """The lock of the game this process plays on (:meth:`LoadedGames.lock`)."""
    return loaded.lock(game_id)


def load(game_id: UUID, *, fresh: bool = False) -> Game:
    """The game as this process last stored or read it, or (``fresh``, or not held) as
    the store has it now, held to play on. A held game may be behind another process's
    commands: a command played on it then loses its race in the store and is decided
    again on the stored game (``play.live.submit``)."""
    game = None if fresh else loaded.held(game_id)
    if game is None:
        game = games().game(game_id)
    return loaded.hold(game)


def caught_up(game_id: UUID) -> Game:
    """The held game brought up to the store's: the events other processes stored since
    applied to it (one indexed read of a few rows), where :func:`load` (``fresh``)
    rebuilds it from its last snapshot and every event after that. Two processes
    serving one table's seats take turns, so nearly every command found the held game
    one or two events behind (bench/live.py: 4% of a daphne's CPU in rebuilding).
    Read afresh if none is held, or its last save failed (it holds what was not
    stored)."""
    game = loaded.held(game_id)
    if game is None or game.__dict__.get(_SAVE_FAILED):
        return load(game_id, fresh=True)
    store = games()
    rows = store.recorder.select_events(game_id, gt=game.version)
    if rows:
        project_game(game, [store.mapper.to_domain_event(row) for row in rows])
    return game


def events_between(game: Game, since: int, limit: int) -> list[Event] | None:
    """The game's events stored after version ``since`` up to the held game's version
    (one indexed read), or None when that is more than ``limit`` or not all of them
    are there: what a live table asks to judge a move or a clock against what was
    played since a client's or a clock's version."""
    behind = game.version - since
    if not 0 < behind <= limit:
        return None
    store = games()
    rows = store.recorder.select_events(game.id, gt=since, lte=game.version)
    events = [store.game_mapper.to_entry(row).event for row in rows]
    return events if len(events) == behind else None


def after_save(hook: Callable[[], None]) -> None:
    """Call ``hook`` after every save of a game (idempotent registration)."""
    if hook not in _after_save:
        _after_save.append(hook)


def parse_game_id(text: str) -> UUID:
    """A game id from a URL; GameNotFound for anything that is not one."""
    try:
        return UUID(text)
    except ValueError:
        raise GameNotFound(f"no game {text!r}") from None


# -- who may see what ---------------------------------------------------------------


def seats_of(game: Game, username: str | None) -> list[int]:
    """The seats an account sat in at this table, from the start (players are written
    ``user:<name>``): they played the game, so a private one stays open to them."""
    if not username:
        return []
    return [i for i, who in enumerate(game.players) if who == f"user:{username}"]


def seats_held(game: Game, username: str | None) -> list[int]:
    """The seats an account plays now (``Game.holder``): a seat handed to a bot is no
    longer its person's to look at while the game runs."""
    return game.seats_held_by(f"user:{username}") if username else []


@dataclass(frozen=True)
class Access:
    """What a request may see of one game. ``perspectives`` in menu order."""

    allowed: bool
    perspectives: tuple[Perspective, ...]
    reason: str = ""

    def may_view(self, perspective: Perspective) -> bool:
        return self.allowed and perspective in self.perspectives


def access(game: Game, username: str | None, *, is_staff: bool = False,
           token: str | None = None) -> Access:
    """Whether the game may be opened, and from which perspectives.

    A private game opens only for its players, staff, or a request carrying its share
    token. While a game runs, a player may take the view of the seat they play now
    (not one they left to a bot) and anyone allowed in the spectator's; once it has
    ended, every seat and everything are public to anyone who may open it.
    """
    token_ok = token is not None and token_matches(token, game.share_token)
    if game.private and not (seats_of(game, username) or is_staff or token_ok):
        # Said to the reader (the viewer's and the audit's refusal), in their language.
        return Access(False, (), gettext("this game is private: open it with its share link"))
    seats = range(len(game.players))
    if game.finished:
        return Access(True, (EVERYTHING, SPECTATOR, *seats))
    return Access(True, (*seats_held(game, username), SPECTATOR))


def token_matches(given: str, share_token: str) -> bool:
    """Whether a token from a URL is the game's share token, in constant time.

    ``hmac.compare_digest`` refuses ``str`` holding anything but ASCII (a TypeError,
    which was a 500 for ``?token=é``), so both sides are compared as UTF-8 bytes; lone
    surrogates (which no share token holds) are encoded as they are rather than refused.
    """
    return hmac.compare_digest(given.encode("utf-8", "surrogatepass"),
                               share_token.encode("utf-8", "surrogatepass"))


def perspective_name(perspective: Perspective) -> str:
    """``seat-2``, ``spectator``, ``everything``: the perspective as URLs write it."""
    if perspective == EVERYTHING:
        return "everything"
    if perspective == SPECTATOR:
        return "spectator"
    return f"seat-{perspective}"


def parse_perspective(text: str | None, players: int) -> Perspective | None:
    """The perspective a URL names, or None if it names none that exists."""
    if text in (None, "", "spectator"):
        return SPECTATOR
    if text == "everything":
        return EVERYTHING
    if text is not None and text.startswith("seat-") and _is_seat_number(text[5:]):
        seat = int(text[5:])
        if seat < players:
            return seat
    return None


def _is_seat_number(text: str) -> bool:
    """ASCII digits, a few of them: ``str.isdigit`` also says yes to "²" and "٣", which
    ``int`` refuses or reads, and ``int`` refuses more than 4,300 digits."""
    return 0 < len(text) <= 3 and text.isascii() and text.isdigit()


def default_perspective(game: Game, username: str | None) -> Perspective:
    """A player's own seat; else everything for a finished game, the spectator's view
    for a running one."""
    mine = seats_of(game, username) if game.finished else seats_held(game, username)
    if mine:
        return mine[0]
    return EVERYTHING if game.finished else SPECTATOR
