"""The competitions core: every kind of competition (round robin, Swiss, knockout,
duplicate, ladder, league) is one event-sourced aggregate with a format.

- :mod:`tournaments.core.competition`: the aggregate, its events, ids and seeds of its
  games; its format decides the pairings (:mod:`bohnanza_core.formats`, pure).
- :mod:`tournaments.core.store`: the application that stores competitions, creating one
  (checked, within its organiser's quotas, :mod:`tournaments.core.quotas`; people
  entered only by their consent, :mod:`tournaments.core.consent`).
- :mod:`tournaments.core.games`: playing a round's games. Bots only: a Celery task
  plays and stores a batch (``tournaments.tasks``). With a person: the ``play`` app's
  live tables (:mod:`tournaments.core.live`), whose results come back when they end.
  Either way a game's result is a :class:`~tournaments.models.CompetitionGame` row,
  stored with the game, and a round ends (results, moves, ratings:
  :mod:`tournaments.core.ratings`) once all its games are in.
- :mod:`tournaments.core.legacy`: competitions, ladders and leagues stored before there
  was one core, read as competitions.
"""
