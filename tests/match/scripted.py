"""In-memory bots for runner tests: a ``MemoryLink`` joins the referee to a bot coroutine
through trio memory streams, so time-outs run on ``MockClock`` without real processes."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import trio
import trio.testing

from protocol.ruleset import RuleSet
from referee.match.config import MatchConfig
from referee.match.log import MatchLog
from referee.match.outcome import MatchOutcome
from referee.match.runner import MatchRunner
from referee.players.channel import BotLink
from referee.players.connection import BotConnection, handshake
from tests.bots.first_legal_bot import answer

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
    """The reply of a well-behaved bot that takes the first legal option (as
    tests/bots/first_legal_bot.py does)."""
    reply = answer(message, "first")
    return [] if reply is None else [json.dumps(reply).encode()]


class Lines:
    """The lines that come on a stream, one at a time, without their newline: what a bot
    reads from the referee (in memory here, over TCP in the socket tests)."""

    def __init__(self, stream: trio.abc.ReceiveStream) -> None:
        self.stream = stream
        self.buffer = b""

    async def next(self) -> bytes | None:
        """The next line; ``None`` once the stream ends (a line without its newline is lost)."""
        while b"\n" not in self.buffer:
            data = await self.stream.receive_some(65536)
            if not data:
                return None
            self.buffer += data
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line


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
        lines = Lines(stream)
        try:
            while (line := await lines.next()) is not None:
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


async def play_on(
    connections: Sequence[BotConnection],
    rules: RuleSet,
    *,
    seed: int,
    config: MatchConfig,
    nursery: trio.Nursery,
    log: MatchLog | None = None,
    match_id: str | None = None,
) -> MatchOutcome:
    """One match on connections made in ``nursery``: every bot shakes hands, the runner plays
    the match (``log``: none by default), then every link is closed."""
    for connection in connections:
        await handshake(connection, config.startup)
    log = log or MatchLog(None)
    runner = MatchRunner(connections, rules, seed=seed, config=config, log=log, nursery=nursery, match_id=match_id)
    outcome = await runner.run()
    for connection in connections:
        await connection.link.close()
    return outcome


def logged_match(path: Path, match_id: str, rules: RuleSet, seed: int = 3) -> list[bytes]:
    """A whole match of four scripted bots logged at ``path`` as the referee logs it: its lines."""

    async def play() -> None:
        log = MatchLog(path)
        async with trio.open_nursery() as nursery:
            connections = [await connect(ScriptedBot(), nursery) for _ in range(4)]
            await play_on(connections, rules, seed=seed, config=MatchConfig(), nursery=nursery, log=log,
                          match_id=match_id)  # fmt: skip
        log.close()

    trio.run(play)
    return path.read_bytes().splitlines(keepends=True)
