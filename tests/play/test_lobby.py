"""The lobby (play/lobby.py, play/tables.py): creating a table with house rules, bots
and a clock; joining, leaving, starting; private tables; signing up; profiles."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from bohnanza_core.games import play_bot_game
from bohnanza_core.rulesets import ruleset_for
from play.models import Table
from play.tables import TableError, create_table, join, leave, start
from replays.store import games, reset_games

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh(settings: Any) -> Iterator[None]:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    reset_games()
    yield
    reset_games()


def _signed_in(name: str) -> tuple[User, Client]:
    user = User.objects.create_user(name, password="pw")
    client = Client()
    client.force_login(user)
    return user, client


def test_a_table_is_created_joined_and_started_into_the_event_store() -> None:
    _ann, client = _signed_in("ann")
    bob, bob_client = _signed_in("bob")
    answer = client.post("/play/tables/new/", {
        "preset": "classic", "players": "3", "house_rules": '{"trading": false}',
        "move_seconds": "30", "game_seconds": "120", "public": "on",
        "seat_0": "open", "seat_1": "open", "seat_2": "heuristic"})
    assert answer.status_code == 302
    table = Table.objects.get()
    assert table.overrides == {"trading": False} and table.move_seconds == 30
    assert table.ruleset().house_rules == ("trading",)
    # The entry in words: ruleset and size, host, who sits where, clock, house rules.
    lobby = client.get("/play/").content.decode()
    assert '<span translate="no">classic</span> · 3 players</a>' in lobby
    assert "hosted by ann" in lobby and "30 s a move" in lobby
    assert "house rules: trading" in lobby and "— 1 open seat</li>" in lobby
    assert client.post(f"/play/tables/{table.id}/start/").status_code == 302
    assert Table.objects.get().status == "open"  # a seat is still open
    bob_client.post(f"/play/tables/{table.id}/join/")
    client.post(f"/play/tables/{table.id}/start/")
    table.refresh_from_db()
    assert table.status == "running" and table.game_id is not None
    game = games().game(table.game_id)
    assert game.players == ("user:ann", "user:bob", "bot:heuristic")
    assert game.state.ruleset.trading is False
    page = bob_client.get(f"/play/tables/{table.id}/").content.decode()
    assert 'id="live-words"' in page and "table.js" in page
    with pytest.raises(TableError):
        leave(table, bob)


@pytest.mark.parametrize(("kwargs", "reason"), [
    ({"preset": "nonesuch"}, "no ruleset"),
    ({"players": 9}, "player"),
    ({"overrides": {"trading": "perhaps"}}, "trading"),
    ({"overrides": {"seed": 1}}, "unknown rule option"),
    ({"seats": ["heuristic"] * 3}, "at least one seat open"),
    ({"seats": ["open", "cheater", "open"]}, "no bot"),
    ({"move_seconds": -1}, "clock"),
])
def test_a_table_that_cannot_be_played_is_refused(kwargs: dict[str, Any], reason: str) -> None:
    ann = User.objects.create_user("ann")
    args: dict[str, Any] = {"preset": "classic", "players": 3,
                            "seats": ["open", "open", "random"]}
    args.update(kwargs)
    preset, players = args.pop("preset"), args.pop("players")
    with pytest.raises(TableError, match=reason):
        create_table(ann, preset, players, **args)
    assert not Table.objects.exists()


def test_joining_leaving_and_who_may_start() -> None:
    ann, bob, cy = (User.objects.create_user(n) for n in ("ann", "bob", "cy"))
    table = create_table(ann, "duel", 2, seats=["open", "open"])
    join(table, bob)
    with pytest.raises(TableError, match="no open seat"):
        join(table, cy)
    with pytest.raises(TableError, match="already sit"):
        join(table, bob)
    with pytest.raises(TableError, match="creator"):
        start(table, bob)
    leave(table, bob)
    join(table, cy)
    start(table, ann)
    with pytest.raises(TableError, match="started"):
        join(table, bob)
    leave_table = create_table(ann, "duel", 2, seats=["open", "random"])
    leave(leave_table, ann)  # the creator closes an unstarted table
    assert not Table.objects.filter(pk=leave_table.pk).exists()


def test_a_private_table_opens_only_for_its_players_and_invitation() -> None:
    ann, client = _signed_in("ann")
    table = create_table(ann, "duel", 2, seats=["open", "open"], public=False)
    assert client.get(f"/play/tables/{table.id}/").status_code == 200
    stranger = Client()
    assert stranger.get(f"/play/tables/{table.id}/").status_code == 404
    assert stranger.get(f"/play/tables/{table.id}/?invite=nope").status_code == 404
    page = stranger.get(f"/play/tables/{table.id}/?invite={table.invite_token}")
    assert page.status_code == 200
    assert table.invite_token not in Client().get("/play/").content.decode()
    assert str(table.id) not in Client().get("/play/").content.decode()


def test_an_invited_watcher_of_a_private_game_is_linked_to_its_replay_and_audit() -> None:
    ann, client = _signed_in("ann")
    table = start(create_table(ann, "duel", 2, seats=["open", "random"], public=False), ann)
    game = games().game(table.game_id)
    watcher = Client()
    page = watcher.get(f"/play/tables/{table.id}/?invite={table.invite_token}")
    text = page.content.decode()
    replay = f"/replays/games/{table.game_id}/?token={game.share_token}"
    audit = f"/replays/games/{table.game_id}/audit/?token={game.share_token}"
    assert replay in text and audit in text
    assert '<h1 class="live-title">Table: <span translate="no">duel</span>, 2 players</h1>' in text
    assert "You are watching this game" in text
    assert watcher.get(replay).status_code == 200
    assert watcher.get(f"/replays/games/{table.game_id}/").status_code == 403
    # Its players are linked as before: the replay opens for them without a token.
    mine = client.get(f"/play/tables/{table.id}/").content.decode()
    assert game.share_token not in mine and "You are watching this game" not in mine


def test_sign_up_signs_in_and_the_profile_lists_games_with_their_replays() -> None:
    client = Client()
    answer = client.post("/accounts/signup/", {"username": "dora", "password1": "bean-field-77",
                                              "password2": "bean-field-77"})
    assert answer.status_code == 302
    assert "dora" in client.get("/play/").content.decode()
    ruleset = ruleset_for("duel", 2)
    public = play_bot_game(games(), ruleset, ["random", "random"], "p1",
                           players=["user:dora", "bot:random"])
    private = play_bot_game(games(), ruleset, ["random", "random"], "p2",
                            players=["user:dora", "bot:random"], private=True)
    mine = client.get("/players/dora/").content.decode()
    assert f"/replays/games/{public.id}/" in mine and f"/replays/games/{private.id}/" in mine
    theirs = Client().get("/players/dora/").content.decode()
    assert f"/replays/games/{public.id}/" in theirs
    assert f"/replays/games/{private.id}/" not in theirs
    # Results, opponents: her own page shows her results; a visitor's hides them (no
    # spoilers) until asked.
    assert "2 games finished: " in mine and "Played most with:" in mine
    assert "Random bot</span> (2)" in mine and "hide-results" not in mine
    # The record line sums the results up: a visitor sees it only once asked.
    assert "game finished: " not in theirs and "hide-results" in theirs
    asked = Client().get("/players/dora/?results=1").content.decode()
    assert "hide-results" not in asked and "1 game finished: " in asked
    assert Client().get("/players/nobody/").status_code == 404
    bad = client.post("/accounts/signup/", {"username": "dora", "password1": "x",
                                           "password2": "y"})
    assert bad.status_code == 400


def test_house_rules_are_a_form_within_the_engines_bounds() -> None:
    """Each house rule is a field named in the reader's words, with the engine's bounds
    (the server checks them, and the engine again); what is left empty stays the
    ruleset's; every option value has its words."""
    from enum import StrEnum

    from bohnanza_core.rulesets import BOUNDS, PRESETS
    from play.forms import FORM_RULES
    from play.presets import EXPLAINED, OPTION_WORDS, PARAMETERS

    sample = PRESETS["classic"][0]
    for name in FORM_RULES:
        value = getattr(sample, name)
        if isinstance(value, StrEnum):
            assert all(option.value in OPTION_WORDS for option in type(value)), name
    assert set(PARAMETERS) >= set(FORM_RULES) and set(EXPLAINED) == set(PRESETS)
    _ann, client = _signed_in("ann")
    page = client.get("/play/").content.decode()
    _low, high = BOUNDS["draw_cards"]
    assert 'name="rule_draw_cards"' in page and f'max="{high}"' in page
    assert "cards drawn at the end of a turn" in page and "{" not in page.split(
        'name="rule_trading"')[0][-200:]
    form = {"preset": "classic", "players": "3", "seat_0": "open", "seat_1": "heuristic",
            "seat_2": "heuristic", "move_seconds": "0", "game_seconds": "0",
            "public": "on", "rule_trading": "no", "rule_draw_cards": "4",
            "rule_tie_break": "shared win"}
    assert client.post("/play/tables/new/", form).status_code == 302
    table = Table.objects.get()
    assert table.overrides == {"trading": False, "draw_cards": 4, "tie_break": "shared win"}
    refused = client.post("/play/tables/new/", {**form, "rule_draw_cards": str(high + 1)})
    assert refused.status_code == 400 and Table.objects.count() == 1
    assert f"less than or equal to {high}" in refused.content.decode()
    wrong = client.post("/play/tables/new/", {**form, "rule_tie_break": "coin toss"})
    assert wrong.status_code == 400 and Table.objects.count() == 1
    waiting = client.get(f"/play/tables/{table.id}/").content.decode()
    assert "trading: no" in waiting and "cards drawn at the end of a turn: 4" in waiting
    assert "tie-break: shared win" in waiting


