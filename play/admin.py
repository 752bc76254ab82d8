"""The admin's pages (accounts, groups, the login throttle's records), bounded
like every other page of the site: no input answers 500, and none is echoed into a
page many times over.

Django's own ``UserAdmin`` and ``GroupAdmin`` (and django-axes' admins), with three
guards (each found by ``tests/config/test_url_walker.py``):

- a list's query string is at most :data:`MAX_QUERY` characters. The list repeats its
  query string in every sort and filter link (a 100 kB ``?o=`` made a 3 MB page), and
  SQLite refuses a search pattern over 50,000 bytes (``LIKE or GLOB pattern too
  complex``: a 500). A longer one is refused with a message, back on the plain list;
- a search term is at most :data:`MAX_SEARCH` characters (the autocomplete's too);
- ``?_to_field=`` (empty) means the primary key, as no ``_to_field`` does; Django
  5.2 looked up a field named "" and answered 500.
"""

from __future__ import annotations

from typing import Any

from axes.admin import AccessAttemptAdmin, AccessFailureLogAdmin, AccessLogAdmin
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.contrib import admin, messages
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group, User
from django.db.models import Model, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect

MAX_QUERY = 2000
"""Characters of a list page's query string (search, filters, ordering, page)."""

MAX_SEARCH = 200
"""Characters of a search term."""


class BoundedAdmin(admin.ModelAdmin[Any]):
    """A model admin whose list, search and object lookups are bounded (see above)."""

    def changelist_view(self, request: HttpRequest,
                        extra_context: dict[str, Any] | None = None) -> HttpResponse:
        query = request.META.get("QUERY_STRING", "")
        if len(query) > MAX_QUERY:
            self.message_user(request, f"That address's query is {len(query):,} characters "
                              f"long; a list takes at most {MAX_QUERY:,}. Showing the "
                              "whole list instead.", messages.ERROR)
            return HttpResponseRedirect(request.path)
        return super().changelist_view(request, extra_context)

    def get_search_results(self, request: HttpRequest, queryset: QuerySet[Any],
                           search_term: str) -> tuple[QuerySet[Any], bool]:
        if len(search_term) > MAX_SEARCH:
            self.message_user(request, f"A search is at most {MAX_SEARCH} characters; "
                              f"this one is {len(search_term):,}.", messages.ERROR)
            return queryset.none(), False
        return super().get_search_results(request, queryset, search_term)

    def get_object(self, request: HttpRequest, object_id: str,
                   from_field: str | None = None) -> Model | None:
        return super().get_object(request, object_id, from_field or None)


# Every model the admin shows, bounded: the accounts, and django-axes' records of
# sign-in attempts (the login throttle, config/settings.py), registered before this app.
_BOUNDED: tuple[tuple[type[Model], type[admin.ModelAdmin[Any]]], ...] = (
    (User, UserAdmin), (Group, GroupAdmin), (AccessAttempt, AccessAttemptAdmin),
    (AccessLog, AccessLogAdmin), (AccessFailureLog, AccessFailureLogAdmin),
)
for _model, _admin in _BOUNDED:
    if admin.site.is_registered(_model):
        admin.site.unregister(_model)
    admin.site.register(_model, type(f"Bounded{_admin.__name__}", (BoundedAdmin, _admin), {}))
