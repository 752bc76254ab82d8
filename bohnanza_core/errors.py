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


class Worded(Exception):
    """A refusal that carries, beside its English text (the command line's), a stable
    ``code`` and the ``params`` the text names, so that a layer with translations (the
    web pages) can word it in the reader's language without this package knowing of
    any. ``code`` is "" where no layer words it yet: the English text is then shown."""

    def __init__(self, text: str, code: str = "", **params: object) -> None:
        super().__init__(text)
        self.code = code
        self.params = params


class RulesetError(Worded, ValueError):
    """A ruleset that cannot be played: unknown name, unsupported player count, or
    options that contradict each other."""


class SimulationError(Worded, RuntimeError):
    """A game that cannot go on: it ran past the command limit, or a name is unknown."""
