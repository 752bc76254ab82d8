"""``{% open_invitations user as n %}``: how many competition invitations ``user`` has not
answered, for the profile's link to them (the ``play`` app's page names no
competition in its code: ``play`` never imports ``tournaments``)."""

from __future__ import annotations

from typing import Any

from django import template

from tournaments.core.consent import pending_invitations

register = template.Library()


@register.simple_tag
def open_invitations(user: Any) -> int:
    return pending_invitations(user)
