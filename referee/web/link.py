"""``WebLink``: a person's seat over a WebSocket, one text message per protocol line.

The server's connection task is the only reader of the socket: it puts every ASGI event in a
small bounded inbox (``deliver``) and notes the peer's disconnect at once (``gone``), so a
reloaded page can take the seat before the match next asks it. The match reads the inbox
through ``receive_line`` like any bot's link: a text message is one line (a trailing newline
is allowed), one over the line limit is ``line_too_long``, a binary message is a
``protocol_violation``; each raises ``ProtocolError`` and the asker names the fault as for any
bot. Interrupts use ``BotLink``'s cancel scope around each read and write (a person does not
need the file-descriptor fast path).
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import trio

from protocol.codec import MAX_LINE, ProtocolError
from referee.players.channel import INTERRUPTED, BotLink, LinkClosed

AsgiMessage = MutableMapping[str, Any]
AsgiSend = Callable[[AsgiMessage], Awaitable[None]]
AsgiReceive = Callable[[], Any]

INBOX = 8
"""Messages waiting for the match to read them; beyond this the page is not read (TCP pushes
back), so a page that floods costs the referee at most this many messages."""


class WebLink(BotLink):
    """A browser seat's line channel."""

    wakes_directly = False
    live = True

    def __init__(self, send: AsgiSend, peer: str, max_line: int = MAX_LINE) -> None:
        super().__init__(max_line)
        self.max_line = max_line
        self.peer = peer
        self._asgi_send = send
        self._inbox_in, self._inbox = trio.open_memory_channel[AsgiMessage | None](INBOX)
        self.gone = False
        """The peer disconnected (or the link was closed): a new connection may take the seat."""
        self.closed = trio.Event()
        """Set when the referee closes the link: the connection task ends the socket."""
        self.superseded = False
        """Another page took the seat over: the connection task tells this page so and ends."""
        self.told: Callable[[WebLink, bytes], Awaitable[None]] | None = None
        """Called with every write of the match, even to a page that has gone: the seat keeps
        its transcript and passes the events on to a page that took the seat since."""
        self._writing = trio.Lock()

    @property
    def description(self) -> str:
        return f"web {self.peer}"

    # -- the connection task's side -----------------------------------------------------------
    async def deliver(self, message: AsgiMessage) -> None:
        """Queue one ASGI event from the socket (waits while the inbox is full). Raises
        ``trio.BrokenResourceError`` once the referee has closed the link."""
        await self._inbox_in.send(message)

    def peer_left(self) -> None:
        """The socket is gone: wake a waiting read (it raises ``LinkClosed``)."""
        self.gone = True
        self._inbox_in.close()

    def supersede(self) -> None:
        """Another page takes the seat: this one is gone for the match (a waiting read ends)
        and its connection task tells it why and closes it."""
        self.superseded = True
        self.peer_left()
        self.closed.set()

    async def relay(self, lines: list[bytes]) -> None:
        """Write lines the match wrote to the seat's earlier page (events only, after the
        transcript): the page sees the table as it goes before the match next asks it. Never
        raises; a page that does not read costs at most a second."""
        with trio.move_on_after(1.0), contextlib.suppress(Exception):
            await self._write(lines)

    async def _write(self, lines: list[bytes]) -> None:
        async with self._writing:  # one writer at a time: the server's relays and the match
            for line in lines:
                await self._asgi_send({"type": "websocket.send", "text": line.decode("utf-8")})

    # -- the match's side ---------------------------------------------------------------------
    async def send(self, data: bytes) -> None:
        if self.told is not None:
            await self.told(self, data)
        await super().send(data)

    async def _send_all(self, data: bytes) -> None:
        if self.gone:
            raise trio.ClosedResourceError("the page has disconnected")
        await self._write(data.removesuffix(b"\n").split(b"\n"))

    async def _receive_message(self) -> AsgiMessage:
        try:
            with self._interruptible() as scope:
                message = await self._inbox.receive()
            if scope.cancelled_caught:
                raise trio.ClosedResourceError(INTERRUPTED)
        except (trio.EndOfChannel, trio.ClosedResourceError, trio.BrokenResourceError) as err:
            raise LinkClosed(f"cannot read from the page: {err or 'it disconnected'}") from None
        if message is None:
            raise LinkClosed("cannot read from the page: it disconnected")
        return message

    async def receive_line(self) -> bytes:
        """The next message as a line. Raises ``ProtocolError`` (``line_too_long``,
        ``protocol_violation`` for a binary message) or ``LinkClosed``."""
        message = await self._receive_message()
        text = message.get("text")
        if not isinstance(text, str):
            if message.get("bytes") is not None:
                raise ProtocolError("protocol_violation", "a binary WebSocket message: protocol lines are text")
            raise ProtocolError(
                "protocol_violation", f"an unexpected WebSocket event {str(message.get('type'))[:40]!r}"
            )
        line = text.encode("utf-8", "surrogatepass")
        if line.endswith(b"\n"):
            line = line[:-1]
        if len(line) > self.max_line:
            raise ProtocolError("line_too_long", f"a line longer than {self.max_line} bytes")
        return line

    async def close(self, grace: float = 1.0) -> None:
        if self.closed.is_set():
            return
        self.gone = True
        self.closed.set()
        self._inbox.close()
