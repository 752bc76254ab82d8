"""The contract of bohnanza_core/fastpath.py with `eventsourcing` (checked against 9.5.6).

Two kinds of check, so that an upgrade of the library that changes what the fast path
relies on fails here, by name, instead of storing games wrongly:

- the library's own application test cases (``eventsourcing.tests.application``:
  ``ExampleApplicationTestCase`` with its ``BankAccount`` aggregate from
  ``eventsourcing.tests.domain``, and ``ApplicationTestCase``), run unchanged against
  :class:`FastApplication` and :class:`DeferringAggregate`, every event recorded the
  way the game records its events (built by :func:`fastpath.frozen`, held back,
  handed over when the library asks), every save of one aggregate through the fast
  save; the library ships no aggregate test case of its own beyond that example;
- direct checks of every private name, signature and behaviour fastpath touches, and
  fingerprints of the library functions whose work it re-does (tests/walls.py).
"""

from __future__ import annotations

import threading
import time
from dataclasses import fields
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path
from typing import Any, Generic, TypeVar
from uuid import UUID, uuid4

import eventsourcing.application as es_application
import eventsourcing.domain as es_domain
import eventsourcing.persistence as es_persistence
import eventsourcing.tests.application as library_tests
import pytest
from eventsourcing.popo import POPOApplicationRecorder
from eventsourcing.sqlite import SQLiteConnectionPool, SQLiteDatastore
from eventsourcing.tests.domain import BankAccount

from bohnanza_core import fastpath
from bohnanza_core.fastpath import (
    BatchedSubscription,
    DeferringAggregate,
    FastApplication,
    become,
    frozen,
    project_events,
)
from bohnanza_core.games import Game, Games
from tests.walls import changed_shapes, parameters

TID = TypeVar("TID", bound=UUID | str)


def test_the_checked_version_is_installed() -> None:
    """The wall was checked against this version: an upgrade runs everything below."""
    installed = version("eventsourcing")
    assert installed == fastpath.CHECKED_AGAINST, (
        f"eventsourcing {installed} is installed, fastpath was checked "
        f"against {fastpath.CHECKED_AGAINST}: run this file, read the failures against "
        "bohnanza_core/fastpath.py, then update CHECKED_AGAINST and its docstring")


# -- the library's own test cases, on the fast path ---------------------------------------


class Aggregate(DeferringAggregate):
    """The library's ``Aggregate`` as the test cases use it, its events recorded the way
    the game records its own: built without ``__init__`` (``frozen``), applied, the
    version moved on (``advance``) and the event held back until the library asks
    (``take_deferred_events``)."""

    def trigger_event(self, event_class: Any, **kwargs: Any) -> None:
        event = frozen(event_class, {**kwargs, "originator_id": self.id,
                                     "originator_version": self.version + 1,
                                     "timestamp": event_class.create_timestamp()})
        event.apply(self)
        self.advance(1, event.timestamp)
        self.__dict__.setdefault("_held", []).append(event)

    def take_deferred_events(self) -> list[Any]:
        held: list[Any] = self.__dict__.pop("_held", [])
        return held


class Application(FastApplication, Generic[TID]):
    """``FastApplication`` under the library's name (``Application.name`` is tested)
    and subscriptable as the library's is (``Application[UUID]()``)."""


class FastBankAccount(BankAccount, Aggregate):
    """The library's example aggregate, recording the fast way."""


class FastBankAccounts(FastApplication, library_tests.BankAccounts):
    """The library's example application, saving the fast way."""


@pytest.fixture
def library_on_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The library's test module sees the fast classes under its own names."""
    monkeypatch.setattr(library_tests, "Application", Application)
    monkeypatch.setattr(library_tests, "Aggregate", Aggregate)
    monkeypatch.setattr(library_tests, "BankAccount", FastBankAccount)
    monkeypatch.setattr(library_tests, "BankAccounts", FastBankAccounts)


@pytest.mark.usefixtures("library_on_the_fast_path")
class TestApplicationOnTheFastPath(library_tests.ApplicationTestCase):
    """eventsourcing's ApplicationTestCase, unchanged, on FastApplication."""


