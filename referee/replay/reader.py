"""Reading a replay log: JSON lines -> typed entries, split into matches.

A log file may hold several matches, each starting with its ``header``. A final line without
its newline is what a killed referee leaves: it is ignored, and the match it belongs to is
incomplete. Entry types this referee does not know are skipped (a newer referee may add
them within format 1); a header of another ``log_format`` is refused, naming the version.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, get_args

import msgspec

from protocol.codec import MAX_DEPTH, clip, nesting_depth
from referee.errors import RefereeError
from referee.log_format import LOG_FORMAT, Header, LogEntry, Result
from referee.rules.deck import deck_for
from referee.rules.errors import InvalidRuleSet

SUPPORTED_FORMATS: Final = (1, LOG_FORMAT)
"""Format 1 differs only in its seed, an integer (``Header.seed_number`` reads both)."""


class LogError(RefereeError):
    """A file that cannot be read as a replay log (not JSON lines, no header, a broken entry)."""


class UnsupportedLogFormat(LogError):
    """A log written in a format version this referee does not read."""

    def __init__(self, name: str, version: Any, line: int) -> None:
        readable = ", ".join(str(v) for v in SUPPORTED_FORMATS)
        shown = msgspec.json.encode(version).decode()  # 2, "1" or null: as the header has it
        super().__init__(f"{name}: line {line}: log format {shown} is not supported; this referee reads {readable}")
        self.version = version


class NoSuchMatch(LogError):
    """``--match`` names no match of the log."""


@dataclass(frozen=True, slots=True)
class Line:
    """One entry and its line number in the file (from 1)."""

    number: int
    entry: LogEntry


@dataclass
class LogMatch:
    """One match of a log: its header and the entries after it, up to the next header."""

    header: Header
    header_line: int
    entries: list[Line] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        """Whether the log reaches the match's ``result``."""
        return any(isinstance(line.entry, Result) for line in self.entries)

    @property
    def last_line(self) -> int:
        return self.entries[-1].number if self.entries else self.header_line


@dataclass
class ReplayLog:
    """A log file read: its matches in order, and the number of the cut-off last line, if any."""

    name: str
    matches: list[LogMatch]
    cut_line: int | None = None
    """A final line without its newline (ignored): the referee was killed while writing it."""

    def last_of(self, match_id: str) -> LogMatch | None:
        """The log's last match with ``match_id`` (a match played again after a killed run may
        be in it twice: the last is the one that counts), or ``None``."""
        return next((m for m in reversed(self.matches) if m.header.match_id == match_id), None)

    def select(self, which: str | None) -> list[LogMatch]:
        """The matches chosen by ``--match``: an index from 0, or a match id; all by default."""
        if which is None:
            return self.matches
        for match in self.matches:
            if match.header.match_id == which:
                return [match]
        if which.isdigit() and int(which) < len(self.matches):
            return [self.matches[int(which)]]
        ids = ", ".join(m.header.match_id for m in self.matches)
        raise NoSuchMatch(f"{self.name}: no match {which!r}; the log holds {len(self.matches)} ({ids})")


class _Peek(msgspec.Struct):
    type: str = ""
    log_format: Any = None


_peek = msgspec.json.Decoder(_Peek)
_entry = msgspec.json.Decoder(LogEntry)
_KNOWN: Final = frozenset(str(cls.__struct_config__.tag) for cls in get_args(LogEntry))


def _check_header(header: Header, name: str, number: int) -> None:
    """A header's rule set must be one the engine plays, with a seat entry per player, before
    anything is sized by it (a crafted ``players`` of 10**8 would build 10**8 queues)."""
    try:
        deck_for(header.rules)
    except InvalidRuleSet as err:
        raise LogError(f"{name}: line {number}: the header's rules cannot be played: {clip(str(err), 200)}") from None
    if len(header.seats) != header.rules.players:
        seats = f"{len(header.seats)} seats for {header.rules.players} players"
        raise LogError(f"{name}: line {number}: the header has {seats}")
    if [s.seat for s in header.seats] != list(range(header.rules.players)):
        raise LogError(f"{name}: line {number}: the header's seats are not numbered 0 to {header.rules.players - 1}")


def read_log(path: str | Path) -> ReplayLog:
    """Read a log file. Raises ``LogError`` (or ``UnsupportedLogFormat``) naming the line."""
    if Path(path).exists() and not Path(path).is_file():
        raise LogError(f"{path}: not a regular file (a log is a file; a pipe or a device could block or never end)")
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise LogError(f"{path}: {err.strerror or err}") from None
    return parse_log(data, str(path))


def parse_log(data: bytes, name: str = "log") -> ReplayLog:
    """Parse a log's bytes (see ``read_log``)."""
    lines = data.split(b"\n")
    cut: int | None = None
    if lines[-1]:
        cut = len(lines)  # no newline at the end: cut short
    lines.pop()
    matches: list[LogMatch] = []
    for number, raw in enumerate(lines, 1):
        if nesting_depth(raw) > MAX_DEPTH:  # the referee's entries nest a few levels; bots' lines are strings
            raise LogError(f"{name}: line {number} is not a log entry: nested deeper than {MAX_DEPTH} levels")
        try:
            kind = _peek.decode(raw)
        except (msgspec.DecodeError, RecursionError, ValueError) as err:
            raise LogError(f"{name}: line {number} is not a log entry: {clip(str(err), 200)}") from None
        if kind.type not in _KNOWN:
            continue  # an entry type from a newer referee
        if kind.type == "header" and kind.log_format not in SUPPORTED_FORMATS:
            raise UnsupportedLogFormat(name, kind.log_format, number)
        try:
            entry = _entry.decode(raw)
        except (msgspec.DecodeError, RecursionError, ValueError) as err:
            broken = f"a broken {clip(kind.type)!r} entry: {clip(str(err), 200)}"
            raise LogError(f"{name}: line {number}: {broken}") from None
        if isinstance(entry, Header):
            _check_header(entry, name, number)
            matches.append(LogMatch(header=entry, header_line=number))
        elif not matches:
            raise LogError(f"{name}: line {number}: a {kind.type!r} entry before any header")
        else:
            matches[-1].entries.append(Line(number, entry))
    if not matches and cut is None:
        raise LogError(f"{name}: the log is empty")
    return ReplayLog(name=name, matches=matches, cut_line=cut)
