"""Bots that play Bohnanza through the same door as people: a seat's view in,
commands out (docs/bots.md). ``BOTS`` names every bot the simulator, the
command-line tool and the tournaments can seat."""

from bohnanza_core.bots.base import Bot, legal_moves
from bohnanza_core.bots.heuristic import HeuristicBot
from bohnanza_core.bots.nontrading import NonTradingBot
from bohnanza_core.bots.random_bot import RandomBot

BOTS: dict[str, type[Bot]] = {
    RandomBot.name: RandomBot,
    NonTradingBot.name: NonTradingBot,
    HeuristicBot.name: HeuristicBot,
}

__all__ = ["BOTS", "Bot", "HeuristicBot", "NonTradingBot", "RandomBot", "legal_moves"]
