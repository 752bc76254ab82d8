"""Disputes: a player of a finished game says an event is wrong; an arbiter rules on it.

A dispute is an ``eventsourcing`` aggregate of its own, stored in its own application
(:class:`Disputes`, tables ``disputes_*`` beside ``games_*``): the complaint and the
ruling are immutable events like the game's, so who complained of what, and who ruled
how and when, is a record too.

- :class:`Dispute.Opened` (``game_id``, ``event_seq``, ``complaint``, ``opened_by``): a
  player of the game (``user:<name>``, as in :attr:`Game.players`) points at one event
  of a finished game and says what is wrong with it.
- :class:`Dispute.Ruled` (``ruling`` "upheld" or "rejected", ``explanation``,
  ``arbiter``): the arbiter's answer. A dispute is ruled once; a ruling is final.

Who is an arbiter: an active **staff** account (``is_staff``), the same accounts the
site's navigation shows the dispute list to; nothing else to set up, and the admin
grants or withdraws it with one tick. No one rules on a game they played in.

The read side is the application's notification log: every :class:`Dispute.Opened`
names one dispute, and the aggregates are loaded from there. That is one query plus
one load per dispute, fine for the few disputes a platform sees; a projection can
replace it if they ever number in the thousands.

The Django-facing functions (:func:`open_dispute`, :func:`rule_dispute`,
:func:`standing`, :func:`disputes_for`) take the request's user; refusals are
:class:`NotAllowed` (HTTP 403), :class:`DisputeNotFound` (404) or
:class:`DisputeRefused` (400, bad input), and in each case nothing is stored.
"""

from __future__ import annotations

import threading
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final
from uuid import UUID

from django.utils.translation import gettext as _
from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.domain import Aggregate
from eventsourcing.persistence import IntegrityError
from eventsourcing.utils import get_topic

from bohnanza_core import fastpath
from bohnanza_core.games import Game, GameNotFound
from replays.store import games, store_env

UPHELD: Final = "upheld"
REJECTED: Final = "rejected"
RULINGS: Final = (UPHELD, REJECTED)
MAX_COMPLAINT = 2000
"""Characters in a complaint: enough to explain one event, short enough to read."""
MAX_EXPLANATION = 4000

_lock = threading.Lock()
_disputes: Disputes | None = None


class DisputeRefused(ValueError):
    """The request is not one a dispute can be made of (bad input); nothing stored."""


class NotAllowed(DisputeRefused):
    """This account may not do that (not a player, not an arbiter); nothing stored."""


class DisputeNotFound(LookupError):
    """No dispute with this id."""


# -- the aggregate -------------------------------------------------------------------


class Dispute(Aggregate):
    """One complaint about one event of one finished game, and its ruling."""

    class Opened(Aggregate.Created):
        game_id: UUID
        event_seq: int
        complaint: str
        opened_by: str

    class Ruled(Aggregate.Event):
        ruling: str
        explanation: str
        arbiter: str

        def apply(self, aggregate: Any) -> None:
            aggregate.ruling = self.ruling
            aggregate.explanation = self.explanation
            aggregate.arbiter = self.arbiter
            aggregate.ruled_at = self.timestamp

    def __init__(self, game_id: UUID, event_seq: int, complaint: str, opened_by: str) -> None:
        self.game_id = game_id
        self.event_seq = event_seq
        self.complaint = complaint
        self.opened_by = opened_by
        self.ruling: str | None = None
        self.explanation = ""
        self.arbiter: str | None = None
        self.ruled_at: datetime | None = None

    @property
    def ruled(self) -> bool:
        return self.ruling is not None

    @property
    def status(self) -> str:
        """ "open", "upheld" or "rejected"."""
        return self.ruling or "open"

    def rule(self, ruling: str, explanation: str, arbiter: str) -> None:
        """Record the ruling; a dispute already ruled, a ruling that is neither upheld
        nor rejected, or no explanation is refused."""
        if self.ruled:
            raise DisputeRefused(
                _("this dispute was already ruled %(ruling)s by %(arbiter)s; a ruling is "
                  "final") % {"ruling": _(self.ruling or ""), "arbiter": person(self.arbiter)})
        if ruling not in RULINGS:
            raise DisputeRefused(_("a ruling is either 'upheld' or 'rejected'"))
        explanation = explanation.strip()
        if not explanation:
            raise DisputeRefused(_("say why: the players read the explanation with the "
                                   "ruling"))
        if len(explanation) > MAX_EXPLANATION:
            raise DisputeRefused(_("the explanation is %(n)s characters long; at most "
                                   "%(max)s") % {"n": len(explanation), "max": MAX_EXPLANATION})
        self.trigger_event(Dispute.Ruled, ruling=ruling, explanation=explanation,
                           arbiter=arbiter)


