"""The replay log: one JSON object per line, written as the match goes.

The first line is the header (format version, protocol and referee versions, rule set,
seed, seats). Then, in order, every line sent to and received from each seat with the
seconds since the match started, each deal with all hands (the log is the referee's, not a
seat's), every fault and what the policy did about it, every round result, each bot's
stderr, and the result. The file is flushed after every trick and every fault, so a referee
killed at any moment leaves complete lines up to the last trick. The format is documented in
``docs/replay-format.md``.
"""

from __future__ import annotations

import contextlib
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, Final

import msgspec

from protocol.ruleset import RuleSet
from referee.rules.scoring import RoundResult

LOG_FORMAT: Final = 1
CUT_PREFIX: Final = 256
"""Bytes kept of an unreadable line received after the seat's log budget is spent."""


class SeatInfo(msgspec.Struct, kw_only=True):
    seat: int
    name: str
    command: str


class Header(msgspec.Struct, tag="header", tag_field="type", kw_only=True):
    log_format: int = LOG_FORMAT
    protocol: int
    referee: str
    match_id: str
    started: str
    seed: int
    first_dealer: int
    rules: RuleSet
    seats: list[SeatInfo]
    time_control: dict[str, int]
    policy: str
    illegal_move_cap: int | None = None
    """Penalties or substitutions a seat may get before an illegal move forfeits (``None`` in
    logs written before the field existed)."""


class Sent(msgspec.Struct, tag="send", tag_field="type", kw_only=True):
    t: float
    seat: int
    msg: msgspec.Raw
    """The message object exactly as sent (a ``RefereeMessage``), kept pre-encoded."""


class Received(msgspec.Struct, tag="recv", tag_field="type", kw_only=True):
    t: float
    seat: int
    line: str
    """The line as received (invalid UTF-8 replaced), so garbage is logged as it came; once
    the seat's log budget for the match is spent, the message as the referee read it (unknown
    fields left out) or, for a line it could not read, the line's first ``CUT_PREFIX`` bytes."""
    cut: int | None = None
    """Bytes of the received line not kept (``None``: the line is whole). A bot that pads its
    replies cannot grow the log beyond its budget (``MatchConfig.log_budget``)."""


class Deal(msgspec.Struct, tag="deal", tag_field="type", kw_only=True):
    t: float
    round: int
    dealer: int
    pass_direction: str
    match_phase: int
    hands: list[list[str]]


class Fault(msgspec.Struct, tag="fault", tag_field="type", kw_only=True):
    t: float
    seat: int
    reason: str
    """``timeout``, ``crash``, ``disconnect``, ``bad_json``, ``line_too_long``,
    ``unknown_message``, ``wrong_id``, ``illegal_move``, ``protocol_violation``, ..."""
    message: str
    action: str
    """What the referee did: ``forfeit`` (dropped, fallback plays the seat), ``penalty``
    (revoke penalty and redeal), ``substitute`` (a fallback move was played for it)."""
    rule: str | None = None


class Fallback(msgspec.Struct, tag="fallback", tag_field="type", kw_only=True):
    """A move the referee made for a dropped or substituted seat."""

    t: float
    seat: int
    decision: str
    value: Any


class RoundScored(msgspec.Struct, tag="round_end", tag_field="type", kw_only=True):
    t: float
    round: int
    result: RoundResult
    scores: list[int]


class Stderr(msgspec.Struct, tag="stderr", tag_field="type", kw_only=True):
    seat: int
    text: str
    dropped_bytes: int
    exit_code: int | None


class Result(msgspec.Struct, tag="result", tag_field="type", kw_only=True):
    t: float
    scores: list[int]
    winners: list[int]
    reason: str
    rounds: int
    seats: list[dict[str, Any]]


LogEntry = Header | Sent | Received | Deal | Fault | Fallback | RoundScored | Stderr | Result


def open_private(path: Path) -> IO[bytes]:
    """Open a log for appending, readable by its owner only (0600; a new folder 0700): a log
    holds every hand, so no other user, and no sandboxed bot, may read it."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    close_up(fd)  # an older, more open file is closed up before anything is added
    return os.fdopen(fd, "ab")


def close_up(fd: int) -> None:
    """Make an open file of ours 0600 if it is more open (a file of another owner is left as
    it is: only its owner may change its mode)."""
    with contextlib.suppress(OSError):
        if os.fstat(fd).st_mode & 0o077:
            os.fchmod(fd, 0o600)


def create_private(path: str | Path) -> None:
    """Create an empty private log file now (before any bot starts, so that the sandbox can
    hide it)."""
    open_private(Path(path)).close()


class MatchLog:
    """Appends log entries to a file (or discards them when there is no file)."""

    def __init__(self, path: str | Path | None) -> None:
        self.path = Path(path) if path is not None else None
        self._file: IO[bytes] | None = None
        self._encoder = msgspec.json.Encoder()
        if self.path is not None:
            self._file = open_private(self.path)

    @staticmethod
    def now_iso() -> str:
        return datetime.now(UTC).isoformat(timespec="seconds")

    @property
    def enabled(self) -> bool:
        """Whether entries are kept (callers skip building entries otherwise)."""
        return self._file is not None

    def write(self, entry: LogEntry, flush: bool = False) -> None:
        if self._file is None:
            return
        self._file.write(self._encoder.encode(entry) + b"\n")
        if flush:
            self._file.flush()

    def flush(self) -> None:
        if self._file is not None:
            self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.flush()
            self._file.close()
            self._file = None
