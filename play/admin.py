"""The admin's pages of accounts (``django.contrib.auth``'s users and groups), bounded
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

from django.contrib import admin, messages
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group, User
from django.db.models import Model, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect

MAX_QUERY = 2000
"""Characters of a list page's query string (search, filters, ordering, page)."""

MAX_SEARCH = 200
"""Characters of a search term."""


class BoundedAdmin(admin.ModelAdmin):
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


class BoundedUserAdmin(BoundedAdmin, UserAdmin):
    pass


class BoundedGroupAdmin(BoundedAdmin, GroupAdmin):
    pass


admin.site.unregister(User)
admin.site.register(User, BoundedUserAdmin)
admin.site.unregister(Group)
admin.site.register(Group, BoundedGroupAdmin)


def _bound_registered(models: tuple[type[Model], ...]) -> None:
    """Re-register models another app put in the admin with the same guards: django-axes
    registers its sign-in records, whose pages answered ``?_to_field=`` with a 500."""
    for model in models:
        registered = admin.site._registry.get(model)
        if registered is None or isinstance(registered, BoundedAdmin):
            continue
        bounded = type(f"Bounded{type(registered).__name__}",
                       (BoundedAdmin, type(registered)), {})
        admin.site.unregister(model)
        admin.site.register(model, bounded)


def _axes_models() -> tuple[type[Model], ...]:
    from axes.models import AccessAttempt, AccessFailureLog, AccessLog

    return (AccessAttempt, AccessFailureLog, AccessLog)


_bound_registered(_axes_models())
