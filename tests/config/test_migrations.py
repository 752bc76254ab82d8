"""The migrations say what the models say. Column sizes follow from bounds named in the
code (replays.names, issue 26): a bound that changes, or a preset with a longer name,
changes a model, and the database must follow with a migration."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_every_model_change_has_its_migration() -> None:
    out = StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", stdout=out, stderr=out)
    except SystemExit:  # makemigrations --check exits 1 when a migration is missing
        pytest.fail(f"models changed without a migration (manage.py makemigrations):\n"
                    f"{out.getvalue()}", pytrace=False)
