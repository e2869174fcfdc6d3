"""The tables being played right now, for a view beside the run (``ladder run --web``): each
match from the moment its log is opened until its result is recorded or it is cut off.

The runner writes it, in the same trio run as the view that reads it; nothing is kept once a
match leaves its table (the database then holds its result)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class LiveMatch:
    """A match at a table: its key (``SSSSS-R``), the ladder's names of its bots by seat (not
    their ``hello`` names: two entries of one program share those) and its log."""

    key: str
    seats: tuple[str, ...]
    log: Path
    started: float = field(default_factory=time.time)


class LiveTables:
    """The matches in play, by key."""

    def __init__(self) -> None:
        self._matches: dict[str, LiveMatch] = {}

    def begin(self, match: LiveMatch) -> None:
        self._matches[match.key] = match

    def end(self, key: str) -> None:
        self._matches.pop(key, None)

    def get(self, key: str) -> LiveMatch | None:
        return self._matches.get(key)

    def current(self) -> list[LiveMatch]:
        """The matches in play, in key order (schedule order)."""
        return [self._matches[key] for key in sorted(self._matches)]
