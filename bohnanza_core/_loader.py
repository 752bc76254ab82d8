"""Chooses the build before any other module of the package loads (its name sorts
first among the package's imports in ``__init__``): see bohnanza_core/build.py."""

from bohnanza_core.build import activate

BUILD: str = activate()
"""``compiled (mypyc)`` or ``pure Python (why)``."""
