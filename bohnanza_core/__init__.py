"""Bohnanza, played exactly by the rulebooks: a pure rules engine free of Django.

The whole game is ``command -> decide -> events -> evolve -> state``:

>>> from bohnanza_core import new_game, play, ruleset_for, PlantFromHand
>>> state, events = new_game(ruleset_for("classic", 4), ("Ann", "Bob", "Cy", "Di"), seed="s")
>>> events = play(state, PlantFromHand(seat=0, field=0))

See ``docs/`` for the events, the shuffle and the export format.

The engine and the bots run compiled with mypyc where the install could compile them;
``BUILD`` says which build this process runs (bohnanza_core/build.py), and
``BOHNANZA_PURE_PYTHON=1`` forces the pure modules.
"""

# First of all: the build decides where the other modules are loaded from.
from bohnanza_core._loader import BUILD
from bohnanza_core.cards import BEANOMETER, DECK_COUNTS, BeanKind, coins_for
from bohnanza_core.commands import (
    AcceptOffer,
    BuyThirdField,
    Command,
    DeclineOffer,
    DiscardCard,
    EndPlanting,
    EndTrading,
    Harvest,
    MakeOffer,
    PlantCard,
    PlantFromHand,
    WithdrawOffer,
)
from bohnanza_core.commitments import seed_commitment
from bohnanza_core.engine import (
    OfferShape,
    awaiting,
    command_for,
    decide,
    evolve,
    legal_commands,
    new_game,
    play,
)
from bohnanza_core.errors import IllegalMove, RulesetError
from bohnanza_core.rulesets import PRESETS, Ruleset, customize, ruleset_for
from bohnanza_core.shuffle import seeded_shuffle
from bohnanza_core.state import GameState, Phase
from bohnanza_core.views import EVERYTHING, SPECTATOR, TableView, redact, view

__all__ = [
    "BEANOMETER",
    "BUILD",
    "DECK_COUNTS",
    "EVERYTHING",
    "PRESETS",
    "SPECTATOR",
    "AcceptOffer",
    "BeanKind",
    "BuyThirdField",
    "Command",
    "DeclineOffer",
    "DiscardCard",
    "EndPlanting",
    "EndTrading",
    "GameState",
    "Harvest",
    "IllegalMove",
    "MakeOffer",
    "OfferShape",
    "Phase",
    "PlantCard",
    "PlantFromHand",
    "Ruleset",
    "RulesetError",
    "TableView",
    "WithdrawOffer",
    "awaiting",
    "coins_for",
    "command_for",
    "customize",
    "decide",
    "evolve",
    "legal_commands",
    "new_game",
    "play",
    "redact",
    "ruleset_for",
    "seed_commitment",
    "seeded_shuffle",
    "view",
]
