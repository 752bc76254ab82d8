"""Bots that play Bohnanza through the same door as people: a seat's view in,
commands out (docs/bots.md). ``BOTS`` names every bot the simulator, the
command-line tool and the tournaments can seat."""

import inspect

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

DESCRIPTIONS: dict[str, str] = {
    RandomBot.name: "Plays any legal move, uniformly at random, with offers sampled "
                    "from their shapes: the floor, and a fuzzer for the engine.",
    NonTradingBot.name: "A careful farmer who never trades: declines every offer and "
                        "plants each card into its kind's fullest field, else an empty "
                        "one, else harvests the field that pays most.",
    HeuristicBot.name: "Weighs each move by what it adds to its fields: harvests a field "
                       "at its beanometer's top step, offers the cards it cannot use, "
                       "and accepts any trade that leaves it better off.",
    SearchBot.name: "Judges each decision by playing the game on to its end, 600 times "
                    "over the cards it cannot see, its choice checked against the "
                    "heuristic bot's (about 0.1 s a decision).",
    DeepSearchBot.name: "The search bot with 6,000 playouts a decision and 400 rollouts "
                        "to check a disagreement (about 1 s a decision).",
}
"""Each built-in bot in one sentence (the bot API's ``GET /api/v1/bots``; docs/bots.md
describes them at length). Here rather than in the classes' docstrings: the compiled
bots (``bohnanza_core/build.py``) keep none."""


def describe_bot(name: str) -> str:
    """A bot's sentence: :data:`DESCRIPTIONS`, else its class's docstring's first
    paragraph (one line), else empty."""
    if name in DESCRIPTIONS:
        return DESCRIPTIONS[name]
    found = BOTS.get(name)
    doc = inspect.getdoc(found) if found is not None else None
    return " ".join((doc or "").split("\n\n")[0].split())


QUICK_BOTS: dict[str, type[Bot]] = {
    name: cls for name, cls in BOTS.items() if not issubclass(cls, SearchBot)
}
"""The bots that decide in microseconds: every bot but the searches, which play
hundreds of games a decision. Suites and benchmarks that play every bot many times
play these; the searches have their own (tests/core/test_search.py)."""

__all__ = [
    "BOTS",
    "DESCRIPTIONS",
    "QUICK_BOTS",
    "Bot",
    "DeepSearchBot",
    "HeuristicBot",
    "NonTradingBot",
    "RandomBot",
    "SearchBot",
    "describe_bot",
    "legal_moves",
]
