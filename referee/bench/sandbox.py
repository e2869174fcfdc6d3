"""``referee bench sandbox``: what the sandbox adds to starting a bot.

A bot is started and shaken hands with (``hello`` both ways) ``count`` times with and without
bubblewrap (with the same clean environment), alternating so that both see the same load; the time is from
starting the process to reading its ``hello``, the start-up cost a ladder with fresh bots pays
once per bot per match. The figures go to ``docs/performance.md``.
"""

from __future__ import annotations

import statistics
import sys
import time

import msgspec
import trio

from referee.players.connection import say_goodbye, start_bot
from referee.players.process import BotLimits
from referee.sandbox.bwrap import Sandbox


class StartupBench(msgspec.Struct, frozen=True, kw_only=True):
    bot: str
    starts: int
    plain_ms: float
    """Median start-up (process start to its hello) without a sandbox."""
    sandboxed_ms: float
    """The same inside the sandbox."""
    added_ms: float
    plain_p90_ms: float
    sandboxed_p90_ms: float


async def _start_once(command: str, cwd: str, limits: BotLimits) -> float:
    async with trio.open_nursery() as nursery:
        start = time.perf_counter()
        connection = await start_bot(command, nursery, 30.0, cwd=cwd, limits=limits)
        took = time.perf_counter() - start
        if connection.failure is not None:
            raise RuntimeError(f"{command}: {connection.failure.message}")
        await say_goodbye(connection, 1.0)
    return took


def bench_startup(sandbox: Sandbox, bot: str, count: int, cwd: str) -> StartupBench:
    """Start ``bot`` ``count`` times each way; medians and 90th percentiles in milliseconds."""
    command = bot.format(python=sys.executable, seed=1)
    plain: list[float] = []
    boxed: list[float] = []

    async def main() -> None:
        # the same clean environment both ways: the referee's own may slow a start (Node reads
        # NODE_EXTRA_CA_CERTS' bundle at start-up, 30 ms here), which is not the sandbox's doing
        same_env = BotLimits(clean_env=True, env={**sandbox.environment(None), "HOME": "/tmp"})
        for _ in range(count):
            plain.append(await _start_once(command, cwd, same_env))
            boxed.append(await _start_once(command, cwd, BotLimits(sandbox=sandbox)))

    trio.run(main)

    def ms(values: list[float], q: float) -> float:
        ordered = sorted(values)
        return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return StartupBench(
        bot=bot,
        starts=count,
        plain_ms=1000 * statistics.median(plain),
        sandboxed_ms=1000 * statistics.median(boxed),
        added_ms=1000 * (statistics.median(boxed) - statistics.median(plain)),
        plain_p90_ms=ms(plain, 0.9),
        sandboxed_p90_ms=ms(boxed, 0.9),
    )
