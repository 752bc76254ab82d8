"""Disputes: who may open one and about what, who may rule, the ruling as an event the
players see, and forged requests refused with nothing stored."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest
from django.contrib.auth.models import User
from django.http import HttpRequest
from django.test import Client
from django.urls import reverse

from bohnanza_core import ruleset_for
from bohnanza_core.events import BeanPlanted
from bohnanza_core.games import Game, Games, play_bot_game
from replays.disputes import (
    MAX_COMPLAINT,
    Dispute,
    DisputeNotFound,
    DisputeRefused,
    Disputes,
    NotAllowed,
    disputes,
    disputes_for,
    is_arbiter,
    open_dispute,
    reset_disputes,
    rule_dispute,
)
from replays.views.disputes import mark_changes, snapshot
from tests.factories import bot_game, running_game
from tests.replays import persistence_cases as cases

PLAYERS = ["user:ann", "user:bob", "bot:random"]


@pytest.fixture
def apps(store: Games) -> Iterator[Disputes]:
    reset_disputes()
    app = disputes()
    app.stored_before = app.recorder.max_notification_id()  # type: ignore[attr-defined]
    yield app
    reset_disputes()


@pytest.fixture
def people(db: None, settings: Any) -> dict[str, User]:
    """ann and bob play; eve does not; zed is an arbiter; bob is also staff."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    return {
        "ann": User.objects.create_user("ann", password="pw"),
        "bob": User.objects.create_user("bob", password="pw", is_staff=True),
        "eve": User.objects.create_user("eve", password="pw"),
        "zed": User.objects.create_user("zed", password="pw", is_staff=True),
    }


@pytest.fixture
def game(apps: Disputes) -> Game:
    return bot_game("dispute-game", players=PLAYERS)


def signed_in(name: str) -> Client:
    client = Client()
    client.force_login(User.objects.get(username=name))
    return client


def nothing_stored(app: Disputes) -> bool:
    """No dispute event since the test began."""
    return bool(app.recorder.max_notification_id() == app.stored_before)  # type: ignore[attr-defined]


def new_url(game: Game) -> str:
    return reverse("replays:open_dispute", kwargs={"game_id": str(game.id)})


def detail_url(dispute: Dispute) -> str:
    return reverse("replays:dispute_detail", kwargs={"dispute_id": dispute.id})


# -- the aggregate and its guards ----------------------------------------------------------


def test_a_player_opens_a_dispute_stored_as_an_opened_event(apps: Disputes,
                                                           game: Game) -> None:
    dispute = apps.open(game, 12, "  Bob never offered me that card.  ", "user:ann")
    stored = apps.dispute(dispute.id)
    assert (stored.game_id, stored.event_seq, stored.opened_by) == (game.id, 12, "user:ann")
    assert stored.complaint == "Bob never offered me that card."
    assert stored.status == "open" and not stored.ruled
    events = list(apps.events.get(dispute.id))
    assert [type(e) for e in events] == [Dispute.Opened]
    assert [d.id for d in apps.all() if d.game_id == game.id] == [dispute.id]


