"""A small WebSocket client for the tests, on wsproto (Hypercorn's own WebSocket library) over a
real trio TCP stream: it sends text or binary messages and reads the referee's lines."""

from __future__ import annotations

import json
from typing import Any

import trio
from wsproto import ConnectionType, WSConnection
from wsproto.events import (
    AcceptConnection,
    BytesMessage,
    CloseConnection,
    Message,
    RejectConnection,
    RejectData,
    Request,
    TextMessage,
)


class Refused(Exception):
    """The server refused the WebSocket handshake (its HTTP status)."""

    def __init__(self, status: int) -> None:
        super().__init__(f"refused with HTTP {status}")
        self.status = status


class Closed(Exception):
    """The server closed the WebSocket."""


class WsClient:
    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.ws = WSConnection(ConnectionType.CLIENT)
        self._pending: list[str | bytes] = []
        self._parts: list[Any] = []
        self.closed = False
        self.received: list[dict[str, Any]] = []
        """Every message read, decoded."""

    @classmethod
    async def connect(
        cls, url: str, token: str, path: str = "/ws", origin: str | None = None, query: str = ""
    ) -> WsClient:
        """Open ``path`` with ``token`` (and ``query`` after it); ``origin``: the ``Origin``
        header a browser would send (none, as from a program that is not a browser, by default)."""
        host_port = url.removeprefix("http://")
        host, _, port = host_port.rpartition(":")
        stream = await trio.open_tcp_stream(host, int(port))
        client = cls(stream)
        headers = [(b"origin", origin.encode())] if origin is not None else []
        request = Request(host=host_port, target=f"{path}?token={token}{query}", extra_headers=headers)
        await client._write(client.ws.send(request))
        while True:
            for event in await client._events():
                if isinstance(event, AcceptConnection):
                    return client
                if isinstance(event, RejectConnection):
                    await stream.aclose()
                    raise Refused(event.status_code)

    async def _write(self, data: bytes) -> None:
        await self.stream.send_all(data)

    async def _events(self) -> list[Any]:
        data = await self.stream.receive_some(65536)
        if not data:
            self.closed = True
            raise Closed("the connection ended")
        self.ws.receive_data(data)
        return list(self.ws.events())

    async def send_text(self, text: str) -> None:
        await self._write(self.ws.send(Message(data=text)))

    async def send_bytes(self, data: bytes) -> None:
        await self._write(self.ws.send(Message(data=data)))

    async def send(self, message: dict[str, Any]) -> None:
        await self.send_text(json.dumps(message))

    async def receive(self) -> dict[str, Any]:
        """The next referee line, decoded. Raises ``Closed`` when the server closes."""
        while not self._pending:
            if self.closed:
                raise Closed("closed")
            for event in await self._events():
                if isinstance(event, TextMessage | BytesMessage):
                    self._parts.append(event.data)
                    if event.message_finished:
                        joined = "".join(self._parts) if isinstance(event, TextMessage) else b"".join(self._parts)
                        self._pending.append(joined)
                        self._parts = []
                elif isinstance(event, CloseConnection):
                    self.closed = True
                    if self.ws.state.name == "REMOTE_CLOSING":
                        await self._write(self.ws.send(event.response()))
                elif isinstance(event, RejectData):
                    pass
        text = self._pending.pop(0)
        assert isinstance(text, str), "the referee sent a binary message"
        message: dict[str, Any] = json.loads(text)
        self.received.append(message)
        return message

    async def hello(self, name: str = "person") -> dict[str, Any]:
        """The protocol's handshake: the referee's hello, then ours."""
        hello = await self.receive()
        assert hello["type"] == "hello"
        await self.send({"type": "hello", "version": 1, "name": name})
        return hello

    async def aclose(self) -> None:
        """Drop the connection without a closing handshake (a tab closed, a reload)."""
        await self.stream.aclose()
