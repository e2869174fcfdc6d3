"""The spectator server: a page that follows a match log as it grows (``referee watch``).

The same libraries as the seat server (``referee.web.server``): Hypercorn's trio worker and
Starlette's ``StaticFiles``, here serving only ``watch.html``, ``watch.js`` and ``style.css``.

**Tailing.** ``LogTail`` polls the file's size every ``POLL`` seconds (the log may not exist
yet: it waits for it; a file that shrinks was written again: it starts over), reads complete
lines only (a half-written last line waits for its newline) and trusts none of them: each is
decoded with msgspec against ``LogEntry`` (a header also goes through the replay reader's
checks, so a crafted rule set is refused before anything is sized by it). A bad line is
skipped and named (``bad``: its number and why); a line longer than ``MAX_LINE_BYTES`` is
dropped unread; an entry type this referee does not know (a newer referee's) is skipped
quietly, as the replay reader skips it. After each batch the current match (the last header's) is replayed through
the rules (``referee.replay.verify``, in a worker thread) into a ``MatchRecord``: the page
draws that record, so it shows what the replay viewer would, verified as far as the log goes.

**Spectators.** The page's address carries a spectator token (``new_token()``) in its
fragment; the page opens ``/ws?token=...`` and the token is checked before the WebSocket is
accepted (a wrong one: HTTP 403). The page files themselves hold no match data. A spectator
is read-only: after the token nothing it sends is read (its frames are taken off the socket
and dropped). It gets a ``snapshot`` (the current match's entries so far, the bad lines, the
record), then an
``update`` per batch with what is new. The operator's view shows every hand: its token is
never given to seats (``referee play`` and ``web:`` seats have their own tokens). What it is
sent names no absolute path of the organizer's machine (``referee.web.public``: a ladder's
folder is written ``<ladder>``, a home path shortened): a ladder's tables are watched by anyone.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

import msgspec
import trio
from starlette.staticfiles import StaticFiles

from protocol.codec import MAX_DEPTH, clip, nesting_depth
from referee.log_format import Fallback, Header, LogEntry, Received, Result, RoundScored, Sent
from referee.network import DEFAULT_HOST, new_token
from referee.replay.reader import Line, LogError, LogMatch, parse_log
from referee.replay.record import MatchRecord
from referee.replay.verify import verify
from referee.replay.withheld import withheld_entry, withheld_record
from referee.web.asgi import hypercorn_config, listen, plain_response, query_token, route, same_origin, static_files
from referee.web.link import AsgiReceive, AsgiSend
from referee.web.public import log_public
from referee.web.server import STATIC

POLL = 0.2
"""Seconds between two looks at the log's size."""
READ_CHUNK = 4 * 1024 * 1024
"""Bytes read from the log per look at most (the rest at the next)."""
MAX_LINE_BYTES = 16 * 1024 * 1024
"""A longer line is not a log entry this referee writes: dropped unread, named as bad."""
MAX_BAD = 1000
"""Bad lines remembered (the count goes on)."""
MAX_SPECTATORS = 64
PAGES = {
    "/": "/watch.html",
    "/watch.html": "/watch.html",
    "/cards.js": "/cards.js",
    "/watch.js": "/watch.js",
    "/style.css": "/style.css",
}

_entry = msgspec.json.Decoder(LogEntry)
_KNOWN = frozenset(str(cls.__struct_config__.tag) for cls in get_args(LogEntry))


class _Peek(msgspec.Struct):
    type: Any = None


_peek = msgspec.json.Decoder(_Peek)


class BadLine(msgspec.Struct, kw_only=True):
    line: int
    error: str


class Numbered(msgspec.Struct, kw_only=True):
    line: int
    entry: msgspec.Raw
    """The entry as msgspec re-encoded it after decoding (never the raw bytes of the file)."""


class Push(msgspec.Struct, kw_only=True):
    type: str
    """``snapshot`` (the first message) or ``update``."""
    log: str
    waiting: bool
    """The log does not exist yet."""
    entries: list[Numbered]
    """The current match's entries from its header (a ``snapshot``), or the new ones."""
    bad: list[BadLine]
    bad_count: int
    record: msgspec.Raw | None
    """The current match's ``MatchRecord`` (``None`` before a header)."""
    error: str | None = None
    """Why no record could be built, if it could not."""


_encode = msgspec.json.Encoder().encode


TRICK_PACE = 2.5
"""With ``--pace``: a finished trick stays this many paces before the next lead."""
ROUND_PACE = 5.0
"""With ``--pace``: a round's score stays this many paces before the next deal."""
STALE = 30.0
"""Seconds without a line after which a followed log in a folder counts as ended (its run was
killed mid-match): the page moves on to a match in play."""


