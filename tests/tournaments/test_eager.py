"""Competitions played in this process (``run_here``: the demo, ``--here``), and the
``manage.py tournament`` command."""

from __future__ import annotations

import re

import pytest
from django.core.management import CommandError, call_command
from django.template import Context, Template

from bohnanza_core.formats import Tally
from bohnanza_core.rulesets import ruleset_for
from tournaments.core.competition import Competition, CompetitionError
from tournaments.core.entrants import entrants_for
from tournaments.core.rounds import run_here
from tournaments.core.store import create
from tournaments.management.commands.tournament import describe
from tournaments.models import CompetitionGame

BOTS3 = ["heuristic@builtin", "random@builtin", "nontrading@builtin"]


def test_a_round_robin_played_here_runs_to_the_end(competitions):
    t = create("Here", "round-robin", {"cycles": 1}, ruleset_for("classic", 3), 3, BOTS3)
    seen: list[int] = []
    done = run_here(t.id, on_deal=lambda t: seen.append(t.games_done()))
    assert done.finished and done.games_done() == done.games_total() == 3
    assert done.finished_recorded  # said by its own event (Finished), not only worked out
    assert seen == [1, 2, 3]
    assert CompetitionGame.objects.filter(competition_id=t.id).count() == 3
    assert run_here(t.id).version == done.version  # nothing left to play


def test_a_copy_of_a_competition_is_its_own_and_shares_only_frozen_games(competitions):
    import copy

    t = create("Copied", "swiss", {"rounds": 2}, ruleset_for("classic", 3), 3, BOTS3)
    played = run_here(t.id)
    clone = copy.deepcopy(played)
    assert clone.__dict__.keys() == played.__dict__.keys()
    assert (clone.rounds, clone.results, clone.ratings, clone.rating_history,
            clone.version) == (played.rounds, played.results, played.ratings,
                               played.rating_history, played.version)
    assert clone.rounds is not played.rounds and clone.results[0] is not played.results[0]
    assert clone.rounds[0] is played.rounds[0]  # a frozen Round, shared
    assert clone.results[0][0] is played.results[0][0]  # a frozen Result, shared
    clone.rounds.append(clone.rounds[0])
    clone.results[0].clear()
    clone.ratings.clear()
    clone.rating_history.clear()
    clone.moves.clear()
    clone.entrants.append("someone@1")
    assert len(played.rounds) == 2 and played.results[0] and played.ratings
    assert len(played.rating_history) == len(played.moves) == 2
    assert played.entrants == BOTS3


def test_every_game_of_a_competition_is_stored_whole_and_passes_the_audit(competitions):
    """A task's games go in as one write (``Games.save_games``): each one's record, read
    back, is a complete, valid, finished game under its own head."""
    from bohnanza_core.verify import verify_record
    from replays.store import games

    t = create("Audited", "round-robin", {"cycles": 1}, ruleset_for("classic", 3), 3,
               [*BOTS3, "heuristic@builtin #2"])
    run_here(t.id)
    rows = list(CompetitionGame.objects.filter(competition_id=t.id))
    assert len(rows) == t.games_total() == 12
    for row in rows:
        game = games().game(row.game_id)
        verdict = verify_record(games().record(row.game_id), game.head_hash)
        assert verdict.ok and verdict.complete and verdict.finished, verdict.report()
        assert list(game.state.result.ranks) == row.ranks


def test_a_format_that_cannot_be_paired_stores_nothing(competitions):
    with pytest.raises(CompetitionError, match="do not fill tables"):
        create("Bad", "swiss", {"rounds": 2}, ruleset_for("classic", 3), 3,
               [*BOTS3, "heuristic@builtin #2"])
    assert competitions.ids() == []


def test_entrants_are_bot_versions_numbered_when_entered_again():
    assert entrants_for(["heuristic", "random", "heuristic"]) == [
        "heuristic@builtin", "random@builtin", "heuristic@builtin #2"]
    with pytest.raises(CompetitionError, match="Unknown bots"):
        entrants_for(["clever"])


def test_the_command_creates_and_plays_a_competition_with_house_rules(competitions, capsys):
    call_command("tournament", "create", "--name", "Shell Cup", "--format", "knockout",
                 "--ruleset", "duel", "--table", "2", "--bots", "heuristic,random,nontrading,"
                 "heuristic", "--advance", "1", "--rule", "draw_cards=3", "--here")
    out = capsys.readouterr().out
    assert "6/6 games, finished" in out and "[" + "#" * 30 + "]" in out
    assert "duel (house rules): draw_cards" in out
    (tid,) = competitions.ids()
    call_command("tournament", "list")
    assert re.search(rf"{tid}\s+Shell Cup\s+knockout\s+6/6\s+finished", capsys.readouterr().out)
    call_command("tournament", "show", str(tid))
    assert "heuristic@builtin" in capsys.readouterr().out
    call_command("tournament", "show", str(tid)[:8])  # a unique start of its id
    assert "Shell Cup" in capsys.readouterr().out
    call_command("tournament", "show", "Shell Cup")  # or its name
    assert str(tid) in capsys.readouterr().out


