"""Crash recovery without a person: the beat's look at a competition (``rounds.watch``)
finds a round whose games stopped coming in while some are missing, records it stalled,
sends the missing deals again (once per stall period: idempotent), and the command line
and the pages say "stalled since ..." until games come in again. Driven here with the
messages "lost" (a send that keeps them) and a clock passed in: no sleeps."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from io import StringIO
from uuid import UUID

from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from django_celery_beat.models import PeriodicTask

from bohnanza_core.rulesets import ruleset_for
from tournaments import tasks
from tournaments.core.competition import Competition
from tournaments.core.games import missing_games, play_deals
from tournaments.core.rounds import advance, stalled_since, start_round, watch
from tournaments.core.store import Competitions, create
from tournaments.models import CompetitionGame

BOTS = ["heuristic@builtin", "random@builtin", "nontrading@builtin",
        "heuristic@builtin #2", "random@builtin #2", "nontrading@builtin #2"]


class Lost:
    """A send whose messages never reach a worker (a worker killed with them)."""

    def __init__(self) -> None:
        self.sent: list[tuple[int, list[int]]] = []

    def __call__(self, _: UUID, r: int, deals: Sequence[int]) -> None:
        self.sent.append((r, list(deals)))


def _events(app: Competitions, cid: UUID) -> list[str]:
    return [type(e).__name__ for e in app.repository.event_store.get(cid)]


def test_a_stalled_round_is_noticed_resent_once_per_period_and_shown(
        competitions: Competitions, settings) -> None:
    settings.TOURNAMENT_STALL_SECONDS = 60
    t = create("Stall", "swiss", {"rounds": 2}, ruleset_for("classic", 3), 3, BOTS)
    lost = Lost()
    start_round(t, lost)
    assert lost.sent == [(0, [0, 1])]
    play_deals(t.id, 0, [0])  # one game in, then the worker dies with the other message
    t = competitions.get(t.id)
    assert missing_games(t) == [1]
    now = timezone.now()
    lost.sent.clear()
    assert watch(t.id, lost, now=now) == "moving"  # a game came in just now
    assert lost.sent == [] and stalled_since(t) is None
    later = now + timedelta(seconds=61)
    assert watch(t.id, lost, now=later) == "stalled"
    assert lost.sent == [(0, [1])]  # only the missing deal, sent again
    t = competitions.get(t.id)
    since = stalled_since(t)
    last = CompetitionGame.objects.get(competition_id=t.id, round=0).stored_at
    assert since == last
    assert _events(competitions, t.id).count("Stalled") == 1
    # Looked at again within the period: nothing sent, nothing recorded.
    assert watch(t.id, lost, now=later + timedelta(seconds=30)) == "stalled"
    assert lost.sent == [(0, [1])]
    assert _events(competitions, t.id).count("Stalled") == 1
    # Shown by the command line and the pages while it stands still.
    out = StringIO()
    call_command("tournament", "list", stdout=out)
    assert f"stalled since {since:%Y-%m-%d %H:%M:%S} UTC" in out.getvalue()
    out = StringIO()
    call_command("tournament", "show", str(t.id), stdout=out)
    assert "stalled since" in out.getvalue()
    web = Client()
    page = web.get(reverse("tournaments:detail", args=[t.id])).content.decode()
    assert 'class="stalled"' in page and "stalled since" in page
    listed = web.get(reverse("tournaments:list")).content.decode()
    assert "stalled since" in listed
    progress = web.get(reverse("tournaments:progress", args=[t.id])).json()
    assert progress["stalled"] and progress["status"].startswith("stalled since")
    # Still stalled a period after the re-send: sent again (a second Stalled, the same
    # "since").
    again = later + timedelta(seconds=61)
    assert watch(t.id, lost, now=again) == "stalled"
    assert lost.sent == [(0, [1]), (0, [1])]
    assert stalled_since(competitions.get(t.id)) == since
    # A worker plays the re-sent deal twice (two deliveries): stored once, the round ends
    # and the next is paired; the stall is over at once, and the next look records it.
    assert play_deals(t.id, 0, [1]) == 1
    assert play_deals(t.id, 0, [1]) == 0
    t = competitions.get(t.id)
    assert stalled_since(t) is None
    assert CompetitionGame.objects.filter(competition_id=t.id, round=0).count() == 2
    assert watch(t.id, lost, now=again) in ("moved", "idle")
    t = competitions.get(t.id)
    assert t.open_round == 1 and stalled_since(t) is None
    progress = web.get(reverse("tournaments:progress", args=[t.id])).json()
    assert not progress["stalled"] and progress["status"] == "running"


def test_games_coming_in_again_close_the_stall_with_resumed(competitions: Competitions,
                                                            settings) -> None:
    settings.TOURNAMENT_STALL_SECONDS = 5
    t = create("Resume", "round-robin", {"cycles": 1}, ruleset_for("classic", 3), 3,
               BOTS[:4])
    lost = Lost()
    start_round(t, lost)
    (r, deals), = lost.sent
    assert len(deals) >= 2
    start = timezone.now() + timedelta(seconds=10)
    assert watch(t.id, lost, now=start) == "stalled"  # nothing stored since the pairing
    t = competitions.get(t.id)
    assert stalled_since(t) is not None
    assert stalled_since(t) <= t.modified_on
    play_deals(t.id, r, deals[:1])  # one comes in: moving again
    assert stalled_since(competitions.get(t.id)) is None
    assert watch(t.id, lost, now=timezone.now()) == "moving"  # and says so: Resumed
    assert "Resumed" in _events(competitions, t.id)
    assert competitions.get(t.id).open_stall() is None


def test_the_beat_watches_each_competition_until_it_finishes(competitions: Competitions
                                                             ) -> None:
    t = create("Watched", "swiss", {"rounds": 1}, ruleset_for("classic", 3), 3, BOTS[:3])
    sent: list[tuple[UUID, int, list[int]]] = []
    original = tasks.send_deals
    tasks.send_deals = lambda cid, r, deals: sent.append((cid, r, list(deals)))  # type: ignore[assignment]
    try:
        tasks.start(t)
    finally:
        tasks.send_deals = original  # type: ignore[assignment]
    watched = PeriodicTask.objects.get(name=f"competition {t.id} watch")
    assert watched.task == tasks.WATCH_TASK and watched.interval.every == tasks.watch_seconds()
    tasks.start(t)  # again: the same one periodic task
    assert PeriodicTask.objects.filter(name__endswith=f"{t.id} watch").count() == 1
    play_deals(t.id, 0, [0])
    done: Competition = competitions.get(t.id)
    if not done.finished:  # the worker's advance: the task does it after storing
        tasks.watch(str(t.id))
    assert competitions.get(t.id).finished
    assert tasks.watch(str(t.id)) == "finished"
    assert not PeriodicTask.objects.filter(name=f"competition {t.id} watch").exists()


def test_a_redelivered_batch_sends_the_round_its_dead_worker_did_not(
        competitions: Competitions, monkeypatch) -> None:
    """A worker ends a round and dies before it sends the next round's deals: the
    broker delivers its last message again, and that delivery sends them."""
    t = create("Redelivered", "swiss", {"rounds": 2}, ruleset_for("classic", 3), 3, BOTS)
    start_round(t, Lost())
    play_deals(t.id, 0, [0, 1])
    dead = Lost()
    tasks_sent = Lost()
    monkeypatch.setattr(tasks, "send_deals", tasks_sent)
    assert advance(t.id, dead)  # round 0 ended, round 1's deals lost with the worker
    assert competitions.get(t.id).open_round == 1
    tasks.play_deals.push_request(delivery_info={"redelivered": False})
    try:  # a first delivery of the same message sends nothing
        assert tasks.play_deals.run(str(t.id), 0, [1]) == 0
    finally:
        tasks.play_deals.pop_request()
    assert tasks_sent.sent == []
    tasks.play_deals.push_request(delivery_info={"redelivered": True})
    try:
        assert tasks.play_deals.run(str(t.id), 0, [1]) == 0
    finally:
        tasks.play_deals.pop_request()
    assert tasks_sent.sent == dead.sent == [(1, [0, 1])]
