"""Consent (issue 26, finding 4): nobody enters a person in a competition but that
person. The people an organiser names are invited; a person who has not accepted never
gets a table, a game or a rating; one who accepts plays; one who declines is left out;
a bot account is entered only by its owner (itself); the shell invites too unless its
operator states the people's consent."""

from __future__ import annotations

from collections.abc import Iterator
from io import StringIO
from typing import Any
from uuid import UUID

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse, reverse_lazy

from bohnanza_core.rulesets import customize, ruleset_for
from play.models import Seat, Table
from play.tables import issue_bot_token
from replays.models import SeatSummary
from tournaments import tasks
from tournaments.core.competition import CompetitionError, LivePlay
from tournaments.core.rounds import run_here
from tournaments.core.store import Competitions, create
from tournaments.models import CompetitionTable, Invitation

SHORT = {"beans": ["wax", "blue", "chili", "stink"]}
NEW = reverse_lazy("tournaments:new_format", args=["league"])
FORM = {"name": "Club night", "ruleset": "duel", "table": "2", "bots": "heuristic",
        "divisions": "1", "moves": "0", "seasons": "1", "rules": "", "move_seconds": "60",
        "game_seconds": "0", "fixture_hours": "24"}


@pytest.fixture(autouse=True)
def no_workers(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[UUID, int, Any]]]:
    """The bots' games a page sends to the workers, kept here instead of a broker."""
    sent: list[tuple[UUID, int, Any]] = []
    monkeypatch.setattr(tasks, "send_deals",
                        lambda competition, r, deals: sent.append((competition, r,
                                                                    list(deals))))
    yield sent


def signed_in(name: str) -> Client:
    client = Client()
    client.force_login(User.objects.get_or_create(username=name)[0])
    return client


def people_tables(*names: str) -> list[Seat]:
    return list(Seat.objects.filter(user__username__in=names))


def test_a_new_account_naming_people_only_invites_them(competitions: Competitions):
    """Finding 4: a brand-new account posts a league with ann and bob. Nothing starts
    for them: no table, no seat, no game, no rating, then or after the league has been
    played without them (the season starts with those who entered; the invitations
    nobody answered expire)."""
    ann, bob = User.objects.create_user("ann"), User.objects.create_user("bob")
    mallory = signed_in("mallory")
    answer = mallory.post(NEW,
                          {**FORM, "people": "ann, bob", "bots": "heuristic, random"})
    assert answer.status_code == 302
    (lid,) = competitions.ids()
    league = competitions.get(lid)
    assert league.entrants == ["heuristic@builtin", "random@builtin"]
    assert league.invited == ["user:ann", "user:bob"] and league.waiting
    assert not CompetitionTable.objects.exists() and not Table.objects.exists()
    assert not people_tables("ann", "bob")
    assert {(i.user.username, i.status) for i in Invitation.objects.all()} == {
        ("ann", "invited"), ("bob", "invited")}

    assert mallory.post(reverse("tournaments:start", args=[lid])).status_code == 302
    league = competitions.get(lid)
    assert not league.waiting and league.invitations == {"user:ann": "expired",
                                                         "user:bob": "expired"}
    league = run_here(lid)
    assert league.finished
    assert not people_tables("ann", "bob") and not CompetitionTable.objects.exists()
    assert not SeatSummary.objects.filter(player__in=["user:ann", "user:bob"]).exists()
    assert set(league.ratings) == {"heuristic@builtin", "random@builtin"}
    assert {i.status for i in Invitation.objects.all()} == {"expired"}
    for person in (ann, bob):  # too late to answer
        client = Client()
        client.force_login(person)
        client.post(reverse("tournaments:accept", args=[lid]))
        assert person_entrant(person) not in competitions.get(lid).entrants
    page = signed_in("ann").get(reverse("play:profile", args=["ann"])).content.decode()
    assert "No games yet." in page


def person_entrant(user: User) -> str:
    return f"user:{user.username}"


