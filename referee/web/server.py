"""The web seat server: the page and its WebSocket, in the referee's own trio process.

Library: Hypercorn's trio worker serves HTTP and WebSockets (HTTP/1.1, keep-alive, the
WebSocket handshake, a bound on message size, control frames) and Starlette's ``StaticFiles``
serves the page from this package (content types, ``HEAD``, ``ETag``, no path escaping its
folder). Both are widely used and maintained, run on trio (Starlette through anyio), and
leave only the ASGI glue here: no hand-written HTTP. trio-websocket was the other candidate;
it speaks WebSocket only, so the page would have needed a hand-made HTTP server next to it.

Each web seat has its own token (``new_token()``): the page's address carries it in its
fragment (never sent in a page request or a ``Referer``), and the page opens
``/ws?token=...``. The token is checked before the WebSocket is accepted: a wrong one is refused
with HTTP 403 and nothing else happens. A right one for a seat that is taken is accepted, told
``seat_taken`` and closed. Then the page does the protocol's handshake (``hello`` both ways,
``referee.players.connection.handshake``) and is seated; from there on it is a bot like any
other (``WebLink``). Whatever it sends ends at most its own seat.

Reloading the page resumes the seat: a seat whose page has disconnected is free for a new
connection with its token (``reconnect``, on by default), and the match takes the new
connection when it next needs the seat, within the decision's time and bank (the TCP seats'
reconnection: the page is told the match and the round again and asked again).
"""

from __future__ import annotations

import contextlib
import secrets
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import trio
from starlette.staticfiles import StaticFiles

from protocol.codec import MAX_LINE, encode
from protocol.messages import BotHello, Error
from referee.network import DEFAULT_HOST
from referee.players.channel import Failure
from referee.players.connection import BotConnection, handshake, send_error
from referee.players.tcp import DEFAULT_HELLO_TIMEOUT, ClaimedSeat, Refusal
from referee.web.after import PATHS as AFTER_PATHS
from referee.web.after import AfterMatch
from referee.web.asgi import hypercorn_config, listen, query_flag, query_token, route, same_origin, static_files
from referee.web.link import AsgiReceive, AsgiSend, WebLink
from referee.web.transcript import SeatTranscript

STATIC = Path(__file__).resolve().parent / "static"
MAX_MESSAGE_BYTES = 2 * MAX_LINE
"""Hypercorn closes a connection whose message is longer than this (close code 1009); a message
between ``MAX_LINE`` and this is read and refused as ``line_too_long``."""
MAX_CONNECTIONS = 64
"""WebSocket connections open at once; more are refused (HTTP 403)."""


@dataclass
class WebSeat(ClaimedSeat):
    """A seat played in a browser."""

    reconnect: bool = True
    """Whether a new page (a reload) may take the seat once its page has disconnected."""
    seated: list[BotConnection] = field(default_factory=list)
    """Every connection that took the seat."""
    transcript: SeatTranscript = field(default_factory=SeatTranscript)
    """What the seat has been told in the match in play: a page that takes the seat is shown
    the whole table from it."""

    def take_over(self) -> bool:
        """Free the seat from the page that holds it (another page of the same person takes
        it); whether a page was holding it."""
        link = self.connection.link if self.connection is not None else None
        if not self.reconnect or not isinstance(link, WebLink) or self.free:
            return False
        link.supersede()
        return True

    @property
    def free(self) -> bool:
        connection = self.connection
        if connection is None:
            return True
        link = connection.link
        gone = not connection.alive or (isinstance(link, WebLink) and link.gone)
        return self.reconnect and gone


OnListening = Callable[[str, list[WebSeat]], None]
"""Called once the server listens: its base URL and the seats (with their tokens)."""


