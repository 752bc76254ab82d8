"""The forms of the competitions' pages: a new competition (one field per option of its
format, bounded field by field), and an organiser's invitations.

:func:`new_competition_form` builds the form for one format: what every competition
asks (name, ruleset, table size, bots, house rules), the format's own options, a
ladder's schedule, and, for a format people play (at live tables), who is invited and
the tables' clock.
"""

from __future__ import annotations

from datetime import UTC
from typing import Any

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from bohnanza_core.bots import BOTS
from bohnanza_core.errors import RulesetError
from bohnanza_core.formats import FORMATS, MAX_DIVISIONS, MAX_SEASONS
from bohnanza_core.pairings import MAX_ENTRANTS, MAX_ROUNDS, MAX_TABLE, MIN_TABLE
from bohnanza_core.rulesets import (
    PRESETS,
    RULE_PARAMETERS,
    Ruleset,
    customize,
    rule_overrides,
    ruleset_for,
)
from tournaments.core.competition import CLOCK, CompetitionError
from tournaments.core.entrants import entrants_for
from tournaments.core.store import (
    MAX_ABSENCE_SECONDS,
    MAX_EVERY,
    MAX_FIXTURE_HOURS,
    MAX_GAME_SECONDS,
    MAX_MOVE_SECONDS,
    MAX_NAME,
    MIN_EVERY,
    MIN_MOVE_SECONDS,
    check_name,
)
from tournaments.zones import MAX_ZONE_NAME, zone_named

MAX_RULES_TEXT = 4000
MAX_PEOPLE_TEXT = MAX_ENTRANTS * 151
"""The longest people field: 64 usernames of 150 characters and their commas."""

FORMAT_NAMES = {
    "round-robin": gettext_lazy("Round robin"),
    "swiss": gettext_lazy("Swiss"),
    "knockout": gettext_lazy("Knockout"),
    "duplicate": gettext_lazy("Duplicate"),
    "ladder": gettext_lazy("Ladder"),
    "league": gettext_lazy("League"),
    "duplicate-by-group": gettext_lazy("Duplicate (a deal for each group)"),
}
FORMAT_LEDES = {
    "round-robin": gettext_lazy("Every group of entrants meets at a table once in each "
                                "seat order."),
    "swiss": gettext_lazy("Rounds of tables by standing, with as few repeat meetings as "
                          "can be."),
    "knockout": gettext_lazy("Tables play a match of a game in each seat order; the best "
                             "of each go on, down to one final table."),
    "duplicate": gettext_lazy("Every table of a round plays the same deal, in every seat "
                              "order: the luck of the deal cancels out across the field."),
    "ladder": gettext_lazy("Continuous: every tick seats entrants close in rating at a "
                           "table; bots join at any time."),
    "league": gettext_lazy("Seasons of divisions, each a round robin; at a season's end the "
                           "best of each division go up and the last go down."),
}
TAKES_PEOPLE = frozenset({"round-robin", "swiss", "knockout", "league"})
"""Formats whose form takes people (invited, or signing up themselves): they play at
live tables."""
LIVE_LADDER = "ladder"
"""The format whose form offers live tables without people named: a ladder whose games
are live tables with its clock, which bot accounts enter at any time (docs/bots.md)."""
FORMAT_INITIAL: dict[str, dict[str, Any]] = {
    "swiss": {"bots": "heuristic, nontrading, random, heuristic, nontrading, random, "
                      "heuristic, nontrading"},
    "knockout": {"ruleset": "duel", "table": 2, "bots": "heuristic, nontrading, random, "
                                                        "heuristic"},
    "ladder": {"ruleset": "duel", "table": 2, "bots": "heuristic, nontrading, random, "
                                                      "heuristic"},
    "league": {"ruleset": "duel", "table": 2, "divisions": 3,
               "bots": "heuristic, nontrading, random, heuristic, nontrading, random"},
}
"""What a format's form starts with where the common start (5 bots at tables of 4 under
classic) cannot be paired: a form sent as it comes makes a competition of any format
(tests/tournaments/test_pages.py)."""


