"""Hypercorn held to our bounds: every way a client could keep a connection's resources
forever is cut here, in the one place that sees the socket.

Hypercorn 0.18 (pinned in ``pyproject.toml``; ``tests/web/test_hostile_clients.py`` fails on a
Hypercorn whose methods these wrap have changed) leaves four doors open, each shut below:

- **A write waits forever for a client that does not read.** Hypercorn shields its
  ``send_all`` from cancellation, so an answer to a client whose receive window stays at zero
  (a tiny receive buffer, pipelined requests never read) held its task, and with it the page's
  request slot, until the client left: 32 such connections shut the ladder's pages. Here every
  write has ``PageConfig.send_seconds``; past it the socket is closed under the write, which
  then fails as a vanished client's does, and the connection ends.
- **HTTP/2.** Its flow control lets a client open streams, set its window
  to zero and leave each answer waiting for credit that never comes (one connection held all
  32 request slots after the attacker had gone). HTTP/2 gives a page served on a LAN nothing
  that HTTP/1.1 does not, so it is not spoken: an ``Upgrade: h2c`` is ignored (the request is
  answered in HTTP/1.1, as RFC 9110 lets a server do) and the HTTP/2 preface gets a 505
  (``referee.web.asgi.route``). With TLS, ALPN offers HTTP/1.1 alone
  (``referee.web.asgi.hypercorn_config``), so h2 is never chosen there either.
- **Hypercorn's own answers** (400 for a malformed request, 431 for oversized headers, its 500)
  carried none of the pages' security headers: each now gets ``PageConfig.answer_headers``
  that it lacks.
- **One connection's failure ended the server**, and a WebSocket closed for a message over the
  size cap waited for the page's answer (both found in earlier issues, kept here beside the
  rest).
"""

from __future__ import annotations

import contextlib
import socket
import struct
from typing import Any

import h11
import trio
from hypercorn.config import Config
from hypercorn.events import Event, RawData
from hypercorn.protocol.events import StreamClosed
from hypercorn.protocol.h11 import H11Protocol
from hypercorn.protocol.ws_stream import WSStream
from hypercorn.trio.tcp_server import TCPServer
from wsproto.events import CloseConnection
from wsproto.frame_protocol import CloseReason

SEND_SECONDS = 10.0
"""How long one write may wait for its client to read: a page of the ladder is at most a few
hundred KB, which a client on the slowest link still reads in far less; a client that reads
nothing for this long is not a viewer, and its connection is closed."""


class PageConfig(Config):
    """Hypercorn's configuration with our bounds: ``send_seconds`` for each write, and
    ``answer_headers`` given to every answer that does not carry them itself (Hypercorn's own
    errors included)."""

    send_seconds: float = SEND_SECONDS
    answer_headers: tuple[tuple[bytes, bytes], ...] = ()


_hypercorn_run = TCPServer.run
_hypercorn_protocol_send = TCPServer.protocol_send
_hypercorn_check_protocol = H11Protocol._check_protocol
_hypercorn_send_h11_event = H11Protocol._send_h11_event
_hypercorn_ws_send = WSStream._send_wsproto_event
PATCHED = {
    (TCPServer, "run"): _hypercorn_run,
    (TCPServer, "protocol_send"): _hypercorn_protocol_send,
    (H11Protocol, "_check_protocol"): _hypercorn_check_protocol,
    (H11Protocol, "_send_h11_event"): _hypercorn_send_h11_event,
    (WSStream, "_send_wsproto_event"): _hypercorn_ws_send,
}
"""Hypercorn's methods wrapped here, as they were (a test checks they still exist and take
the arguments the wrappers pass)."""


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


async def _send_in_time(self: TCPServer, event: Event) -> None:
    """Hypercorn's write, given ``send_seconds``: past it the socket is closed, which wakes
    the shielded ``send_all`` with ``ClosedResourceError``; Hypercorn then ends the
    connection as it does for a client that vanished."""
    if not isinstance(event, RawData):
        await _hypercorn_protocol_send(self, event)
        return
    limit = getattr(self.config, "send_seconds", SEND_SECONDS)
    watchdog = trio.CancelScope(shield=True)  # the write itself is shielded: so is its clock

    async def close_when_late() -> None:
        with watchdog:
            await trio.sleep(limit)
            _abort(self.stream)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(close_when_late)
        try:
            await _hypercorn_protocol_send(self, event)
        finally:
            watchdog.cancel()


def _abort(stream: Any) -> None:
    """Reset a connection at once, from outside the task writing to it. With a linger of
    zero the kernel drops what is still unsent and sends RST: a plain close would queue the FIN
    behind the unsent answer, which a client that never reads never lets through, and the
    kernel would keep the connection for many minutes."""
    sock = getattr(stream, "socket", None) or getattr(getattr(stream, "transport_stream", None), "socket", None)
    if sock is None:
        return
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()  # trio's close wakes every task waiting on it (notify_closing)


async def _http1_only(self: H11Protocol, event: h11.Request) -> None:
    """Never switch to HTTP/2: an ``Upgrade: h2c`` is ignored, and the preface request
    (``PRI * HTTP/2.0``) reaches the application, which refuses it (505)."""


async def _with_answer_headers(self: H11Protocol, event: Any) -> None:
    """Hypercorn's sending of one HTTP/1.1 event, a response given the configuration's
    ``answer_headers`` it lacks."""
    extra: tuple[tuple[bytes, bytes], ...] = getattr(self.config, "answer_headers", ())
    if extra and isinstance(event, h11.Response):
        present = {name.lower() for name, _ in event.headers}
        missing = [(name, value) for name, value in extra if name not in present]
        if missing:
            event = h11.Response(
                status_code=event.status_code, headers=[*event.headers.raw_items(), *missing], reason=event.reason
            )
    await _hypercorn_send_h11_event(self, event)


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


TCPServer.run = _one_connection  # type: ignore[method-assign]
TCPServer.protocol_send = _send_in_time  # type: ignore[method-assign]
H11Protocol._check_protocol = _http1_only  # type: ignore[method-assign]
H11Protocol._send_h11_event = _with_answer_headers  # type: ignore[method-assign]
WSStream._send_wsproto_event = _closing_when_too_big  # type: ignore[method-assign]
