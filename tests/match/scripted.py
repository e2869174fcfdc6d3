"""In-memory bots for runner tests: a ``MemoryLink`` joins the referee to a bot coroutine
through trio memory streams, so time-outs run on ``MockClock`` without real processes."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import trio
import trio.testing

from referee.match.seats.connection import BotConnection
from referee.match.seats.link import BotLink

Reply = Callable[[dict[str, Any]], Awaitable[list[bytes] | None]]
"""A bot's brain: given a decoded referee message, the raw lines to send back (``None``: hang
up)."""


class MemoryLink(BotLink):
    def __init__(self, stream: trio.abc.HalfCloseableStream, max_line: int = 64 * 1024) -> None:
        super().__init__(max_line)
        self.stream = stream
        self.closed = False

    async def _receive_some(self) -> bytes | bytearray:
        return await self.stream.receive_some(65536)

    async def _send_all(self, data: bytes) -> None:
        await self.stream.send_all(data)

    async def close(self, grace: float = 1.0) -> None:
        self.closed = True
        await self.stream.aclose()


def first_legal(message: dict[str, Any]) -> list[bytes]:
    """The reply of a well-behaved bot that takes the first legal option."""
    kind = message["type"]
    if kind == "hello":
        return [json.dumps({"type": "hello", "version": 1, "name": "first"}).encode()]
    if kind == "pass_request":
        return [
            json.dumps({"type": "pass", "id": message["id"], "cards": message["legal"][: message["count"]]}).encode()
        ]
    if kind == "play_request":
        return [json.dumps({"type": "play", "id": message["id"], "card": message["legal"][0]}).encode()]
    if kind == "declare_request":
        return [json.dumps({"type": "declare", "id": message["id"], "declare": False}).encode()]
    if kind == "moon_request":
        return [json.dumps({"type": "moon", "id": message["id"], "choice": "add_to_others"}).encode()]
    return []


async def good(message: dict[str, Any]) -> list[bytes] | None:
    return first_legal(message)


class ScriptedBot:
    """Runs a brain against a stream and keeps every message it received (decoded, and the
    lines as they came)."""

    def __init__(self, brain: Reply = good) -> None:
        self.brain = brain
        self.received: list[dict[str, Any]] = []
        self.lines: list[bytes] = []

    async def serve(self, stream: trio.abc.HalfCloseableStream) -> None:
        buffer = b""
        try:
            while True:
                data = await stream.receive_some(65536)
                if not data:
                    return
                buffer += data
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    message = json.loads(line)
                    self.received.append(message)
                    self.lines.append(line)
                    if message["type"] == "goodbye" or (message["type"] == "error" and message["fatal"]):
                        await stream.aclose()
                        return
                    replies = await self.brain(message)
                    if replies is None:
                        await stream.aclose()
                        return
                    for reply in replies:
                        try:
                            await stream.send_all(reply + b"\n")
                        except (trio.BrokenResourceError, trio.ClosedResourceError):
                            break  # the referee hung up; read what it said before that
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return


async def connect(bot: ScriptedBot, nursery: trio.Nursery, max_line: int = 64 * 1024) -> BotConnection:
    ours, theirs = trio.testing.memory_stream_pair()
    nursery.start_soon(bot.serve, theirs)
    return BotConnection(link=MemoryLink(ours, max_line), command="scripted")