def _options() -> dict[str, forms.Field]:
    """A field for every option of every format, with the format's bounds."""
    return {
        "cycles": forms.IntegerField(label=gettext_lazy("Cycles"), min_value=1,
                                     max_value=MAX_ROUNDS, initial=1, help_text=gettext_lazy(
                                         "How often every group meets in every seat order.")),
        "rounds": forms.IntegerField(label=gettext_lazy("Rounds"), min_value=1,
                                     max_value=MAX_ROUNDS, initial=3),
        "advance": forms.IntegerField(label=gettext_lazy("Going through from each table"),
                                      min_value=1, max_value=MAX_TABLE - 1, initial=1),
        "deals": forms.IntegerField(label=gettext_lazy("Deals"), min_value=1,
                                    max_value=MAX_ROUNDS, initial=1),
        "divisions": forms.IntegerField(label=gettext_lazy("Divisions"), min_value=1,
                                        max_value=MAX_DIVISIONS, initial=2),
        "moves": forms.IntegerField(label=gettext_lazy("Up and down at each season's end"),
                                    min_value=0, max_value=MAX_ENTRANTS, initial=1),
        "seasons": forms.IntegerField(label=gettext_lazy("Seasons"), min_value=1,
                                      max_value=MAX_SEASONS, initial=2),
    }


