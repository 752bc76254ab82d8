"""The one exception of the competitions core."""


class CompetitionError(ValueError):
    """A competition that cannot be made or changed as asked; nothing stored. The
    message says why, in the reader's language where it is one a person meets."""


__all__ = ["CompetitionError"]
