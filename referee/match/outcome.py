"""What a match ends with: the result every caller gets (``referee match --json`` prints it),
and each fault explained for the bot's author."""

from __future__ import annotations

import msgspec

from protocol.messages import SeatOutcome
from referee.shared import FaultReport

STDERR_TAIL = 10
"""Lines of a faulty bot's stderr kept in its ``FaultReport`` (the log keeps up to 64 KiB)."""


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
