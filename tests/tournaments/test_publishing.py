"""Publishing a competition (issue 28, items 2, 4 and 10): its page lists every round,
pairing and game, filtered by entrant; every game at once as a streamed zip, from the
page and the shell; a finished one's page cached like a finished replay; brackets,
winners and podiums by each format's own rule."""

from __future__ import annotations

import html
import io
import json
import re
import zipfile

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from bohnanza_core.export import read_jsonl
from bohnanza_core.formats import History, Result, Round
from bohnanza_core.pairings import Pairing
from bohnanza_core.rulesets import ruleset_for
from bohnanza_core.verify import verify_text
from tournaments.core.rounds import run_here
from tournaments.core.store import create
from tournaments.management.commands.tournament import describe
from tournaments.models import CompetitionGame
from tournaments.views import _standings

BOTS4 = ["heuristic@builtin", "random@builtin", "nontrading@builtin", "heuristic@builtin #2"]


@pytest.fixture
def knockout(competitions):
    c = create("Cup", "knockout", {"advance": 1}, ruleset_for("duel", 2), 2, BOTS4)
    return run_here(c.id)


def _zip(data: bytes) -> zipfile.ZipFile:
    return zipfile.ZipFile(io.BytesIO(data))


def test_the_games_download_is_a_zip_of_every_game_each_verifiable(knockout):
    answer = Client().get(reverse("tournaments:games_zip", args=[knockout.id]))
    assert answer.status_code == 200 and answer.streaming
    assert answer["Content-Type"] == "application/zip"
    assert "attachment" in answer["Content-Disposition"]
    archive = _zip(b"".join(answer.streaming_content))
    names = archive.namelist()
    rows = CompetitionGame.objects.filter(competition_id=knockout.id)
    assert len(names) == rows.count() + 1 == knockout.games_total() + 1 == 7
    index = [json.loads(line) for line in archive.read("games.jsonl").splitlines()]
    assert [(g["round"], g["table"]) for g in index] == [(1, 1), (1, 2), (1, 3), (1, 4),
                                                         (2, 1), (2, 2)]
    for line in index:
        text = archive.read(line["file"]).decode()
        assert verify_text(text).ok
        start = read_jsonl(text).events[0]
        assert start.tag("competition_id") == str(knockout.id)
        assert start.tag("round") == str(line["round"])
        assert [start.tag(f"seat_{s}_entrant") for s in range(2)] == line["entrants"]
    # finished: an ETag, public caching, and a 304 for the same copy
    again = Client().get(reverse("tournaments:games_zip", args=[knockout.id]),
                         HTTP_IF_NONE_MATCH=answer["ETag"])
    assert again.status_code == 304
    assert "public" in answer["Cache-Control"]


def test_the_bracket_and_the_zip_number_a_knockouts_games_alike(knockout):
    """The bracket's "Table 2" of a duel's round plays games 3 and 4: its caption says
    so, and the zip's index gives those games (``table-00003``, ``table-00004``, tagged
    ``table`` 3 and 4) the bracket's table as ``match``."""
    text = Client().get(reverse("tournaments:detail", args=[knockout.id])).content.decode()
    assert "Table 2 · games 3\N{EN DASH}4" in text
    assert "Table 1 · games 1\N{EN DASH}2" in text
    answer = Client().get(reverse("tournaments:games_zip", args=[knockout.id]))
    archive = _zip(b"".join(answer.streaming_content))
    index = [json.loads(line) for line in archive.read("games.jsonl").splitlines()]
    assert [(g["round"], g["table"], g["match"]) for g in index] == [
        (1, 1, 1), (1, 2, 1), (1, 3, 2), (1, 4, 2), (2, 1, 1), (2, 2, 1)]
    third = index[2]
    assert third["file"] == "round-001/table-00003.jsonl"
    assert read_jsonl(archive.read(third["file"]).decode()).events[0].tag("table") == "3"


