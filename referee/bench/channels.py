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

import contextlib
import math
import random
import subprocess
import sys
import time
from pathlib import Path

import msgspec

from referee.match.seats.link import BotLimits, grouped
from referee.sandbox.bwrap import Sandbox
from referee.sandbox.cgroups import BotGroup, CgroupError

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


def _start(sandbox: Sandbox | None, args: list[str], groups: list[BotGroup]) -> subprocess.Popen[str]:
    """Start one end as the referee starts a bot: sandboxed, in a control group of its own,
    with a bot's resource limits (256 descriptors per process)."""
    group, preexec = grouped(BotLimits(sandbox=sandbox), "channel")
    if group is not None:
        groups.append(group)
    launch = sandbox.wrap(args, str(PEER.parent), sandbox.environment(None)) if sandbox is not None else None
    try:
        argv = launch.argv if launch is not None else args
        fds = launch.pass_fds if launch is not None else ()
        return subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, pass_fds=fds, preexec_fn=preexec)  # noqa: PLW1509
    finally:
        if launch is not None:
            launch.close()
        if group is not None:
            group.close_join_fds()


def bench_channel(channel: str, period: float, bits: int, sandbox: Sandbox | None, seed: int = 1) -> ChannelCase:
    draw = random.Random(seed)
    sent = "".join(draw.choice("01") for _ in range(bits))
    start = time.time() + 1.0  # both ends are running by then
    common = [sys.executable, str(PEER)]
    groups: list[BotGroup] = []
    try:
        sender = _start(sandbox, [*common, "send", channel, repr(start), repr(period), sent], groups)
        receiver = _start(sandbox, [*common, "receive", channel, repr(start), repr(period), "0" * bits], groups)
        got, _ = receiver.communicate(timeout=60 + bits * period * 2)
        sender.wait(timeout=60)
    finally:
        for group in groups:
            with contextlib.suppress(CgroupError, OSError):
                group.remove()
    got = got.strip().ljust(bits, "?")[:bits]
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
