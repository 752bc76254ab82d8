"""The ways a request to the engine can be wrong.

Kept out of the compiled modules (bohnanza_core/build.py): mypyc cannot compile a
subclass of a builtin exception."""


class IllegalMove(Exception):
    """A command the rules do not allow now. ``reason`` is written for the player.

    Raised before anything changes: the state is exactly as it was.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class RulesetError(ValueError):
    """A ruleset that cannot be played: unknown name, unsupported player count, or
    options that contradict each other."""


class SimulationError(RuntimeError):
    """A game that cannot go on: it ran past the command limit, or a name is unknown."""
