"""Bots that play Bohnanza through the same door as people: a seat's view in,
commands out (docs/bots.md). ``BOTS`` names every bot the simulator, the
command-line tool and the tournaments can seat."""

from bohnanza_core.bots.base import Bot, legal_moves
from bohnanza_core.bots.heuristic import HeuristicBot
from bohnanza_core.bots.nontrading import NonTradingBot
from bohnanza_core.bots.random_bot import RandomBot
from bohnanza_core.bots.search import DeepSearchBot, SearchBot

BOTS: dict[str, type[Bot]] = {
    RandomBot.name: RandomBot,
    NonTradingBot.name: NonTradingBot,
    HeuristicBot.name: HeuristicBot,
    SearchBot.name: SearchBot,
    DeepSearchBot.name: DeepSearchBot,
}

QUICK_BOTS: dict[str, type[Bot]] = {
    name: cls for name, cls in BOTS.items() if not issubclass(cls, SearchBot)
}
"""The bots that decide in microseconds: every bot but the searches, which play
hundreds of games a decision. Suites and benchmarks that play every bot many times
play these; the searches have their own (tests/core/test_search.py)."""

__all__ = [
    "BOTS",
    "QUICK_BOTS",
    "Bot",
    "DeepSearchBot",
    "HeuristicBot",
    "NonTradingBot",
    "RandomBot",
    "SearchBot",
    "legal_moves",
]
