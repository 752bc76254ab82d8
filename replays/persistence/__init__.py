"""The event store: `eventsourcing` recorders on Django's own database connections.

Set ``PERSISTENCE_MODULE=replays.persistence`` (and optionally ``DJANGO_DB_ALIAS``) and an
application stores its events through ``django.db.connections[alias]``, inside
``transaction.atomic(using=alias)``. Called inside a caller's ``atomic()`` block, a recorder
joins that transaction, so events, tracking records and read models commit or roll back
together. The same code runs on SQLite and PostgreSQL; ``connection.vendor`` only picks the
SQL dialect.

Tables are named after the application, as ``eventsourcing.postgres`` names them, so several
applications share one database: ``games_events`` (and ``games_notification_counter`` on
PostgreSQL), ``games_snapshots``, ``games_tracking``; without a name ``stored_events``,
``notification_tracking``.

eventsourcing resolves ``PERSISTENCE_MODULE`` by importing this package and taking the one
subclass of its ``InfrastructureFactory`` among the package's attributes
(``InfrastructureFactory.construct``): :class:`DjangoFactory`, also named ``Factory``. So
this module imports no other factory class, and re-exports what the platform and its
tests import from ``replays.persistence``. Its modules, by what they do:

============================  ==================================================================
``datastore``                 one Django alias: connections, the driver's cursors, transactions
``recorders``                 stored events by aggregate and version (snapshots), tracking records
``application_recorder``      an application's events: gapless notification ids, the version rule
``pgcopy``                    PostgreSQL's binary ``COPY`` for large batches
``subscription``              ``subscribe()``: LISTEN/NOTIFY, or an in-process doorbell and polling
``errors``                    driver errors as the library's; a lost connection
``retries``                   trying a call again on a new connection; a save stored once
``django_cursor``             what Django's cursor does around a statement (a wall, Django 5.2.19)
``factory``                   the infrastructure factory
``tables``                    the platform's own tables (the migrations)
============================  ==================================================================
"""

from __future__ import annotations

from replays.persistence.application_recorder import (
    COLUMNS_PER_EVENT,
    DjangoApplicationRecorder,
    DjangoProcessRecorder,
)
from replays.persistence.datastore import (
    PG_MAX_PARAMS,
    ROWS_PER_INSERT,
    DjangoDatastore,
    insert_chunks,
)
from replays.persistence.errors import ConnectionLost, OutOfSequenceError, is_disconnect
from replays.persistence.factory import DjangoFactory, Factory
from replays.persistence.pgcopy import PG_COPY_FROM
from replays.persistence.recorders import (
    DjangoAggregateRecorder,
    DjangoRecorder,
    DjangoTrackingRecorder,
)
from replays.persistence.retries import RECONNECT_WAITS
from replays.persistence.subscription import DjangoSubscription
from replays.persistence.tables import (
    STORE_APPLICATIONS,
    STORE_PROJECTIONS,
    create_store_tables,
    drop_store_tables,
)

__all__ = [
    "COLUMNS_PER_EVENT",
    "PG_COPY_FROM",
    "PG_MAX_PARAMS",
    "RECONNECT_WAITS",
    "ROWS_PER_INSERT",
    "STORE_APPLICATIONS",
    "STORE_PROJECTIONS",
    "ConnectionLost",
    "DjangoAggregateRecorder",
    "DjangoApplicationRecorder",
    "DjangoDatastore",
    "DjangoFactory",
    "DjangoProcessRecorder",
    "DjangoRecorder",
    "DjangoSubscription",
    "DjangoTrackingRecorder",
    "Factory",
    "OutOfSequenceError",
    "create_store_tables",
    "drop_store_tables",
    "insert_chunks",
    "is_disconnect",
]
