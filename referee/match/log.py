"""Writes a match's replay log as the match goes (the format is ``referee.log_format``).

The file is flushed after every trick, round and fault (``referee.match.phases.FLUSHED_AFTER``),
every ``FLUSH_PERIOD`` while the match plays (``keep_flushed``) and at the end: a spectator of
the log (``referee watch``) sees each card at most that long after it is played, and a referee
killed at any moment leaves every line up to the last trick and loses at most the lines of the
last ``FLUSH_PERIOD`` (and leaves at most one incomplete last line, which readers skip). A
flush after every card cost a ``write`` system call a decision (issue 46: docs/performance.md)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import IO

import msgspec
import trio

from referee.log_format import LogEntry
from referee.private_files import open_private

FLUSH_PERIOD = 0.05
"""Seconds between flushes while a match plays: what a spectator waits at most for a card,
and what a referee killed with ``kill -9`` loses at most."""


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

    def write_lines(self, lines: bytes) -> None:
        """Entries already encoded, each with its newline (``log_format.sent_to_each``)."""
        if self._file is not None:
            self._file.write(lines)

    def flush(self) -> None:
        if self._file is not None:
            self._file.flush()

    async def keep_flushed(self, period: float = FLUSH_PERIOD) -> None:
        """Flush every ``period`` seconds until cancelled (the match's end) or closed. A flush
        with nothing written since the last makes no system call."""
        while self._file is not None:
            await trio.sleep(period)
            self.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.flush()
            self._file.close()
            self._file = None