def _written(path: Path) -> float:
    """When a log was last written (0 when it cannot be read)."""
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def shown_log(path: Path) -> str:
    """A log as the page names it, never by a path of the organizer's machine: a ladder's (in
    its ``NAME-logs`` folder) from ``<ladder>``, as ``referee.web.public`` writes it; any other
    by its file name alone (``match.jsonl``, not ``/srv/hearts/match.jsonl``)."""
    absolute = path.absolute()
    return str(absolute) if absolute.parent.name.endswith("-logs") else path.name


@dataclass
class LogTail:
    """A log file followed as it grows: its entries (checked) and bad lines."""

    path: Path
    entries: list[Numbered] = field(default_factory=list)
    bad: list[BadLine] = field(default_factory=list)
    bad_count: int = 0
    match: LogMatch | None = None
    record: bytes | None = None
    error: str | None = None
    exists: bool = False
    version: int = 0
    """Grows with every change; ``changed`` is set then replaced."""
    changed: trio.Event = field(default_factory=trio.Event)
    generation: int = 0
    """Grows when ``entries`` starts over: the file shrank (written again from the start), or a
    new match's header came (the page follows the last match of the file)."""
    folder: Path | None = None
    """A folder of logs (a ladder's ``NAME-logs``): the tail follows one match to its end (its
    ``result``, or ``STALE`` seconds without a line), then the newest log written since; never
    from one table to another in the middle of a match."""
    names: tuple[str, ...] | None = None
    """The seats' names to show instead of the bots' own ``hello`` names (a ladder's names:
    two entries of one program say the same ``hello``)."""
    withheld: frozenset[int] = frozenset()
    """The seats whose stderr, exit status and fault details are not followed (a ladder's
    viewer who may not see them: ``referee.replay.withheld``): their ``stderr`` entries are
    skipped, and the record drawn shows their faults by reason only."""
    pace: float = 0.0
    """Seconds between two moves shown (``referee watch --pace``; 0: as fast as the log grows):
    a log is shown move by move at a person's speed, a finished trick and a round's score
    longer, however fast it was written."""
    _shown: int = 0
    """With a pace: the match's entries shown so far."""
    _seen: set[str] = field(default_factory=set)
    _over: bool = False
    """In folder mode: the match followed has ended (its ``result`` was read)."""
    _offset: int = 0
    _partial: bytearray = field(default_factory=bytearray)
    _skipping: bool = False
    _lines: int = 0

    def _newest(self) -> Path | None:
        """In folder mode: the log to follow now. At first the most recently written one; then the
        same one until its match is over (a ``result``, or no line for ``STALE`` seconds), then the
        log that appeared last since (a ladder's ``SSSSS-R``), else the most recently written."""
        assert self.folder is not None
        try:
            names = {e.name for e in os.scandir(self.folder) if e.name.endswith(".jsonl") and e.is_file()}
        except OSError:
            return None
        new = names - self._seen
        first = not self._seen
        self._seen |= names
        if first:
            return max((self.folder / n for n in new), key=_written, default=None)
        if not self._finished():
            return self.path
        if new:
            return self.folder / max(new)
        others = [self.folder / n for n in names if self.folder / n != self.path]
        latest = max(others, key=_written, default=None)
        return latest if latest is not None and _written(latest) > _written(self.path) else self.path

    def _finished(self) -> bool:
        """Whether the match followed has ended, or its log has not grown for ``STALE`` seconds
        (a match whose run was killed)."""
        caught_up = self.match is None or self._shown >= len(self.match.entries) or self.pace <= 0
        return caught_up and (self._over or not self.exists or time.time() - _written(self.path) > STALE)

    def _reset(self) -> None:
        self._over = False
        self.entries, self.bad, self.bad_count = [], [], 0
        self.match, self.record, self.error = None, None, None
        self._offset, self._lines, self._skipping = 0, 0, False
        self._partial = bytearray()
        self.generation += 1

    def _flag(self, number: int, error: str) -> None:
        self.bad_count += 1
        if len(self.bad) < MAX_BAD:
            self.bad.append(BadLine(line=number, error=clip(error, 300)))

    def _take(self, raw: bytes, number: int) -> bool:
        """One complete line: a checked entry, or a bad line named. Whether it is an entry."""
        if not raw.strip():
            self._flag(number, "an empty line")
            return False
        if nesting_depth(raw) > MAX_DEPTH:
            self._flag(number, f"nested deeper than {MAX_DEPTH} levels")
            return False
        try:
            kind = _peek.decode(raw).type
            if isinstance(kind, str) and kind not in _KNOWN:
                return False  # an entry type from a newer referee: skipped, as the replay reader does
            entry = _entry.decode(raw)
        except (msgspec.DecodeError, RecursionError, ValueError) as err:
            self._flag(number, f"not a log entry: {err}")
            return False
        if withheld_entry(entry, self.withheld):
            return False
        if isinstance(entry, Header):
            try:  # the reader's own checks of a header (the log format, a rule set it can play)
                checked = parse_log(raw + b"\n", "log").matches[0]
            except LogError as err:
                self._flag(number, str(err).removeprefix("log: "))
                return False
            if self.match is not None:  # a new match: the page follows it alone
                self.entries = []
                self.generation += 1
                self._over = False
            self.match = LogMatch(header=checked.header, header_line=number)
            self._shown = 0
        elif self.match is None:
            self._flag(number, f"a {entry.__struct_config__.tag!r} entry before any header")
            return False
        else:
            self.match.entries.append(Line(number, entry))
            self._over = self._over or isinstance(entry, Result)
        self.entries.append(Numbered(line=number, entry=msgspec.Raw(_encode(entry))))
        return True

    def poll(self) -> bool:
        """Read what is new (complete lines only). Whether anything changed."""
        if self.folder is not None:
            newest = self._newest()
            if newest is None:
                return False
            if newest != self.path:  # the next match of the ladder: follow it from its start
                self.path = newest
                self._reset()
                self.exists = False
        try:
            info = os.stat(self.path)
        except OSError:
            return False
        if not stat.S_ISREG(info.st_mode):  # a pipe or a device could block or never end
            if self.error is None:
                self.error = f"{shown_log(self.path)} is not a regular file"
                return True
            return False
        changed = not self.exists
        self.exists = True
        if info.st_size < self._offset:
            self._reset()
            changed = True
        if info.st_size == self._offset:
            return changed
        try:
            with open(self.path, "rb") as file:
                file.seek(self._offset)
                data = file.read(READ_CHUNK)
        except OSError:
            return changed
        self._offset += len(data)
        chunks = data.split(b"\n")
        for piece in chunks[:-1]:
            if self._skipping:
                self._skipping = False
                continue
            self._partial += piece
            self._lines += 1
            self._take(bytes(self._partial), self._lines)
            self._partial = bytearray()
            changed = True
        if not self._skipping:
            self._partial += chunks[-1]
            if len(self._partial) > MAX_LINE_BYTES:
                self._lines += 1
                self._flag(self._lines, f"a line longer than {MAX_LINE_BYTES} bytes (dropped unread)")
                self._partial, self._skipping, changed = bytearray(), True, True
        return changed

    async def replay(self) -> None:
        """The current match re-run through the rules (in a thread: a long log takes a while)."""
        if self.match is None:
            self.record = None
            return
        entries = self.match.entries[: self._shown] if self.pace > 0 else self.match.entries
        snapshot = LogMatch(header=self.match.header, header_line=self.match.header_line, entries=list(entries))
        try:
            record: MatchRecord = await trio.to_thread.run_sync(verify, snapshot)
            if self.names is not None:
                seats = [msgspec.structs.replace(s, name=self.names[s.seat]) if s.seat < len(self.names) else s
                         for s in record.seats]  # fmt: skip
                record = msgspec.structs.replace(record, seats=seats)
            record = withheld_record(record, self.withheld)
            self.record, self.error = _encode(record).replace(b"<", b"\\u003c"), None
        except Exception as err:  # a hostile log must not end the watch
            self.error = f"the log could not be replayed: {type(err).__name__}: {clip(str(err), 200)}"

    async def follow(self, poll: float = POLL) -> None:
        while True:
            changed = self.poll()
            pause = self._reveal() if self.pace > 0 else None
            if changed or pause is not None:
                await self.replay()
                self.announce()
            await trio.sleep(poll if pause is None else pause)

    def announce(self) -> None:
        """A new version: whoever waits on ``changed`` wakes, later waiters get a fresh event."""
        self.version += 1
        self.changed.set()
        self.changed = trio.Event()

    def _reveal(self) -> float | None:
        """With a pace: show the match's entries up to its next move (a reply or a move the
        referee made); the pause before the next (longer after a trick's end and a round's
        score), or ``None`` when everything is shown."""
        if self.match is None or self._shown >= len(self.match.entries):
            return None
        entries = self.match.entries
        pause, moved = self.pace, False
        while self._shown < len(entries):  # one move and what follows it, up to the next move
            entry = entries[self._shown].entry
            if isinstance(entry, Received | Fallback):
                if moved:
                    break
                moved = True
            self._shown += 1
            if isinstance(entry, Sent) and b'"trick_end"' in bytes(entry.msg):
                pause = max(pause, TRICK_PACE * self.pace)
            elif isinstance(entry, RoundScored):
                pause = max(pause, ROUND_PACE * self.pace)
        return pause

    def push(self, kind: str, since_entries: int, since_bad: int) -> bytes:
        """The message for a spectator, without the organizer's absolute paths
        (``referee.web.public``: the log's own folder, a ladder's folder, home folders), and
        with no ``<`` in it (escaped, as the record's)."""
        message = Push(
            type=kind,
            log=shown_log(self.path),
            waiting=not self.exists,
            entries=self.entries[since_entries:],
            bad=self.bad[since_bad:],
            bad_count=self.bad_count,
            record=msgspec.Raw(self.record) if self.record is not None else None,
            error=self.error,
        )
        public = log_public(self.path if self.folder is None else self.folder / "log.jsonl")
        return public.json(_encode(message)).replace(b"<", b"\\u003c")