def test_the_lobbys_title_is_words_and_its_words_are_in_the_page_once() -> None:
    """The words static/js/lobby.js writes the lists with were written into the page's
    <title> (a script element there is text: the tab showed the JSON) and twice more."""
    page = Client().get("/play/").content.decode()
    title = page.split("<title>", 1)[1].split("</title>", 1)[0]
    assert title == "Lobby · Bohnanza platform"
    assert page.count('id="lobby-words"') == 1


def test_a_running_games_replay_links_to_its_live_table_for_whoever_may_watch_it() -> None:
    """The replay of a running game does not move on; its live table does. The link is
    given where the table may be seen without an invitation, and nowhere else."""
    ann, ann_client = _signed_in("ann")
    public = start(create_table(ann, "classic", 3, seats=["open", "random", "random"],
                                mine=0), ann)
    private = start(create_table(ann, "classic", 3, seats=["open", "random", "random"],
                                 mine=0, public=False), ann)
    _, eve_client = _signed_in("eve")

    def link(client: Client, table: Table, query: str = "") -> bool:
        page = client.get(f"/replays/games/{table.game_id}/{query}")
        assert page.status_code == 200
        html = page.content.decode()
        return f'id="replay-live" href="/play/tables/{table.id}/"' in html

    assert link(Client(), public) and link(eve_client, public)
    assert link(ann_client, private)
    # The private game's share link opens its replay to eve, not its table's address.
    token = games().game(private.game_id).share_token
    assert not link(eve_client, private, f"?token={token}")
    # A game no table plays (a bots' game, an import) has no link.
    bots = play_bot_game(games(), ruleset_for("duel", 2), ["random", "random"], "nolive")
    assert 'id="replay-live"' not in Client().get(f"/replays/games/{bots.id}/").content.decode()