@pytest.mark.parametrize(("seq", "complaint", "who", "error", "message"), [
    (5, "wrong", "user:eve", NotAllowed, "only a player of this game"),
    (5, "wrong", "bot:random-not-seated", NotAllowed, "only a player"),
    (0, "wrong", "user:ann", DisputeRefused, "there is no event #0"),
    (10_000, "wrong", "user:ann", DisputeRefused, "there is no event #10000"),
    (5, "   ", "user:ann", DisputeRefused, "say what is wrong"),
    (5, "x" * (MAX_COMPLAINT + 1), "user:ann", DisputeRefused, "at most 2000"),
])
def test_a_bad_dispute_is_refused_and_nothing_stored(
        apps: Disputes, game: Game, seq: int, complaint: str, who: str,
        error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        apps.open(game, seq, complaint, who)
    assert nothing_stored(apps)


def test_a_running_game_cannot_be_disputed(apps: Disputes) -> None:
    game = running_game("dispute-running", commands=2)
    with pytest.raises(NotAllowed, match="once the game has ended"):
        apps.open(game, 1, "the deal was unfair", "user:ann")
    assert nothing_stored(apps)


def test_a_ruling_is_an_event_and_final(apps: Disputes, game: Game) -> None:
    dispute = apps.open(game, 3, "wrong card", "user:ann")
    apps.rule(dispute.id, "rejected", "The record shows the card was dealt.", "user:zed")
    ruled = apps.dispute(dispute.id)
    assert (ruled.ruling, ruled.arbiter, ruled.status) == ("rejected", "user:zed", "rejected")
    assert ruled.explanation == "The record shows the card was dealt."
    assert ruled.ruled_at is not None and ruled.ruled_at >= ruled.created_on
    assert [type(e) for e in apps.events.get(dispute.id)] == [Dispute.Opened, Dispute.Ruled]
    with pytest.raises(DisputeRefused, match="already ruled rejected by zed"):
        apps.rule(dispute.id, "upheld", "changed my mind", "user:zed")
    assert apps.dispute(dispute.id).version == 2


@pytest.mark.parametrize(("ruling", "explanation", "message"), [
    ("maybe", "hmm", "either 'upheld' or 'rejected'"),
    ("upheld", "  ", "say why"),
])
def test_a_bad_ruling_is_refused(apps: Disputes, game: Game, ruling: str, explanation: str,
                                 message: str) -> None:
    dispute = apps.open(game, 3, "wrong card", "user:ann")
    with pytest.raises(DisputeRefused, match=message):
        apps.rule(dispute.id, ruling, explanation, "user:zed")
    assert apps.dispute(dispute.id).version == 1


@pytest.fixture
def own_database(tmp_path: Path, django_db_blocker: Any) -> Iterator[str]:
    """A database file of this test's own: a stale write ends the transaction it is in,
    so this test cannot run inside the test database's rolled-back one."""
    settings_dict = {"ENGINE": "django.db.backends.sqlite3",
                     "NAME": str(tmp_path / "disputes.sqlite3"),
                     "OPTIONS": dict(cases.SQLITE_OPTIONS)}
    with django_db_blocker.unblock(), cases.database_alias("disputes_race", settings_dict):
        yield "disputes_race"


def test_two_arbiters_ruling_at_once_store_one_ruling(own_database: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    env = {"PERSISTENCE_MODULE": "replays.persistence", "DJANGO_DB_ALIAS": own_database}
    app = Disputes(env=env)
    game = play_bot_game(Games(env=env), ruleset_for("classic", 3),
                         ["heuristic", "random", "random"], "dispute-race", players=PLAYERS)
    dispute = app.open(game, 3, "wrong card", "user:ann")
    stale = app.dispute(dispute.id)  # the second arbiter loaded it before the first ruled
    app.rule(dispute.id, "upheld", "Right.", "user:zed")
    monkeypatch.setattr(app, "dispute", lambda _id: stale)
    with pytest.raises(DisputeRefused, match="another arbiter ruled on this dispute first"):
        app.rule(dispute.id, "rejected", "Wrong.", "user:yan")
    monkeypatch.undo()
    assert app.dispute(dispute.id).ruling == "upheld"
    assert [type(e) for e in app.events.get(dispute.id)] == [Dispute.Opened, Dispute.Ruled]


def test_unknown_disputes_are_not_found(apps: Disputes) -> None:
    with pytest.raises(DisputeNotFound):
        apps.dispute(uuid4())


def test_arbiters_are_active_staff(people: dict[str, User]) -> None:
    assert is_arbiter(people["zed"]) and not is_arbiter(people["ann"])
    people["zed"].is_active = False
    assert not is_arbiter(people["zed"])


def test_only_an_arbiter_who_did_not_play_rules(apps: Disputes, game: Game,
                                                people: dict[str, User]) -> None:
    dispute = open_dispute(people["ann"], game.id, 4, "wrong")
    with pytest.raises(NotAllowed, match="only an arbiter"):
        rule_dispute(people["ann"], dispute.id, "upheld", "I say so")
    with pytest.raises(NotAllowed, match="you played in this game"):
        rule_dispute(people["bob"], dispute.id, "rejected", "My own game")
    assert apps.dispute(dispute.id).version == 1
    rule_dispute(people["zed"], dispute.id, "upheld", "Fine")
    assert apps.dispute(dispute.id).ruling == "upheld"


def test_the_list_shows_arbiters_everything_open_first_and_players_their_own(
        apps: Disputes, game: Game, people: dict[str, User]) -> None:
    other = bot_game("dispute-other", players=["user:eve", "bot:a", "bot:b"])
    first = open_dispute(people["ann"], game.id, 4, "first")
    second = open_dispute(people["eve"], other.id, 5, "second")
    rule_dispute(people["zed"], second.id, "rejected", "no")
    third = open_dispute(people["bob"], game.id, 6, "third")
    ours = {game.id, other.id}

    def listed(name: str) -> list[object]:
        return [d.id for d, g in disputes_for(people[name]) if g.id in ours]

    assert listed("zed") == [third.id, first.id, second.id]
    assert listed("ann") == [third.id, first.id]
    assert listed("eve") == [second.id]


# -- the table before and after ----------------------------------------------------------


def test_before_and_after_show_what_the_event_changed(apps: Disputes, game: Game,
                                                       store: Games) -> None:
    entry = next(e for e in store.record(game.id)
                 if isinstance(e.event, BeanPlanted) and e.seq > 1)
    planted: BeanPlanted = entry.event  # type: ignore[assignment]
    before, after = snapshot(game, entry.seq - 1), snapshot(game, entry.seq)
    mark_changes(before, after)
    seat = after.seats[planted.seat]
    assert "fields" in seat.changed
    assert sum(f.count for f in seat.fields if f) == sum(
        f.count for f in before.seats[planted.seat].fields if f) + 1
    others = [s for i, s in enumerate(after.seats) if i != planted.seat]
    assert all("fields" not in s.changed and "coins" not in s.changed for s in others)
    # everything is shown: every seat's hand, as many cards as the table holds
    table = store.game(game.id, entry.seq).state
    assert [len(s.hand) for s in after.seats] == [len(h) for h in table.hands]


# -- the pages ------------------------------------------------------------------------------


def test_a_player_opens_a_dispute_from_the_form(apps: Disputes, game: Game,
                                                people: dict[str, User]) -> None:
    ann = signed_in("ann")
    form = ann.get(new_url(game) + "?seq=7")
    assert form.status_code == 200
    html = form.content.decode()
    assert 'value="7"' in html and '<span class="seq">#7</span>' in html
    response = ann.post(new_url(game), {"event_seq": "7", "complaint": "That bean was mine."})
    assert response.status_code == 302
    (dispute,) = [d for d in apps.all() if d.game_id == game.id]
    assert response["Location"] == detail_url(dispute)
    assert (dispute.event_seq, dispute.opened_by) == (7, "user:ann")
    page = ann.get(detail_url(dispute)).content.decode()
    assert "That bean was mine." in page and "Waiting for an arbiter" in page
    assert "Record the ruling" not in page and 'class="record"' not in page


@pytest.mark.parametrize(("data", "message"), [
    ({"event_seq": "0", "complaint": "x"}, "greater than or equal to 1"),
    ({"event_seq": "99999", "complaint": "x"}, "there is no event #99999"),
    ({"event_seq": "seven", "complaint": "x"}, "Enter a whole number"),
    ({"event_seq": "3", "complaint": "   "}, "This field is required"),
    ({"event_seq": "3", "complaint": "x" * (MAX_COMPLAINT + 1)}, "at most 2000 characters"),
])
def test_a_bad_form_is_a_400_and_stores_nothing(apps: Disputes, game: Game,
                                                people: dict[str, User],
                                                data: dict[str, str], message: str) -> None:
    response = signed_in("ann").post(new_url(game), data)
    assert response.status_code == 400
    assert message.lower() in response.content.decode().lower()
    assert nothing_stored(apps)


def test_forged_disputes_are_refused(apps: Disputes, game: Game,
                                     people: dict[str, User]) -> None:
    eve = signed_in("eve")
    assert eve.get(new_url(game)).status_code == 403
    response = eve.post(new_url(game), {"event_seq": "3", "complaint": "let me in"})
    assert response.status_code == 403
    assert "Only a player of this game" in response.content.decode()
    running = running_game("dispute-running-page", players=PLAYERS, commands=1)
    response = signed_in("ann").post(new_url(running), {"event_seq": "1", "complaint": "x"})
    assert response.status_code == 403
    assert "dispute-running-page" not in response.content.decode()  # the seed stays secret
    anonymous = Client().post(new_url(game), {"event_seq": "3", "complaint": "x"})
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]
    missing = signed_in("ann").get(reverse("replays:open_dispute",
                                           kwargs={"game_id": str(uuid4())}))
    assert missing.status_code == 404
    assert nothing_stored(apps)


def test_the_form_needs_the_csrf_token(apps: Disputes, game: Game,
                                       people: dict[str, User]) -> None:
    client = Client(enforce_csrf_checks=True)
    # django-axes throttles sign-ins by request: client.login must pass one.
    assert client.login(request=HttpRequest(), username="ann", password="pw")
    response = client.post(new_url(game), {"event_seq": "3", "complaint": "x"})
    assert response.status_code == 403
    assert nothing_stored(apps)


def test_the_arbiter_sees_the_evidence_and_rules(apps: Disputes, game: Game, store: Games,
                                                 people: dict[str, User]) -> None:
    dispute = open_dispute(people["ann"], game.id, 30, "Cy's trade was never accepted.")
    zed = signed_in("zed")
    page = zed.get(detail_url(dispute))
    assert page.status_code == 200
    html = page.content.decode()
    record = store.record(game.id)
    # the record: every entry, when it was stored and who issued it
    assert f"The full record: {len(record)} events" in html
    assert html.count('<tr class="disputed') == 2  # around the event, and in the full record
    commanded = next(e for e in record if e.actor == "bot:random")
    assert "Random bot" in html  # bot:random, as people read it
    assert commanded.at is not None and commanded.at[:19].replace("T", " ") in html
    # the verdict and the tables
    assert "Verify verdict of the stored record" in html and "Valid" in html
    assert "Before (after event #29)" in html and "After event #30" in html
    assert html.count('class="snap-seats"') == 2
    assert "Hand (front first)" in html
    assert "Record the ruling" in html
    response = zed.post(detail_url(dispute), {"ruling": "upheld",
                                              "explanation": "The offer was withdrawn first."})
    assert response.status_code == 302
    assert apps.dispute(dispute.id).ruling == "upheld"
    player = signed_in("ann").get(detail_url(dispute)).content.decode()
    assert "Upheld: the complaint is right." in player
    assert "The offer was withdrawn first." in player and "Ruled by zed" in player
    listing = zed.get(reverse("replays:dispute_list")).content.decode()
    assert 'status-upheld' in listing and "Cy&#x27;s trade was never accepted." in listing


def test_a_dispute_about_the_first_event_has_no_before(apps: Disputes, game: Game,
                                                       people: dict[str, User]) -> None:
    dispute = open_dispute(people["ann"], game.id, 1, "The seed was not fair.")
    html = signed_in("zed").get(detail_url(dispute)).content.decode()
    assert "Nothing: the game begins with this event." in html
    assert html.count('class="snap-seats"') == 1


def test_forged_rulings_are_refused_and_nothing_stored(apps: Disputes, game: Game,
                                                      people: dict[str, User]) -> None:
    dispute = open_dispute(people["ann"], game.id, 9, "wrong")
    ruling = {"ruling": "upheld", "explanation": "mine"}
    ann = signed_in("ann")
    response = ann.post(detail_url(dispute), ruling)
    assert response.status_code == 403
    assert "Only an arbiter" in response.content.decode()
    response = signed_in("bob").post(detail_url(dispute), ruling)  # staff, but played
    assert response.status_code == 403
    assert "another arbiter must rule" in response.content.decode()
    assert signed_in("eve").post(detail_url(dispute), ruling).status_code == 403
    zed = signed_in("zed")
    bad = zed.post(detail_url(dispute), {"ruling": "maybe", "explanation": "x"})
    assert bad.status_code == 400
    assert "A ruling is either &#x27;upheld&#x27; or &#x27;rejected&#x27;" in bad.content.decode()
    assert apps.dispute(dispute.id).version == 1
    assert zed.post(detail_url(dispute), ruling).status_code == 302
    again = zed.post(detail_url(dispute), {"ruling": "rejected", "explanation": "no"})
    assert again.status_code == 400
    assert "already ruled upheld by zed" in again.content.decode()
    assert apps.dispute(dispute.id).ruling == "upheld"


def test_who_may_see_a_dispute(apps: Disputes, game: Game, people: dict[str, User]) -> None:
    dispute = open_dispute(people["ann"], game.id, 9, "A secret complaint")
    for name, status in (("ann", 200), ("bob", 200), ("zed", 200), ("eve", 403)):
        response = signed_in(name).get(detail_url(dispute))
        assert response.status_code == status, name
    refused = signed_in("eve").get(detail_url(dispute)).content.decode()
    assert "A secret complaint" not in refused
    eve_list = signed_in("eve").get(reverse("replays:dispute_list")).content.decode()
    assert "A secret complaint" not in eve_list and "No disputes about your games" in eve_list
    unknown = reverse("replays:dispute_detail", kwargs={"dispute_id": uuid4()})
    assert signed_in("zed").get(unknown).status_code == 404
    assert signed_in("zed").get("/replays/disputes/not-a-uuid/").status_code == 404
    assert Client().get(detail_url(dispute)).status_code == 302
