"""Free text that becomes a game's tags (a competition's name, an entrant's id and
display name) is refused where it enters, by the engine's own rule
(``bohnanza_core.engine.is_tag_value``), so that no game of the competition fails in
the worker later (a competition stalled for ever)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from bohnanza_core.engine import TAG_VALUE_MAX, check_tags, is_tag_value
from bohnanza_core.errors import RulesetError
from bohnanza_core.rulesets import ruleset_for
from tournaments.core.competition import CompetitionError
from tournaments.core.store import Competitions, create

BAD_NAMES = ["Team \U0001f469\u200d\U0001f4bb Cup", "Cup \u202eevil", "Tab\tCup",
             "Line\u2028Cup"]
FORM = {"name": "Page Cup", "ruleset": "classic", "table": "3",
        "bots": "heuristic, random, nontrading", "deals": "1", "rules": ""}


@pytest.mark.parametrize("name", BAD_NAMES)
def test_the_engine_refuses_these_names_as_tags(name: str):
    assert not is_tag_value(name)
    with pytest.raises(RulesetError):
        check_tags([("competition", name)])
    assert is_tag_value("Team \U0001f469 Cup \u00e1rv\u00edzt\u0171r\u0151")
    assert not is_tag_value("x" * (TAG_VALUE_MAX + 1))


@pytest.mark.parametrize("name", BAD_NAMES)
def test_the_form_refuses_a_name_a_game_could_not_carry(competitions: Competitions,
                                                       name: str):
    client = Client()
    client.force_login(User.objects.create(username="organiser"))
    answer = client.post(reverse("tournaments:new_format", args=["duplicate"]),
                         {**FORM, "name": name})
    assert answer.status_code == 400
    assert "printable characters only" in answer.content.decode()
    assert competitions.ids() == []
    client.cookies["django_language"] = "hu"
    hungarian = client.post(reverse("tournaments:new_format", args=["duplicate"]),
                            {**FORM, "name": name}).content.decode()
    assert "printable characters only" not in hungarian and "nyomtathat" in hungarian


@pytest.mark.parametrize("name", BAD_NAMES)
def test_create_and_the_shell_refuse_it_too(competitions: Competitions, name: str):
    with pytest.raises(CompetitionError, match="printable characters only"):
        create(name, "duplicate", {"deals": 1}, ruleset_for("classic", 3), 3,
               ["heuristic@builtin", "random@builtin", "nontrading@builtin"])
    with pytest.raises(CommandError, match="printable characters only"):
        call_command("tournament", "create", "--name", name, "--format", "duplicate",
                     "--ruleset", "classic", "--table", "3",
                     "--bots", "heuristic,random,nontrading", "--deals", "1", "--no-wait")
    assert competitions.ids() == []


@pytest.mark.parametrize("entrant", ["heuristic\u200d@builtin", "heuristic@built\tin"])
def test_an_entrant_whose_id_a_game_could_not_carry_is_refused(competitions: Competitions,
                                                               entrant: str):
    with pytest.raises(CompetitionError, match="cannot enter"):
        create("Fine Cup", "duplicate", {"deals": 1}, ruleset_for("classic", 3), 3,
               ["random@builtin", "nontrading@builtin", entrant], consented=True)
    assert competitions.ids() == []
