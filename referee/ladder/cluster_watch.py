"""Tables on workers, watchable as they play: a match's log copied to the coordinator line by line.

A worker plays a match with its log in a temporary file of its own, which ``/tables`` and
``referee watch`` on the coordinator cannot see. So while the match plays, the worker sends the
log's new whole lines (``LogLines``) to a Dask queue of the run (``streamed``), and the
coordinator writes them to ``SSSSS-R.jsonl`` in its logs folder (``TableCopies``), as a local
match's log grows. That copy is for watching only, never for the result (the log returned with
the result is what is verified, ``referee.ladder.cluster_check``): its path is the coordinator's
own match, lines of another attempt or out of order are dropped, and when the result comes it
is removed, the verified log written in its place (or the match is sent again, which starts it
over; a task run again after its worker died starts it over too, and a log that stops growing
is no table after ``LIVE_SECONDS``).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import trio

from referee.errors import LadderError
from referee.ladder.cluster_dask import dask_distributed
from referee.private_files import UntrustedFile, open_private
from referee.store.records import ScheduledMatch


class LogLines(msgspec.Struct, frozen=True, kw_only=True):
    """New lines of a match's log, sent by the worker playing it for watching only: the
    coordinator writes them to the match's log in its logs folder (the path its own), and
    never takes them for the result (``MatchDone.log`` is what is verified)."""

    task: str
    """The Dask key of the task playing the match."""
    attempt: str
    """Drawn by each run of the task: a task run again (its worker died) starts over."""
    offset: int
    """Where ``data`` begins in the log."""
    data: bytes


# -- the worker's side: the lines sent -------------------------------------------------------
STREAM_EVERY = 0.25
"""Seconds between two looks at a match's log for new lines to send (``LogLines``)."""
STREAM_WAIT = 2.0
"""Seconds a worker waits to put lines on the queue before trying again at its next look."""
STREAM_CHUNK = 256 * 1024
"""Bytes of a log sent at most at once."""
STREAM_QUEUE = 1000
"""Messages the queue holds: a coordinator that stopped reading it stops the worker's lines."""


@contextlib.contextmanager
def streamed(stream: str | None, path: Path) -> Iterator[None]:
    """While the match plays, a thread sends the log's new whole lines to ``stream``, a Dask queue
    (``LogLines``), best effort: what cannot be sent is sent with the next look."""
    if stream is None:
        yield
        return
    try:
        dask = dask_distributed()
        key = str(dask.get_worker().get_current_task())
        queue = dask.Queue(stream)
    except (ValueError, LadderError, OSError):  # not in a worker, or no scheduler
        yield
        return
    stop = threading.Event()
    thread = threading.Thread(target=_send_lines, args=(queue, key, path, stop), daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(STREAM_WAIT + 1)  # a put that hangs on a lost scheduler is left behind, never waited for
        with contextlib.suppress(Exception):
            queue.close()


def _send_lines(queue: Any, key: str, path: Path, stop: threading.Event) -> None:
    attempt = os.urandom(8).hex()
    sent = 0
    while not stop.wait(STREAM_EVERY):
        try:
            with open(path, "rb") as log:
                log.seek(sent)
                data = log.read(STREAM_CHUNK)
        except OSError:
            continue
        data = data[: data.rfind(b"\n") + 1]
        if not data:
            continue
        lines = LogLines(task=key, attempt=attempt, offset=sent, data=data)
        try:
            queue.put(msgspec.json.encode(lines), timeout=STREAM_WAIT)
        except Exception:
            continue
        sent += len(data)


# -- the coordinator's side: the copy written ---------------------------------------------------
WATCHED_BYTES = 64 * 1024 * 1024
"""A match's log written for watching stops growing here (the verified log is not bounded by it)."""
WATCH_EVERY = 0.25
"""Seconds between two looks of the coordinator at the queue of lines."""


class TableCopies:
    """The logs of the matches in play on workers, written in the logs folder from the lines
    their workers send (``LogLines``), for watching only."""

    def __init__(self, logs: Path) -> None:
        self.logs = logs
        self.watched: dict[str, _Watched] = {}
        """The logs being written, by task key."""

    async def follow(self, queue: Any, in_flight: Callable[[str], ScheduledMatch | None]) -> None:
        """Write each line the workers send into its match's log, until cancelled: a look at
        the queue every ``WATCH_EVERY`` seconds (that never waits on the scheduler, so no
        look is left waiting when the run ends). ``in_flight``: the match a task key plays."""
        while True:
            for raw in await trio.to_thread.run_sync(_take_lines, queue, abandon_on_cancel=True):
                self.write(raw, in_flight)
            await trio.sleep(WATCH_EVERY)

    def write(self, raw: object, in_flight: Callable[[str], ScheduledMatch | None]) -> None:
        """Lines of a match in play, appended to its log in the logs folder (named from the
        coordinator's own match, never from the worker's message); lines of a task not in
        flight, of an older attempt or out of order are dropped."""
        try:
            lines = msgspec.json.decode(raw, type=LogLines) if isinstance(raw, bytes) else None
        except msgspec.DecodeError:
            return
        match = in_flight(lines.task) if lines is not None else None
        if lines is None or match is None:
            return
        seen = self.watched.get(lines.task)
        path = self.logs / f"{match.key}.jsonl"
        if seen is None or (seen.attempt != lines.attempt and lines.attempt not in seen.older):
            if lines.offset != 0:
                return
            older = seen.older | {seen.attempt} if seen is not None else set()
            seen = self.watched[lines.task] = _Watched(path, lines.attempt, older=older)
            path.unlink(missing_ok=True)  # a killed worker's table, or a killed run's: started over
        if lines.attempt != seen.attempt or lines.offset != seen.size or seen.size + len(lines.data) > WATCHED_BYTES:
            return
        try:
            with open_private(path) as file:
                file.write(lines.data)
        except (OSError, UntrustedFile):
            return
        seen.size += len(lines.data)

    def drop(self, key: str) -> None:
        """Stop writing a task's lines and remove the copy written for watching (a verified
        log takes its place, or the match is sent again, or its set is closed)."""
        seen = self.watched.pop(key, None)
        if seen is not None:
            seen.path.unlink(missing_ok=True)

    def drop_all(self) -> None:
        for key in list(self.watched):
            self.drop(key)


class _Watched:
    """A match's log being written from a worker's lines: which attempt, how far."""

    def __init__(self, path: Path, attempt: str, older: set[str]) -> None:
        self.path = path
        self.attempt = attempt
        self.older = older
        self.size = 0


def _take_lines(queue: Any) -> list[object]:
    """What the queue holds now."""
    try:
        return list(queue.get(batch=True))
    except Exception:  # the client closing: nothing to watch now
        return []
