"""``manage.py run_projections``: keep the read models up to date from a process of their
own, for production with several web processes (which may then turn the synchronous
catch-up off with ``READ_MODELS_CATCH_UP = False``). Runs until Ctrl-C."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from replays.projections import PROJECTION_NAME, game_list_view, projection_runner
from replays.store import games, store_env


class Command(BaseCommand):
    help = ("Process the store's events into the game list as they are committed, "
            "from the last tracked position, until Ctrl-C.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--stop-after", type=float, metavar="SECONDS", default=None,
            help="stop after this many seconds (default: run until interrupted)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        seconds: float | None = options["stop_after"]
        if seconds is not None and seconds < 0:
            raise CommandError("--stop-after must be a number of seconds, 0 or more")
        module = store_env()["PERSISTENCE_MODULE"]
        if module != "replays.persistence":
            raise CommandError(
                f"run_projections needs the Django event store (replays.persistence), "
                f"not {module}: an in-memory store is not shared between processes"
            )
        view = game_list_view()
        name = games().name
        start = view.max_tracking_id(name) or 0
        self.stdout.write(f"{PROJECTION_NAME}: processing events after event {start}; "
                          "Ctrl-C to stop.")
        self.stdout.flush()
        try:
            with projection_runner() as runner:
                runner.run_forever(timeout=seconds)
        except KeyboardInterrupt:
            pass
        except Exception as error:
            raise CommandError(f"{PROJECTION_NAME} stopped on an error: {error}") from error
        end = view.max_tracking_id(name) or 0
        self.stdout.write(f"{PROJECTION_NAME}: stopped after event {end}.")
