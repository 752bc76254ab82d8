"""Bohnanza, played exactly by the rulebooks: a pure rules engine free of Django.

The whole game is ``command -> decide -> events -> evolve -> state``. A new game is
its first events, from the shuffle and the deal up to the first player's turn:

>>> from bohnanza_core import PlantFromHand, decide, evolve, new_game, play, ruleset_for
>>> state, events = new_game(ruleset_for("classic", 4), ("Ann", "Bob", "Cy", "Di"), seed="s")
>>> len(events), events[-1], state.phase
(23, TurnStarted(seat=0, turn=1), <Phase.PLANTING: 'planting from the hand'>)

:func:`decide` says what a command would cause, leaving the state as it was;
:func:`evolve` applies one event. Cards are numbered; ``state.fields[0]`` is Ann's
two fields:

>>> events = decide(state, PlantFromHand(seat=0, field=0))
>>> events
[BeanPlanted(seat=0, card=53, field=0, source=<CardSource.HAND: 'hand'>)]
>>> state.fields[0]
[[], []]
>>> for event in events:
...     state = evolve(state, event)
>>> state.fields[0]
[[53], []]

:func:`play` does both at once, and the automatic events that follow (here the end
of the planting and the two cards turned over for trading):

>>> [type(event).__name__ for event in play(state, PlantFromHand(seat=0, field=1))]
['BeanPlanted', 'PlantingEnded', 'CardTurnedOver', 'CardTurnedOver', 'PhaseStarted']

A command the rules forbid raises :class:`IllegalMove` with a reason a player can
read, and changes nothing:

>>> play(state, PlantFromHand(seat=0, field=0))
Traceback (most recent call last):
  ...
bohnanza_core.errors.IllegalMove: cards are planted from the hand in phase 1, not during trading
>>> state.phase
<Phase.TRADING: 'trading'>

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
from bohnanza_core.views import EVERYTHING, SPECTATOR, GameView, redact, view

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
    "GameView",
    "Harvest",
    "IllegalMove",
    "MakeOffer",
    "OfferShape",
    "Phase",
    "PlantCard",
    "PlantFromHand",
    "Ruleset",
    "RulesetError",
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
