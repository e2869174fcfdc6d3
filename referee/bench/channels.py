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

import ctypes
import functools
import math
import mmap
import os
import random
import stat
import sys
import time
from pathlib import Path

import msgspec
import trio

from referee.bench.channel_peer import STRIDE
from referee.players.process import BotLimits, ProcessLink
from referee.sandbox.bwrap import Sandbox

PEER = Path(__file__).resolve().parent / "channel_peer.py"
CHANNELS = ("flock", "fcntl", "filenr", "pagecache", "pagecache-next")
"""``pagecache-next``: the page cache from one match to the next (the receiver starts reading
when the sender has ended)."""
BIG_FILES = (Path("/usr/lib"), Path("/usr/share"))
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


def cold_file(bits: int) -> Path:
    """A large regular file under ``/usr/lib`` or ``/usr/share`` (every bot sees them) whose
    pages at ``i * STRIDE`` for every bit are not cached once dropped (from outside: the bench
    may advise; a file some running program maps, such as a browser's binary, stays cached and
    is passed over), checked with ``mincore``, which the bench may use."""
    for found in (p for p in _largest_shared_files() if p.stat().st_size >= bits * STRIDE):
        fd = os.open(found, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            if not any(_cached(fd, i * STRIDE) for i in range(bits)):
                return found
        finally:
            os.close(fd)
    raise ValueError(f"no file in /usr of {bits * STRIDE} bytes whose pages can be dropped from the cache")


@functools.cache
def _largest_shared_files() -> tuple[Path, ...]:
    """Every file of ``BIG_FILES`` a bot may read, largest first: walked once per bench, not
    once per case (a second or more of the run's start each time)."""
    files = [p for top in BIG_FILES for p in top.rglob("*") if _readable_by_all(p)]
    return tuple(sorted(files, key=lambda p: -p.stat().st_size))


def _readable_by_all(path: Path) -> bool:
    """A regular file any uid may read (a bot runs as a uid of its own), its folders too."""
    if path.is_symlink() or not path.is_file() or not path.stat().st_mode & stat.S_IROTH:
        return False
    return all(folder.stat().st_mode & stat.S_IXOTH for folder in path.parents)


def _cached(fd: int, offset: int) -> bool:
    """Whether the page at ``offset`` is in the cache, by ``mincore`` on a private mapping (from
    outside the sandbox; a read, even with ``RWF_NOWAIT``, would start reading it in)."""
    page = mmap.PAGESIZE
    with mmap.mmap(fd, page, access=mmap.ACCESS_COPY, offset=offset - offset % mmap.ALLOCATIONGRANULARITY) as mapped:
        address = ctypes.addressof(ctypes.c_char.from_buffer(mapped))
        vector = (ctypes.c_ubyte * 1)()
        if _LIBC.mincore(ctypes.c_void_p(address), page, vector) != 0:
            raise OSError(ctypes.get_errno(), "mincore failed")
        return bool(vector[0] & 1)


_LIBC = ctypes.CDLL(None, use_errno=True)


def bench_channel(channel: str, period: float, bits: int, sandbox: Sandbox | None, seed: int = 1) -> ChannelCase:
    draw = random.Random(seed)
    sent = "".join(draw.choice("01") for _ in range(bits))
    name = f"pagecache={cold_file(bits)}" if channel.startswith("pagecache") else channel
    start = time.time() + 1.0  # both ends are running by then
    timing = [name, repr(start), repr(period)]
    later = start + bits * period + 0.5 if channel == "pagecache-next" else start  # after the sender's end
    reading = [name, repr(later), repr(period)]
    limits = BotLimits(sandbox=sandbox)  # each end started as a bot is: its sandbox, group, limits

    async def both() -> str:
        async with trio.open_nursery() as nursery:
            start_end = functools.partial(ProcessLink.start, nursery=nursery, cwd=PEER.parent, limits=limits)
            sender = await start_end([sys.executable, str(PEER), "send", *timing, sent])
            receiver = await start_end([sys.executable, str(PEER), "receive", *reading, "0" * bits], max_line=bits + 64)
            try:
                with trio.fail_after(60 + bits * period * 3):
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
