"""What a match ends with: the result every caller gets (``referee match --json`` prints it),
and each fault explained for the bot's author."""

from __future__ import annotations

import msgspec

from protocol.messages import SeatOutcome

STDERR_TAIL = 10
"""Lines of a faulty bot's stderr kept in its ``FaultReport`` (the log keeps up to 64 KiB)."""


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
    """The last lines of its stderr in this match."""
    stderr_lines: int = 0
    """How many lines it wrote to stderr in all."""
    command: str | None = None
    """The bot's command line, when nothing else names it (no hello, no label: its name is its
    seat's), so that a bot that died before its hello is known by what was started."""


class MatchOutcome(msgspec.Struct, kw_only=True):
    """What ``referee match --json`` prints."""

    match_id: str
    seed: str
    """The deals' seed as a string of digits, as in the log (a JSON reader with doubles loses
    a 128-bit integer)."""
    variant: str
    scores: list[int]
    winners: list[int]
    reason: str
    rounds: int
    seats: list[SeatOutcome]
    round_scores: list[list[int]]
    """Score changes of every round, by seat."""
    decisions: int
    log: str | None
    interrupted_by: int | None = None
    """The signal number that interrupted the match, if one did."""
    faults: list[FaultReport] = msgspec.field(default_factory=list)
    """Every fault, in order (at most ``MAX_REPORTS`` per seat), explained."""
    notes: list[str] = msgspec.field(default_factory=list)
    """What went wrong once the match was over, which changes nothing in it but is the bot's to
    fix: a program that exited with an error after goodbye."""


MAX_REPORTS = 3
"""Fault reports kept per seat and match."""
