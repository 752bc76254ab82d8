"""The live server's daphne as production runs it, for tests on Channels' live server.

``ChannelsLiveServerTestCase`` forks its daphne from the test's process. The pick-up
of running tables and the sweep for new ones (``play.startup.when_daphne_runs``) are
scheduled when the ASGI module is imported; a test process that imported it before the
fork (an earlier test in the same worker did) leaves the child without them, and a
table made by another process (a ladder's tick, a competition's round) would never
move nor be told to its accounts' event streams. :class:`SweepingDaphne` schedules
them in the child, whatever ran before."""

from __future__ import annotations

from typing import Any

from daphne.testing import DaphneProcess


class SweepingDaphne(DaphneProcess):
    """The live server's daphne, picking up tables as a production process does."""

    def __init__(self, host: str, get_application: Any, **kwargs: Any) -> None:
        def application() -> Any:
            from play import startup

            app = get_application()
            startup._started.clear()
            startup.when_daphne_runs()
            return app

        super().__init__(host, application, **kwargs)
