"""``referee bench channels``: how fast two colluding bots can still signal each other.

Two sandboxed processes, started as the referee starts bots (bubblewrap, a uid each, a control
group each), share nothing but the machine: ``channel_peer.py`` sends a seeded random bit
string through one kernel facility at a given slot length, the other end reads it, and the bits
that arrive wrong are counted. The rate a channel carries is its capacity at that error rate,
``(1 - H(p)) / period`` bits per second (``H``: binary entropy), the best over the periods
tried. Figures go to ``docs/security.md``; ``inotify`` is refused by the seccomp filter (its
test checks the calls fail) and so is not measured here.
"""

from __future__ import annotations

import functools
import math
import random
import sys
import time
from pathlib import Path

import msgspec
import trio

from referee.match.seats.link import BotLimits, ProcessLink
from referee.sandbox.bwrap import Sandbox

PEER = Path(__file__).resolve().parent / "channel_peer.py"
CHANNELS = ("flock", "fcntl", "filenr")
PERIODS = (0.02, 0.005, 0.001, 0.0002)


class ChannelCase(msgspec.Struct, frozen=True, kw_only=True):
    channel: str
    period_ms: float
    bits: int
    errors: int
    raw_bits_per_second: float
    capacity_bits_per_second: float
    """What the channel carries at this error rate: ``(1 - H(errors/bits)) / period``."""


def capacity(errors: int, bits: int, period: float) -> float:
    p = min(errors / bits, 0.5)
    entropy = 0.0 if p in (0.0, 1.0) else -p * math.log2(p) - (1 - p) * math.log2(1 - p)
    return round((1 - entropy) / period, 1)


def bench_channel(channel: str, period: float, bits: int, sandbox: Sandbox | None, seed: int = 1) -> ChannelCase:
    draw = random.Random(seed)
    sent = "".join(draw.choice("01") for _ in range(bits))
    start = time.time() + 1.0  # both ends are running by then
    timing = [channel, repr(start), repr(period)]
    limits = BotLimits(sandbox=sandbox)  # each end started as a bot is: its sandbox, group, limits

    async def both() -> str:
        async with trio.open_nursery() as nursery:
            start_end = functools.partial(ProcessLink.start, nursery=nursery, cwd=PEER.parent, limits=limits)
            sender = await start_end([sys.executable, str(PEER), "send", *timing, sent])
            receiver = await start_end([sys.executable, str(PEER), "receive", *timing, "0" * bits], max_line=bits + 64)
            try:
                with trio.fail_after(60 + bits * period * 2):
                    line = await receiver.receive_line()
                    await sender.wait_exit(60)
            finally:
                await sender.close(0.5)
                await receiver.close(0.5)
        return line.decode("ascii", errors="replace")

    got = trio.run(both).strip().ljust(bits, "?")[:bits]
    errors = sum(a != b for a, b in zip(sent, got, strict=True))
    return ChannelCase(
        channel=channel,
        period_ms=period * 1000,
        bits=bits,
        errors=errors,
        raw_bits_per_second=round(1 / period, 1),
        capacity_bits_per_second=capacity(errors, bits, period),
    )


def bench_channels(
    sandbox: Sandbox | None, channels: tuple[str, ...] = CHANNELS, periods: tuple[float, ...] = PERIODS, bits: int = 400
) -> list[ChannelCase]:
    return [bench_channel(channel, period, bits, sandbox) for channel in channels for period in periods]
