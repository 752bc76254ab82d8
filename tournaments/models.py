"""Read models of the tournaments app: written with the games they describe.

A :class:`TournamentGame` row is stored in the same transaction as its game's events
(``tournaments.runner.play_deal``), so a game is in the store exactly when its row is:
counting a round's rows says whether the round is done without reading any game.
The results they hold are copies of the games' ``GameEnded`` events; the competition's
own ``RoundEnded`` events are built from them.
"""

from __future__ import annotations

from django.db import models


class TournamentGame(models.Model):
    game_id = models.UUIDField(primary_key=True)
    tournament_id = models.UUIDField()
    round = models.PositiveIntegerField()
    index = models.PositiveIntegerField(help_text="the game's place in the round's pairings")
    ranks = models.JSONField()
    coins = models.JSONField()
    winners = models.JSONField()

    class Meta:
        indexes = [models.Index(fields=["tournament_id", "round"])]
        constraints = [models.UniqueConstraint(fields=["tournament_id", "round", "index"],
                                               name="one_game_per_pairing")]
