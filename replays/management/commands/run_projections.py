"""``manage.py run_projections``: keep the read models up to date from a process of their
own, for production with several web processes (which may then turn the synchronous
catch-up off with ``READ_MODELS_CATCH_UP = False``). Runs until Ctrl-C (SIGINT) or SIGTERM
(what a process manager sends), through database outages
(replays.projections.GameListRunner).

An event the projection cannot apply is skipped and recorded, and the runner goes on;
it prints a ``GameList: STALLED ...`` line for each such event as it happens, and one
for those recorded so far when it starts and when it stops (replays.health)."""

from __future__ import annotations

import signal
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from replays.health import game_list_health
from replays.models import ProjectionFailure
from replays.outages import reconnecting
from replays.projections import (
    FOLLOW_BATCH,
    PROJECTION_NAME,
    REPORT_EVERY,
    game_list_view,
    projection_runner,
)
from replays.store import games, store_env


class Command(BaseCommand):
    help = ("Process the store's events into the game list as they are committed, "
            "from the last tracked position, until Ctrl-C; log the rate and lag now and then.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--stop-after", type=float, metavar="SECONDS", default=None,
            help="stop after this many seconds (default: run until interrupted)",
        )
        parser.add_argument(
            "--report-every", type=float, metavar="SECONDS", default=REPORT_EVERY,
            help=f"log events per second and lag this often (default {REPORT_EVERY:.0f})",
        )
        parser.add_argument(
            "--batch-size", type=int, metavar="EVENTS", default=FOLLOW_BATCH,
            help=f"most events written in one transaction (default {FOLLOW_BATCH})",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        seconds: float | None = options["stop_after"]
        if seconds is not None and seconds < 0:
            raise CommandError("--stop-after must be a number of seconds, 0 or more")
        if options["report_every"] <= 0:
            raise CommandError("--report-every must be a number of seconds above 0")
        if options["batch_size"] < 1:
            raise CommandError("--batch-size must be at least 1")
        module = store_env()["PERSISTENCE_MODULE"]
        if module != "replays.persistence":
            raise CommandError(
                f"run_projections needs the Django event store (replays.persistence), "
                f"not {module}: an in-memory store is not shared between processes"
            )
        view = game_list_view()
        name = games().name
        alias = view.datastore.alias
        start = reconnecting(lambda: view.max_tracking_id(name), alias=alias,
                             give_up_after=None, what=PROJECTION_NAME) or 0
        self.stdout.write(f"{PROJECTION_NAME}: processing events after event {start}; "
                          "Ctrl-C to stop.")
        self._tell_failures(alias)
        self.stdout.flush()
        _stop_on_signals()
        try:
            with projection_runner(batch_size=options["batch_size"],
                                   on_failure=self._failed) as runner:
                runner.run_forever(timeout=seconds, report_every=options["report_every"])
        except KeyboardInterrupt:
            pass
        except Exception as error:
            raise CommandError(f"{PROJECTION_NAME} stopped on an error: {error}") from error
        end = reconnecting(lambda: view.max_tracking_id(name), alias=alias,
                           give_up_after=30, what=PROJECTION_NAME) or 0
        self.stdout.write(f"{PROJECTION_NAME}: stopped after event {end}.")
        self._tell_failures(alias)

    def _tell_failures(self, alias: str) -> None:
        """The stalled line of the events recorded as failed so far, if there are any."""
        line = reconnecting(lambda: game_list_health().stalled_line(lag=False), alias=alias,
                            give_up_after=30, what=PROJECTION_NAME)
        if line is not None:
            self.stdout.write(line)

    def _failed(self, failure: ProjectionFailure) -> None:
        """Told by the runner's thread of each event it skipped, once that is committed."""
        self.stdout.write(
            f"{PROJECTION_NAME}: STALLED on event {failure.notification_id} (game "
            f"{failure.game_id}, version {failure.version}, {failure.event}): "
            f"{failure.error}; the event is skipped and recorded, the events after it are "
            "applied; manage.py rebuild_read_models applies it again once the cause is fixed.")
        self.stdout.flush()


def _interrupted(signum: int, _frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def _stop_on_signals() -> None:
    """Stop (after the batch being written) on SIGINT and SIGTERM, whatever this process
    inherited: a process started in the background by a shell (``command &``), and every
    child of one, begins with SIGINT ignored, and Python then installs no Ctrl-C handler."""
    signal.signal(signal.SIGINT, _interrupted)
    signal.signal(signal.SIGTERM, _interrupted)
