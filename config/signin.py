"""The answer to a locked-out sign-in (django-axes' ``AXES_LOCKOUT_CALLABLE``).

The sign-in page itself, with status 429, a Retry-After header and a sentence saying
why and for how long, instead of the form: every further try while locked out starts
the wait again, so offering the form would only prolong it.
"""

from __future__ import annotations

from typing import Any

from axes.helpers import get_cool_off
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from config.errors import json_error, wants_json


def lockout_response(request: HttpRequest, *_: Any) -> HttpResponse:
    """Axes calls this with the original response and the credentials, in an order that
    differs between its sync and async paths; neither is needed here."""
    cool_off = get_cool_off(request)
    minutes = max(1, round(cool_off.total_seconds() / 60)) if cool_off else None
    message = ("Too many failed sign-ins for this username from your address: "
               + (f"try again in {minutes} minute{'s' if minutes != 1 else ''}."
                  if minutes else "ask an administrator to unlock it."))
    if wants_json(request):
        response: HttpResponse = json_error(request, 429, message)
    else:
        response = render(request, "registration/login.html",
                          {"locked_out": message}, status=429)
    if cool_off:
        response["Retry-After"] = str(int(cool_off.total_seconds()))
    return response