def test_the_shell_exports_the_same_zip(knockout, tmp_path, capsys):
    out = tmp_path / "cup.zip"
    call_command("tournament", "export", "Cup", "--out", str(out))
    assert "6 games" in capsys.readouterr().out
    assert len(_zip(out.read_bytes()).namelist()) == 7


def test_the_page_shows_bracket_winner_podium_and_filters_by_entrant(knockout):
    client = Client()
    page = client.get(reverse("tournaments:detail", args=[knockout.id]))
    text = page.content.decode()
    assert 'class="bracket"' in text and "Final" in text
    final = knockout.bracket()[-1][0]
    winner = knockout.entrants[final.rows[0].entrant]
    assert final.played and final.rows[0].through and not final.rows[1].through
    assert knockout.podium().rule == "final"
    assert knockout.entrants[knockout.podium().places[0]] == winner
    assert 'class="podium"' in text and "By the final table" in text
    assert "Download every game" in text and "Why the orders differ" in text
    # every entrant's games, across every round
    second = knockout.entrants.index(winner) + 1
    filtered = client.get(reverse("tournaments:detail", args=[knockout.id]),
                          {"entrant": second}).content.decode()
    games = [(r, i) for r, paired in enumerate(knockout.rounds)
             for i, p in enumerate(paired.games) if second - 1 in p.seats]
    assert len(games) == 4  # two games in each of the two rounds
    assert filtered.count(">replay</a>") == 4
    assert client.get(reverse("tournaments:detail", args=[knockout.id]),
                      {"entrant": "999"}).status_code == 200  # out of range: ignored


def test_a_finished_competitions_page_is_cached_like_a_finished_replay(knockout):
    client = Client()
    url = reverse("tournaments:detail", args=[knockout.id])
    first = client.get(url)
    assert "public" in first["Cache-Control"] and first["ETag"]
    assert client.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304


def test_a_running_competitions_page_is_not_cached(competitions):
    c = create("Running", "round-robin", {"cycles": 1}, ruleset_for("classic", 3), 3,
               BOTS4[:3])
    answer = Client().get(reverse("tournaments:detail", args=[c.id]))
    assert "no-store" in answer["Cache-Control"] and not answer.get("ETag")
    zipped = Client().get(reverse("tournaments:games_zip", args=[c.id]))
    assert "no-store" in zipped["Cache-Control"]
    assert _zip(b"".join(zipped.streaming_content)).namelist() == ["games.jsonl"]


@pytest.mark.parametrize("name, options, ruleset, table, bots, rule", [
    ("round-robin", {"cycles": 1}, "classic", 3, BOTS4[:3], "points"),
    ("duplicate", {"deals": 1}, "classic", 3, BOTS4[:3], "points"),
    ("swiss", {"rounds": 2}, "duel", 2, BOTS4, "swiss"),
    ("knockout", {"advance": 1}, "duel", 2, BOTS4, "final"),
    ("league", {"divisions": 2, "moves": 1, "seasons": 2}, "duel", 2, BOTS4, "division"),
])
def test_every_format_ends_with_a_podium_by_its_own_rule(competitions, name, options,
                                                         ruleset, table, bots, rule):
    c = create(name, name, options, ruleset_for(ruleset, table), table, bots)
    assert c.podium() is None  # not before it has ended
    done = run_here(c.id)
    podium = done.podium()
    assert podium is not None and podium.rule == rule
    assert len(podium.places) == min(3, len(bots)) == len(set(podium.places))
    assert list(podium.places) == done.placings()[:3]
    # one ordering: the standings' first three are the podium, in every format
    assert list(podium.places) == [t.entrant for t in done.standings()[:3]]
    if name == "league":
        last = len(done.rounds) - 1
        assert list(podium.places[:2]) == done.divisions(last)[0]
        # the last season marks nobody promoted or relegated; the first does
        assert done.moves[last].promoted == () and done.moves[last].relegated == ()
        assert {done.moved(last, e) for e in range(4)} == {0}
        assert {done.moved(0, e) for e in range(4)} == {1, -1, 0}
    page = Client().get(reverse("tournaments:detail", args=[done.id])).content.decode()
    assert 'class="podium"' in page
    assert "Download every game" in page  # every format's page offers it
    if name != "league":  # a league's tables are its divisions, each season's
        assert _standings_shown(page)[:3] == [done.entrants[e] for e in podium.places]
        assert "The standings are in the podium's order" in html.unescape(page)
    shown = describe(done)
    assert "podium (" in shown and "1. " in shown


