"""The eventsourcing infrastructure factory: the recorders on the Django alias named by
``DJANGO_DB_ALIAS``, each application's tables named after it (``games_events``,
``games_snapshots``, ``gamelist_tracking``...), created on first use unless
``CREATE_TABLE`` says no.
"""

from __future__ import annotations

from typing import Any, cast

from eventsourcing.persistence import (
    AggregateRecorder,
    ApplicationRecorder,
    InfrastructureFactory,
    ProcessRecorder,
)
from eventsourcing.utils import Environment, EnvType, resolve_topic, strtobool

from replays.persistence.application_recorder import (
    DjangoApplicationRecorder,
    DjangoProcessRecorder,
)
from replays.persistence.datastore import DjangoDatastore
from replays.persistence.recorders import (
    DjangoAggregateRecorder,
    DjangoRecorder,
    DjangoTrackingRecorder,
)


class DjangoFactory(InfrastructureFactory[DjangoTrackingRecorder]):
    """Builds recorders on the Django alias named by ``DJANGO_DB_ALIAS`` ("default")."""

    DJANGO_DB_ALIAS = "DJANGO_DB_ALIAS"
    CREATE_TABLE = "CREATE_TABLE"
    ORIGINATOR_ID_TYPE = "ORIGINATOR_ID_TYPE"

    aggregate_recorder_class: type[DjangoAggregateRecorder] = DjangoAggregateRecorder
    application_recorder_class: type[DjangoApplicationRecorder] = DjangoApplicationRecorder
    tracking_recorder_class: type[DjangoTrackingRecorder] = DjangoTrackingRecorder
    process_recorder_class: type[DjangoProcessRecorder] = DjangoProcessRecorder

    def __init__(self, env: Environment | EnvType | None):
        super().__init__(env)
        self.datastore = DjangoDatastore(
            self.env.get(self.DJANGO_DB_ALIAS) or "default",
            originator_id_type=self.env.get(self.ORIGINATOR_ID_TYPE) or "uuid",
        )

    def _prefix(self, default: str) -> str:
        return self.env.name.lower() or default

    def env_create_table(self) -> bool:
        return bool(strtobool(self.env.get(self.CREATE_TABLE) or "yes"))

    def _created(self, recorder: DjangoRecorder) -> None:
        if self.env_create_table():
            recorder.create_table()

    def _topic_class(self, key: str, default: type[Any], base: type[Any]) -> type[Any]:
        topic = self.env.get(key)
        cls: type[Any] = resolve_topic(topic) if topic else default
        if not (isinstance(cls, type) and issubclass(cls, base)):
            msg = f"{key} {topic!r} is not a subclass of {base.__qualname__}"
            raise OSError(msg)
        return cls

    def aggregate_recorder(self, purpose: str = "events") -> AggregateRecorder:
        recorder = type(self).aggregate_recorder_class(
            datastore=self.datastore, events_table_name=f"{self._prefix('stored')}_{purpose}"
        )
        self._created(recorder)
        return recorder

    def application_recorder(self) -> ApplicationRecorder:
        cls = self._topic_class(self.APPLICATION_RECORDER_TOPIC,
                                type(self).application_recorder_class, DjangoApplicationRecorder)
        recorder = cls(datastore=self.datastore,
                       events_table_name=f"{self._prefix('stored')}_events")
        self._created(recorder)
        return cast(ApplicationRecorder, recorder)

    def tracking_recorder(
        self, tracking_recorder_class: type[DjangoTrackingRecorder] | None = None
    ) -> DjangoTrackingRecorder:
        cls = tracking_recorder_class or self._topic_class(
            self.TRACKING_RECORDER_TOPIC, type(self).tracking_recorder_class,
            DjangoTrackingRecorder,
        )
        if not issubclass(cls, DjangoTrackingRecorder):
            msg = f"{cls.__qualname__} is not a subclass of DjangoTrackingRecorder"
            raise OSError(msg)
        recorder = cls(datastore=self.datastore,
                       tracking_table_name=f"{self._prefix('notification')}_tracking")
        self._created(recorder)
        return recorder

    def process_recorder(self) -> ProcessRecorder:
        cls = self._topic_class(self.PROCESS_RECORDER_TOPIC,
                                type(self).process_recorder_class, DjangoProcessRecorder)
        recorder = cls(datastore=self.datastore,
                       events_table_name=f"{self._prefix('stored')}_events",
                       tracking_table_name=f"{self._prefix('notification')}_tracking")
        self._created(recorder)
        return cast(ProcessRecorder, recorder)

    def close(self) -> None:
        """Nothing to close: the connections are Django's (closed with their threads)."""


Factory = DjangoFactory
"""The name eventsourcing looks a persistence module's factory up by, among others."""

__all__ = ["DjangoFactory", "Factory"]
