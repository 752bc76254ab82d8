"""Competitions run to the end with Celery's eager mode (the tasks in this process)."""

from __future__ import annotations

import pytest

from bohnanza_core.rulesets import ruleset_for
from tournaments import tasks
from tournaments.competitions import CompetitionError
from tournaments.models import TournamentGame


def test_round_robin_runs_to_the_end_in_eager_mode(competitions):
    t = competitions.create("Eager", "round-robin", ruleset_for("classic", 3), 3,
                            {"cycles": 1}, ["heuristic@builtin", "random@builtin",
                                            "nontrading@builtin"])
    tasks.start(t.id)
    done = competitions.get_tournament(t.id)
    assert done.finished and done.games_done() == done.games_total() == 3
    assert TournamentGame.objects.count() == 3


def test_a_format_that_cannot_be_paired_stores_nothing(competitions):
    with pytest.raises(CompetitionError, match="do not fill tables"):
        competitions.create("Bad", "swiss", ruleset_for("classic", 3), 3, {"rounds": 2},
                            ["heuristic@builtin", "random@builtin", "nontrading@builtin",
                             "heuristic@builtin #2"])
    assert competitions.ids() == []
