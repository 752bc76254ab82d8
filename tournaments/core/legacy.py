"""Competitions, ladders and leagues stored before there was one competitions core,
read as competitions.

They were three aggregates (``tournaments.competitions:Tournament``,
``tournaments.ladders:Ladder``, ``tournaments.leagues:League``), each with events of
its own. Their stored events are left as they are: :func:`register` maps each old
topic to the competition's class or event that means the same (the library's own way
for renamed classes, ``eventsourcing.utils.register_topic``), and the upcasters below
(the library's ``class_version`` and ``upcast_v1_v2``) turn an old event's state into
the new shape as it is read:

==============================  ===========================  ================================
old event                       read as                      upcast
==============================  ===========================  ================================
``Tournament.Created``          ``Competition.Created``      ``created_by`` is the organiser;
``Ladder.Created``                                           a ladder's ``interval`` its
``League.Created``                                           schedule; a league's divisions,
                                                             moves and seasons its options;
                                                             the id scheme kept (:data:`SCHEMES
                                                             <tournaments.core.competition.
                                                             SCHEMES>`)
``Ladder.Joined``               ``Competition.Entered``      (the same)
``Ladder.TickPaired``           ``Competition.RoundPaired``  a tick's matches are its games,
``League.SeasonStarted``                                     each its own deal; a season's
                                                             fixtures and divisions
``Ladder.TickEnded``            ``Competition.RoundEnded``   nobody moved (a ladder, a
``Tournament.RoundEnded``                                    competition)
``League.SeasonEnded``
``*.Rated``                     ``Competition.Rated``        the tick or season dropped
==============================  ===========================  ================================

The other events (entries, invitations and their answers, live play, finishing) have
the same shape under their new name. Tested against a store made by the old code
(tests/tournaments/test_legacy.py).
"""

from __future__ import annotations

from typing import Any

from eventsourcing.utils import register_topic

OLD = ("tournaments.competitions:Tournament", "tournaments.ladders:Ladder",
       "tournaments.leagues:League")
"""The old aggregates' topics."""

RENAMED = {
    "Created": ("Tournament.Created", "Ladder.Created", "League.Created"),
    "Entered": ("Tournament.Entered", "Ladder.Joined", "League.Entered"),
    "RoundPaired": ("Tournament.RoundPaired", "Ladder.TickPaired", "League.SeasonStarted"),
    "RoundEnded": ("Tournament.RoundEnded", "Ladder.TickEnded", "League.SeasonEnded"),
    "Rated": ("Tournament.Rated", "Ladder.Rated", "League.Rated"),
    "Finished": ("Tournament.Finished",),
    "Left": ("League.Left",),
    "Invited": ("League.Invited",),
    "Accepted": ("League.Accepted",),
    "Declined": ("League.Declined",),
    "Expired": ("League.Expired",),
    "PlayedLive": ("League.PlayedLive",),
}
"""Each competition event, and the old events read as it (by class name)."""

_MODULES = {"Tournament": "tournaments.competitions", "Ladder": "tournaments.ladders",
            "League": "tournaments.leagues"}


def old_topics() -> dict[str, str]:
    """Every old topic: the name of the competition's class or event it is read as
    ("" for the aggregate itself)."""
    topics = {topic: "" for topic in OLD}
    for new, olds in RENAMED.items():
        for old in olds:
            kind = old.split(".", 1)[0]
            topics[f"{_MODULES[kind]}:{old}"] = new
    return topics


def register(competition: Any) -> None:
    """Read every old topic as the competition's class or event it means."""
    for topic, name in old_topics().items():
        register_topic(topic, getattr(competition, name) if name else competition)


def created(state: dict[str, Any]) -> None:
    """An old ``Created`` (a competition's, a ladder's or a league's) as a competition's."""
    state["organiser"] = state.pop("created_by", None)
    if "interval" in state:  # a ladder
        state.update(format="ladder", options={}, every=state.pop("interval"), scheme="ladder")
    elif "divisions" in state:  # a league
        state.update(format="league", every=0, scheme="league",
                     options={k: state.pop(k) for k in ("divisions", "moves", "seasons")})
    else:  # a competition: name, format, options, ruleset, table, secret
        state.update(every=0, scheme="round")


def round_paired(state: dict[str, Any]) -> None:
    """A tick's matches, a season's fixtures or a round's games as a round's games."""
    if "tick" in state:
        state["round"] = state.pop("tick")
        state["games"] = [[seats, i] for i, seats in enumerate(state.pop("matches"))]
        state["divisions"] = []
    elif "season" in state:
        state["round"] = state.pop("season")
        state["games"] = [[seats, i] for i, (_division, seats)
                          in enumerate(state.pop("fixtures"))]
    else:
        state["divisions"] = []


def round_ended(state: dict[str, Any]) -> None:
    """A tick's or season's end as a round's: who moved (a season's) kept."""
    for old in ("tick", "season"):
        if old in state:
            state["round"] = state.pop(old)
    state.setdefault("promoted", [])
    state.setdefault("relegated", [])


def rated(state: dict[str, Any]) -> None:
    """Ratings after a tick or season: which one is their place in the history."""
    state.pop("tick", None)
    state.pop("season", None)


__all__ = ["OLD", "RENAMED", "created", "old_topics", "rated", "register", "round_ended",
           "round_paired"]