class WatchServer:
    """Serves the spectator page and pushes the log to the pages that have the token."""

    def __init__(
        self,
        log: str | Path,
        host: str = DEFAULT_HOST,
        port: int = 0,
        *,
        token: str | None = None,
        poll: float = POLL,
        pace: float = 0.0,
        on_listening: Callable[[str], None] | None = None,
    ) -> None:
        path = Path(log)
        self.tail = LogTail(path, folder=path, pace=pace) if path.is_dir() else LogTail(path, pace=pace)
        self.host = host
        self.port = port
        self.token = token or new_token()
        self.poll = poll
        self.on_listening = on_listening
        self.url = ""
        self.spectators = 0
        self.refused = 0
        self._files = StaticFiles(directory=STATIC)

    def page_url(self) -> str:
        """The address a spectator opens (the token in the fragment: never sent in a request)."""
        return f"{self.url}/#token={self.token}"

    async def serve(self, *, task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED) -> None:
        config = hypercorn_config(self.host, self.port, 4096)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self.tail.follow, self.poll)
            self.url = await listen(self._app, config, nursery)
            if self.on_listening is not None:
                self.on_listening(self.page_url())
            task_status.started(self.url)

    # -- ASGI ----------------------------------------------------------------------------------
    async def _app(self, scope: dict[str, Any], receive: AsgiReceive, send: AsgiSend) -> None:
        await route(scope, receive, send, websocket=self._websocket, http=self._page)

    async def _page(self, scope: dict[str, Any], receive: AsgiReceive, send: AsgiSend) -> None:
        page = PAGES.get(str(scope.get("path", "")))
        if page is None:
            await plain_response(send, 404, "not found\n")
            return
        await static_files(self._files, {**scope, "path": page}, receive, send)

    def _token_ok(self, scope: dict[str, Any]) -> bool:
        token = query_token(scope) if scope.get("path") == "/ws" else None
        return token is not None and secrets.compare_digest(self.token.encode(), token)

    async def _websocket(self, scope: dict[str, Any], receive: AsgiReceive, send: AsgiSend) -> None:
        first = await receive()
        if first.get("type") != "websocket.connect":
            return
        if not same_origin(scope, self.url) or not self._token_ok(scope) or self.spectators >= MAX_SPECTATORS:
            self.refused += 1
            await send({"type": "websocket.close", "code": 1008})  # before accepting: HTTP 403
            return
        self.spectators += 1
        try:
            await spectate(self.tail, receive, send)
        finally:
            self.spectators -= 1


