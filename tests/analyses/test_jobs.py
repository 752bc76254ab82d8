"""The analysis job and the requests for it: a finished game's analysis end to end
(eager), reused when asked for again, refused past the quota, for a running game and
for a private game one may not see; its progress tells nothing of the judgments; a job
killed mid-way goes on from the judgments it saved."""

from __future__ import annotations

import json
from typing import Any

import pytest
from celery import current_app
from django.test import Client
from django.utils import timezone

from analyses import jobs
from analyses.models import Analysis
from bohnanza_core import analysis as core
from bohnanza_core.games import Games
from replays.store import games
from tests.analyses.conftest import PLAYOUTS, short_game, signed_in
from tests.factories import running_game

ACCEPT = {"HTTP_ACCEPT": "application/json"}


@pytest.fixture
def eager() -> Any:
    current_app.conf.task_always_eager = True
    yield
    current_app.conf.task_always_eager = False


def ask(client: Client, game_id: object) -> Any:
    return client.post(f"/analyses/games/{game_id}/", **ACCEPT)


def status(client: Client, game_id: object, **query: str) -> dict[str, Any]:
    response = client.get(f"/analyses/games/{game_id}/status.json", query)
    assert response.status_code == 200, response.content
    found: dict[str, Any] = response.json()
    return found


def test_a_finished_game_is_analysed_end_to_end_and_asked_again_reuses_it(
        store: Games, eager: None, django_capture_on_commit_callbacks: Any) -> None:
    ann, _ = signed_in("ann")
    game = short_game(players=("user:ann", "bot:random", "bot:heuristic"))
    assert status(ann, game.id)["status"] == "none"
    with django_capture_on_commit_callbacks(execute=True):
        response = ask(ann, game.id)
    assert response.status_code == 202, response.content
    row = Analysis.objects.get(game_id=game.id)
    assert (row.status, row.bot, row.version, row.playouts) == ("done", "search", core.VERSION,
                                                                PLAYOUTS)
    assert row.made == row.total > 0 and row.judgments == [] and row.finished_at
    done = core.Analysis.from_dict(row.result)
    events = [entry.event for entry in games().record(game.id)]
    assert [j.event for j in done.judgments] == core.decision_points(events)
    # the same record as the analysis core makes (deterministic for the game and budget)
    again = core.analyse(events, PLAYOUTS, str(game.id))
    assert json.dumps(again.as_dict()) == json.dumps(row.result)
    state = status(ann, game.id)
    assert (state["status"], state["made"], state["total"]) == ("done", row.made, row.made)
    # asked for again, by her or by another: the stored one, no job, no quota spent
    bob, _ = signed_in("bob")
    with django_capture_on_commit_callbacks(execute=True) as sent:
        assert ask(bob, game.id).status_code == 202
        assert ask(ann, game.id).status_code == 202
    assert sent == [] and Analysis.objects.count() == 1
    assert Analysis.objects.get().requested_by.username == "ann"
    # the panel: charts, tables and the log's notes with "better: ..." where flagged
    drawn = ann.get(f"/analyses/games/{game.id}/analysis.json").json()
    assert drawn["html"].count('class="series"') == 6  # two charts, three seats
    flagged = [n for n in drawn["notes"].values() if n["flag"]]
    assert flagged and all("better: " in n["text"] for n in flagged)
    assert len(drawn["notes"]) == len(done.judgments)


def test_a_job_killed_mid_way_goes_on_from_its_saved_judgments(store: Games,
                                                               monkeypatch: Any) -> None:
    game = short_game("resumed")
    events = [entry.event for entry in games().record(game.id)]
    whole = core.analyse(events, PLAYOUTS, str(game.id))
    kept = [json.loads(json.dumps(j)) for j in whole.as_dict()["judgments"][:40]]
    # the row as a worker killed with SIGKILL left it: running, 40 judgments saved
    row = Analysis.objects.create(game_id=game.id, **jobs.means(), status="running",
                                  judgments=kept, made=40, worker="lost-job")
    judged: list[int] = []
    real_judge = core.judge

    def judge(*args: Any, **kwargs: Any) -> core.Judgment:
        judgment = real_judge(*args, **kwargs)
        judged.append(judgment.event)
        return judgment

    monkeypatch.setattr(core, "judge", judge)
    # the same job delivered again (its task id kept) takes over at once
    assert jobs.run(row.pk, job="lost-job") == "done"
    assert judged == [j.event for j in whole.judgments[40:]]  # only the rest
    row.refresh_from_db()
    assert json.dumps(row.result) == json.dumps(whole.as_dict())


