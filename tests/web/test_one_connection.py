"""One page's connection can never end the server (issue 24): Hypercorn runs every connection
in the server's own nursery, and a ``trio.BusyResourceError`` from one (a page that sent an
oversized message and closed at once) ended the whole referee. Here a real Hypercorn server
serves real connections; the first one's send fails as that race made it fail, and the
server goes on serving the next."""

from __future__ import annotations

from typing import Any

import pytest
import trio
from hypercorn.trio.tcp_server import TCPServer

from referee.web.asgi import hypercorn_config, listen


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    body = b"still here\n"
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"11")]})
    await send({"type": "http.response.body", "body": body})


async def get(port: int) -> bytes:
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    async with stream:
        await stream.send_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        data = b""
        with trio.move_on_after(30):  # a hang guard
            while chunk := await stream.receive_some(65536):
                data += chunk
        return data


async def test_a_connection_that_fails_inside_hypercorn_ends_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    send = TCPServer.protocol_send
    failed: list[int] = []

    async def busy_once(self: TCPServer, event: Any) -> None:
        if not failed:
            failed.append(1)
            raise trio.BusyResourceError("another task is already sending on this stream")  # the race
        await send(self, event)

    monkeypatch.setattr(TCPServer, "protocol_send", busy_once)
    async with trio.open_nursery() as nursery:
        url = await listen(app, hypercorn_config("127.0.0.1", 0, 65536), nursery)
        port = int(url.rsplit(":", 1)[1])
        first = await get(port)
        assert failed and b"still here" not in first  # that connection ended, without an answer
        second = await get(port)
        assert second.startswith(b"HTTP/1.1 200") and second.endswith(b"still here\n")
        nursery.cancel_scope.cancel()
