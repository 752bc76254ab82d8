"""The home page, the custom 404 page and Django's system checks."""

from django.core.management import call_command
from django.test import Client
from django.utils.html import escape

from bohnanza_core.rulesets import PRESETS


def test_home_page_leads_the_way_in(client: Client, db: None) -> None:
    response = client.get("/")

    assert response.status_code == 200
    page = response.content.decode()
    assert "Play, watch and study Bohnanza" in page
    assert 'href="/rules/"' in page and 'href="/replays/games/"' in page
    assert "rulesets-table" not in page  # the rulesets have their own page
    assert "seeds/" not in page  # no rule-file paths


def test_rules_page_lists_every_preset(client: Client) -> None:
    response = client.get("/rules/")

    assert response.status_code == 200
    page = response.content.decode()
    for preset_name, bands in PRESETS.items():
        assert escape(preset_name) in page
        for ruleset in bands:
            assert escape(ruleset.name) in page


def test_unknown_url_gives_custom_404(client: Client) -> None:
    response = client.get("/no-such-page/")

    assert response.status_code == 404
    page = response.content.decode()
    assert "This page does not exist" in page
    assert 'href="/"' in page


def test_system_checks_pass() -> None:
    call_command("check", fail_level="WARNING")
