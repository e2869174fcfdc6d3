"""Plain data that several layers share, at the bottom so that none of them reaches into
another's package for it: the store keeps ``BotEntry`` and ``FaultReport`` without importing
the bot processes (``players/``) or the match (``match/``), and the bot connection knows which
faults leave a bot gone without importing the log's format. Nothing here imports the project:
msgspec Structs and constants only (``tests/test_layout.py`` holds it to that)."""

from __future__ import annotations

from typing import Final

import msgspec

BOUND_FAULTS: Final = ("memory", "processes", "cpu")
"""Faults of a bot that ran into one of its resource bounds and was stopped by the kernel."""
GONE_FAULTS: Final = ("crash", "disconnect", *BOUND_FAULTS)
"""Faults after which the bot is gone: it is sent no ``error``, and no reply line judges it."""


class BotEntry(msgspec.Struct, frozen=True, kw_only=True):
    """One bot of a bot list (``referee.players.bot_config`` reads and checks the list)."""

    name: str
    command: str
    build: str | None = None
    folder: str | None = None
    """The bot's own folder, relative to the list's folder (its ``cwd``): its command and build
    run there, and a sandboxed build works on a copy of it (default: the list's folder)."""
    build_timeout: float | None = msgspec.field(default=None)
    """Seconds the build may take (default ``BUILD_TIMEOUT``, 600); then it is ended."""
    content: str | None = None
    """The hash of the files the bot runs from (``referee.players.bot_content``), set by the
    referee when it reads the list, never by the list (not one of its keys): a change to it
    makes a new version, as a changed command does."""


class FaultReport(msgspec.Struct, kw_only=True):
    """One fault of one seat, explained for the bot's author: what the referee saw, the line
    that caused it, the bot's last words on stderr, and what to try (``referee.hints``)."""

    seat: int
    name: str
    reason: str
    message: str
    action: str
    """``forfeit`` (dropped), ``penalty``, ``substitute`` or ``reconnect``."""
    rule: str | None = None
    line: str | None = None
    """The bot's offending line, cut to 200 characters (``None``: there was none)."""
    hint: str | None = None
    exit: str | None = None
    """How its program ended (``exited with code 1``, ``killed by signal 9 (SIGKILL)``)."""
    stderr: list[str] = msgspec.field(default_factory=list)
    """The last lines of its stderr in this match (``referee.match.outcome.STDERR_TAIL``)."""
    stderr_lines: int = 0
    """How many lines it wrote to stderr in all."""
    command: str | None = None
    """The bot's command line, when nothing else names it (no hello, no label: its name is its
    seat's), so that a bot that died before its hello is known by what was started; and always
    for a failed start outside a match (``folder`` set), where what was started is the first
    thing to check."""
    folder: str | None = None
    """The folder its program started in, for a failed start outside a match (a duel's,
    gauntlet's or ladder's roll call): a bot that cannot find its own files most often started
    in another folder than its author's (``None`` in a match's faults)."""
