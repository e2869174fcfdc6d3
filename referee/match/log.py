"""Writes a match's replay log as the match goes (the format is ``referee.log_format``).

The file is flushed after every trick and every fault, so a referee killed at any moment
leaves complete lines up to the last trick."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import IO

import msgspec

from referee.log_format import LogEntry
from referee.private_files import open_private


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
