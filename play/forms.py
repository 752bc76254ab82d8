"""The forms of live play's pages: a new table, and a new account."""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Any

from django import forms
from django.conf import settings
from django.contrib.auth.forms import UserCreationForm, UsernameField
from django.contrib.auth.models import User
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from bohnanza_core.bots import BOTS
from bohnanza_core.rulesets import BOUNDS, MAX_PLAYERS, PRESETS, RULE_PARAMETERS
from play.clock import MAX_TRADE_SECONDS, default_trade_seconds
from play.presets import OPTION_WORDS, PARAMETERS
from play.presets import choices as preset_choices
from play.tables import MAX_CLOCK_SECONDS, OPEN
from replays.table import display_player

MAX_HOUSE_RULES_CHARS = 2000


def _seat_choices() -> list[tuple[str, Any]]:
    return [(OPEN, gettext_lazy("open to people")),
            *((name, display_player(f"bot:{name}")) for name in BOTS)]


def default_seat(seat: int) -> str:
    return OPEN if seat == 0 else "heuristic"


ABSENCE_CHOICES = (60, 120, 300, 600, 1800, 3600)
"""The absence limits a new table offers (seconds), besides the site's default and never."""


def _absence_choices() -> list[tuple[str, Any]]:
    default = int(getattr(settings, "PLAY_ABSENCE_SECONDS", 0))
    seconds = sorted({*ABSENCE_CHOICES, *([default] if default else [])})
    return [*((str(n), _minutes(n)) for n in seconds), ("0", gettext_lazy("never"))]


def _minutes(seconds: int) -> str:
    if seconds % 60:
        return ngettext("%(n)s second", "%(n)s seconds", seconds) % {"n": seconds}
    minutes = seconds // 60
    return ngettext("%(n)s minute", "%(n)s minutes", minutes) % {"n": minutes}


FORM_RULES = tuple(name for name in RULE_PARAMETERS if name not in ("players", "beans", "deal"))
"""The rule parameters the new-table form offers one field each (the lists, in the JSON
box)."""


def rule_fields() -> dict[str, forms.Field]:
    """A field per house rule: by its name in the reader's language, a number within the
    engine's bounds (the same bounds the engine checks again), yes or no, or one of the
    option's values; empty keeps the ruleset's own."""
    sample = PRESETS["classic"][0]
    fields: dict[str, forms.Field] = {}
    for name in FORM_RULES:
        label = PARAMETERS[name]
        value = getattr(sample, name)
        if name in BOUNDS:
            low, high = BOUNDS[name]
            fields[name] = forms.IntegerField(
                label=label, required=False, min_value=low, max_value=high,
                help_text=_("%(low)s to %(high)s") % {"low": low, "high": high},
                widget=forms.NumberInput(attrs={"placeholder": _("as the ruleset")}))
        elif isinstance(value, bool):
            fields[name] = forms.ChoiceField(label=label, required=False, choices=[
                ("", _("as the ruleset")), ("yes", _("yes")), ("no", _("no"))])
        elif isinstance(value, StrEnum):
            fields[name] = forms.ChoiceField(label=label, required=False, choices=[
                ("", _("as the ruleset")),
                *((option.value, OPTION_WORDS[option.value]) for option in type(value))])
    return fields


class TableForm(forms.Form):
    """A new table: ruleset, player count, house rules, seats, clock, visibility."""

    preset = forms.ChoiceField(label=gettext_lazy("Ruleset"))
    players = forms.IntegerField(label=gettext_lazy("Players"), min_value=2,
                                 max_value=MAX_PLAYERS, initial=4)
    house_rules = forms.CharField(
        label=gettext_lazy("Other house rules (JSON, for players, bean kinds and cards "
                           "dealt: options that differ from the ruleset)"),
        required=False, max_length=MAX_HOUSE_RULES_CHARS,
        widget=forms.Textarea(attrs={"rows": 2}))
    move_seconds = forms.IntegerField(label=gettext_lazy("Seconds per move (0: no clock)"),
                                      min_value=0, max_value=MAX_CLOCK_SECONDS, initial=0)
    game_seconds = forms.IntegerField(label=gettext_lazy("Seconds per game, beyond those"),
                                      min_value=0, max_value=MAX_CLOCK_SECONDS, initial=0)
    # Left out of a request: the site's default (PLAY_TRADE_SECONDS).
    trade_seconds = forms.IntegerField(
        label=gettext_lazy("Seconds a bot's trading phase stays open for people (0: the "
                           "bots' pace)"),
        min_value=0, max_value=MAX_TRADE_SECONDS, required=False)
    public = forms.BooleanField(label=gettext_lazy("Public (else by invitation link)"),
                                required=False, initial=True)
    # Left out of a request: the site's default limit, the heuristic bot.
    absence_seconds = forms.TypedChoiceField(
        label=gettext_lazy("A player away this long is replaced by a bot"), coerce=int,
        required=False, empty_value=None)
    replacement_bot = forms.ChoiceField(label=gettext_lazy("The bot that replaces them"),
                                        initial="heuristic", required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        preset = self.fields["preset"]
        assert isinstance(preset, forms.ChoiceField)
        preset.choices = preset_choices()
        for name, field in rule_fields().items():
            self.fields[f"rule_{name}"] = field
        absence = self.fields["absence_seconds"]
        assert isinstance(absence, forms.TypedChoiceField)
        absence.choices = _absence_choices()
        absence.initial = str(int(getattr(settings, "PLAY_ABSENCE_SECONDS", 0)))
        self.fields["trade_seconds"].initial = default_trade_seconds()
        replacement = self.fields["replacement_bot"]
        assert isinstance(replacement, forms.ChoiceField)
        replacement.choices = [(name, display_player(f"bot:{name}")) for name in BOTS]
        for seat in range(MAX_PLAYERS):
            self.fields[f"seat_{seat}"] = forms.ChoiceField(
                label=_("Seat %(n)s") % {"n": seat + 1}, choices=_seat_choices(),
                initial=default_seat(seat), required=False)

    def table_fields(self) -> list[forms.BoundField]:
        return [f for f in self if not f.name.startswith("rule_") and f.name != "house_rules"]

    def rule_fields(self) -> list[forms.BoundField]:
        return [f for f in self if f.name.startswith("rule_")]

    def clean(self) -> dict[str, Any]:
        """The house rules: the form's fields that were set, over the JSON box's."""
        data = super().clean() or {}
        rules = dict(data.get("house_rules") or {})
        for name in rule_fields():
            value = data.get(f"rule_{name}")
            if value in (None, ""):
                continue
            rules[name] = {"yes": True, "no": False}.get(value, value)
        data["house_rules"] = rules
        return data

    def clean_house_rules(self) -> dict[str, Any]:
        text = self.cleaned_data.get("house_rules") or ""
        if not text.strip():
            return {}
        try:
            value = json.loads(text)
        except ValueError:
            raise forms.ValidationError(_("House rules are a JSON object, e.g. "
                                          '{"trading": false}')) from None
        if not isinstance(value, dict):
            raise forms.ValidationError(_("House rules are a JSON object, e.g. "
                                          '{"trading": false}'))
        return value


class SignUpForm(UserCreationForm[User]):
    class Meta:
        model = User
        fields = ("username",)
        field_classes = {"username": UsernameField}


__all__ = ["ABSENCE_CHOICES", "MAX_HOUSE_RULES_CHARS", "SignUpForm", "TableForm", "default_seat"]
