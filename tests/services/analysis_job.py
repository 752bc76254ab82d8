"""The platform's side of the analysis workers' test, against ``DATABASE_URL``:

``python -m tests.services.analysis_job ask SEED`` stores a finished short game of bots
(as ``tests/analyses`` stores them) and asks for its analysis as the viewer's button
does (``jobs.ask``, the job sent to the broker); prints the analysis's id.

``python -m tests.services.analysis_job expected PK`` prints, as JSON, the analysis of
that analysis's game computed directly by ``bohnanza_core.analysis.analyse`` from the
stored events, with the analysis's budget and seed.
"""

from __future__ import annotations

import json
import os
import sys

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from django.contrib.auth.models import User  # noqa: E402

from analyses import jobs, tasks  # noqa: E402
from analyses.models import Analysis  # noqa: E402
from bohnanza_core import analysis as core  # noqa: E402
from replays.store import games  # noqa: E402
from tests.analyses.conftest import short_game  # noqa: E402


def ask(seed: str) -> int:
    game = short_game(seed, players=("user:ann", "bot:random", "bot:heuristic"))
    ann = User.objects.create_user("ann", password="pw-ann-123")
    return jobs.ask(game, ann, tasks.send).pk


def expected(pk: int) -> str:
    row = Analysis.objects.get(pk=pk)
    events = [entry.event for entry in games().record(row.game_id)]
    return json.dumps(core.analyse(events, row.playouts, str(row.game_id)).as_dict())


if __name__ == "__main__":
    command, argument = sys.argv[1:3]
    print(ask(argument) if command == "ask" else expected(int(argument)), flush=True)
