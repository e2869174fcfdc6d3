"""The root of the referee's error types, so callers can catch everything of ours at once."""


class RefereeError(Exception):
    """Base class of every error the referee raises on purpose."""


class LadderError(RefereeError):
    """A ladder that cannot be created, resumed or read as asked (the message says why)."""
