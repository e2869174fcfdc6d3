"""The tables being played, found from the ladder's own files by any process that can read
them: a match is at a table while it is pending in the database and its log, in the ladder's
logs folder, was written in the last ``LIVE_SECONDS`` (a match's log grows with every message
of the match; a log left by a killed run stops growing). Its seats are named by the ladder's
names, from the schedule."""

from __future__ import annotations

import os
import re
import stat
import time
from dataclasses import dataclass
from pathlib import Path

from referee.store.pages import pending_seats
from referee.store.reader import LadderReader

LIVE_SECONDS = 30.0
LOG = re.compile(r"([0-9]{5,7})-([0-9]{1,2})\.jsonl")


@dataclass(frozen=True)
class LiveMatch:
    """A match at a table: its key (``SSSSS-R``), the ladder's names of its bots by seat (not
    their ``hello`` names: two entries of one program say the same one) and its log."""

    key: str
    seats: tuple[str, ...]
    log: Path


def in_play(reader: LadderReader, folder: Path, now: float | None = None) -> list[LiveMatch]:
    """The matches being played, in key order."""
    now = time.time() if now is None else now
    growing: dict[tuple[int, int], Path] = {}
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                named = LOG.fullmatch(entry.name)
                if named is None:
                    continue
                info = entry.stat(follow_symlinks=False)
                if stat.S_ISREG(info.st_mode) and now - info.st_mtime < LIVE_SECONDS:
                    growing[(int(named.group(1)), int(named.group(2)))] = Path(entry.path)
    except OSError:
        return []
    found = []
    for (set_index, rotation), path in sorted(growing.items()):
        seats = pending_seats(reader, set_index, rotation)
        if seats is not None:
            found.append(LiveMatch(path.name.removesuffix(".jsonl"), seats, path))
    return found
