"""Template filters of the platform's pages: players and beans as people read them."""

from django import template

from replays.table import bean, display_player

register = template.Library()


@register.filter
def player_name(player: str) -> str:
    """``user:ann`` → "ann", ``bot:heuristic`` → "Heuristic bot" (see
    :func:`replays.table.display_player`)."""
    return display_player(str(player))


@register.filter
def bean_name(kind: str) -> str:
    """A bean kind's name in the reader's language."""
    return bean(str(kind))


@register.filter
def get_item(mapping: dict[str, str], key: object) -> str:
    """``mapping[str(key)]``, or "" when it has none."""
    return mapping.get(str(key), "") if isinstance(mapping, dict) else ""
