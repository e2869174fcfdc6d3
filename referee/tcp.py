"""TCP seats: bots that connect to the referee instead of being started by it.

Each TCP seat has a secret token. A bot connects, the referee says hello, and the bot's hello
must carry the token of a free seat; a wrong token, a token whose seat is taken, or no hello
within the start-up limit is refused with an error line and the connection closed, without
touching the seated bots. At most ``max_pending`` connections may be in their handshake at
once (more are refused with ``busy``), and each handshake has its own deadline, so a port
scanner or a slow client cannot hold the referee.
"""

from __future__ import annotations

import contextlib
import secrets
from dataclasses import dataclass, field

import trio

from protocol.codec import encode
from protocol.messages import BotHello, Error
from referee.connection import BotConnection, Failure, handshake
from referee.link import SocketLink

DEFAULT_HOST = "127.0.0.1"


@dataclass
class TcpSeat:
    """A seat waiting for (or held by) a bot that connects."""

    seat: int
    name: str
    token: str = field(default_factory=lambda: secrets.token_urlsafe(12))
    connection: BotConnection | None = None
    arrived: trio.Event = field(default_factory=trio.Event)
    reconnect: bool = False
    """Whether a new connection may take the seat once its bot has disconnected."""

    @property
    def free(self) -> bool:
        if self.connection is None:
            return True
        return self.reconnect and not self.connection.alive


@dataclass
class Refusal:
    """A connection the server turned away, for logs and tests."""

    peer: str
    reason: str
    message: str


class TcpSeatServer:
    """Accepts bots for a set of TCP seats."""

    def __init__(self, seats: list[TcpSeat], startup: float, max_pending: int = 16) -> None:
        self.seats = seats
        self.startup = startup
        self.max_pending = max_pending
        self.pending = 0
        self.refusals: list[Refusal] = []
        self.address: tuple[str, int] = ("", 0)
        self._changed = trio.Event()

    async def serve(self, host: str, port: int, *, task_status: trio.TaskStatus[tuple[str, int]]) -> None:
        """Listen on ``host:port`` (port 0: any free port) until cancelled."""
        listeners = await trio.open_tcp_listeners(port, host=host)
        sockname = listeners[0].socket.getsockname()
        self.address = (str(sockname[0]), int(sockname[1]))
        task_status.started(self.address)
        async with trio.open_nursery() as nursery:
            for listener in listeners:
                nursery.start_soon(self._accept_loop, listener, nursery)

    async def _accept_loop(self, listener: trio.SocketListener, nursery: trio.Nursery) -> None:
        async with listener:
            while True:
                stream = await listener.accept()
                if self.pending >= self.max_pending:
                    nursery.start_soon(self._refuse_busy, stream)
                else:
                    self.pending += 1
                    nursery.start_soon(self._admit, stream)

    async def _refuse_busy(self, stream: trio.SocketStream) -> None:
        link = SocketLink(stream)
        message = f"too many connections in their handshake (limit {self.max_pending}); try again"
        self.refusals.append(Refusal(link.peer, "busy", message))
        with trio.move_on_after(1.0):
            with contextlib.suppress(trio.BrokenResourceError, OSError):
                await stream.send_all(encode(Error(code="busy", message=message, fatal=True)))
        await link.close()

    async def _admit(self, stream: trio.SocketStream) -> None:
        try:
            link = SocketLink(stream)
            connection = BotConnection(link=link, command="tcp")
            claimed: list[TcpSeat] = []

            def check(hello: BotHello) -> Failure | None:
                seat = next((s for s in self.seats if secrets.compare_digest(s.token, hello.token or "")), None)
                if seat is None:
                    return Failure("bad_token", "no seat has this token")
                if not seat.free:
                    return Failure("seat_taken", f"seat {seat.seat} ({seat.name}) already has a bot connected")
                seat.connection = connection  # claimed at once: a second connection sees it taken
                claimed.append(seat)
                return None

            await handshake(connection, self.startup, admit=check)
            if connection.failure is not None:
                failure = connection.failure
                self.refusals.append(Refusal(link.peer, failure.reason, failure.message))
                return
            seat = claimed[0]
            connection.command = f"tcp:{seat.name} ({link.peer})"
            seat.arrived.set()
            self._changed.set()
        finally:
            self.pending -= 1

    async def wait_for_all(self, timeout: float) -> None:
        """Wait until every seat has a bot, or ``timeout`` seconds."""
        with trio.move_on_after(timeout):
            for seat in self.seats:
                await seat.arrived.wait()

    async def wait_for(self, seat: TcpSeat, timeout: float) -> BotConnection | None:
        """A new connection for a seat whose bot disconnected (reconnection), or ``None``."""
        if not seat.free:
            return None
        seat.arrived = trio.Event()
        seat.connection = None
        with trio.move_on_after(timeout):
            await seat.arrived.wait()
            return seat.connection
        return None
