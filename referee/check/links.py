"""The bot of one step of the check, however it came: a program the check started, or a
connection it accepted (``tcp:NAME``). Both are the match's links (``ProcessLink``,
``SocketLink``); a ``CheckLink`` adds what the check does at the end of a conversation, where
the two differ: how the check closes the bot's input, and how it sees the bot end.

A program's input is its stdin, and it ends by exiting, with a status. A connection's input is
the check's half of the socket (half-closed, so the bot reads the end of its input), and it
ends when the bot closes the connection, which the check only sees by reading it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import ClassVar

import trio

from referee.hints import exit_text
from referee.players.channel import BotLink, SocketLink
from referee.players.process import ProcessLink

Drain = Callable[[float], Awaitable[None]]
"""Reads (and keeps) what the bot writes, for at most the given seconds or until its output
ends: how the check waits for a connection to close."""


@dataclass
class Ending:
    """How a bot ended its part: a process exited, or a TCP bot closed the connection."""

    code: int | None
    """The exit status (negative: killed by a signal); ``None`` over TCP."""

    def describe(self) -> str:
        return "closed the connection" if self.code is None else exit_text(self.code)


class CheckLink(BotLink):
    """A step's bot: a ``BotLink`` whose input the check can close and whose end it can wait
    for. The words are for messages about the end (``the bot was still running``)."""

    tcp: ClassVar[bool] = False
    """Whether the bot connected over TCP (no exit status, no stderr)."""
    to_exit: ClassVar[str] = "exit"
    """What the bot does at the end."""
    still: ClassVar[str] = "still running"
    """What a bot that did not end is."""

    async def close_input(self) -> None:
        """End the bot's input, as the referee does after goodbye or a fatal error."""
        raise NotImplementedError

    def ended(self) -> bool:
        """Whether the bot has ended (never waits)."""
        raise NotImplementedError

    async def wait_end(self, seconds: float, drain: Drain) -> Ending | None:
        """Wait up to ``seconds`` for the bot to end; how it ended, or ``None``. ``drain`` is
        called where the end can only be seen by reading the bot's output."""
        raise NotImplementedError


class CheckProcessLink(ProcessLink, CheckLink):
    """A bot program the check started for one step."""

    async def close_input(self) -> None:
        """Close the bot's stdin."""
        stdin = self.process.stdin
        if stdin is not None:
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                await stdin.aclose()

    def ended(self) -> bool:
        return self.exit_code() is not None

    async def wait_end(self, seconds: float, drain: Drain) -> Ending | None:
        """The program's exit; what it wrote meanwhile waits in its pipe for the next read."""
        code = await self.wait_exit(seconds)
        return None if code is None else Ending(code)


class CheckSocketLink(SocketLink, CheckLink):
    """A bot's connection during one step: notes when the bot has closed the connection (the
    TCP counterpart of a bot process exiting) and can half-close the check's side (the
    counterpart of closing the bot's stdin)."""

    tcp = True
    to_exit = "close the connection"
    still = "still connected"

    def __init__(self, stream: trio.SocketStream, accepted: float) -> None:
        super().__init__(stream)
        self.accepted = accepted
        """When the check accepted the connection (``trio.current_time()``)."""
        self._ended = False
        """The bot closed the connection (end of file, or a reset)."""

    async def _receive_some(self) -> bytes | bytearray:
        try:
            data = await super()._receive_some()
        except (trio.BrokenResourceError, OSError):
            self._ended = True
            raise
        if not data:
            self._ended = True
        return data

    async def close_input(self) -> None:
        """Half-close the connection: the bot reads the end of its input."""
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            await self.stream.send_eof()

    def ended(self) -> bool:
        return self._ended

    async def wait_end(self, seconds: float, drain: Drain) -> Ending | None:
        """The end of the connection, read: whatever the bot writes before it goes to ``drain``."""
        if not self._ended:
            await drain(seconds)
        return Ending(None) if self._ended else None
