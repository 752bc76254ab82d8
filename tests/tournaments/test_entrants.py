"""Entrants by name: a bot's name and version, a person's username; the id stays in
the page's title attribute and the shell's last column."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.template import Context, Template

from tournaments.core.entrants import display_name, entrant_name, person_entrant, username_of


@pytest.mark.parametrize("entrant, name, version, shown", [
    ("heuristic@builtin", "heuristic", "builtin", "heuristic (built in)"),
    ("heuristic@builtin #2", "heuristic #2", "builtin", "heuristic #2 (built in)"),
    ("cautious@0.1.0", "cautious", "0.1.0", "cautious (0.1.0)"),
    ("user:alice", "alice", "", "alice"),
    ("user:bob@example", "bob@example", "", "bob@example"),
])
def test_an_entrant_is_named_by_its_bot_and_version_or_its_person(entrant, name, version,
                                                                   shown):
    named = entrant_name(entrant)
    assert (named.name, named.version, display_name(entrant)) == (name, version, shown)
    assert named.person == entrant.startswith("user:")


def test_a_person_entrant_round_trips():
    assert username_of(person_entrant("alice")) == "alice"
    assert username_of("heuristic@builtin") is None


@pytest.mark.django_db  # a person's entrant is looked up: a bot account is marked
def test_the_filter_shows_the_name_with_the_id_in_the_title():
    html = Template("{% load entrants %}{{ e|entrant }}").render(
        Context({"e": "heuristic@builtin #2"}))
    assert 'title="heuristic@builtin #2"' in html and ">heuristic #2 <small" in html
    html = Template("{% load entrants %}{{ e|entrant }}").render(
        Context({"e": "user:<b>eve</b>"}))
    assert "<b>" not in html and "&lt;b&gt;eve&lt;/b&gt;" in html


def test_the_shell_names_entrants_and_keeps_their_ids(competitions):
    out = StringIO()
    call_command("tournament", "create", "--format", "league", "--name", "Names",
                 "--ruleset", "duel", "--table", "2", "--bots", "heuristic,random",
                 "--divisions", "1", "--moves", "0", "--seasons", "1", "--here", stdout=out)
    lines = [line for line in out.getvalue().splitlines() if "random@builtin" in line]
    # the division's row and the ranking's (after its place): the name first, the id last
    assert len(lines) == 2
    assert all(re.match(r"\s*(\d+ +)?random \(built in\) ", line) for line in lines)
    assert all(line.endswith("  random@builtin") for line in lines)
