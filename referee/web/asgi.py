"""What the seat server and the watch server share: Hypercorn's configuration on trio (quiet,
no server header, a message-size cap), the routing of an ASGI scope with the lifespan
handshake, static files with a proper 404, and the WebSocket's ``Origin`` and token checks."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

import trio
from hypercorn.config import Config
from hypercorn.protocol.events import StreamClosed
from hypercorn.protocol.ws_stream import WSStream
from hypercorn.trio import serve
from hypercorn.trio.tcp_server import TCPServer
from starlette.exceptions import HTTPException
from starlette.staticfiles import StaticFiles
from wsproto.events import CloseConnection
from wsproto.frame_protocol import CloseReason

from referee.network import show_address
from referee.web.link import AsgiReceive, AsgiSend

Handler = Callable[[dict[str, Any], AsgiReceive, AsgiSend], Awaitable[None]]
"""An ASGI application's handling of one kind of scope (a WebSocket, a page request)."""


def hypercorn_config(host: str, port: int, max_message_bytes: int) -> Config:
    """Hypercorn for one of our pages: bound to ``host:port``, WebSocket messages capped, no
    access or error log (faults are the match's to report), no server header."""
    config = Config()
    config.bind = [show_address(host, port)]
    config.websocket_max_message_size = max_message_bytes
    config.accesslog = None
    config.errorlog = None
    config.graceful_timeout = 1.0
    config.include_server_header = False
    return config


_hypercorn_run = TCPServer.run


async def _one_connection(self: TCPServer) -> None:
    """Hypercorn's handling of one connection, whose failure ends that connection only.

    Hypercorn 0.18 runs every connection in the server's own nursery, so an exception in one
    ends the server, and here the match: a page that sent a message over the size cap and
    closed its socket at once made Hypercorn's close (``send_eof``, taken without its send
    lock) meet its own ``send_all``, and the ``trio.BusyResourceError`` ended the referee
    (twice in about 80 runs). Whatever one connection raises now closes that connection."""
    try:
        await _hypercorn_run(self)
    except Exception:  # a page's connection must never end the server
        with contextlib.suppress(Exception):
            await self.stream.aclose()


TCPServer.run = _one_connection  # type: ignore[method-assign]

_hypercorn_ws_send = WSStream._send_wsproto_event


async def _closing_when_too_big(self: WSStream, event: Any) -> None:
    """Hypercorn's sending of a WebSocket event, which also ends the connection after the
    close for a message over the size cap (1009).

    Hypercorn 0.18 sends that close and waits for the page to answer it; a page that never
    does (or keeps sending) held its seat for its whole clock, recorded as a ``timeout``, and a
    reload was refused ``seat_taken`` meanwhile. Ending the stream at once tells the seat
    ``websocket.disconnect``: the seat is a ``disconnect`` whether the message was compressed
    or not, and a reload is let in."""
    await _hypercorn_ws_send(self, event)
    if isinstance(event, CloseConnection) and event.code == CloseReason.MESSAGE_TOO_BIG:
        await self.send(StreamClosed(stream_id=self.stream_id))


WSStream._send_wsproto_event = _closing_when_too_big  # type: ignore[method-assign]


async def listen(app: Any, config: Config, nursery: trio.Nursery) -> str:
    """Serve ``app`` in ``nursery``; the address it listens on, once it does."""

    async def started(*, task_status: trio.TaskStatus[list[str]] = trio.TASK_STATUS_IGNORED) -> None:
        await serve(app, config, task_status=task_status)

    binds: list[str] = await nursery.start(started)
    return binds[0]


async def route(
    scope: dict[str, Any], receive: AsgiReceive, send: AsgiSend, *, websocket: Handler, http: Handler
) -> None:
    """One of our ASGI applications: the lifespan handshake is answered here, a WebSocket goes
    to ``websocket`` and a page request to ``http``; any other kind of scope is ignored."""
    kind = scope.get("type")
    if kind == "lifespan":
        await lifespan(receive, send)
    elif kind == "websocket":
        await websocket(scope, receive, send)
    elif kind == "http":
        await http(scope, receive, send)


