"""What Django's own cursor does around a statement, for the store's driver cursors.

Checked against **Django 5.2.19** (requirements.lock pins it; pyproject.toml allows
5.2.x). The recorders run their SQL on the driver's own cursor (``connection.cursor()``
of the raw connection), not on Django's cursor wrapper, which on every statement would
format the SQL and its parameters while DEBUG is on and reformat parameters on SQLite,
for nothing the recorders need (bench/store.py, sections ``save`` and ``record``). What
Django's wrappers do for everyone else still has to happen, so it is re-done here, and
only here:

- ``CursorWrapper._execute_with_wrappers``: every statement passes through the hooks of
  ``connection.execute_wrapper()`` (query loggers, APM agents, sqlcommenter), innermost
  last, each called as ``hook(execute, sql, params, many, context)`` with
  ``context = {"connection": ..., "cursor": ...}``;
- ``CursorDebugWrapper.debug_sql``: while ``connection.queries_logged`` (DEBUG, or a
  test's ``CaptureQueriesContext``), each statement goes into ``connection.queries_log``
  as ``{"sql", "time"}`` and to the ``django.db.backends`` logger as
  ``"(%.3f) %s; args=%s; alias=%s"`` with ``extra`` ``duration``, ``sql``, ``params``,
  ``alias``; here never the parameters, which hold hands and seeds;
- ``DatabaseErrorWrapper``: a driver error sets ``connection.errors_occurred``, so that
  Django checks the connection is still usable at the end of the request (Django's own
  wrapper leaves it alone for ``DataError`` and ``IntegrityError``; the store sets it
  for every driver error, which costs at most one such check more).

With no hook and no query log the driver's cursor runs bare, at no cost.
tests/replays/test_django_cursor.py is the contract: it runs the same statements
through Django's cursor and through these and compares what hooks, the query log and
the logger see, and holds Django's functions to fingerprints (tests/walls.py).
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from django.db.backends.base.base import BaseDatabaseWrapper

_R = TypeVar("_R")

CHECKED_AGAINST = "5.2.19"
"""The Django version this module was written against and its contract checks."""

SQL_LOGGER = logging.getLogger("django.db.backends")
"""Django's own logger of SQL statements."""


class HookedCursor:
    """The driver's cursor, its statements passed through the connection's
    ``execute_wrappers`` with the context Django gives them, and, while Django logs
    queries, into ``connection.queries`` and the ``django.db.backends`` logger as
    Django's own cursors put them there: the SQL and its time, never the parameters."""

    def __init__(self, cursor: Any, wrapper: BaseDatabaseWrapper) -> None:
        self.cursor = cursor
        self.wrapper = wrapper

    def __getattr__(self, name: str) -> Any:
        return getattr(self.cursor, name)

    def execute(self, sql: str, params: Any = None) -> Any:
        return self.hooked(sql, params, self._execute)

    def _execute(self, sql: str, params: Any) -> Any:
        return self.cursor.execute(sql) if params is None else self.cursor.execute(sql, params)

    def hooked(self, sql: str, params: Any, run: Callable[[str, Any], _R]) -> _R:
        """``run(sql, params)`` as the wrappers let it run (they may change the SQL, as
        sqlcommenter does)."""

        def execute(sql: str, params: Any, many: bool, context: dict[str, Any]) -> _R:
            return run(sql, params)

        executor: Callable[..., _R] = execute
        for hook in reversed(self.wrapper.execute_wrappers):
            executor = functools.partial(hook, executor)
        if not self.wrapper.queries_logged:
            return executor(sql, params, False, {"connection": self.wrapper, "cursor": self})
        started = time.monotonic()
        try:
            return executor(sql, params, False, {"connection": self.wrapper, "cursor": self})
        finally:
            duration = time.monotonic() - started
            self.wrapper.queries_log.append({"sql": sql, "time": f"{duration:.3f}"})
            SQL_LOGGER.debug(
                "(%.3f) %s; args=(not logged: event store values); alias=%s", duration, sql,
                self.wrapper.alias, extra={"duration": duration, "sql": sql, "params": None,
                                           "alias": self.wrapper.alias})


def driver_cursor(wrapper: BaseDatabaseWrapper) -> Any:
    """A cursor of the driver's connection under ``wrapper``: a :class:`HookedCursor`
    only if someone listens (hooks installed, or queries logged), else bare."""
    cursor = wrapper.connection.cursor()
    if wrapper.execute_wrappers or wrapper.queries_logged:
        return HookedCursor(cursor, wrapper)
    return cursor


def run_hooked(cursor: Any, sql: str, run: Callable[[str, Any], _R]) -> _R:
    """``run(sql, None)`` for a statement the driver runs otherwise than by ``execute``
    (PostgreSQL's ``COPY``): through the hooks and the query log if ``cursor`` is
    hooked (:func:`driver_cursor`)."""
    if isinstance(cursor, HookedCursor):
        return cursor.hooked(sql, None, run)
    return run(sql, None)


def note_error(wrapper: BaseDatabaseWrapper) -> None:
    """Tell Django a statement failed on this connection, as its cursors do: it then
    checks, at the end of the request, whether the connection is still usable."""
    wrapper.errors_occurred = True


__all__ = ["CHECKED_AGAINST", "HookedCursor", "driver_cursor", "note_error", "run_hooked"]
