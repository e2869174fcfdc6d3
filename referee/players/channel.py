"""A bot's line channel: protocol lines sent and received with a bounded line length, over
pipes (``FdLink``), a socket (``SocketLink``) or nothing (``NullLink``), and the ways a channel
fails (``Failure``, ``LinkClosed``). What sits behind a channel, a program the referee started
and supervises, is ``referee.players.process``.
"""

from __future__ import annotations

import contextlib
import os
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar

import trio

from protocol.codec import MAX_LINE, LineSplitter
from referee.errors import RefereeError

INTERRUPTED = "interrupted: the time for the decision ran out"


@dataclass
class Failure:
    """Why a connection is no longer usable: the termination reason and a sentence."""

    reason: str
    message: str
    rule: str | None = None


class LinkClosed(RefereeError):
    """The bot's output ended (it closed stdout, exited or crashed)."""


class BotLink:
    """A bot's line channel. Subclasses provide the byte streams and the ending."""

    live: ClassVar[bool] = False
    """A person at the other end (a browser seat): the events of the table are written to it as
    they happen, not with its next request (which is what a program needs: one write and one
    read per decision)."""

    stopped = False
    """Whether the referee had to signal the bot's program to end it (it did not exit by itself
    within the grace after its input closed)."""

    def __init__(self, max_line: int = MAX_LINE) -> None:
        self._splitter = LineSplitter(max_line)
        self._lines: deque[bytes] = deque()
        self._cut_off = False
        self._waiting: trio.CancelScope | None = None

    @property
    def description(self) -> str:
        return ""

    async def _receive_some(self) -> bytes | bytearray:
        raise NotImplementedError

    async def _send_all(self, data: bytes) -> None:
        raise NotImplementedError

    async def send(self, data: bytes) -> None:
        """Write encoded lines. Raises ``LinkClosed`` when the bot no longer reads (or the write
        is interrupted). One task at a time sends to a link (trio raises
        ``BusyResourceError`` otherwise)."""
        if self._cut_off:
            raise LinkClosed("an earlier write to the bot was cut off (it stopped reading)")
        self._cut_off = True  # stays set if this write is cancelled or interrupted half-way
        try:
            if self.wakes_directly:
                await self._send_all(data)
            else:
                with self._interruptible() as scope:
                    await self._send_all(data)
                if scope.cancelled_caught:
                    raise trio.ClosedResourceError(INTERRUPTED)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as err:
            raise LinkClosed(f"cannot write to the bot: {err}") from None
        self._cut_off = False

    async def receive_line(self) -> bytes:
        """The next complete line (without its newline). Raises ``ProtocolError``
        (``line_too_long``) or ``LinkClosed`` (also when the read is interrupted)."""
        while not self._lines:
            try:
                if self.wakes_directly:
                    data = await self._receive_some()
                else:
                    with self._interruptible() as scope:
                        data = await self._receive_some()
                    if scope.cancelled_caught:
                        raise trio.ClosedResourceError(INTERRUPTED)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as err:
                raise LinkClosed(f"cannot read from the bot: {err}") from None
            if not data:
                raise LinkClosed("the bot closed its output")
            self._lines.extend(self._splitter.feed(data))
        return self._lines.popleft()

    written_at = 0.0
    """trio's time when the last ``exchange`` finished writing: its request's clock starts then."""

    def mark_cpu(self) -> None:
        """Note the CPU time the bot has used so far (a match's start), for ``cpu_since_mark``;
        nothing where the referee cannot count it."""

    def cpu_since_mark(self) -> float | None:
        """CPU seconds all the bot's processes used since the last mark (its control group's
        counter, read once), and mark again: read after each reply, the CPU its bot used since
        its previous reply was read, the match's start for its first. ``None`` without a group
        or a mark. Only a match with a log asks: one read of the counter per decision."""
        return None

    def idle(self) -> None:
        """Called once the bot is not being asked (after its handshake): nothing by default."""

    async def exchange(self, data: bytes) -> bytes:
        """Write ``data`` (queued lines ending with a request) and read the next line: a
        decision's whole conversation. Raises as ``send`` and ``receive_line`` do."""
        await self.send(data)
        self.written_at = trio.current_time()
        return await self.receive_line()

    wakes_directly = False
    """Whether ``interrupt`` wakes a blocked read or write itself (links over file descriptors);
    otherwise each read and write runs in a cancel scope that ``interrupt`` cancels."""

    def interrupt(self) -> None:
        """Wake a task blocked writing to or reading from this link: the write or read raises
        ``LinkClosed``. The match clock calls it when a decision's time has run out; a task
        that is not blocked here (its reply has arrived) is not disturbed."""
        if self._waiting is not None:
            self._waiting.cancel()

    @contextlib.contextmanager
    def _interruptible(self) -> Iterator[trio.CancelScope]:
        """The cancel scope ``interrupt`` cancels, around one read or write. A reply that has
        arrived is kept even when the cancel comes just after: only a cancel that reached the
        wait (``cancelled_caught``) interrupts it."""
        with trio.CancelScope() as scope:
            self._waiting = scope
            try:
                yield scope
            finally:
                self._waiting = None

    async def close(self, grace: float = 1.0) -> None:
        """End the link and whatever runs behind it; never raises, safe to call twice."""

    def stderr_text(self) -> tuple[str, int]:
        """The kept stderr and how many bytes were dropped beyond the cap."""
        return "", 0

    def take_stderr(self) -> tuple[str, int]:
        """The stderr kept since the last take (for one match's log), and forget it: a bot
        kept for the next match starts that match with an empty buffer and a full cap."""
        return self.stderr_text()

    def flood(self, stderr_limit: int, queued_limit: int) -> str | None:
        """Why the bot's output is a flood, or ``None``: more than ``queued_limit`` lines
        waiting behind the reply just read, or more than ``stderr_limit`` bytes of stderr since
        the last check. Reading is bounded either way; this names the misbehaviour."""
        if len(self._lines) > queued_limit:
            return f"{len(self._lines)} unrequested lines were waiting behind the reply (limit {queued_limit})"
        return None

    def exit_code(self) -> int | None:
        """The bot program's exit status once it has ended (negative: killed by a signal)."""
        return None

    def cpu_seconds(self) -> float | None:
        """CPU time of all the bot's processes so far, where the referee can count it."""
        return None