# -- the application -----------------------------------------------------------------


class Disputes(Application[UUID]):
    """Every dispute of the platform, stored as events."""

    name = "Disputes"

    def open(self, game: Game, event_seq: int, complaint: str, opened_by: str) -> Dispute:
        """Open a dispute about event ``event_seq`` of ``game`` for player ``opened_by``.
        Refused (nothing stored) unless the game has ended, ``opened_by`` sat at it,
        the event exists and the complaint says something."""
        if opened_by not in game.players:
            raise NotAllowed(_("only a player of this game may open a dispute about it"))
        if not game.finished:
            raise NotAllowed(_("a dispute is opened once the game has ended, on its whole "
                               "record"))
        if not 1 <= event_seq <= game.version:
            raise DisputeRefused(_("there is no event #%(seq)s: this game's record has "
                                   "events #1 to #%(last)s") % {"seq": event_seq,
                                                                 "last": game.version})
        complaint = complaint.strip()
        if not complaint:
            raise DisputeRefused(_("say what is wrong with the event"))
        if len(complaint) > MAX_COMPLAINT:
            raise DisputeRefused(_("the complaint is %(n)s characters long; at most "
                                   "%(max)s") % {"n": len(complaint), "max": MAX_COMPLAINT})
        dispute = fastpath.create(Dispute, Dispute.Opened, game_id=game.id,
                                  event_seq=event_seq, complaint=complaint,
                                  opened_by=opened_by)
        self.save(dispute)
        return dispute

    def rule(self, dispute_id: UUID, ruling: str, explanation: str, arbiter: str) -> Dispute:
        """Record an arbiter's ruling (see :meth:`Dispute.rule`); two arbiters ruling
        at once: the second is refused."""
        dispute = self.dispute(dispute_id)
        dispute.rule(ruling, explanation, arbiter)
        try:
            self.save(dispute)
        except IntegrityError:
            raise DisputeRefused(_("another arbiter ruled on this dispute first; this "
                                   "ruling was not stored")) from None
        return dispute

    def dispute(self, dispute_id: UUID) -> Dispute:
        try:
            dispute: Any = self.repository.get(dispute_id)
        except AggregateNotFoundError:
            raise DisputeNotFound(f"no dispute {dispute_id}") from None
        assert isinstance(dispute, Dispute)
        return dispute

    def all(self) -> list[Dispute]:
        """Every dispute, from the notification log: open ones first, newest first."""
        topic = get_topic(Dispute.Opened)
        ids: list[UUID] = []
        start = 1
        while True:
            page = self.recorder.select_notifications(start, 500, topics=[topic])
            ids.extend(UUID(str(n.originator_id)) for n in page)
            if len(page) < 500:
                break
            start = page[-1].id + 1
        found = [self.dispute(i) for i in ids]
        found.sort(key=lambda d: d.created_on, reverse=True)
        found.sort(key=lambda d: d.ruled)
        return found


def disputes() -> Disputes:
    """The process's Disputes application (created on first use), on the same store
    as :func:`replays.store.games`."""
    global _disputes
    with _lock:
        if _disputes is None:
            _disputes = Disputes(env=store_env())
        return _disputes


def reset_disputes() -> None:
    """Forget the application and the rulings read from it (tests that change the
    database between them)."""
    global _disputes
    with _lock:
        if _disputes is not None:
            _disputes.close()
        _disputes = None
    forget_rulings()


# -- what the game's pages show -------------------------------------------------------

_rulings: tuple[Any, dict[UUID, tuple[tuple[int, str], ...]]] | None = None