class WebSeatServer:
    """Serves the page and seats the browsers that connect with a seat's token (a
    ``referee.players.hosted.SeatHost``)."""

    def __init__(
        self,
        host: str = DEFAULT_HOST,
        port: int = 0,
        *,
        reconnect: bool = True,
        hello_timeout: float = DEFAULT_HELLO_TIMEOUT,
        on_listening: OnListening | None = None,
        on_refusal: Callable[[Refusal], None] | None = None,
        static: Path = STATIC,
    ) -> None:
        self.host = host
        self.port = port
        self.reconnect = reconnect
        self.hello_timeout = hello_timeout
        self.on_listening = on_listening
        self.on_refusal = on_refusal
        self.seats: dict[int, WebSeat] = {}
        self.refusals: deque[Refusal] = deque(maxlen=1000)
        self.url = ""
        self.open_sockets = 0
        self._files = StaticFiles(directory=static, html=True)
        self._serving = False
        self.after = AfterMatch()
        """A finished match's replay and a rematch, for the seats' pages."""

    # -- SeatHost ------------------------------------------------------------------------------
    def add_seat(self, seat: int, name: str) -> None:
        """Take ``seat``; at the server's next match (a rematch) the seat keeps its token, so its
        page's address stays valid, and a page already back with it stays seated."""
        old = self.seats.get(seat)
        if old is None or old.name != name:
            self.seats[seat] = WebSeat(seat=seat, name=name, reconnect=self.reconnect)
            return
        link = old.connection.link if old.connection is not None else None
        if not (isinstance(link, WebLink) and not link.gone and old.connection is not None and old.connection.alive):
            old.connection, old.arrived = None, trio.Event()

    def seat_url(self, seat: WebSeat) -> str:
        """The address a person opens to play ``seat`` (its token in the fragment)."""
        return f"{self.url}/#token={seat.token}"

    async def serve(self, *, task_status: trio.TaskStatus[Any] = trio.TASK_STATUS_IGNORED) -> None:
        """Listen until cancelled. A server that already listens (``referee play`` keeps its
        page's server across a rematch) only says so."""
        if self._serving:
            task_status.started(self.url)
            await trio.sleep_forever()
        config = hypercorn_config(self.host, self.port, MAX_MESSAGE_BYTES)
        self._serving = True
        try:
            async with trio.open_nursery() as nursery:
                self.url = await listen(self._app, config, nursery)
                self.after.nursery = nursery  # a person's analysis runs beside the page
                if self.on_listening is not None:
                    self.on_listening(self.url, list(self.seats.values()))
                task_status.started(self.url)
        finally:
            self._serving = False
            self.after.nursery = None

    async def wait_for_all(self, timeout: float) -> None:
        with trio.move_on_after(timeout):
            for seat in self.seats.values():
                await seat.arrived.wait()

    def connection(self, seat: int) -> BotConnection | None:
        web = self.seats.get(seat)
        return web.connection if web is not None and web.connection is not None and web.connection.alive else None

    async def wait_for(self, seat: int, timeout: float) -> BotConnection | None:
        web = self.seats.get(seat)
        if web is None or not web.reconnect:
            return None
        with trio.move_on_after(timeout):
            while True:
                current = web.connection
                if current is not None and current.alive and not web.free:
                    return current  # a reload already took the seat
                web.arrived = trio.Event()
                await web.arrived.wait()
        return None

    def connections(self) -> list[BotConnection]:
        return [c for seat in self.seats.values() for c in seat.seated]

    # -- ASGI ----------------------------------------------------------------------------------
    async def _app(self, scope: dict[str, Any], receive: AsgiReceive, send: AsgiSend) -> None:
        await route(scope, receive, send, websocket=self._websocket, http=self._http)

    async def _http(self, scope: dict[str, Any], receive: AsgiReceive, send: AsgiSend) -> None:
        if scope.get("path") in AFTER_PATHS:
            await self.after.answer(scope, send, self._seat_asking)
        else:
            await static_files(self._files, scope, receive, send)

    def _seat_asking(self, scope: dict[str, Any]) -> int | None:
        """The seat whose page asks: the server's own origin, that seat's token in
        ``X-Seat-Token`` (``None``: not a seat's page)."""
        tokens = [value for key, value in scope.get("headers", []) if key.lower() == b"x-seat-token"]
        if not same_origin(scope, self.url) or len(tokens) != 1 or len(tokens[0]) > 256:
            return None
        found = [s.seat for s in self.seats.values() if secrets.compare_digest(s.token.encode(), tokens[0])]
        return found[0] if found else None

    def _refuse(self, peer: str, reason: str, message: str) -> None:
        refusal = Refusal(peer, reason, message)
        self.refusals.append(refusal)
        if self.on_refusal is not None:
            with contextlib.suppress(Exception):
                self.on_refusal(refusal)

    def _seat_of(self, scope: dict[str, Any]) -> WebSeat | None:
        """The seat whose token the request's query carries (compared in constant time)."""
        token = query_token(scope)
        if token is None:
            return None
        return next((s for s in self.seats.values() if secrets.compare_digest(s.token.encode(), token)), None)

    async def _websocket(self, scope: dict[str, Any], receive: AsgiReceive, send: AsgiSend) -> None:
        client = scope.get("client") or ("?", 0)
        peer = f"{client[0]}:{client[1]}"
        first = await receive()
        if first.get("type") != "websocket.connect":
            return
        seat = self._seat_of(scope) if scope.get("path") == "/ws" else None
        refusal: tuple[str, str] | None = None
        if not same_origin(scope, self.url):
            refusal = ("bad_origin", "the page is not this server's own (its Origin header)")
        elif seat is None:
            refusal = ("bad_token", "no seat has this token")
        elif self.open_sockets >= MAX_CONNECTIONS:
            refusal = ("busy", "too many connections")
        if refusal is not None or seat is None:
            self._refuse(peer, *(refusal or ("bad_token", "no seat has this token")))
            await send({"type": "websocket.close", "code": 1008})  # before accepting: HTTP 403
            return
        self.open_sockets += 1
        try:
            await send({"type": "websocket.accept"})
            link = WebLink(send, peer, MAX_LINE)
            link.told = partial(_told, seat)
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._pump, receive, link)
                if await self._admit(seat, link, takeover=query_flag(scope, "takeover")):
                    await link.closed.wait()
                else:
                    await link.close()
                nursery.cancel_scope.cancel()
            if link.superseded:  # told why, past the link (it is gone for the match)
                with contextlib.suppress(Exception):
                    await send({"type": "websocket.send", "text": TAKEN_OVER_LINE})
            with contextlib.suppress(Exception):
                await send({"type": "websocket.close", "code": 1000})
        finally:
            self.open_sockets -= 1

    async def _pump(self, receive: AsgiReceive, link: WebLink) -> None:
        """The socket's only reader: every event goes to the link's inbox; a disconnect frees
        the seat at once and ends the connection task."""
        try:
            while True:
                message = await receive()
                if message.get("type") == "websocket.disconnect":
                    break
                await link.deliver(message)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass  # the referee closed the link
        finally:
            link.peer_left()
            link.closed.set()

    async def _admit(self, seat: WebSeat, link: WebLink, *, takeover: bool = False) -> bool:
        """The protocol's handshake; seat the page if it passes and its seat is free (or the
        page asks to take it over from another page of the same token). The page is then
        sent the seat's transcript: the whole table as the seat was told it."""
        connection = BotConnection(link=link, command=f"web:{seat.name} ({link.peer})", reconnects=seat.reconnect)
        message = f"seat {seat.seat} ({seat.name}) is open in another tab or device"

        def check(hello: BotHello) -> Failure | None:
            if not seat.free and not (takeover and seat.take_over()):
                return Failure("seat_taken", message)
            return None

        if not seat.free and not (takeover and seat.reconnect):  # tell the page at once, without a handshake
            self._refuse(link.peer, "seat_taken", message)
            await send_error(link, "seat_taken", message, fatal=True)
            return False
        try:
            await handshake(connection, self.hello_timeout, admit=check)
        except Exception as err:  # whatever a page sent ends this connection only
            message = f"the referee could not handle this connection's handshake ({type(err).__name__})"
            self._refuse(link.peer, "protocol_violation", message)
            await send_error(link, "protocol_violation", message, fatal=True)
            return False
        if connection.failure is not None:
            self._refuse(link.peer, connection.failure.reason, connection.failure.message)
            return False
        seat.connection = connection
        seat.seated.append(connection)
        seat.arrived.set()
        await link.relay(seat.transcript.lines())  # first, before any event relayed since
        return True


TAKEN_OVER = "this seat is now played in another tab or device"
TAKEN_OVER_LINE = encode(Error(code="seat_taken", message=TAKEN_OVER, fatal=True)).decode().strip()
"""What a page is told when another page of the seat's token takes the seat over."""


async def _told(seat: WebSeat, link: WebLink, data: bytes) -> None:
    """What the match wrote to one of the seat's pages: kept in the seat's transcript and,
    when another page has taken the seat since, passed on to it."""
    kept = seat.transcript.record(data)
    current = seat.connection.link if seat.connection is not None else None
    if kept and isinstance(current, WebLink) and current is not link and not current.gone:
        await current.relay(kept)
