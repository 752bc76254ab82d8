"""What the ``play`` app tells the apps above it, which it never imports: they listen.

- :data:`table_finished`: a running table's game has ended (the driver marked it
  finished), sent with ``table_id`` and ``game_id``. A competition whose game it was
  records the result (``tournaments.core.live``).
"""

from django.dispatch import Signal

table_finished = Signal()
