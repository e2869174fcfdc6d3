"""The ladder's replay logs as the web view uses them: a log named by a database row is opened
only when it is a regular file directly inside the ladder's logs folder (a row or a symlink
pointing elsewhere is refused), then verified through the rules into the replay viewer's page,
or read for a bot's time per decision. Both are kept for the next request that asks for the
same files unchanged."""

from __future__ import annotations

import os
import stat
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

import msgspec

from referee.replay.html import match_page
from referee.replay.reader import LogError, read_log
from referee.replay.timing import TimeSummary, decision_cpu, decision_times, summarize
from referee.replay.verify import verify

MAX_LOG_BYTES = 64 * 1024 * 1024
"""A longer file is not a log of one ladder match: it is not read."""
KEPT = 16
"""Pages and figures remembered."""
V = TypeVar("V")


def log_inside(folder: Path, recorded: str) -> Path | None:
    """The file a row's ``log`` names, resolved, when it is a regular file of at most
    ``MAX_LOG_BYTES`` directly in ``folder``; ``None`` otherwise. A log recorded relative to
    another working folder is looked for in ``folder`` by its name."""
    path = Path(recorded)
    if not path.is_absolute():
        path = folder / path.name
    try:
        real, home = path.resolve(strict=True), folder.resolve(strict=True)
        info = os.stat(real)
    except (OSError, RuntimeError):
        return None
    if real.parent != home or not stat.S_ISREG(info.st_mode) or info.st_size > MAX_LOG_BYTES:
        return None
    return real


def _stamp(path: Path) -> tuple[str, int, int]:
    info = os.stat(path)
    return str(path), info.st_mtime_ns, info.st_size


class Logs:
    """Verified replay pages and decision times from one ladder's logs folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._pages: OrderedDict[tuple[object, ...], str] = OrderedDict()
        self._times: OrderedDict[tuple[object, ...], tuple[TimeSummary | None, int]] = OrderedDict()

    def replay_page(self, recorded: str, match_id: str) -> str | None:
        """The replay viewer's page of the match, verified; ``None``: no readable log of it."""
        path = log_inside(self.folder, recorded)
        if path is None:
            return None
        try:
            key = (*_stamp(path), match_id)
            if key not in self._pages:
                found = [m for m in read_log(path).matches if m.header.match_id == match_id]
                if not found:
                    return None
                self._remember(self._pages, key, match_page(verify(found[-1])))
            self._pages.move_to_end(key)
            return self._pages[key]
        except (LogError, OSError, msgspec.MsgspecError, ValueError):
            return None

    def times(self, recent: Sequence[tuple[str, str, int]]) -> tuple[TimeSummary | None, int]:
        """A bot's time per decision over the logs of ``recent`` (log, match id, seat) that can
        be read, and how many could."""
        key = tuple(recent)
        if key in self._times:
            return self._times[key]
        seconds: list[float] = []
        cpu: list[float] = []
        read = 0
        for recorded, match_id, seat in recent:
            path = log_inside(self.folder, recorded)
            try:
                found = [m for m in read_log(path).matches if m.header.match_id == match_id] if path else []
                if found:
                    seconds += decision_times(found[-1])[seat]
                    cpu += decision_cpu(found[-1])[seat]
                    read += 1
            except (LogError, OSError, msgspec.MsgspecError, ValueError, IndexError):
                continue
        found_times = (summarize(seconds, cpu), read)
        self._remember(self._times, key, found_times)
        return found_times

    @staticmethod
    def _remember(kept: OrderedDict[tuple[object, ...], V], key: tuple[object, ...], value: V) -> None:
        kept[key] = value
        while len(kept) > KEPT:
            kept.popitem(last=False)
