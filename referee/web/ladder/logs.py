"""The ladder's replay logs as the web view uses them: a log named by a database row is opened
only when it is a regular file directly inside the ladder's logs folder (a row or a symlink
pointing elsewhere is refused), then verified through the rules into the replay viewer's page,
or read for a bot's time per decision; both are kept for the next request that asks for the
same files unchanged; or downloaded, without the stderr its viewer may not see. A replay page
or a download names no absolute path of the organizer's machine (the seats' commands, faults
and stderr are written from ``<ladder>``: ``referee.web.public``)."""

from __future__ import annotations

import os
import stat
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

import msgspec

from referee.replay.html import match_page
from referee.replay.reader import LogError, read_log
from referee.replay.record import MatchRecord
from referee.replay.timing import TimeSummary, decision_cpu, decision_times, summarize
from referee.replay.verify import verify
from referee.replay.withheld import withheld_lines
from referee.web.public import log_public

MAX_LOG_BYTES = 64 * 1024 * 1024
"""A longer file is not a log of one ladder match: it is not read."""
KEPT = 16
"""Replay pages remembered, and verified matches (the same match is shown to each kind of
viewer, and its seats named each ladder's way: verified once)."""
KEPT_TIMES = 512
"""Matches' decision times remembered (a few kilobytes each): every bot's latest matches, every
seat of one read from one pass over its log."""
V = TypeVar("V")
Shown = Callable[[MatchRecord], MatchRecord]
"""What a view may see of a match's record (``referee.web.ladder.visibility``)."""


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
        self._verified: OrderedDict[tuple[object, ...], MatchRecord] = OrderedDict()
        self._times: OrderedDict[tuple[object, ...], tuple[list[list[float]], list[list[float]]]] = OrderedDict()

    def replay_page(
        self, recorded: str, match_id: str, names: Sequence[str], *, shown: Shown | None = None
    ) -> str | None:
        """The replay viewer's page of the match, verified, its seats named by ``names`` (the
        ladder's, not the bots' ``hello`` names); ``None``: no readable log of it. ``shown``:
        what a view may see of the verified record (``visibility.public_record``: no stderr)."""
        path = log_inside(self.folder, recorded)
        if path is None:
            return None
        try:
            stamp = _stamp(path)
            key = (*stamp, match_id, *names, shown)
            if key not in self._pages:
                record = self._verify(path, (*stamp, match_id), match_id)
                if record is None:
                    return None
                seats = [msgspec.structs.replace(s, name=names[s.seat]) if s.seat < len(names) else s
                         for s in record.seats]  # fmt: skip
                record = msgspec.structs.replace(record, seats=seats)
                public = log_public(path).json(msgspec.json.encode(record if shown is None else shown(record)))
                self._remember(self._pages, key, match_page(msgspec.json.decode(public, type=MatchRecord)), KEPT)
            self._pages.move_to_end(key)
            return self._pages[key]
        except (LogError, OSError, msgspec.MsgspecError, ValueError):
            return None

    def _verify(self, path: Path, key: tuple[object, ...], match_id: str) -> MatchRecord | None:
        if key not in self._verified:
            found = read_log(path).last_of(match_id)
            if found is None:
                return None
            self._remember(self._verified, key, verify(found), KEPT)
        self._verified.move_to_end(key)
        return self._verified[key]

    def download(self, recorded: str, withheld: frozenset[int]) -> bytes | None:
        """The log file as a viewer downloads it: every line but the ``stderr`` entries of the
        ``withheld`` seats (``referee.replay.withheld``), with no absolute path of the
        organizer's machine (``referee.web.public``); ``None``: no readable log."""
        path = log_inside(self.folder, recorded)
        if path is None:
            return None
        public = log_public(path)
        try:
            with open(path, "rb") as file:
                lines = file.read(MAX_LOG_BYTES).splitlines(keepends=True)
        except OSError:
            return None
        return b"".join(public.json(line) for line in withheld_lines(iter(lines), withheld))

    def times(self, recent: Sequence[tuple[str, str, int]]) -> tuple[TimeSummary | None, int]:
        """A bot's time per decision over the logs of ``recent`` (log, match id, seat) that can
        be read, and how many could. Each log's figures are kept: when a match ends, only its
        log is read."""
        seconds: list[float] = []
        cpu: list[float] = []
        read = 0
        for recorded, match_id, seat in recent:
            found = self._seat_times(recorded, match_id, seat)
            if found is not None:
                seconds += found[0]
                cpu += found[1]
                read += 1
        return summarize(seconds, cpu), read

    def _seat_times(self, recorded: str, match_id: str, seat: int) -> tuple[list[float], list[float]] | None:
        path = log_inside(self.folder, recorded)
        if path is None:
            return None
        try:
            key = (*_stamp(path), match_id)
            if key not in self._times:
                found = read_log(path).last_of(match_id)
                if found is None:
                    return None
                self._remember(self._times, key, (decision_times(found), decision_cpu(found)), KEPT_TIMES)
            self._times.move_to_end(key)
            seconds, cpu = self._times[key]
            return seconds[seat], cpu[seat]
        except (LogError, OSError, msgspec.MsgspecError, ValueError, IndexError):
            return None

    @staticmethod
    def _remember(kept: OrderedDict[tuple[object, ...], V], key: tuple[object, ...], value: V, limit: int) -> None:
        kept[key] = value
        while len(kept) > limit:
            kept.popitem(last=False)