def test_an_accepted_invitation_opens_the_tables(competitions: Competitions):
    """Ann finds her invitation on her profile's invitations page, accepts there, and her
    games get live tables once the organiser starts; the organiser sees who accepted,
    declined or has not answered."""
    for name in ("ann", "bob", "cy"):
        User.objects.create_user(name)
    olga = signed_in("olga")
    assert olga.post(NEW,
                     {**FORM, "people": "ann, bob, cy", "bots": "heuristic"}
                     ).status_code == 302
    (lid,) = competitions.ids()
    ann = signed_in("ann")
    profile = ann.get(reverse("play:profile", args=["ann"])).content.decode()
    assert reverse("tournaments:invitations") in profile and "1 to answer" in profile
    listed = ann.get(reverse("tournaments:invitations")).content.decode()
    assert "Club night" in listed and "olga" in listed
    assert reverse("tournaments:accept", args=[lid]) in listed
    assert ann.get(reverse("tournaments:accept", args=[lid])).status_code == 405
    answer = ann.post(reverse("tournaments:accept", args=[lid]),
                      {"back": "invitations"})
    assert answer["Location"] == reverse("tournaments:invitations")
    assert "accepted" in ann.get(answer["Location"]).content.decode()
    assert "to answer" not in ann.get(reverse("play:profile", args=["ann"])).content.decode()
    signed_in("bob").post(reverse("tournaments:decline", args=[lid]))

    league = competitions.get(lid)
    assert league.entrants == ["heuristic@builtin", "user:ann"]
    assert league.invitations == {"user:ann": "accepted", "user:bob": "declined",
                                  "user:cy": "invited"}
    organiser_page = olga.get(reverse("tournaments:detail", args=[lid])).content.decode()
    for said in ("accepted", "declined", "not answered yet", "Start the first round"):
        assert said in organiser_page
    stranger_page = signed_in("cy").get(reverse("tournaments:detail", args=[lid])
                                        ).content.decode()
    assert "declined" not in stranger_page  # the answers are the organiser's to see
    assert "You are invited" in stranger_page  # cy's own invitation, with its buttons
    assert not CompetitionTable.objects.exists()

    olga.post(reverse("tournaments:start", args=[lid]))
    league = competitions.get(lid)
    assert league.invitations["user:cy"] == "expired"
    rows = list(CompetitionTable.objects.filter(competition_id=lid))
    assert rows and len(rows) == len(league.rounds[0].games)
    assert {s.user.username for r in rows for s in r.table.seats.all() if s.user} == {"ann"}
    assert not people_tables("bob", "cy")


def test_a_decline_keeps_a_person_out_and_may_take_back_a_yes(competitions: Competitions):
    for name in ("ann", "bob"):
        User.objects.create_user(name)
    olga = signed_in("olga")
    olga.post(NEW,
              {**FORM, "people": "olga, ann, bob", "bots": "heuristic"})
    (lid,) = competitions.ids()
    assert competitions.get(lid).entrants == ["user:olga", "heuristic@builtin"]  # herself
    ann, bob = signed_in("ann"), signed_in("bob")
    ann.post(reverse("tournaments:accept", args=[lid]))
    bob.post(reverse("tournaments:decline", args=[lid]))
    answer = bob.post(reverse("tournaments:accept", args=[lid]), follow=True)
    assert "You have no open invitation to this competition." in answer.content.decode()
    ann.post(reverse("tournaments:decline", args=[lid]))  # a yes taken back
    league = competitions.get(lid)
    assert league.entrants == ["user:olga", "heuristic@builtin"]
    assert league.invitations == {"user:ann": "declined", "user:bob": "declined"}
    answer = olga.post(reverse("tournaments:invite", args=[lid]),
                       {"people": "bob"}, follow=True)  # asked once, never again
    assert "bob has been asked already." in answer.content.decode()
    olga.post(reverse("tournaments:start", args=[lid]))
    assert not people_tables("ann", "bob")
    assert people_tables("olga")
    assert signed_in("mallory").post(  # only the organiser starts, or invites
        reverse("tournaments:invite", args=[lid]), {"people": "ann"}
    ).status_code == 302 and competitions.get(lid).invitations["user:ann"] == "declined"