def rulings_of(game_id: UUID) -> tuple[tuple[int, str], ...]:
    """The ruled disputes of a game, as (event number, ruling), oldest event first.
    Re-read from the store whenever any dispute was opened or ruled (the disputes'
    last notification, two small queries, says so), so a ruling shows on the next
    request; a game's pages (``replays.caching``) key their answers on them."""
    global _rulings
    store = disputes()
    recorder: Any = store.recorder
    last = recorder.max_notification_id() or 0
    newest = recorder.select_notifications(last, 1) if last else []
    mark = (last, *((newest[0].originator_id, newest[0].originator_version) if newest else ()))
    known = _rulings
    if known is None or known[0] != mark:
        by_game: dict[UUID, list[tuple[int, str]]] = {}
        for dispute in store.all():
            if dispute.ruling is not None:
                by_game.setdefault(dispute.game_id, []).append(
                    (dispute.event_seq, dispute.ruling))
        known = (mark, {game: tuple(sorted(found)) for game, found in by_game.items()})
        _rulings = known
    return known[1].get(game_id, ())


def forget_rulings() -> None:
    """Drop the rulings read so far (the next :func:`rulings_of` reads them again)."""
    global _rulings
    _rulings = None


# -- who may do what -----------------------------------------------------------------


def account(user: Any) -> str | None:
    """How the store names a signed-in account (``user:<name>``), None if anonymous."""
    if user is None or not user.is_authenticated:
        return None
    return f"user:{user.get_username()}"


def person(who: str | None, bots: Collection[str] = ()) -> str:
    """A store name as people read it, in the reader's language: ``ann``, "Heuristic
    bot", "the table", and a bot account (one of ``bots``, the page's
    :func:`replays.table.bot_accounts`) "robo (bot account)"
    (:func:`replays.table.display_player`)."""
    from django.utils.translation import gettext

    from replays.table import display_player

    if who is None:
        return gettext("the table")
    return display_player(who, bots)


def is_arbiter(user: Any) -> bool:
    """Arbiters are active staff accounts (see the module's docstring)."""
    return bool(user is not None and user.is_authenticated and user.is_active
                and user.is_staff)


@dataclass(frozen=True)
class Standing:
    """What a user is to a dispute: its arbiter, a player of its game, or neither."""

    arbiter: bool
    player: bool

    @property
    def may_see(self) -> bool:
        return self.arbiter or self.player


def standing(user: Any, game: Game) -> Standing:
    who = account(user)
    return Standing(arbiter=is_arbiter(user), player=who is not None and who in game.players)


def game_of(dispute: Dispute) -> Game:
    """The disputed game (it is never deleted; GameNotFound means a broken store)."""
    return games().game(dispute.game_id)


def open_dispute(user: Any, game_id: UUID, event_seq: int, complaint: str) -> Dispute:
    """A signed-in player opens a dispute about an event of a finished game."""
    who = account(user)
    if who is None:
        raise NotAllowed(_("sign in as a player of this game to open a dispute"))
    try:
        game = games().game(game_id)
    except GameNotFound:
        raise DisputeNotFound(f"no game {game_id}") from None
    return disputes().open(game, event_seq, complaint, who)


def rule_dispute(user: Any, dispute_id: UUID, ruling: str, explanation: str) -> Dispute:
    """An arbiter rules; anyone else, or an arbiter who played in the game, is refused."""
    dispute = disputes().dispute(dispute_id)
    if not is_arbiter(user):
        raise NotAllowed(_("only an arbiter (a staff account) may rule on a dispute"))
    who = account(user)
    assert who is not None
    if who in game_of(dispute).players:
        raise NotAllowed(_("you played in this game: another arbiter must rule on it"))
    return disputes().rule(dispute_id, ruling, explanation, who)


def disputes_for(user: Any) -> list[tuple[Dispute, Game]]:
    """The disputes a user may see, with their games: all of them for an arbiter,
    for anyone else those about games they played in."""
    who = account(user)
    if who is None:
        return []
    arbiter = is_arbiter(user)
    cache: dict[UUID, Game] = {}
    out = []
    for dispute in disputes().all():
        if dispute.game_id not in cache:
            cache[dispute.game_id] = games().game(dispute.game_id)
        game = cache[dispute.game_id]
        if arbiter or who in game.players:
            out.append((dispute, game))
    return out


__all__ = ["MAX_COMPLAINT", "MAX_EXPLANATION", "REJECTED", "RULINGS", "UPHELD", "Dispute",
           "DisputeNotFound", "DisputeRefused", "Disputes", "NotAllowed", "Standing",
           "account", "disputes", "disputes_for", "forget_rulings", "game_of", "is_arbiter",
           "open_dispute", "person", "reset_disputes", "rule_dispute", "rulings_of",
           "standing"]
