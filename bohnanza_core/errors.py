"""The two ways a request to the engine can be wrong."""


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
