"""Tournaments: bots registry, tournaments, leagues, ladders, ratings, Celery tasks."""
