"""The root of the referee's error types, so callers can catch everything of ours at once."""


class RefereeError(Exception):
    """Base class of every error the referee raises on purpose."""


class LadderError(RefereeError):
    """A ladder that cannot be created, resumed or read as asked (the message says why)."""


class BotConfigError(RefereeError):
    """A bot list that cannot be read, or a build step that failed. Kept here, beside the root,
    because both the list's file (``referee.players.list_file``) and its contents
    (``referee.players.bot_config``, which callers import it from) raise it."""
