"""The platform's own tables: those of its applications and projections, created by the
migrations (``0001_event_store``) and dropped on their reverse."""

from __future__ import annotations

from collections.abc import Sequence

from replays.persistence.application_recorder import DjangoApplicationRecorder
from replays.persistence.datastore import DjangoDatastore
from replays.persistence.recorders import (
    DjangoAggregateRecorder,
    DjangoRecorder,
    DjangoTrackingRecorder,
)

STORE_APPLICATIONS: tuple[str, ...] = ("Games", "Disputes")
"""The platform's event-sourced applications: each gets events, counter and snapshots tables."""
STORE_PROJECTIONS: tuple[str, ...] = ("GameList",)
"""The platform's projections (materialised views): each gets a tracking table."""


def _store_recorders(
    alias: str, applications: Sequence[str], projections: Sequence[str]
) -> list[DjangoRecorder]:
    datastore = DjangoDatastore(alias)
    recorders: list[DjangoRecorder] = []
    for name in applications:
        prefix = name.lower()
        recorders.append(DjangoApplicationRecorder(datastore, events_table_name=f"{prefix}_events"))
        recorders.append(DjangoAggregateRecorder(datastore,
                                                 events_table_name=f"{prefix}_snapshots"))
    for name in projections:
        recorders.append(DjangoTrackingRecorder(datastore,
                                                tracking_table_name=f"{name.lower()}_tracking"))
    return recorders


def create_store_tables(
    alias: str = "default",
    applications: Sequence[str] = STORE_APPLICATIONS,
    projections: Sequence[str] = STORE_PROJECTIONS,
) -> None:
    """Create the tables of the platform's applications and projections (the migration)."""
    for recorder in _store_recorders(alias, applications, projections):
        recorder.create_table()


def drop_store_tables(
    alias: str = "default",
    applications: Sequence[str] = STORE_APPLICATIONS,
    projections: Sequence[str] = STORE_PROJECTIONS,
) -> None:
    for recorder in _store_recorders(alias, applications, projections):
        recorder.drop_table()


__all__ = ["STORE_APPLICATIONS", "STORE_PROJECTIONS", "create_store_tables",
           "drop_store_tables"]