async def lifespan(receive: Any, send: AsgiSend) -> None:
    """Answer the ASGI lifespan messages until shutdown (there is nothing to start or stop)."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


async def plain_response(send: AsgiSend, status: int, text: str) -> None:
    """A short ``text/plain`` answer (404 for a path we do not serve, 405, ...)."""
    body = text.encode()
    headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def static_files(files: StaticFiles, scope: dict[str, Any], receive: Any, send: AsgiSend) -> None:
    """Serve from ``files``. Starlette's ``StaticFiles`` raises ``HTTPException`` for a path it
    does not have (404) or a method it does not serve (405): outside a Starlette application
    nothing turns that into a response and Hypercorn answers 500 with a traceback, so the
    answer is made here. The request cannot affect anything but its own response."""
    try:
        await files(scope, receive, send)
    except HTTPException as err:
        await plain_response(send, err.status_code, f"{err.detail}\n")


def same_origin(scope: dict[str, Any], url: str) -> bool:
    """Whether a WebSocket request comes from our own page (or from no page at all).

    A browser sends ``Origin`` with every WebSocket handshake; a page from any other site
    (or a name rebound to this address by DNS) carries its own origin, and must not reach a
    seat even with a token it somehow learned. A client that is not a browser sends no
    ``Origin``: it is let through, as it could claim any origin it liked. Our own origin is
    the address we listen on, also as ``localhost`` for a loopback address."""
    origins = [value for key, value in scope.get("headers", []) if key.lower() == b"origin"]
    if not origins:
        return True
    if len(origins) > 1:
        return False
    origin = origins[0].decode("latin-1").rstrip("/").lower()
    own = urlsplit(url)
    hosts = {(own.hostname or "").lower()}
    if hosts & LOOPBACK_NAMES:
        hosts |= LOOPBACK_NAMES
    allowed = {f"{own.scheme}://{f'[{host}]' if ':' in host else host}:{own.port}" for host in hosts}
    if not hosts & LOOPBACK_NAMES:
        # bound to a network address (0.0.0.0, a LAN name): the page is opened by whatever name or
        # address reaches this machine, which its Host header carries; a page of another site
        # still carries its own origin. (On loopback the strict list stands: that is where a
        # name rebound by DNS would point a foreign page.)
        host_headers = [value for key, value in scope.get("headers", []) if key.lower() == b"host"]
        if len(host_headers) == 1:
            allowed.add(f"{own.scheme}://{host_headers[0].decode('latin-1').lower()}")
    return origin in allowed


def query_token(scope: dict[str, Any]) -> bytes | None:
    """The one ``token`` a WebSocket request's query carries, as bytes for a comparison in
    constant time (``secrets.compare_digest``); ``None`` when there is none or more than one,
    or the query is over 1 KiB (then it is not parsed at all)."""
    raw = scope.get("query_string", b"")
    if not isinstance(raw, bytes) or len(raw) > 1024:
        return None
    tokens = parse_qs(raw.decode("latin-1"), max_num_fields=4).get("token", [])
    if len(tokens) != 1:
        return None
    return tokens[0].encode("utf-8", "surrogatepass")


LOOPBACK_NAMES = frozenset({"127.0.0.1", "::1", "localhost"})


def query_flag(scope: dict[str, Any], name: str) -> bool:
    """Whether a request's query says ``name=1`` (once; a query over 1 KiB or of more than
    four fields says nothing)."""
    raw = scope.get("query_string", b"")
    if not isinstance(raw, bytes) or len(raw) > 1024:
        return False
    try:
        values = parse_qs(raw.decode("latin-1"), max_num_fields=4).get(name, [])
    except ValueError:
        return False
    return values == ["1"]
