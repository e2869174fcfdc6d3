"""Replaying a logged match: read the log, re-run it through the rules, show it.

``reader`` turns a log file into typed entries per match; ``verify`` re-plays a match through
the rules engine, checks every entry and builds the ``MatchRecord`` (``record``) that the
terminal view (``text``), the HTML viewer (``html``) and ``referee replay --json`` show.
"""

from referee.replay.reader import LogError, LogMatch, ReplayLog, UnsupportedLogFormat, parse_log, read_log
from referee.replay.record import Difference, MatchRecord, Verification
from referee.replay.verify import verify

__all__ = [
    "Difference",
    "LogError",
    "LogMatch",
    "MatchRecord",
    "ReplayLog",
    "UnsupportedLogFormat",
    "Verification",
    "parse_log",
    "read_log",
    "verify",
]
