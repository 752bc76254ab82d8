"""Game analysis on the web: a finished game's decisions judged by the search bot
(:mod:`bohnanza_core.analysis`), run as a Celery job, stored, and shown in the replay
viewer (docs/analysis.md)."""