def test_a_bot_account_is_entered_by_its_owner_only(competitions: Competitions):
    """A bot account's owner is the account itself (it signs in by token only): anyone
    else naming it is refused with the reason, on the page and in the shell, and nothing
    is stored; the account names itself, or the operator states its consent."""
    robo = User.objects.create_user("robo")
    issue_bot_token(robo)
    answer = signed_in("mallory").post(NEW,
                                       {**FORM, "people": "robo"})
    assert answer.status_code == 400
    assert "robo is a bot account: only its owner enters it." in answer.content.decode()
    assert competitions.ids() == [] and not Invitation.objects.exists()
    with pytest.raises(CommandError, match="bot account"):
        call_command("tournament", "create", "--format", "league", "--name", "Bots",
                     "--ruleset", "duel", "--table", "2", "--divisions", "1", "--moves", "0",
                     "--people", "robo", "--bots", "heuristic", stdout=StringIO())
    assert competitions.ids() == []
    with pytest.raises(CompetitionError):  # the aggregate itself enters no one else
        create("Direct", "league", {"divisions": 1, "moves": 0, "seasons": 1},
               customize("duel", 2, SHORT), 2, ["user:robo", "heuristic@builtin"],
               organiser="user:mallory", live=LivePlay("duel", SHORT, 60, 0, 24, False))
    answer = signed_in("robo").post(NEW, {**FORM, "people": "robo"})
    assert answer.status_code == 302
    (lid,) = competitions.ids()
    assert competitions.get(lid).entrants == ["user:robo", "heuristic@builtin"]
    assert people_tables("robo")  # entered by itself: its tables open at once
    call_command("tournament", "create", "--format", "league", "--name", "Operator's",
                 "--ruleset", "duel", "--table", "2", "--divisions", "1", "--moves", "0",
                 "--people", "robo", "--consented", "--bots", "heuristic", stdout=StringIO())
    assert len(competitions.ids()) == 2


def test_the_shell_invites_unless_the_operator_states_consent(competitions: Competitions):
    for name in ("alice", "bob"):
        User.objects.create_user(name)
    base = ["tournament", "create", "--format", "league", "--ruleset", "duel", "--table", "2",
            "--divisions", "1", "--moves", "0", "--rule", 'beans=["wax","blue","chili","stink"]']
    out = StringIO()
    call_command(*base, "--name", "Asked", "--people", "alice,bob", "--bots", "heuristic",
                 stdout=out)
    (lid,) = competitions.ids()
    league = competitions.get(lid)
    assert league.entrants == ["heuristic@builtin"] and league.waiting
    assert "waiting for its first round" in out.getvalue()
    assert not CompetitionTable.objects.exists()
    signed_in("alice").post(reverse("tournaments:accept", args=[lid]))
    out = StringIO()
    call_command("tournament", "start", str(lid), stdout=out)
    assert "expired" in out.getvalue() and "accepted" in out.getvalue()
    assert {s.user.username for s in people_tables("alice", "bob")} == {"alice"}
    with pytest.raises(CommandError, match="started already"):
        call_command("tournament", "start", str(lid), stdout=StringIO())


def test_a_person_enters_no_competition_without_consent_and_live_tables(
        competitions: Competitions):
    """Whatever its format, a competition enters no person but its organiser without
    their consent (invite them instead), and nobody at all without live tables to play
    their games at: refused before anything is stored."""
    ruleset = ruleset_for("duel", 2)
    with pytest.raises(CompetitionError, match="ann enters only by accepting an invitation"):
        create("Cup", "round-robin", {"cycles": 1}, ruleset, 2,
               ["heuristic@builtin", "user:ann"])
    with pytest.raises(CompetitionError, match="ann enters only by accepting an invitation"):
        create("Ladder", "ladder", {}, ruleset, 2, ["heuristic@builtin", "user:ann"],
               every=60)
    with pytest.raises(CompetitionError, match="needs a turn clock"):
        create("Cup", "round-robin", {"cycles": 1}, ruleset, 2,
               ["heuristic@builtin", "user:ann"], organiser="user:ann")
    with pytest.raises(CompetitionError, match="needs a turn clock"):
        create("Ladder", "ladder", {}, ruleset, 2, ["heuristic@builtin", "user:ann"],
               organiser="user:ann", every=60)
    assert competitions.ids() == []


def test_invitations_need_an_account(competitions: Competitions):
    answer = Client().get(reverse("tournaments:invitations"))
    assert answer.status_code == 302 and reverse("login") in answer["Location"]
    page = signed_in("nobody").get(reverse("tournaments:invitations")).content.decode()
    assert "No invitations." in page