@pytest.mark.usefixtures("library_on_the_fast_path")
class TestExampleApplicationOnTheFastPath(library_tests.ExampleApplicationTestCase):
    """eventsourcing's ExampleApplicationTestCase, unchanged, in memory."""

    expected_factory_topic = "eventsourcing.popo:POPOFactory"


@pytest.fixture
def library_sqlite(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PERSISTENCE_MODULE", "eventsourcing.sqlite")
    monkeypatch.setenv("SQLITE_DBNAME", str(tmp_path / "example.sqlite3"))


@pytest.mark.usefixtures("library_on_the_fast_path", "library_sqlite")
class TestExampleApplicationOnTheFastPathInSQLite(library_tests.ExampleApplicationTestCase):
    """eventsourcing's ExampleApplicationTestCase, unchanged, on its SQLite store."""

    expected_factory_topic = "eventsourcing.sqlite:SQLiteFactory"


def test_the_example_saves_went_the_fast_way(library_on_the_fast_path: None) -> None:
    """The test cases above do exercise the fast path: a save of one aggregate never
    reaches the library's save, and the transactions were held back until then."""
    app = FastBankAccounts()
    reached: list[Any] = []
    original = es_application.Application.save

    def library_save(self: Any, *objs: Any, **kwargs: Any) -> Any:
        reached.append(objs)
        return original(self, *objs, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(es_application.Application, "save", library_save)
        account_id = app.open_account("Alice", "alice@example.com")
        account = app.get_account(account_id)
        account.append_transaction(10)
        assert account.__dict__["_held"] and account.version == 2
        recordings = app.save(account)
    assert not reached and [r.notification.originator_version for r in recordings] == [2]
    assert app.get_balance(account_id) == 10


# -- what fastpath touches, one by one -----------------------------------------------------


PINNED = {
    # FastApplication.record_aggregate and notify_saved re-do these.
    "Application.save": (es_application.Application.save, "e304a96067599e2e"),
    "Application._record": (es_application.Application._record, "3998a4392f3e82c3"),
    # FastApplication._take_snapshots hands the others to this.
    "Application._take_snapshots": (es_application.Application._take_snapshots,
                                    "8201a29e44175944"),
    # project_events is this without its isinstance.
    "project_aggregate": (es_application.project_aggregate, "0c646ed56a6dd7be"),
    # frozen makes events as this does.
    "Mapper.to_domain_event": (es_persistence.Mapper.to_domain_event, "c3b680f2a1131cc5"),
    # BatchedSubscription replaces _loop_on_pull and reads what these keep.
    "ListenNotifySubscription.__init__": (es_persistence.ListenNotifySubscription.__init__,
                                          "edd4ddaa59fccf08"),
    "ListenNotifySubscription.__next__": (es_persistence.ListenNotifySubscription.__next__,
                                          "3deaf01fc7bf176b"),
    "ListenNotifySubscription._loop_on_pull": (
        es_persistence.ListenNotifySubscription._loop_on_pull, "d012a6ef95396364"),
    "ListenNotifySubscription._pull": (es_persistence.ListenNotifySubscription._pull,
                                       "b69e0971119a7633"),
    "ListenNotifySubscription.stop": (es_persistence.ListenNotifySubscription.stop,
                                      "0d94c0b72cbb612b"),
}


def test_the_library_functions_fastpath_re_does_are_unchanged() -> None:
    assert not changed_shapes(PINNED, "bohnanza_core/fastpath.py")


def test_the_private_methods_fastpath_calls_or_overrides_have_their_signatures() -> None:
    application = es_application.Application
    assert parameters(es_domain.BaseAggregate._create.__func__) == [  # type: ignore[attr-defined]
        ("cls", "POSITIONAL_OR_KEYWORD"), ("event_class", "POSITIONAL_OR_KEYWORD"),
        ("id", "KEYWORD_ONLY"), ("kwargs", "VAR_KEYWORD")]
    assert parameters(application._take_snapshots) == [
        ("self", "POSITIONAL_OR_KEYWORD"), ("processing_event", "POSITIONAL_OR_KEYWORD")]
    assert parameters(application._notify) == [
        ("self", "POSITIONAL_OR_KEYWORD"), ("recordings", "POSITIONAL_OR_KEYWORD")]
    assert parameters(application.notify) == [
        ("self", "POSITIONAL_OR_KEYWORD"), ("new_events", "POSITIONAL_OR_KEYWORD")]
    subscription = es_persistence.ListenNotifySubscription
    assert parameters(subscription._loop_on_pull) == [("self", "POSITIONAL_OR_KEYWORD")]
    assert parameters(subscription._pull) == [("self", "POSITIONAL_OR_KEYWORD")]
    assert parameters(SQLiteConnectionPool._create_connection) == [
        ("self", "POSITIONAL_OR_KEYWORD")]


def test_save_records_snapshots_and_notifies_in_the_order_fastpath_keeps() -> None:
    """Application.save: _record (insert, cache), _take_snapshots, _notify, notify."""
    calls: list[str] = []

    class Spied(es_application.Application[UUID]):
        def _record(self, processing_event: Any) -> Any:
            calls.append("_record")
            return super()._record(processing_event)

        def _take_snapshots(self, processing_event: Any) -> None:
            calls.append("_take_snapshots")
            assert list(processing_event.aggregates) == [aggregate.id]
            super()._take_snapshots(processing_event)

        def _notify(self, recordings: Any) -> None:
            calls.append("_notify")

        def notify(self, new_events: Any) -> None:
            calls.append("notify")

    aggregate = es_domain.Aggregate()
    Spied().save(aggregate)
    assert calls == ["_record", "_take_snapshots", "_notify", "notify"]


def test_the_fast_save_notifies_as_the_library_does() -> None:
    told: list[Any] = []

    class Told(Application[UUID]):
        def _notify(self, recordings: Any) -> None:
            told.append([r.notification.originator_version for r in recordings])

        def notify(self, new_events: Any) -> None:
            told.append([e.originator_version for e in new_events])

    aggregate = Aggregate()
    aggregate.trigger_event(Aggregate.Event)
    Told().save(aggregate)
    assert told == [[1, 2], [1, 2]]


def test_an_aggregate_keeps_its_whole_state_in_its_dict() -> None:
    """What become() copies, Snapshot.take reads, and the game's own attributes sit
    beside: the library's attributes of an aggregate, all of them."""
    aggregate = es_domain.Aggregate()
    assert set(vars(aggregate)) == {"_id", "_version", "_created_on", "_modified_on",
                                    "_pending_events"}
    assert not hasattr(type(aggregate), "__slots__") or not type(aggregate).__slots__


def test_pending_events_is_the_list_collect_events_drains() -> None:
    aggregate = es_domain.Aggregate()
    pending = es_domain.Aggregate.pending_events.fget(aggregate)  # type: ignore[attr-defined]
    assert pending is aggregate.pending_events and len(pending) == 1
    pending.append(pending[0])
    assert len(aggregate.collect_events()) == 2 and pending == []


def test_version_and_modified_on_are_the_attributes_advance_writes() -> None:
    aggregate = es_domain.Aggregate()
    now = datetime.now(UTC)
    aggregate.version, aggregate.modified_on = 7, now
    assert (aggregate._version, aggregate._modified_on) == (7, now)
    deferring = Aggregate()
    assert deferring.advance(3, now) == 1
    assert (deferring.version, deferring.modified_on) == (4, now)


def test_frozen_makes_what_init_makes() -> None:
    """frozen() writes the fields into __dict__ without __init__: the classes keep their
    fields there, and __post_init__ only checks (a UUID originator id)."""
    stored = {"originator_id": uuid4(), "originator_version": 3, "topic": "t",
              "state": b"s"}
    assert [f.name for f in fields(es_persistence.StoredEvent)] == list(stored)
    assert frozen(es_persistence.StoredEvent, stored) == es_persistence.StoredEvent(**stored)
    assert "__slots__" not in vars(es_persistence.StoredEvent)
    happened = {"originator_id": uuid4(), "originator_version": 2,
                "timestamp": datetime.now(UTC), "event": None, "actor": "user:a",
                "previous_hash": "0" * 64, "commitments": ()}
    made = frozen(Game.Happened, happened)
    assert made == Game.Happened(**happened) and vars(made) == happened
    with pytest.raises(TypeError):  # what __post_init__ checks, and frozen does not
        Game.Happened(**{**happened, "originator_id": "not a uuid"})


def test_the_library_s_mapper_makes_events_as_frozen_does() -> None:
    app = es_application.Application[UUID]()
    aggregate = es_domain.Aggregate()
    stored = app.mapper.to_stored_event(aggregate.collect_events()[0])
    event = app.mapper.to_domain_event(stored)
    assert frozen(type(event), dict(vars(event))) == event


def test_create_is_the_library_s_create() -> None:
    game_id = uuid4()
    aggregate = fastpath.create(es_domain.Aggregate, es_domain.Aggregate.Created,
                                id=game_id)
    assert aggregate.id == game_id and aggregate.version == 1
    assert [type(e) for e in aggregate.pending_events] == [es_domain.Aggregate.Created]


def test_become_makes_one_aggregate_the_other() -> None:
    first, second = es_domain.Aggregate(), es_domain.Aggregate()
    second.trigger_event(es_domain.Aggregate.Event)
    become(first, second)
    assert first == second and first.id == second.id and first.version == 2


def test_project_events_is_project_aggregate() -> None:
    aggregate = es_domain.Aggregate()
    aggregate.trigger_event(es_domain.Aggregate.Event)
    aggregate.trigger_event(es_domain.Aggregate.Event)
    events = aggregate.collect_events()
    assert project_events(None, events) == es_application.project_aggregate(None, events)


def test_a_game_is_a_deferring_aggregate_with_its_snapshots_in_memory() -> None:
    assert issubclass(Game, DeferringAggregate) and Game.snapshots_in_memory
    assert issubclass(Games, FastApplication)


# -- the subscription ---------------------------------------------------------------------


LIBRARY_SUBSCRIPTION_ATTRIBUTES = {
    "_recorder", "_last_notification_id", "_topics", "_has_been_entered",
    "_has_been_stopped", "_select_limit", "_notifications", "_notifications_index",
    "_notifications_queue", "_has_been_notified", "_thread_error", "_pull_thread"}
"""What ListenNotifySubscription.__init__ sets: BatchedSubscription reads some of them,
and a subclass's own attributes must not take any of these names."""


class Polled(BatchedSubscription[POPOApplicationRecorder]):
    """Woken by polling, as the platform's store is between its doorbell's rings."""

    def wait_for_more(self) -> None:
        time.sleep(0.01)


def _stored(recorder: POPOApplicationRecorder, n: int) -> None:
    game = uuid4()
    recorder.insert_events([es_persistence.StoredEvent(
        originator_id=game, originator_version=v, topic="t", state=b"") for v in range(n)])


def test_the_subscription_s_attributes_are_the_known_ones() -> None:
    recorder = POPOApplicationRecorder()
    with Polled(recorder=recorder) as subscription:
        assert set(vars(subscription)) == LIBRARY_SUBSCRIPTION_ATTRIBUTES


def test_a_batched_subscription_hands_out_what_was_pulled_in_batches() -> None:
    recorder = POPOApplicationRecorder()
    _stored(recorder, 7)
    with Polled(recorder=recorder) as subscription:  # one pull finds all seven
        assert [n.id for n in subscription.next_batch(5)] == [1, 2, 3, 4, 5]
        assert [n.id for n in subscription.next_batch(100)] == [6, 7]
        _stored(recorder, 3)
        assert next(subscription).id == 8
        assert not subscription.stopped
    assert subscription.stopped


def test_a_failed_puller_ends_the_subscription_with_its_error() -> None:
    recorder = POPOApplicationRecorder()
    finished = threading.Event()

    class Failing(BatchedSubscription[POPOApplicationRecorder]):
        def wait_until_ready(self) -> None:
            raise RuntimeError("the connection went away")

        def puller_finished(self) -> None:
            finished.set()

    with Failing(recorder=recorder) as subscription, pytest.raises(RuntimeError):
        next(subscription)
    assert finished.is_set()


# -- the library's SQLite recorder, for bench/store.py ---------------------------------------


def test_sqlite_connections_run_a_statement_on_each_new_connection(tmp_path: Path) -> None:
    datastore = SQLiteDatastore(str(tmp_path / "library.sqlite3"))
    fastpath.sqlite_connections_run(datastore, "PRAGMA synchronous=NORMAL")
    with datastore.transaction(commit=False) as cursor:
        cursor.execute("PRAGMA synchronous")
        assert cursor.fetchone()[0] == 1
