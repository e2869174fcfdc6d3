"""The ladder's error type."""

from referee.errors import RefereeError


class LadderError(RefereeError):
    """A ladder that cannot be created, resumed or read as asked (the message says why)."""