def test_the_command_finds_a_name_in_any_case_but_not_an_ambiguous_one(competitions, capsys):
    ko = create("Walk KO B", "knockout", {"advance": 1}, ruleset_for("duel", 2), 2, BOTS3[:2])
    call_command("tournament", "show", "walk ko b")
    assert str(ko.id) in capsys.readouterr().out
    upper = create("Cup", "swiss", {"rounds": 1}, ruleset_for("duel", 2), 2, BOTS3[:2])
    lower = create("cup", "swiss", {"rounds": 1}, ruleset_for("duel", 2), 2, BOTS3[:2])
    with pytest.raises(CommandError, match="2 competitions are 'CUP'"):
        call_command("tournament", "show", "CUP")
    for name, meant in (("Cup", upper), ("cup", lower)):  # written exactly: that one
        call_command("tournament", "show", name)
        assert str(meant.id) in capsys.readouterr().out


def test_the_command_rounds_figures_as_the_page_does(competitions, monkeypatch):
    """An average of 85 coins over 8 games is 10.625: the page shows 10.63 (Django's
    floatformat rounds half up), and so does the shell (Python's format gave 10.62)."""
    t = run_here(create("Rounding", "round-robin", {"cycles": 1}, ruleset_for("duel", 2), 2,
                        BOTS3[:2]).id)
    tally = Tally(0, games=8, points=2.25, coins=85, wins=2.25)
    monkeypatch.setattr(Competition, "standings", lambda self: [tally])
    page = Template("{{ a|floatformat:2 }} {{ p|floatformat:1 }}").render(
        Context({"a": 85 / 8, "p": 2.25}))
    assert page == "10.63 2.3"
    (line,) = [line for line in describe(t).splitlines() if line.startswith("  1 ")]
    assert line.split()[4:8] == ["8", "2.3", "10.63", "2.3"]  # games, points, coins, wins


@pytest.mark.parametrize("argv, message", [
    (["--format", "swiss", "--table", "3", "--bots", "heuristic,random"], "needs 3 to 64"),
    (["--format", "swiss", "--table", "3", "--bots", "clever,random,heuristic"],
     "Unknown bots: clever"),
    (["--format", "swiss", "--table", "3", "--bots", "heuristic", "--deals", "2"],
     "takes --rounds, not --deals"),
    (["--format", "duplicate", "--table", "3", "--bots", "heuristic", "--deals", "99"],
     "--deals: 1 to 50"),
    (["--format", "swiss", "--table", "3", "--bots", "heuristic", "--rule", "x=1"],
     "unknown rule option 'x'"),
    (["--format", "swiss", "--table", "9", "--bots", "heuristic"], "not 9"),
])
def test_the_command_refuses_what_cannot_be_run(competitions, argv, message):
    with pytest.raises(CommandError, match=re.escape(message)):
        call_command("tournament", "create", "--name", "X", "--ruleset", "classic", *argv)
    assert competitions.ids() == []


def test_the_demo_competition_is_stored_once_and_finished(competitions, capsys):
    call_command("demo_tournament")
    call_command("demo_tournament")
    out = capsys.readouterr().out
    assert "demo: Demo Cup" in out and "nothing added" in out
    (tid,) = competitions.ids()
    cup = competitions.get(tid)
    assert cup.finished and cup.games_done() == 20


def test_rerating_from_the_stored_games_gives_the_recorded_ratings(competitions, capsys):
    t = create("Rerate", "swiss", {"rounds": 4}, ruleset_for("duel", 2), 2,
               [*BOTS3, "heuristic@builtin #2"])
    run_here(t.id)
    call_command("tournament", "rerate", str(t.id))
    out = capsys.readouterr().out
    assert "the same ratings as recorded, from 8 stored games" in out
    assert out.count("conservative") == 4
    # Each round's end rates on from the last one's stored floats: to the bit what
    # rating every game again from the first gives.
    done = competitions.get(t.id)
    again = done.rerated()
    assert done.ratings == {e: (again.of(e).mu, again.of(e).sigma, again.games.get(e, 0))
                            for e in done.entrants}