class NewCompetition(forms.Form):
    """What every new competition asks; :func:`new_competition_form` adds its format's."""

    name = forms.CharField(label=gettext_lazy("Name"), max_length=MAX_NAME, strip=True)
    ruleset = forms.ChoiceField(label=gettext_lazy("Ruleset"),
                                choices=[(p, p) for p in PRESETS])
    table = forms.IntegerField(label=gettext_lazy("Players at each table"),
                               min_value=MIN_TABLE, max_value=MAX_TABLE, initial=4)
    bots = forms.CharField(
        label=gettext_lazy("Bots"), max_length=MAX_ENTRANTS * 41, strip=True, required=False,
        help_text=gettext_lazy("Bot names, comma-separated; a name again enters that bot "
                               "again."),
        initial="heuristic, nontrading, random, heuristic, nontrading")
    rules = forms.CharField(
        label=gettext_lazy("House rules"), required=False, max_length=MAX_RULES_TEXT,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=gettext_lazy("One KEY=VALUE a line, e.g. draw_cards=3."))

    def __init__(self, format: str, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.format = format
        options = _options()
        for option in FORMATS[format].parameters:
            self.fields[option] = options[option]
        if FORMATS[format].continuous:
            self.fields["every"] = forms.IntegerField(
                label=gettext_lazy("Seconds between ticks"), min_value=MIN_EVERY,
                max_value=MAX_EVERY, initial=300, help_text=gettext_lazy(
                    "At most a week. A ladder plays 10,000 ticks at most, and no more than "
                    "a year's: every 60 seconds it runs about 7 days, every 300 seconds "
                    "about 35, every hour or more a year. Its organiser may stop it "
                    "sooner."))
        if format in TAKES_PEOPLE:
            self._people_fields()
        elif format == LIVE_LADDER:
            self.fields["live_tables"] = forms.BooleanField(
                label=gettext_lazy("Games at live tables"), required=False,
                help_text=gettext_lazy("Bot accounts may enter it at any time (their owners "
                                       "or the bots themselves, through the API); each game "
                                       "is a live table with the clock below."))
            self._clock_fields()
        for name, value in FORMAT_INITIAL.get(format, {}).items():
            self.fields[name].initial = value

    def clean_time_zone(self) -> str:
        """The organiser's IANA time zone (the page's script fills it from the
        browser), the one the deadline is typed in; "" (no script) is UTC."""
        name: str = self.cleaned_data.get("time_zone") or ""
        if zone_named(name) is None:
            raise forms.ValidationError(_("Unknown time zone %(zone)s.")
                                        % {"zone": repr(name[:MAX_ZONE_NAME])})
        return name

    def clean(self) -> dict[str, Any]:
        """A deadline read in the organiser's time zone, not the server's UTC: the
        field gives the wall time typed (made aware in UTC), put in the named zone."""
        data = super().clean() or {}
        deadline, zone = data.get("deadline"), zone_named(data.get("time_zone") or "")
        if deadline is not None and zone is not None:
            data["deadline"] = deadline.astimezone(UTC).replace(tzinfo=zone)
        return data

    def clean_name(self) -> str:
        """The name as :func:`tournaments.core.store.check_name` takes it: one rule for
        the form, ``create`` and the shell (the engine's rule for a game's tags)."""
        try:
            return check_name(self.cleaned_data["name"])
        except CompetitionError as refused:
            raise forms.ValidationError(str(refused)) from None

    def _people_fields(self) -> None:
        self.fields["people"] = forms.CharField(
            label=gettext_lazy("People"), required=False, max_length=MAX_PEOPLE_TEXT,
            strip=True, help_text=gettext_lazy(
                "Usernames, comma-separated: each is invited, and plays their games at "
                "live tables once they accept. You start it on its page, with whoever has "
                "accepted by then."))
        self.fields["open_entries"] = forms.BooleanField(
            label=gettext_lazy("Open for entries"), required=False,
            help_text=gettext_lazy("People sign up on its page until you start it, or "
                                   "until the deadline."))
        self.fields["deadline"] = forms.DateTimeField(
            label=gettext_lazy("Sign-up deadline"), required=False,
            widget=forms.DateTimeInput(attrs={"type": "datetime-local"},
                                       format="%Y-%m-%dT%H:%M"),
            help_text=gettext_lazy("Optional, in your time zone: the sign-up closes then and "
                                   "the first round starts with who has entered."))
        self.fields["time_zone"] = forms.CharField(
            required=False, max_length=MAX_ZONE_NAME, widget=forms.HiddenInput(
                attrs={"data-time-zone": ""}))
        self.fields["cap"] = forms.IntegerField(
            label=gettext_lazy("Most entrants"), min_value=MIN_TABLE, max_value=MAX_ENTRANTS,
            required=False, help_text=gettext_lazy(
                "Optional, bots included: who signs up when it is full goes on a waiting "
                "list, and takes the place of anyone who withdraws."))
        self._clock_fields()

    def _clock_fields(self) -> None:
        """A live game's clock, its hours and what becomes of an absent player."""
        self.fields["move_seconds"] = forms.IntegerField(
            label=gettext_lazy("Turn clock (seconds a move)"), min_value=MIN_MOVE_SECONDS,
            max_value=MAX_MOVE_SECONDS, initial=60, required=False)
        self.fields["game_seconds"] = forms.IntegerField(
            label=gettext_lazy("Bank (seconds a game beyond the turn clock)"), min_value=0,
            max_value=MAX_GAME_SECONDS, initial=300, required=False)
        self.fields["fixture_hours"] = forms.IntegerField(
            label=gettext_lazy("Hours to play a live game"), min_value=1,
            max_value=MAX_FIXTURE_HOURS, initial=72, required=False,
            help_text=gettext_lazy("A game not over by then is scored as it stands: by the "
                                   "coins each player has."))
        self.fields["absent"] = forms.ChoiceField(
            label=gettext_lazy("A player not at their table"), initial=CLOCK,
            choices=[(CLOCK, gettext_lazy("The clock plays their moves (they forfeit)")),
                     *((bot, gettext_lazy("Bot %(name)s takes their seat") % {"name": bot})
                       for bot in BOTS)],
            required=False)
        self.fields["absence_seconds"] = forms.IntegerField(
            label=gettext_lazy("Seconds away before a bot takes the seat"), min_value=1,
            max_value=MAX_ABSENCE_SECONDS, initial=120, required=False)

    def options(self) -> dict[str, int]:
        """The format's options as the form gave them."""
        return {o: int(self.cleaned_data[o]) for o in FORMATS[self.format].parameters}


def requested(data: dict[str, Any]) -> tuple[Ruleset, list[str]]:
    """The ruleset (a preset with the form's house rules, KEY=VALUE a line) and the bot
    entrants (names, comma-separated) a new competition's form asks for. RulesetError
    or CompetitionError if either is refused."""
    names = [n.strip() for n in data["bots"].split(",") if n.strip()]
    lines = [line.strip() for line in data["rules"].splitlines() if line.strip()]
    if len(lines) > len(RULE_PARAMETERS):
        raise RulesetError(_("Too many house rules."))
    ruleset = (customize(data["ruleset"], data["table"], rule_overrides(lines))
               if lines else ruleset_for(data["ruleset"], data["table"]))
    return ruleset, entrants_for(names[:MAX_ENTRANTS + 1])


class Invite(forms.Form):
    people = forms.CharField(label=gettext_lazy("Invite"), max_length=MAX_PEOPLE_TEXT,
                             strip=True, help_text=gettext_lazy("Usernames, comma-separated."))


__all__ = ["FORMAT_LEDES", "FORMAT_NAMES", "LIVE_LADDER", "MAX_PEOPLE_TEXT", "TAKES_PEOPLE",
           "Invite",
           "NewCompetition", "requested"]


class BotTestForm(forms.Form):
    """A bot test (``tournaments.core.bottests``): two bots, a ruleset and table size,
    the two Elo bounds and error rates of the generalised SPRT, the most sets, a seed.
    Every field bounded here; the test's own checks follow (``bottests.create``)."""

    a = forms.ChoiceField(label=gettext_lazy("Bot A"))
    b = forms.ChoiceField(label=gettext_lazy("Bot B"))
    preset = forms.ChoiceField(label=gettext_lazy("Ruleset"),
                               choices=[(name, name) for name in PRESETS], initial="classic")
    players = forms.IntegerField(label=gettext_lazy("Players at the table"),
                                 min_value=MIN_TABLE, max_value=MAX_TABLE, initial=4)
    elo0 = forms.FloatField(label=gettext_lazy("H0: A is at most this many Elo stronger"),
                            min_value=-1000, max_value=1000, initial=0.0)
    elo1 = forms.FloatField(label=gettext_lazy("H1: A is this many Elo stronger"),
                            min_value=-1000, max_value=1000, initial=5.0)
    alpha = forms.FloatField(label=gettext_lazy("alpha: the chance of accepting H1 when "
                                                "H0 holds"),
                             min_value=0.001, max_value=0.49, initial=0.05)
    beta = forms.FloatField(label=gettext_lazy("beta: the chance of accepting H0 when H1 "
                                               "holds"),
                            min_value=0.001, max_value=0.49, initial=0.05)
    max_sets = forms.IntegerField(label=gettext_lazy("At most this many sets"),
                                  min_value=1, max_value=20_000, initial=1000)
    seed = forms.CharField(label=gettext_lazy("Seed (empty: a new one)"), required=False,
                           max_length=64)

    def __init__(self, *args: Any, bots: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choices = [(name, name) for name in bots]
        for name in ("a", "b"):
            field = self.fields[name]
            assert isinstance(field, forms.ChoiceField)
            field.choices = choices
        self.fields["a"].initial = "heuristic"
        self.fields["b"].initial = "nontrading"

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        low, high = data.get("elo0"), data.get("elo1")
        if low is not None and high is not None and not low < high:
            raise forms.ValidationError(_("H1's Elo must be more than H0's."))
        preset, players = data.get("preset"), data.get("players")
        if preset and players:
            try:
                ruleset_for(preset, players)
            except RulesetError:
                raise forms.ValidationError(_("%(preset)s is not played by %(n)s players.")
                                            % {"preset": preset, "n": players}) from None
        return data
