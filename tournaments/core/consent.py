"""Consent: who may enter whom into a competition.

A person is entered only by themselves (joining a competition open for entries, or
being its organiser) or by accepting an invitation; the organiser who names other
people invites them (``Competition.Invited``) and their games get no table, their names
no game and no rating, until they say yes (``Competition.Accepted``). Bots are entered by whoever
may enter them: a built-in or installed bot by anyone, a bot account
(:class:`play.models.BotAccount`) only by its owner. The platform has no owner of a
bot account other than the account itself (``manage.py bot_token NAME`` makes it, and
it signs in by token only), so a bot account is entered only when it is the organiser,
or from the command line with ``--consented``.

The rules are here once, for every competition that takes people (one whose games with
people are played at live tables): :func:`sort_people` splits the people an organiser
names into those entered at once and those invited, and :func:`save` stores a
competition with its :class:`~tournaments.models.Invitation` rows (the read model a
person's invitations page queries) in one transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from eventsourcing.application import Application
from eventsourcing.persistence import IntegrityError

from bohnanza_core.pairings import MAX_ENTRANTS
from play.models import BotAccount
from tournaments.core.competition import Competition, CompetitionError
from tournaments.core.entrants import person_entrant, username_of
from tournaments.models import Invitation

INVITED: Final = Invitation.Status.INVITED.value
ACCEPTED: Final = Invitation.Status.ACCEPTED.value
DECLINED: Final = Invitation.Status.DECLINED.value
EXPIRED: Final = Invitation.Status.EXPIRED.value
MAX_USERNAME = 150
"""Django's longest username: the people fields are bounded by it."""


@dataclass(frozen=True)
class People:
    """The people an organiser named, sorted by consent."""

    entered: list[str]
    """Entered at once: the organiser themselves, and (``consented``) everyone."""
    invited: list[str]
    """Asked: entered only once they accept."""


def named_people(text: str) -> list[str]:
    """The entrants of the people named (usernames, comma-separated); refused
    (CompetitionError, translated) unless each has an account."""
    # Each name once: "rita, rita" asks rita once, it is not a second invitation.
    names = list(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    names = names[:MAX_ENTRANTS + 1]
    if len(names) > MAX_ENTRANTS:
        raise CompetitionError(_("At most %(count)d people.") % {"count": MAX_ENTRANTS})
    known = set(get_user_model().objects.filter(username__in=names)
                .values_list("username", flat=True))
    unknown = [n for n in names if n not in known]
    if unknown:
        raise CompetitionError(_("No player named %(name)s.")
                               % {"name": unknown[0][:MAX_USERNAME]})
    return [person_entrant(n) for n in names]


def sort_people(people: Sequence[str], organiser: str | None, *,
                consented: bool = False) -> People:
    """Split the people an organiser names (person entrants, ``user:<name>``): the
    organiser is entered, anyone else invited; with ``consented`` (the command line's
    operator, who states that the people agreed elsewhere) everyone is entered. A bot
    account named by anyone but itself is refused (CompetitionError, translated): it
    cannot sign in to accept, and only its owner enters it."""
    if consented:
        return People(list(people), [])
    others = [p for p in people if p != organiser]
    bots = set(BotAccount.objects.filter(
        user__username__in=[username_of(p) for p in others]).values_list(
        "user__username", flat=True))
    for person in others:
        if username_of(person) in bots:
            raise CompetitionError(
                _("%(name)s is a bot account: only its owner enters it.")
                % {"name": (username_of(person) or "")[:MAX_USERNAME]})
    return People([p for p in people if p == organiser], others)


def enter_bot_account(app: Any, competition_id: Any, account: BotAccount, *,
                      charge: Callable[[Competition], None]) -> str:
    """Enter a bot account in a competition, its owner consenting (the caller checked
    who asks: the owner, or the bot with its owner's standing consent). Only where its
    games are played at live tables, with the competition's clock: a ladder at any
    time (it plays the next tick), another competition while it takes entries.
    ``charge`` counts the entry against a quota (``quotas.entries_changed``), in the
    transaction that stores it, and may refuse it (a CompetitionError).
    Returns its entrant id; CompetitionError (translated) when it cannot enter,
    ``tournaments.core.store.CompetitionNotFound`` for no such competition. A lost race
    with another change is tried again."""
    entrant = person_entrant(account.user.get_username())
    for _attempt in range(5):
        competition = app.get(competition_id)
        if competition.live is None:
            raise CompetitionError(_("Bot accounts play at live tables: this competition "
                                     "has none."))
        if not (competition.continuous or competition.entries_open):
            raise CompetitionError(_("This competition takes no more entries."))
        competition.enter(entrant)
        try:
            with transaction.atomic():
                charge(competition)
                save(app, competition)
        except IntegrityError:
            continue
        return entrant
    raise CompetitionError(_("The competition is busy: try again."))


def record_invitations(competition_id: Any, invitations: dict[str, str]) -> None:
    """Bring the :class:`Invitation` rows of one competition in line with its
    invitations (entrant: status), as its events left them."""
    if not invitations:
        return
    users = dict(get_user_model().objects.filter(
        username__in=[username_of(e) for e in invitations]).values_list("username", "pk"))
    rows = {row.user_id: row for row in Invitation.objects.filter(
        competition_id=competition_id)}
    now = timezone.now()
    for entrant, status in invitations.items():
        username = username_of(entrant)
        pk = users.get(username) if username is not None else None
        if pk is None:  # the account has been deleted since
            continue
        row = rows.get(pk)
        if row is None:
            Invitation.objects.create(competition_id=competition_id, user_id=pk,
                                      status=status,
                                      answered_at=None if status == INVITED else now)
        elif row.status != status:
            row.status = status
            row.answered_at = now
            row.save(update_fields=["status", "answered_at"])


def save(app: Application[Any], aggregate: Any) -> None:
    """Store ``aggregate`` (a competition) and its invitations' rows in one transaction:
    the rows first, the events last (the store's counter is held from the events'
    insert to the commit: replays/persistence/)."""
    with transaction.atomic():
        record_invitations(aggregate.id, getattr(aggregate, "invitations", {}))
        app.save(aggregate)


def pending_invitations(user: Any) -> int:
    """How many invitations ``user`` has not answered (the profile's link says so)."""
    return Invitation.objects.filter(user=user, status=INVITED).count()


__all__ = ["ACCEPTED", "DECLINED", "EXPIRED", "INVITED", "People", "enter_bot_account",
           "named_people",
           "pending_invitations", "record_invitations", "save", "sort_people"]
