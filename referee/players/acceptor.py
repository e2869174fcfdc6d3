"""Taking connections on one address: the listening sockets, the loop that accepts from them,
and the way a connection is turned away. The match's TCP seats (``TcpSeatServer``) and the
check's ``tcp:`` bots (``referee.check.listener``) both listen through an ``Acceptor``; what
each does with a connection (a handshake for a seat, a queue of one for the check's next step)
is theirs.

An ``accept`` that fails does not end the listening: when the process is out of file
descriptors (``EMFILE``, or the machine's: ``ENFILE``) or of buffers, the acceptor waits
``ACCEPT_RETRY`` and accepts again, so a flood of connections costs the flood its connections,
not the referee its seats. A connection turned away is told why in one fatal ``error`` line,
written within ``REFUSE_TIMEOUT`` (a peer that does not read cannot hold the refusal), and closed.
"""

from __future__ import annotations

from collections.abc import Callable

import trio

from protocol.messages import ErrorCode
from referee.players.channel import SocketLink
from referee.players.connection import send_error

REFUSE_TIMEOUT = 1.0
"""Seconds spent telling a refused connection why."""
ACCEPT_RETRY = 0.1
"""Seconds to wait before accepting again after ``accept`` failed (out of file descriptors)."""

Take = Callable[[trio.SocketStream, trio.Nursery], None]
"""What is done with each accepted connection, at once (no wait: the next ``accept`` waits on
it); tasks it starts go in the nursery, which lives as long as the listening."""


class Acceptor:
    """The listening sockets of one address (one per address family ``host`` resolves to)."""

    def __init__(self) -> None:
        self.listeners: list[trio.SocketListener] = []
        self.address: tuple[str, int] = ("", 0)
        """The address listened on, with the port the system chose for port 0."""

    async def listen(self, host: str, port: int) -> tuple[str, int]:
        """Open the listening sockets (port 0: any free port); raises ``OSError`` (address in
        use, an address of another machine, ...)."""
        self.listeners = await trio.open_tcp_listeners(port, host=host)
        sockname = self.listeners[0].socket.getsockname()
        self.address = (str(sockname[0]), int(sockname[1]))
        return self.address

    async def serve(self, take: Take) -> None:
        """Accept connections (after ``listen``) and hand each to ``take`` until cancelled;
        then close the listening sockets."""
        try:
            async with trio.open_nursery() as nursery:
                for listener in self.listeners:
                    nursery.start_soon(accept_loop, listener, take, nursery)
        finally:
            with trio.CancelScope(shield=True):
                for listener in self.listeners:
                    await listener.aclose()


async def accept_loop(listener: trio.abc.Listener[trio.SocketStream], take: Take, nursery: trio.Nursery) -> None:
    """Accept from one listening socket forever, waiting a moment after a failed ``accept``."""
    while True:
        try:
            stream = await listener.accept()
        except OSError:  # out of file descriptors or buffers: wait, then go on
            await trio.sleep(ACCEPT_RETRY)
            continue
        take(stream, nursery)


async def turn_away(link: SocketLink, code: ErrorCode, message: str) -> None:
    """Tell a connection why it is refused (a fatal ``error``, best effort, within
    ``REFUSE_TIMEOUT``) and close it."""
    await send_error(link, code, message, fatal=True, timeout=REFUSE_TIMEOUT)
    await link.close()
