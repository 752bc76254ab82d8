"""Shared test configuration.

pytest-django reads DJANGO_SETTINGS_MODULE from pyproject.toml; tests that touch
the database ask for it with the ``db`` fixture or ``@pytest.mark.django_db``.
"""
