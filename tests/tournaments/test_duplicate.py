"""True duplicate (issue 28, item 5): every table of a round plays the same deal,
seat-rotated, and the shared deal stays secret until every game of it has ended."""

from __future__ import annotations

import pytest

from bohnanza_core.rulesets import ruleset_for
from replays.store import games, reset_games
from tournaments.core import games as core_games
from tournaments.core.competition import Competition, CompetitionError, LivePlay
from tournaments.core.games import play_deals
from tournaments.core.rounds import run_here
from tournaments.core.store import create, reset_competitions
from tournaments.models import CompetitionGame

BOTS4 = ["heuristic@builtin", "random@builtin", "nontrading@builtin", "heuristic@builtin #2"]


def test_every_table_of_a_round_plays_one_deal_and_every_round_another(competitions):
    c = create("True dup", "duplicate", {"deals": 2}, ruleset_for("classic", 3), 3, BOTS4)
    assert [{p.deal for p in r.games} for r in c.rounds] == [{0}]
    done = run_here(c.id)
    assert done.finished and done.games_done() == 24
    store = games()
    by_round = [[store.record(done.game_id(r, i)) for i in range(12)] for r in range(2)]
    seeds = [{rec[-1].event.seed for rec in records} for records in by_round]
    assert all(len(s) == 1 for s in seeds) and seeds[0] != seeds[1]  # one deal a round
    for records in by_round:  # each game its own salt, so its own commitments
        assert len({rec[0].event.seed_commitment for rec in records}) == 12
        assert len({rec[0].event.salt for rec in records}) == 12
        # the same cards at every table: every game's deck is the same
        assert len({rec[1].event.order for rec in records}) == 1


def test_no_game_of_a_running_round_opens_the_commitment_of_another(competitions,
                                                                     monkeypatch):
    """While a round's games are played none of them is stored (their ends reveal the
    shared seed), and a failure part-way stores none of them."""
    c = create("Secret", "duplicate", {"deals": 1}, ruleset_for("classic", 3), 3, BOTS4)
    real = core_games.play_bot_game
    played: list[int] = []

    def watched(*args, **kwargs):
        # nothing of this round is stored while any of its games is still to be played
        assert not CompetitionGame.objects.filter(competition_id=c.id).exists()
        for i in range(12):
            with pytest.raises(LookupError):
                games().started(c.game_id(0, i))
        played.append(1)
        if fail and len(played) == 7:
            raise RuntimeError("the worker died")
        return real(*args, **kwargs)

    monkeypatch.setattr(core_games, "play_bot_game", watched)
    fail = True
    with pytest.raises(RuntimeError):
        play_deals(c.id, 0, [0])
    assert not CompetitionGame.objects.filter(competition_id=c.id).exists()
    fail = False
    played.clear()
    assert play_deals(c.id, 0, [0]) == 12 and len(played) == 12
    ended = {games().record(c.game_id(0, i))[-1].event.seed for i in range(12)}
    assert len(ended) == 1


def test_people_do_not_play_a_duplicate(competitions):
    live = LivePlay("classic", {}, 60, 300, 24, False)
    with pytest.raises(CompetitionError, match="for bots"):
        create("People", "duplicate", {"deals": 1}, ruleset_for("classic", 3), 3,
               BOTS4[:2], organiser="user:ann", live=live, invited=["user:bob"])


def test_a_duplicate_stored_before_deals_were_shared_plays_on_as_it_began(competitions,
                                                                         monkeypatch):
    """A competition stored with the old duplicate (``Created`` version 2) is read as
    ``duplicate-by-group``: its next rounds give each group its own deal, as its first."""
    monkeypatch.setattr(Competition.Created, "class_version", 2)
    old = create("Old dup", "duplicate", {"deals": 2}, ruleset_for("classic", 3), 3, BOTS4)
    monkeypatch.undo()
    reset_competitions()
    reset_games()
    done = run_here(old.id)
    assert done.format == "duplicate-by-group" and done.finished
    assert done.rounds[0] == old.rounds[0]  # what it stored stays as it was
    for paired in done.rounds[1:]:  # paired after it was read: a deal for each group
        deals: dict[int, set[frozenset[int]]] = {}
        for p in paired.games:
            deals.setdefault(p.deal, set()).add(frozenset(p.seats))
        assert len(deals) == 4 and all(len(g) == 1 for g in deals.values())
