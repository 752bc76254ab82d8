"""Replays: the Django-backed event store, replay viewer, share links, export, audits."""
