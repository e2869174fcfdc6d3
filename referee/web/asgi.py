"""What the seat server, the watch server and the ladder's pages share: Hypercorn's
configuration on trio (quiet, no server header, a message-size cap, HTTP/1.1 only, TLS when
given a certificate, a deadline on every write: ``referee.web.hypercorn_bounds``), the routing
of an ASGI scope with the lifespan handshake, static files with a proper 404, and the
WebSocket's ``Origin`` and token checks."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

import trio
from hypercorn.trio import serve
from starlette.exceptions import HTTPException
from starlette.staticfiles import StaticFiles

from referee.network import show_address
from referee.web.hypercorn_bounds import SEND_SECONDS, PageConfig
from referee.web.link import AsgiReceive, AsgiSend

Handler = Callable[[dict[str, Any], AsgiReceive, AsgiSend], Awaitable[None]]
"""An ASGI application's handling of one kind of scope (a WebSocket, a page request)."""


def hypercorn_config(
    host: str,
    port: int,
    max_message_bytes: int,
    *,
    answer_headers: tuple[tuple[bytes, bytes], ...] = (),
    send_seconds: float = SEND_SECONDS,
    certfile: str | None = None,
    keyfile: str | None = None,
) -> PageConfig:
    """Hypercorn for one of our pages: bound to ``host:port``, WebSocket messages capped, no
    access or error log (faults are the match's to report), no server header, HTTP/1.1 only,
    each write given ``send_seconds`` and each answer the ``answer_headers`` it lacks
    (``referee.web.hypercorn_bounds``). With ``certfile`` and ``keyfile``, TLS: its ALPN
    offers HTTP/1.1 alone (Hypercorn's default offers h2 first, and a browser would take it),
    and a client has ``send_seconds`` to finish its handshake (Hypercorn's default: 60)."""
    config = PageConfig()
    config.certfile = certfile
    config.keyfile = keyfile
    config.alpn_protocols = ["http/1.1"]
    config.ssl_handshake_timeout = send_seconds
    config.answer_headers = answer_headers
    config.send_seconds = send_seconds
    config.bind = [show_address(host, port)]
    config.websocket_max_message_size = max_message_bytes
    config.accesslog = None
    config.errorlog = None
    config.graceful_timeout = 1.0
    config.include_server_header = False
    return config


async def listen(app: Any, config: PageConfig, nursery: trio.Nursery) -> str:
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
        if scope.get("http_version", "1.1") not in ("1.0", "1.1"):
            # not "connection: close": with the preface's frames already read behind it, Hypercorn
            # would take them as a request after a close and end the connection before the text
            await plain_response(send, 505, HTTP1_ONLY)
            return
        await http(scope, receive, send)


HTTP1_ONLY = "HTTP/1.1 only: this server does not speak HTTP/2 (docs/ladder.md)\n"


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