READ_ATTEMPTS = 8
"""Non-blocking reads tried right after a request is written, before waiting in trio's I/O
manager: a bot that answers within microseconds (a compiled bot on another CPU) is read at
once, where a sleep in ``epoll_wait`` and the wake-up cost the referee more CPU than the
attempts (issue 46: docs/performance.md, "The referee against its floor")."""
ATTEMPTS_SKIPPED = 32
"""Decisions of a link without attempts after attempts that found nothing: a bot that thinks
(a Python bot, a search) costs the referee one failed round of attempts in 33 decisions."""


def _read_soon(fd: int) -> bytes | None:
    """Up to ``READ_ATTEMPTS`` non-blocking reads: what came, or ``None`` when nothing did."""
    for _ in range(READ_ATTEMPTS):
        try:
            return os.read(fd, 65536)
        except BlockingIOError:
            continue
    return None


class FdLink(BotLink):
    """A link over file descriptors (pipes or a socket), with a direct path for a decision.

    ``exchange`` writes the request with one non-blocking ``write`` and then waits for the
    reply with trio's ``wait_readable``: one pass through trio's scheduler per decision, where
    a ``send`` and a ``receive_line`` take two (each starts with a checkpoint) and a read that
    fails with ``EAGAIN``. Before that wait, a few reads are tried at once (``READ_ATTEMPTS``;
    after a round that found nothing, not for the link's next ``ATTEMPTS_SKIPPED`` decisions),
    and a reply found so is followed by a checkpoint, so other tables still get their turn.
    Anything unusual (a full pipe, an error, a closed descriptor) takes the general path, which
    names the failure exactly as before."""

    wakes_directly = True
    _skip_attempts = 0
    """Decisions left before the reply is tried for again at once (``ATTEMPTS_SKIPPED``)."""

    def fds(self) -> tuple[int, int]:
        """The descriptors written to and read from (``-1`` once closed): this link's own path,
        and the bench's floor, which times the same bytes without the link."""
        raise NotImplementedError

    def _take(self, chunk: bytes) -> None:
        """A chunk read from the bot: its lines kept, or ``LinkClosed`` when it is the end."""
        if not chunk:
            raise LinkClosed("the bot closed its output")
        self._lines.extend(self._splitter.feed(chunk))

    def interrupt(self) -> None:
        """Wake a read or write blocked in trio's I/O manager (``notify_closing``: the wait
        raises ``ClosedResourceError``, read as ``LinkClosed``). Cheaper than a cancel scope
        around every read, and only a task waiting on these descriptors is woken."""
        for fd in set(self.fds()):
            if fd >= 0:
                trio.lowlevel.notify_closing(fd)

    async def exchange(self, data: bytes) -> bytes:
        out, into = self.fds()
        if self._cut_off or out < 0 or into < 0 or self._lines:
            return await super().exchange(data)
        try:
            written = os.write(out, data)
        except OSError:
            written = 0  # a full pipe, or a failure the general path names
        if written < len(data):
            return await super().exchange(data[written:])
        self.written_at = trio.current_time()
        lines = self._lines
        if self._skip_attempts:
            self._skip_attempts -= 1
        else:
            try:
                chunk = _read_soon(into)
            except OSError:
                return await self.receive_line()  # names the failure
            if chunk is None:  # the bot thinks longer: wait in trio for a while
                self._skip_attempts = ATTEMPTS_SKIPPED
            else:
                self._take(chunk)
                await trio.lowlevel.checkpoint()  # a table never runs without giving the others a turn
        while not lines:
            try:
                await trio.lowlevel.wait_readable(into)
            except (trio.ClosedResourceError, trio.BusyResourceError, OSError) as err:
                raise LinkClosed(f"cannot read from the bot: {err}") from None
            try:
                chunk = os.read(into, 65536)
            except BlockingIOError:
                continue
            except OSError:
                return await self.receive_line()  # names the failure
            self._take(chunk)
        return lines.popleft()


