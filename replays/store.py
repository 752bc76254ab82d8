"""The platform's event store: one :class:`bohnanza_core.games.Games` application per
process, on Django's database (``replays.persistence``), and who may see what of it.

Everything Django code does with games goes through here:

- :func:`games` gives the application (start, play, game at a step, record);
- :func:`after_save` hooks are called after each stored command (the read models'
  catch-up registers one), inside nothing: the events are already committed;
- :func:`access` decides, for a request, whether a game may be opened at all and
  which perspectives may be shown: a seat (its own hand), the spectator (only what
  is public), or everything, the last only once the game has ended.
"""

from __future__ import annotations

import hmac
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import transaction
from eventsourcing.persistence import Recording

from bohnanza_core.games import Game, GameNotFound, Games, StoredRuns
from bohnanza_core.views import EVERYTHING, SPECTATOR, Perspective
from replays.persistence import DjangoApplicationRecorder

_lock = threading.Lock()
_games: Games | None = None
_after_save: list[Callable[[], None]] = []


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
    """Forget the application (tests that change the database between them)."""
    from replays.caching import forget_games

    global _games
    with _lock:
        if _games is not None:
            _games.close()
        _games = None
    forget_games()


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
        return Access(False, (), "this game is private: open it with its share link")
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