def test_another_job_waits_while_a_live_one_holds_the_lease(store: Games) -> None:
    game = short_game("held")
    row = Analysis.objects.create(game_id=game.id, **jobs.means(), status="running",
                                  worker="first", heartbeat=timezone.now())
    with pytest.raises(jobs.Held):
        jobs.run(row.pk, job="second")


def test_the_quota_refuses_with_a_clear_message_and_staff_are_exempt(
        store: Games, settings: Any, django_capture_on_commit_callbacks: Any) -> None:
    settings.ANALYSIS_QUOTAS = {"per_day": 2, "running": 1}
    ann, _ = signed_in("ann")
    first, second, third = (short_game(f"quota-{n}") for n in range(3))
    with django_capture_on_commit_callbacks(execute=False):  # no worker: they stay queued
        assert ask(ann, first.id).status_code == 202
        refused = ask(ann, second.id)
    assert refused.status_code == 429
    assert "at most 1 analysis under way at a time" in refused.json()["error"]
    Analysis.objects.filter(game_id=first.id).update(status="done")
    with django_capture_on_commit_callbacks(execute=False):
        assert ask(ann, second.id).status_code == 202
    Analysis.objects.filter(game_id=second.id).update(status="done")
    with django_capture_on_commit_callbacks(execute=False):
        refused = ask(ann, third.id)
    assert refused.status_code == 429
    assert "2 analyses a day" in refused.json()["error"]
    assert "asked for 2 in the last 24 hours" in refused.json()["error"]
    staff, _ = signed_in("arbiter", staff=True)
    with django_capture_on_commit_callbacks(execute=False):
        assert ask(staff, third.id).status_code == 202


def test_a_running_game_is_never_analysed(store: Games) -> None:
    ann, user = signed_in("ann")
    game = running_game(players=("user:ann", "user:bob", "user:cy"), commands=5)
    refused = ask(ann, game.id)
    assert refused.status_code == 409
    assert "Only a finished game is analysed" in refused.json()["error"]
    assert not Analysis.objects.exists()
    with pytest.raises(jobs.Refusal):
        jobs.ask(game, user, lambda pk: None)


def test_a_private_game_is_analysed_only_for_those_who_may_see_it(
        store: Games, django_capture_on_commit_callbacks: Any) -> None:
    game = short_game("private", players=("user:ann", "bot:random", "bot:heuristic"),
                      private=True)
    bob, _ = signed_in("bob")
    refused = ask(bob, game.id)
    assert refused.status_code == 403 and "private" in refused.json()["error"]
    assert bob.get(f"/analyses/games/{game.id}/status.json").status_code == 403
    assert bob.get(f"/analyses/games/{game.id}/analysis.json").status_code == 403
    assert not Analysis.objects.exists()
    # with the game's share link he may
    with django_capture_on_commit_callbacks(execute=False):
        allowed = bob.post(f"/analyses/games/{game.id}/?token={game.share_token}", **ACCEPT)
    assert allowed.status_code == 202
    assert Client().post(f"/analyses/games/{game.id}/", **ACCEPT).status_code == 403


def test_the_progress_tells_nothing_of_the_judgments(store: Games) -> None:
    game = short_game("progress")
    events = [entry.event for entry in games().record(game.id)]
    whole = core.analyse(events, PLAYOUTS, str(game.id))
    saved = whole.as_dict()["judgments"][:12]
    Analysis.objects.create(game_id=game.id, **jobs.means(), status="running",
                            judgments=saved, made=12, total=len(whole.judgments))
    answer = status(Client(), game.id)
    assert set(answer) == {"status", "made", "total", "signedIn", "refusal", "text"}
    assert (answer["status"], answer["made"]) == ("running", 12)
    assert "12 of" in answer["text"]
    # and the finished analysis is not served before it is finished
    assert Client().get(f"/analyses/games/{game.id}/analysis.json").status_code == 404