def _standings_shown(page: str) -> list[str]:
    """The entrant ids of a page's standings table, top to bottom."""
    table = page.split('<table class="standings">', 1)[1].split("</table>", 1)[0]
    return re.findall(r'<tr><td>\d+</td><td><span class="entrant[^"]*" translate="no" '
                      r'title="([^"]+)"', table)


def _won_by(seats: tuple[int, ...], winner: int, coins: dict[int, int]) -> Result:
    """A duel's result: ``winner`` first, the other second, with their ``coins``."""
    return Result(tuple(1 if e == winner else 2 for e in seats),
                  tuple(coins.get(e, 0) for e in seats),
                  (seats.index(winner),))


def test_a_swiss_standings_follow_its_podium_with_buchholz(competitions):
    """Entrants 2 and 3 share a point; 3 has more coins, 2 met the stronger field: the
    standings put 2 third, as the podium does, and show the Buchholz that says why."""
    c = create("Tied Swiss", "swiss", {"rounds": 2}, ruleset_for("duel", 2), 2, BOTS4)
    c.rounds = [Round((Pairing((0, 1), 0), Pairing((2, 3), 1))),
                Round((Pairing((0, 2), 0), Pairing((1, 3), 1)))]
    c.results = [[Result((1, 2), (5, 1), (0,)), Result((1, 2), (5, 1), (0,))],
                 [Result((1, 2), (5, 1), (0,)), Result((2, 1), (1, 30), (1,))]]
    assert c.finished and c.podium().places == (0, 2, 3)
    rows = _standings(c)
    assert [row["entrant"] for row in rows] == [c.entrants[e] for e in (0, 2, 3, 1)]
    assert [row["buchholz"] for row in rows] == [1.0, 3.0, 1.0, 3.0]
    assert [row["points"] for row in rows] == [2.0, 1.0, 1.0, 0.0]


def test_a_knockouts_standings_put_the_brackets_winner_first(competitions):
    """The final's winner won it on coins; the other finalist has as many points over
    every game and far more coins: the standings still put the winner first, and show
    the round each reached and the last match that ordered them."""
    c = create("Coin Cup", "knockout", {"advance": 1}, ruleset_for("duel", 2), 2, BOTS4)
    first = c.rules.next_round(History(4, 2))
    assert first is not None and len(first.games) == 4
    tables = [first.games[0].seats, first.games[2].seats]
    a, b = tables[0]
    d, e = tables[1]
    results = [_won_by(first.games[i].seats, a if i < 2 else d, {a: 10, d: 50})
               for i in range(4)]
    final = Round((Pairing((a, d), 0), Pairing((d, a), 0)))
    c.rounds = [first, final]
    c.results = [results, [_won_by((a, d), a, {a: 9}), _won_by((d, a), d, {d: 1})]]
    assert c.finished and c.podium().places[:2] == (a, d)
    rows = _standings(c)
    assert [row["entrant"] for row in rows][:2] == [c.entrants[a], c.entrants[d]]
    assert [row["points"] for row in rows][:2] == [3.0, 3.0]  # every game: a tie
    assert [row["reached"] for row in rows] == ["Final", "Final", "Round 1", "Round 1"]
    assert [(row["match"].points, row["match"].coins) for row in rows[:2]] == [(1.0, 9),
                                                                              (1.0, 1)]
    assert [c.entrants[t.entrant] for t in c.standings()] == [row["entrant"] for row in rows]
    assert {c.entrants[b], c.entrants[e]} == {row["entrant"] for row in rows[2:]}
