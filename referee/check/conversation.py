"""The lines of one step's conversation with its bot: what the check queues and writes, what
it reads, the transcript of both, and how the conversation ends.

A ``Conversation`` judges nothing about the bot's answers (the ``Probe`` built on it does);
it keeps the record a failing step shows (every line each way, with the time since the step
began) and knows the two ways a bot's output ends: the bot is gone (``gone``: crashed, with
its status, or disconnected); why a line came late is ``referee.check.late``'s. ``StepFailed`` is
how anything wrong leaves a step.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Final, Literal

import trio

from protocol.codec import ProtocolError
from referee.check.links import CheckLink, Ending
from referee.check.results import TranscriptLine
from referee.errors import RefereeError
from referee.players.channel import LinkClosed
from referee.players.connection import classify_closed

LINE_CUT: Final = 2000
"""Characters of a line kept in a transcript."""


class StepFailed(RefereeError):
    """The bot did something a referee would not accept: ``reason`` names the fault as the
    referee does (``bad_json``, ``timeout``, ``crash``, ...); ``line`` is the bot's offending
    line and ``hint`` overrides the usual hint for the reason (``referee.check.causes``)."""

    def __init__(
        self,
        message: str,
        *,
        expected: str | None = None,
        got: str | None = None,
        reason: str | None = None,
        line: str | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.expected = expected
        self.got = got
        self.reason = reason
        self.line = line
        self.hint = hint


def show(line: bytes, cut: int = LINE_CUT) -> str:
    """A line as text for a report, cut after ``cut`` characters."""
    text = line.decode("utf-8", errors="replace")
    if not text.isprintable():  # a NUL or an escape sequence must not reach the terminal raw
        text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return text if len(text) <= cut else f"{text[:cut]}... ({len(line)} bytes)"


class Conversation:
    """One step's lines to and from one bot: a process, or a connection over TCP."""

    def __init__(self, link: CheckLink) -> None:
        self.link = link
        self.rewrite: Callable[[bytes], list[bytes]] | None = None
        """Turns each encoded message line into the lines actually written (compat steps)."""
        self.transcript: list[TranscriptLine] = []
        self.last_line = b""
        """The bot's latest line (the one a failure quotes)."""
        self._outbox: list[bytes] = []
        self._held: list[bytes] = []
        self._start = trio.current_time()

    @property
    def tcp(self) -> bool:
        """Whether the bot connected over TCP (no exit status, no stderr)."""
        return self.link.tcp

    @property
    def to_exit(self) -> str:
        """What a bot does at the end, for messages: exit, or close the connection."""
        return self.link.to_exit

    @property
    def still(self) -> str:
        return self.link.still

    # -- the lines ---------------------------------------------------------------------------
    def queue(self, line: bytes) -> None:
        """Queue an encoded line (without its newline) for the next write."""
        self._outbox.extend(self.rewrite(line) if self.rewrite else [line])

    async def _write(self) -> None:
        if not self._outbox:
            return
        lines, self._outbox = self._outbox, []
        for line in lines:
            self._record("send", line)
        await self.link.send(b"".join(line + b"\n" for line in lines))

    def _record(self, direction: Literal["send", "recv"], line: bytes) -> None:
        ms = round((trio.current_time() - self._start) * 1000, 1)
        self.transcript.append(TranscriptLine(ms=ms, direction=direction, line=show(line)))

    def _received(self, line: bytes) -> None:
        """A line the bot wrote: in the transcript, and the one a failure quotes."""
        self._record("recv", line)
        self.last_line = line

    # -- the bot's output ends ---------------------------------------------------------------
    async def gone(self, err: LinkClosed, expected: str) -> StepFailed:
        """The failure for a bot whose output ended: crashed (with its status) or closed."""
        failure = await classify_closed(self.link, err)
        return StepFailed(
            f"{failure.message} ({failure.reason})", expected=expected, got=failure.message, reason=failure.reason
        )

    # -- the end -----------------------------------------------------------------------------
    async def close_input(self) -> None:
        """Close the bot's stdin, as the referee does after goodbye or a fatal error (over
        TCP: half-close the connection, so the bot reads the end of its input)."""
        await self.link.close_input()

    def ended(self) -> bool:
        """Whether the bot has ended: its process exited, or it closed the connection."""
        return self.link.ended()

    def not_ended(self, seconds: float, after: str, expected: str) -> StepFailed:
        """The ``no_exit`` failure: the bot was still running (over TCP: still connected)
        ``seconds`` after ``after`` (``goodbye``, ``its input ended``, ...)."""
        return StepFailed(
            f"the bot was {self.still} {seconds:g} s after {after}", expected=expected, got=self.still, reason="no_exit"
        )

    async def wait_end(self, seconds: float) -> Ending | None:
        """Wait up to ``seconds`` for the bot to end: its process to exit, or (over TCP) the
        connection to be closed, reading what it writes meanwhile (``drain`` returns it)."""
        return await self.link.wait_end(seconds, self._hold)

    async def _hold(self, seconds: float) -> None:
        self._held = await self.drain(seconds)

    async def drain(self, seconds: float) -> list[bytes]:
        """The lines the bot writes until its output ends (at most ``seconds``), with those
        ``wait_end`` read before."""
        lines, self._held = self._held, []
        with trio.move_on_after(seconds):
            with contextlib.suppress(LinkClosed, ProtocolError):
                while True:
                    line = await self.link.receive_line()
                    self._record("recv", line)
                    lines.append(line)
        return lines