async def spectate(tail: LogTail, receive: AsgiReceive, send: AsgiSend) -> None:
    """A spectator's WebSocket, its handshake received and checked: accepted, then fed the
    tail's pushes until it goes. Read-only: what it sends is taken off the socket and dropped."""
    await send({"type": "websocket.accept"})
    async with trio.open_nursery() as nursery:

        async def drain() -> None:
            """Frames are taken off the socket and dropped; a disconnect ends it."""
            with contextlib.suppress(Exception):
                while (await receive()).get("type") != "websocket.disconnect":
                    pass
            nursery.cancel_scope.cancel()

        nursery.start_soon(drain)
        await _feed(tail, send)
        nursery.cancel_scope.cancel()
    with contextlib.suppress(Exception):
        await send({"type": "websocket.close", "code": 1000})


async def _feed(tail: LogTail, send: AsgiSend) -> None:
    kind, entries, bad, version, generation = "snapshot", 0, 0, -1, tail.generation
    try:
        while True:
            # the event is taken before the version is read: a change made while a push is
            # being sent sets this event, so it is pushed next (waiting on the event that
            # replaced it would sleep through that change until the log grew again)
            changed = tail.changed
            if generation != tail.generation:  # the file was written again, or a new match
                kind, entries, bad, generation = "snapshot", 0, 0, tail.generation
            if version != tail.version:
                version = tail.version
                text = tail.push(kind, entries, bad).decode()
                entries, bad, kind = len(tail.entries), len(tail.bad), "update"
                await send({"type": "websocket.send", "text": text})
            await changed.wait()
    except Exception:  # the page went away
        return