class SocketLink(FdLink):
    """A bot that connected over TCP."""

    def __init__(self, stream: trio.SocketStream, max_line: int = MAX_LINE) -> None:
        super().__init__(max_line)
        self.stream = stream
        try:
            host, port = stream.socket.getpeername()[:2]
            self.peer = f"{host}:{port}"
        except OSError:
            self.peer = "?"
        self._closed = False

    @property
    def description(self) -> str:
        return f"tcp {self.peer}"

    def fds(self) -> tuple[int, int]:
        fd = -1 if self._closed else self.stream.socket.fileno()
        return fd, fd

    async def _receive_some(self) -> bytes | bytearray:
        return await self.stream.receive_some(65536)

    async def _send_all(self, data: bytes) -> None:
        await self.stream.send_all(data)

    async def close(self, grace: float = 1.0) -> None:
        if self._closed:
            return
        self._closed = True
        with trio.CancelScope(shield=True), contextlib.suppress(trio.BrokenResourceError, OSError):
            await self.stream.aclose()


class NullLink(BotLink):
    """The link of a seat whose bot never arrived: every write and read fails at once."""

    async def _receive_some(self) -> bytes | bytearray:
        raise trio.ClosedResourceError("no bot is connected")

    async def _send_all(self, data: bytes) -> None:
        raise trio.ClosedResourceError("no bot is connected")
