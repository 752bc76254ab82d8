"""Pages of the play app."""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from bohnanza_core.rulesets import PRESETS

# Shown in their own columns, so left out of each band's parameter list.
_SHOWN_APART = frozenset({"name", "players", "description"})


@dataclass(frozen=True)
class RulesetRow:
    """One player-count band of a preset, ready for the rulesets table."""

    name: str
    players: str
    description: str
    parameters: list[tuple[str, str]]


@dataclass(frozen=True)
class PresetGroup:
    """A preset with its bands, one table row each."""

    name: str
    bands: list[RulesetRow]


def format_players(players: Iterable[int]) -> str:
    """Write player counts compactly: (3, 4, 5) -> "3-5", (2,) -> "2", (3, 5) -> "3, 5"."""
    counts = sorted(set(players))
    if not counts:
        return ""
    runs: list[str] = []
    start = previous = counts[0]
    for count in [*counts[1:], None]:
        if count is not None and count == previous + 1:
            previous = count
            continue
        runs.append(str(start) if start == previous else f"{start}-{previous}")
        if count is not None:
            start = previous = count
    return ", ".join(runs)


def format_value(value: object) -> str:
    """Write a JSON-able parameter value as short readable text."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Mapping):
        if not value:
            return "none"
        return ", ".join(f"{key}: {format_value(item)}" for key, item in value.items())
    if isinstance(value, list | tuple | set | frozenset):
        return ", ".join(format_value(item) for item in value) if value else "none"
    return str(value)


def format_name(key: str) -> str:
    """Turn a parameter key into a label: "third_field_cost" -> "third field cost"."""
    return key.replace("_", " ")


def preset_groups() -> list[PresetGroup]:
    """Every preset of the engine with every band's parameters, in the engine's order."""
    groups: list[PresetGroup] = []
    for preset_name, bands in PRESETS.items():
        rows = [
            RulesetRow(
                name=ruleset.name,
                players=format_players(ruleset.players),
                description=ruleset.description,
                parameters=[
                    (format_name(key), format_value(value))
                    for key, value in ruleset.parameters().items()
                    if key not in _SHOWN_APART
                ],
            )
            for ruleset in bands
        ]
        groups.append(PresetGroup(name=preset_name, bands=rows))
    return groups


def home(request: HttpRequest) -> HttpResponse:
    """The front page: what the platform is, and the rulesets the engine knows."""
    return render(request, "home.html", {"presets": preset_groups()})
