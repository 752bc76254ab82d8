"""No 5xx from any input (issue 8): walk every URL pattern of the project, the admin's
and the accounts' included, with hostile values for every path parameter and every
query or form parameter its view reads, GET and (where the view takes it) POST, as an
anonymous visitor, as a player seated in the games, and as staff, against a running,
a finished and a private game.

Every pattern must have an entry in :data:`SPECS` (:func:`test_every_url_pattern_has_cases`):
a new page without cases fails here until someone says what it reads.

A case fails on a 5xx or an exception out of the view (the message names the method,
the URL, the parameter and the value), and on an answer of more than
:data:`MAX_ANSWER` bytes: a value echoed into every link of a page is an amplifier.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import pytest
from django.contrib.auth.models import Group, User
from django.contrib.contenttypes.models import ContentType
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.urls.resolvers import RegexPattern

from bohnanza_core.export import export_record
from bohnanza_core.formats import FORMATS
from bohnanza_core.games import Game, play_bot_game
from bohnanza_core.rulesets import customize
from bohnanza_core.views import SPECTATOR
from play import tokens
from play.tables import create_table
from replays.disputes import open_dispute, reset_disputes
from replays.store import games, reset_games
from tests.factories import running_game
from tournaments.core import bottests
from tournaments.core.rounds import run_here
from tournaments.core.store import create, reset_competitions

MAX_ANSWER = 2_000_000
"""Bytes: the longest real page (a finished game's viewer) is about a tenth of this."""

# -- the hostile values -----------------------------------------------------------------

HOSTILE: dict[str, str] = {
    "negative": "-1",
    "10**30": str(10**30),
    "5,000 digits": "9" * 5000,
    "non-ASCII": "é",
    "superscript two": "\u00b2",
    "Arabic-Indic three": "\u0663",
    "circled one": "\u2460",
    "empty": "",
    "100 kB": "x" * 100_000,
    "nested JSON": '{"a":' * 300 + "[" * 300 + "]" * 300 + "}" * 300,
    "NUL": "a\x00b",
    "malformed UUID": "00000000-0000-0000-0000-00000000000g",
    "dot-dot": "../../../etc/passwd",
}
"""Sent for every parameter (encoded by the client)."""

RAW: dict[str, str] = {
    "percent junk": "%ff%fe%00%C0%AF..%",
    "half a percent": "%E9%",
    "encoded surrogate": "%ED%A0%80",
}
"""Sent as they are in the query string: percent-encoding that decodes to nothing sane."""

NEAR_MISSES: dict[str, tuple[str, ...]] = {
    "schema": ("server-frame.json", "client-frame.json", "server-frame.json ", "x.json"),
    "game_id": ("00000000-0000-0000-0000-000000000000", " "),
    "dispute_id": ("00000000-0000-0000-0000-000000000000",),
    "competition_id": ("00000000-0000-0000-0000-000000000000",),
    "ladder_id": ("00000000-0000-0000-0000-000000000000",),
    "league_id": ("00000000-0000-0000-0000-000000000000",),
    "round": ("0", "1", "2", "999", "1e3", " 1"),
    "table": ("1", "8", "2", "7"),
    "count": ("0", "51", "1"),
    "format": ("swiss", "knockout", "ladder", "league", "League", "round_robin"),
    "cycles": ("0", "1", "51"),
    "rounds": ("0", "1", "51"),
    "advance": ("0", "1", "7"),
    "deals": ("0", "1", "51"),
    "divisions": ("0", "1", "9"),
    "moves": ("0", "1", "65"),
    "seasons": ("0", "1", "21"),
    "every": ("9", "10", "604801"),
    "move_seconds": ("4", "5", "3601"),
    "game_seconds": ("0", "86401"),
    "fixture_hours": ("0", "1", "1441"),
    "people": ("ann", "ann, ann", "ann," * 70, "arbiter, nobody"),
    "open_entries": ("on", "off"),
    "back": ("invitations", "elsewhere"),
    "rules": ("draw_cards=3", "x=1\n" * 500, "draw_cards=" + "9" * 300),
    "perspective": ("seat-\u00b2", "seat-\u0663", "seat-" + "9" * 5000, "seat-99",
                    "seat--1", "seat-", "everything", "seat-1"),
    "step": ("0", "1e3", "1_0", " 3", "3.0", "99999999999999999999"),
    "from": ("0", "1e3", "1_0", " 3", "3.0", "99999999999999999999"),
    "seq": ("0", "1e3", "3.0", "99999999999999999999"),
    "event_seq": ("0", "1e3", "3.0", "99999999999999999999"),
    "started_from": ("9999-12-31", "0001-01-01", "10000-01-01", "2026-02-30",
                     "\u0662\u0660\u0662\u0666-\u0660\u0661-\u0660\u0661"),
    "started_to": ("9999-12-31", "0001-01-01", "10000-01-01", "2026-02-30"),
    "page": ("0", "99999999999999999999", "1.5"),
    "players": ("0", "7", "8", "99999999999999999999"),
    "ruleset": ("classic", "classic\x00"),
    "status": ("finished", "running", "Finished"),
    "ruling": ("UPHELD", "upheld "),
    "next": ("https://evil.example/", "//evil.example", "javascript:alert(1)"),
    "token": ('"><script>alert(1)</script>', "\U0001f600"),
    "player": ("%", "_", '"><script>alert(1)</script>', "\U0001f600"),
    "o": ("1.2.-3", "99", "-0"),
    "_to_field": ("password", "groups"),
    "token_id": ("0", "1", "99999999999999999999", "-1"),
    "name": ("walkbot", "ann", "WALKBOT"),
    "account": ("walkbot", "ann", "nobody"),
    "seat": ("0", "1", "-1", "7"),
    "seats": ("me", "open"),
    "scopes": ("play", "enter", "admin"),
}
"""Values near the valid ones, for the parameters that have a shape."""


FEW = ("10**30", "non-ASCII", "superscript two", "empty", "100 kB")
"""The values sent where every value has been sent already, or would only test Django's
own code (see :func:`walk_pattern`)."""


def values_for(name: str, few: bool = False) -> dict[str, str]:
    hostile = {label: HOSTILE[label] for label in FEW} if few else HOSTILE
    return {**hostile, **{f"near miss {v[:20]!r}": v for v in NEAR_MISSES.get(name, ())}}


def raw_for(few: bool = False) -> dict[str, str]:
    return dict(list(RAW.items())[:1]) if few else RAW


# -- what each page reads ---------------------------------------------------------------


@dataclass(frozen=True)
class Spec:
    """What a URL pattern's view reads from a request, besides its path parameters."""

    query: tuple[str, ...] = ()
    """Query-string parameters, sent hostile on GET."""
    form: tuple[str, ...] = ()
    """Form fields, sent hostile on POST (then the view takes POST)."""
    upload: str | None = None
    """The file field of a POSTed upload (then each of :func:`uploads` is sent)."""
    extra_form: dict[str, str] = field(default_factory=dict)
    """Sent beside each hostile field, where the view needs another to get going."""
    signed_in: bool = False
    """The view needs an account: the player walks it with every value."""
    staff: bool = False
    """What the view reads counts only for staff (an arbiter's ruling): staff walks it
    with every value."""
    few: bool = False
    """Django's own page (the admin, the accounts): the values of :data:`FEW` only."""
    body: tuple[str, ...] = ()
    """Fields of a JSON body (the bot API), sent hostile on POST (or ``method``)."""
    extra_body: dict[str, Any] = field(default_factory=dict)
    """Sent beside each hostile body field."""
    posted: bool = False
    """The view takes POST though it reads nothing from the request."""
    method: str = "post"
    """How the view is sent its form, body or nothing (``delete`` for a few API calls)."""

    @property
    def post(self) -> bool:
        return bool(self.form or self.upload or self.body or self.posted)


DJANGOS = Spec(few=True)
ADMIN_LIST = Spec(query=("q", "o", "p", "all", "_to_field"), few=True)
USER_CHANGE = Spec(query=("_to_field", "_changelist_filters"), form=("username",), few=True)
GROUP_CHANGE = Spec(query=("_to_field", "_changelist_filters"), form=("name",), few=True)
ADMIN_OBJECT = Spec(query=("_to_field",), few=True)
LOGIN = Spec(query=("next",), form=("username", "password", "next"), few=True)
LOGOUT = Spec(form=("next",), few=True)
NEW_PASSWORD = Spec(form=("new_password1", "new_password2"), few=True)
CHANGE_PASSWORD = Spec(form=("old_password", "new_password1", "new_password2"), few=True)

TABLE_BODY = ("ruleset", "players", "house_rules", "seats", "clock", "public",
              "absence_seconds", "replacement_bot", "start_when_full")
GOOD_TABLE = {"ruleset": "duel", "players": 2, "seats": ["me", "bot:random"]}
API = Spec(signed_in=True)

SPECS: dict[str, Spec] = {
    # botapi/ (the bot API: JSON bodies; the walk calls it with the player's session)
    "api:openapi-json": Spec(),
    "api:openapi-view": Spec(),
    "api:api-root": Spec(),
    "api_not_found": Spec(),
    "api:account": API,
    "api:bots": API,
    "api:rulesets": API,
    "api:create_challenge": Spec(body=TABLE_BODY, extra_body=GOOD_TABLE, signed_in=True),
    "api:list_challenges": API,
    "api:accept_challenge": Spec(posted=True, signed_in=True),
    "api:decline_challenge": Spec(posted=True, signed_in=True),
    "api:create_seek": Spec(body=TABLE_BODY, extra_body={**GOOD_TABLE, "seats": ["me", "open"]},
                            signed_in=True),
    "api:list_seeks": API,
    "api:cancel_seek": Spec(posted=True, method="delete", signed_in=True),
    "api:table_detail": API,
    "api:join_table": Spec(body=("seat",), signed_in=True),
    "api:leave_table": Spec(posted=True, signed_in=True),
    "api:start_table": Spec(posted=True, signed_in=True),
    "api:seat_view": API,
    "api:my_games": Spec(query=("status",), signed_in=True),
    "api:open_competitions": API,
    "api:competition_detail": API,
    "api:enter_competition": Spec(body=("account",), signed_in=True),
    "api:event_stream": API,
    # play/botaccounts.py
    "play:bots": API,
    "play:new_bot": Spec(form=("name",), signed_in=True),
    "play:upgrade_bot": Spec(form=("username", "password"), extra_form={"password": "x"},
                             signed_in=True),
    "play:bot": API,
    "play:new_token": Spec(form=("label", "scopes"), extra_form={"scopes": "read"},
                           signed_in=True),
    "play:rotate_token": Spec(posted=True, signed_in=True),
    "play:revoke_token": Spec(posted=True, signed_in=True),
    # play/views.py
    "play:home": Spec(),
    "play:rules": Spec(),
    # config/docs.py
    "docs:index": Spec(),
    "docs:guide": Spec(),
    # play/lobby.py
    "play:lobby": Spec(),
    "play:new_table": Spec(form=("preset", "players", "house_rules", "move_seconds",
                                 "game_seconds", "public", "seat_0", "seat_1"),
                           extra_form={"preset": "duel", "players": "2", "seat_0": "open",
                                       "seat_1": "random", "move_seconds": "0",
                                       "game_seconds": "0"},
                           signed_in=True),
    "play:table": Spec(query=("invite",)),
    "play:join_table": Spec(form=("seat",), signed_in=True),
    "play:leave_table": Spec(form=("seat",), signed_in=True),
    "play:start_table": Spec(form=("seat",), signed_in=True),
    "play:signup": Spec(form=("username", "password1", "password2"), few=True),
    "play:profile": Spec(),
    # play/protocol.py
    "play:protocol_schema": Spec(),
    # replays/views/games.py
    "replays:game_list": Spec(query=("player", "ruleset", "players", "tournament", "status",
                                     "winner", "started_from", "started_to", "page")),
    "replays:my_games": Spec(query=("player", "ruleset", "players", "tournament", "status",
                                    "winner", "started_from", "started_to", "page"),
                             signed_in=True),
    # replays/views/viewer.py
    "replays:replay": Spec(query=("token", "perspective", "step")),
    "replays:replay_embed": Spec(query=("token", "perspective", "step")),
    "replays:replay_step": Spec(query=("token", "perspective")),
    "replays:replay_log": Spec(query=("token", "perspective", "from")),
    # replays/views/transfer.py
    "replays:replay_export": Spec(query=("token", "perspective")),
    "replays:import": Spec(form=("private",), upload="file", signed_in=True),
    # replays/views/audit.py
    "replays:audit": Spec(query=("token",), upload="record"),
    "replays:verify": Spec(upload="record"),
    # replays/views/disputes.py
    "replays:open_dispute": Spec(query=("seq",), form=("event_seq", "complaint"),
                                 extra_form={"complaint": "the draw looks wrong"},
                                 signed_in=True),
    "replays:dispute_list": Spec(signed_in=True),
    # analyses/views.py
    "analyses:ask": Spec(form=("next",), signed_in=True),
    "analyses:status": Spec(),
    "analyses:result": Spec(),
    # tournaments/views.py (one set of pages for every format)
    "tournaments:list": Spec(query=("format",)),
    "tournaments:new": Spec(signed_in=True),
    "tournaments:new_format": Spec(form=("name", "ruleset", "table", "bots", "rules",
                                         "cycles", "rounds", "advance", "deals", "divisions",
                                         "moves", "seasons", "every", "people",
                                         "open_entries", "move_seconds", "game_seconds",
                                         "fixture_hours"), signed_in=True),
    "tournaments:detail": Spec(query=("round", "entrant")),
    "tournaments:live": Spec(query=("round",)),
    "tournaments:progress": Spec(),
    "tournaments:games_zip": Spec(),
    # tournaments/bottest_views.py
    "tournaments:bot_tests": Spec(form=("a", "b", "preset", "players", "elo0", "elo1",
                                        "alpha", "beta", "max_sets", "seed"), signed_in=True),
    "tournaments:bot_test": Spec(),
    "tournaments:bot_test_live": Spec(),
    "tournaments:bot_test_json": Spec(),
    "tournaments:join": Spec(form=("back",), signed_in=True),
    "tournaments:leave": Spec(form=("back",), signed_in=True),
    "tournaments:start": Spec(form=("back",), signed_in=True),
    "tournaments:stop": Spec(form=("reason",), signed_in=True),
    "tournaments:accept": Spec(form=("back",), signed_in=True),
    "tournaments:decline": Spec(form=("back",), signed_in=True),
    "tournaments:invite": Spec(form=("people", "back"), signed_in=True),
    "tournaments:invitations": Spec(signed_in=True),
    # the ladders' and leagues' old addresses: permanent redirects
    "tournaments:ladders": Spec(),
    "tournaments:new_ladder": Spec(signed_in=True),
    "tournaments:ladder": Spec(),
    "tournaments:leagues": Spec(),
    "tournaments:new_league": Spec(signed_in=True),
    "tournaments:league": Spec(),
    # tournaments/entrant_views.py
    "tournaments:entrant": Spec(),
    "replays:dispute_detail": Spec(form=("ruling", "explanation"),
                                   extra_form={"explanation": "see the record"},
                                   signed_in=True, staff=True),
    # config/health.py
    "health": Spec(),
    # django.conf.urls.i18n: the language switch
    "set_language": Spec(form=("language", "next"), few=True),
    # django.contrib.auth.urls
    "login": LOGIN,
    "logout": LOGOUT,
    "password_change": CHANGE_PASSWORD,
    "password_change_done": DJANGOS,
    "password_reset": Spec(form=("email",), few=True),
    "password_reset_done": DJANGOS,
    "password_reset_confirm": NEW_PASSWORD,
    "password_reset_complete": DJANGOS,
    # the admin (auth's models are the only ones registered: play/admin.py)
    "admin:index": DJANGOS,
    "admin:login": LOGIN,
    "admin:logout": LOGOUT,
    "admin:password_change": CHANGE_PASSWORD,
    "admin:password_change_done": DJANGOS,
    "admin:autocomplete": Spec(query=("term", "app_label", "model_name", "field_name"),
                               few=True),
    "admin:jsi18n": DJANGOS,
    "admin:view_on_site": DJANGOS,
    "admin:app_list": DJANGOS,
    "admin:auth_group_changelist": ADMIN_LIST,
    "admin:auth_group_add": GROUP_CHANGE,
    "admin:auth_group_history": ADMIN_OBJECT,
    "admin:auth_group_delete": ADMIN_OBJECT,
    "admin:auth_group_change": GROUP_CHANGE,
    "admin:auth_user_password_change": NEW_PASSWORD,
    "admin:auth_user_changelist": ADMIN_LIST,
    "admin:auth_user_add": USER_CHANGE,
    "admin:auth_user_history": ADMIN_OBJECT,
    "admin:auth_user_delete": ADMIN_OBJECT,
    "admin:auth_user_change": USER_CHANGE,
    # the admin's unnamed patterns, by route
    "admin/auth/group/<path:object_id>/": DJANGOS,
    "admin/auth/user/<path:object_id>/": DJANGOS,
    "admin/(?P<url>.*)$": DJANGOS,
    # django-axes registers its sign-in records in the admin (read-only for staff)
    **{key: spec for model in ("accessattempt", "accessfailurelog", "accesslog")
       for key, spec in ((f"admin:axes_{model}_changelist", ADMIN_LIST),
                         (f"admin:axes_{model}_add", ADMIN_OBJECT),
                         (f"admin:axes_{model}_change", ADMIN_OBJECT),
                         (f"admin:axes_{model}_delete", ADMIN_OBJECT),
                         (f"admin:axes_{model}_history", ADMIN_OBJECT),
                         (f"admin/axes/{model}/<path:object_id>/", DJANGOS))},
}

LOGS_OUT = frozenset({"logout", "admin:logout"})
"""Patterns whose POST ends the session: the client signs in again after each."""


# -- the URL patterns -------------------------------------------------------------------


@dataclass(frozen=True)
class Pattern:
    key: str
    """The pattern's name with its namespaces, or its route when it has no name."""
    route: str
    params: tuple[str, ...]

    def url(self, values: dict[str, str], raw: bool = False) -> str:
        """The path with ``values`` for the parameters (percent-encoded unless ``raw``)."""
        def value(name: str) -> str:
            return values[name] if raw else quote(values[name], safe="")
        path = re.sub(r"\(\?P<(\w+)>[^)]*\)", lambda m: value(m[1]),
                      self.route.replace("^", "").replace("$", ""))
        return "/" + re.sub(r"<(?:\w+:)?(\w+)>", lambda m: value(m[1]), path)


def url_patterns() -> list[Pattern]:
    """Every pattern of the root URLconf, recursively."""
    found: list[Pattern] = []

    def walk(resolver: URLResolver, prefix: str, namespace: str | None) -> None:
        for entry in resolver.url_patterns:
            route = prefix + str(entry.pattern)
            if isinstance(entry, URLResolver):
                inner = namespace
                if entry.namespace:
                    inner = f"{namespace}:{entry.namespace}" if namespace else entry.namespace
                walk(entry, route, inner)
                continue
            assert isinstance(entry, URLPattern)
            key = route
            if entry.name:
                key = f"{namespace}:{entry.name}" if namespace else entry.name
            if isinstance(entry.pattern, RegexPattern):
                params = tuple(entry.pattern.regex.groupindex)
            else:
                params = tuple(entry.pattern.converters)
            found.append(Pattern(key, route, params))

    walk(get_resolver(), "", None)
    return found


def test_every_url_pattern_has_cases() -> None:
    keys = [p.key for p in url_patterns()]
    assert len(keys) == len(set(keys)), "two patterns share a name"
    missing = sorted(set(keys) - set(SPECS))
    assert not missing, ("URL patterns without hostile cases: add them to SPECS in "
                         f"{__name__}: {missing}")
    stale = sorted(set(SPECS) - set(keys))
    assert not stale, f"SPECS names patterns that no longer exist: {stale}"


# -- the world the walk runs in ---------------------------------------------------------


@dataclass
class World:
    running: Game
    finished: Game
    private: Game
    dispute: str
    group: str
    users: dict[str, User]
    path_values: dict[str, str]
    everything: str
    competitions: list[str]
    """A finished round robin, a ladder and a finished league: each page of one
    competition is walked for every one (what a page shows depends on its format)."""


def _user(name: str, **flags: Any) -> User:
    user = User(username=name, **flags)
    user.set_unusable_password()  # no password hashing: the walk signs in by force_login
    user.save()
    return user


SHORT_GAME = customize("duel", 2, {"beans": ["wax", "blue"]}, name="walker duel")
"""A duel of two kinds of bean: a finished game of some 150 events, so that the walk's
thousands of requests each rebuild and draw a small game (what they try is the input)."""


@pytest.fixture
def world(db: None, settings: Any) -> Iterator[World]:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    reset_games()
    reset_disputes()
    seated = ["user:ann", "bot:random"]
    finished = play_bot_game(games(), SHORT_GAME, ["random", "random"], "walker-finished",
                             players=seated)
    private = play_bot_game(games(), SHORT_GAME, ["random", "random"], "walker-private",
                            players=seated, private=True)
    running = running_game("walker-running", players=("user:ann", "user:bob", "user:cy"),
                           commands=12)
    users = {"player": _user("ann"), "staff": _user("arbiter", is_staff=True,
                                                    is_superuser=True)}
    victim = _user("victim")  # the admin's pages of one user and one group
    group = Group.objects.create(name="walkers")
    dispute = open_dispute(users["player"], finished.id, 3, "the third event looks wrong")
    everything = export_record(games().record(finished.id), head=finished.head_hash)
    reset_competitions()
    cup = create("Walker Cup", "round-robin", {"cycles": 1}, SHORT_GAME, 2,
                 ["random@builtin", "heuristic@builtin"])
    run_here(cup.id)
    # A table waiting in the lobby (ann sits, a bot too; the walk joins, leaves, starts).
    table = create_table(users["player"], "duel", 2, seats=["open", "random"], public=False)
    ladder = create("Walker Ladder", "ladder", {}, SHORT_GAME, 2,
                    ["random@builtin", "heuristic@builtin"], every=60)
    run_here(ladder.id, rounds=2)
    league = run_here(create("Walker League", "league",
                             {"divisions": 2, "moves": 1, "seasons": 2}, SHORT_GAME, 2,
                             ["random@builtin", "heuristic@builtin", "random@builtin #2",
                              "heuristic@builtin #2"]).id)
    bot_test = bottests.create("heuristic", "random", "duel", 2, 0, 50, 0.05, 0.05, 16,
                               "walker")
    bottests.play_batch(bot_test.id)
    robot = tokens.create_bot(users["player"], "walkbot")
    token_row, _token = tokens.issue(robot, "walk", ("play", "read"))
    path_values = {
        "test_id": str(bot_test.id),
        "name": "walkbot",
        "guide": "bots",
        "token_id": str(token_row.pk),
        "table_id": str(table.id),
        "username": "ann",
        "schema": "server-frame.json",
        "step": "3",
        "dispute_id": str(dispute.id),
        "competition_id": str(cup.id),
        "format": "league",
        "ladder_id": str(ladder.id),
        "league_id": str(league.id),
        "entrant": "heuristic@builtin",
        "uidb64": "MQ",
        "token": "set-password",
        "id": str(victim.pk),
        "object_id": str(victim.pk),
        "content_type_id": str(ContentType.objects.get_for_model(User).pk),
        "app_label": "auth",
        "url": "nothing/here/",
    }
    yield World(running, finished, private, str(dispute.id), str(group.pk), users,
                path_values, everything, [str(cup.id), str(ladder.id), str(league.id)])
    reset_disputes()
    reset_competitions()
    reset_games()


def targets(world: World, pattern: Pattern, key: str) -> list[dict[str, str]]:
    """The valid path values to walk a pattern with: each game for a game's page, each
    competition for a competition's, each format for a new competition's form."""
    base = {name: world.path_values.get(name, "") for name in pattern.params}
    if "competition_id" in pattern.params:
        return [{**base, "competition_id": c} for c in world.competitions]
    if "format" in pattern.params:
        return [{**base, "format": f}
                for f in sorted(FORMATS, key=lambda f: f != base["format"])]
    if "game_id" not in pattern.params:
        if key.startswith("admin:auth_group") or key == "admin/auth/group/<path:object_id>/":
            base["object_id"] = world.group
        return [base]
    return [{**base, "game_id": str(game.id)}
            for game in (world.finished, world.running, world.private)]


# -- uploads ----------------------------------------------------------------------------


def _replace_line(text: str, index: int, line: str) -> str:
    lines = text.splitlines()
    lines[index] = line
    return "\n".join(lines) + "\n"


def uploads(world: World) -> dict[str, bytes]:
    """Files for every upload field: each is refused with a 4xx, or (a good export,
    on import) stored as a new game."""
    text = world.everything
    lines = text.splitlines()
    header, started = json.loads(lines[0]), json.loads(lines[1])

    def started_with(**changes: Any) -> str:
        """The header and a GameStarted with ``changes``: a file of about 1.4 kB."""
        ruleset = {**started["ruleset"], **changes.pop("ruleset", {})}
        first = {**started, "ruleset": ruleset, **changes}
        return (json.dumps({**header, "events": 1}) + "\n" + json.dumps(first) + "\n")

    spectator = export_record(games().record(world.finished.id), SPECTATOR,
                              head=world.finished.head_hash)
    return {
        "empty file": b"",
        "blank lines": b"\n\n\n",
        "not UTF-8": b"\xff\xfe\x00garbage",
        "UTF-16": text.encode("utf-16"),
        "not JSON": b"this is not a game\n",
        "nested JSON": _replace_line(text, 2, "[" * 30_000 + "]" * 30_000).encode(),
        "nested objects": _replace_line(text, 0, '{"a":' * 5000 + "1" + "}" * 5000).encode(),
        "4,301-digit number": _replace_line(
            text, 1, lines[1].replace('"seq":1,', f'"seq":{"9" * 4301},', 1)).encode(),
        "NaN": _replace_line(text, 1, lines[1].replace('"seq":1,', '"seq":NaN,', 1)).encode(),
        "200 kB line": _replace_line(text, 3, '"' + "x" * 200_000 + '"').encode(),
        "20,000 lines": (lines[0] + "\n" * 20_000).encode(),
        "players [3, 50000000]": started_with(ruleset={"players": [3, 50_000_000]}).encode(),
        "players [3, 99999]": started_with(ruleset={"players": [3, 99_999]}).encode(),
        "3,000 player counts": started_with(
            ruleset={"players": list(range(2, 3002))}).encode(),
        "10,000 seats": started_with(seats=["s"] * 10_000).encode(),
        "1,000-character seat name": _replace_line(text, 1, json.dumps(
            {**started, "seats": ["x" * 1000, *started["seats"][1:]]})).encode(),
        "1,000-character ruleset name": started_with(ruleset={"name": "r" * 1000}).encode(),
        "spectator's export": spectator.encode(),
        "the game itself": text.encode(),
    }


FEW_UPLOADS = frozenset({"empty file", "nested JSON", "4,301-digit number",
                         "players [3, 50000000]", "the game itself"})


# -- the walk ---------------------------------------------------------------------------


@dataclass
class Walk:
    client: Client
    who: str
    user: User | None
    failures: list[str] = field(default_factory=list)
    requests: int = 0

    def send(self, method: str, url: str, what: str, **kwargs: Any) -> None:
        self.requests += 1
        shown = url if len(url) < 120 else url[:100] + f"…({len(url)} chars)"
        try:
            response = getattr(self.client, method)(url, **kwargs)
        except Exception as error:  # each one is a failure to report
            self.failures.append(f"{method.upper()} {shown} [{what}] as {self.who}: "
                                 f"{type(error).__name__}: {str(error)[:200]}")
            return
        # An event stream (open as long as its client reads it) is left unread: its
        # close would end the test's database connection (``request_finished``).
        if response.status_code >= 500:
            self.failures.append(f"{method.upper()} {shown} [{what}] as {self.who}: "
                                 f"{response.status_code}")
        elif not response.streaming and len(response.content) > MAX_ANSWER:
            self.failures.append(f"{method.upper()} {shown} [{what}] as {self.who}: "
                                 f"an answer of {len(response.content):,} bytes")

    def signed_in_again(self) -> None:
        if self.user is not None:
            self.client.force_login(self.user)


def walk_pattern(walk: Walk, world: World, pattern: Pattern, spec: Spec,
                 files: dict[str, bytes]) -> None:
    """Every parameter of one pattern, one at a time, with hostile values.

    How a value is read depends neither on who sends it nor on the game; what the value
    read may then open depends on both. So every value is sent once, by the visitor
    the page is for (anonymous for public pages, the player for pages that need an
    account, staff for an arbiter's) against the finished game; the other visitors and
    games get the values near the valid ones (``seat-1``, ``everything``, ``0``...) and
    a few others (:data:`FEW`)."""
    key = pattern.key
    after: Callable[[], None] = walk.signed_in_again if key in LOGS_OUT else (lambda: None)
    visitor = "staff" if spec.staff else "player" if spec.signed_in else "anonymous"
    thorough = not spec.few and walk.who == visitor
    for index, good in enumerate(targets(world, pattern, key)):
        few = not thorough or index > 0
        url = pattern.url(good)
        walk.send("get", url, "as it is")
        walk.send("put", url, "PUT")
        for name in spec.query:
            for label, value in values_for(name, few).items():
                walk.send("get", url, f"{name}: {label}", data={name: value})
            for label, raw in raw_for(few).items():
                walk.send("get", f"{url}?{name}={raw}", f"{name}: {label}")
        for name in spec.form:
            extra = {k: v for k, v in spec.extra_form.items() if k != name}
            for label, value in values_for(name, few).items():
                walk.send("post", url, f"form {name}: {label}", data={**extra, name: value})
                after()
        if spec.upload:
            for label, data in files.items():
                if few and label not in FEW_UPLOADS:
                    continue
                upload = SimpleUploadedFile("game.jsonl", data, "application/x-ndjson")
                walk.send("post", url, f"upload {label}", data={spec.upload: upload})
        for name in spec.body:
            extra = {k: v for k, v in spec.extra_body.items() if k != name}
            for label, value in values_for(name, few).items():
                walk.send(spec.method, url, f"body {name}: {label}",
                          data=json.dumps({**extra, name: value}),
                          content_type="application/json")
            walk.send(spec.method, url, f"body {name}: a list",
                      data=json.dumps({**extra, name: ["x"] * 10_000}),
                      content_type="application/json")
        if spec.body:
            for label, raw in (("not JSON", "{"), ("a list", "[1]"), ("nested", "[" * 5000)):
                walk.send(spec.method, url, f"body: {label}", data=raw,
                          content_type="application/json")
        if spec.post:
            walk.send(spec.method, url, "nothing posted")
            after()
    # Path parameters, one at a time, the others valid (the finished game's).
    good = targets(world, pattern, key)[0]
    for name in pattern.params:
        for label, value in values_for(name, not thorough).items():
            walk.send("get", pattern.url({**good, name: value}), f"path {name}: {label}")
        for label, raw in raw_for(not thorough).items():
            walk.send("get", pattern.url({**good, name: raw}, raw=True),
                      f"path {name}: {label}")


@pytest.mark.parametrize("who", ["anonymous", "player", "staff"])
def test_no_input_answers_5xx(world: World, who: str) -> None:
    client = Client(raise_request_exception=True)
    user = world.users.get(who)
    walk = Walk(client, who, user)
    walk.signed_in_again()
    files = uploads(world)
    began = time.perf_counter()
    for pattern in url_patterns():
        walk_pattern(walk, world, pattern, SPECS[pattern.key], files)
    elapsed = time.perf_counter() - began
    assert not walk.failures, (f"{len(walk.failures)} of {walk.requests} requests failed:\n"
                               + "\n".join(walk.failures[:60]))
    for game in (world.running, world.finished, world.private):  # nothing stored changed
        assert games().game(game.id).head_hash == game.head_hash
    print(f"{walk.requests} requests as {who} in {elapsed:.1f} s")

