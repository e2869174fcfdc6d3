"""One end of a covert channel between two bots (for ``referee bench channels``): a script run
inside the sandbox, as a bot would be, with the standard library only.

    python3 channel_peer.py send|receive flock|fcntl|filenr|pagecache=FILE START PERIOD BITS

Both ends share only what two bots at a table share: the clock, files in ``/usr`` they may
read, the kernel's global figures. Bit ``i`` occupies ``[START + i*PERIOD, START + (i+1)*PERIOD)``.
``flock``: the sender holds an exclusive lock on a file in ``/usr`` for a 1; the receiver tries
the lock without waiting at the middle of the slot. ``fcntl``: the same with a POSIX read lock
(allowed on a file opened read-only), which the receiver tests with ``F_GETLK``. ``filenr``: the sender holds 2,000 more
open descriptors for a 1; the receiver reads the machine's open-file count
(``/proc/sys/fs/file-nr``) at the middle and compares it with the count at the start of the
slot. ``pagecache=FILE``: the page cache by timing alone (issue 31: the calls that read or
clear it directly are refused): bit ``i`` is the page at ``i * STRIDE`` of a large file in
``/usr`` that neither has read (the bench drops it from the cache first); the sender reads it
for a 1, the receiver times its own read of it, fast meaning cached. A page read once stays
cached, so the same works from one match to the next. The receiver prints the bits it read;
the sender prints nothing.
"""

from __future__ import annotations

import fcntl
import os
import struct
import sys
import time

SHARED = "/usr/bin/env"
FLOCK = "hh4xqqi4x"
"""``struct flock`` on x86-64 and AArch64: type, whence, start, length, pid."""


def posix_lock(fd: int, kind: int) -> None:
    fcntl.fcntl(fd, fcntl.F_SETLKW, struct.pack(FLOCK, kind, os.SEEK_SET, 0, 0, 0))


def posix_locked(fd: int) -> bool:
    got = fcntl.fcntl(fd, fcntl.F_GETLK, struct.pack(FLOCK, fcntl.F_WRLCK, os.SEEK_SET, 0, 0, 0))
    kind: int = struct.unpack(FLOCK, got)[0]
    return kind != fcntl.F_UNLCK


def wait_until(moment: float) -> None:
    while (left := moment - time.time()) > 0:
        time.sleep(min(left, 0.0005) if left < 0.002 else left - 0.001)


STRIDE = 256 * 1024
"""Pages this far apart: a read's readahead (128 KiB here) never reaches the next bit's page."""
CACHED_SECONDS = 15e-6
"""A read faster than this came from the cache (about 2 us in Python here); from the disk it
took 40 us or more."""


def page_cached(fd: int, i: int) -> bool:
    began = time.perf_counter()
    os.pread(fd, 1, i * STRIDE)
    return time.perf_counter() - began < CACHED_SECONDS


def open_count() -> int:
    with open("/proc/sys/fs/file-nr") as f:
        return int(f.read().split()[0])


def send(channel: str, start: float, period: float, bits: str) -> None:
    fd = os.open(channel.partition("=")[2] or SHARED, os.O_RDONLY)
    for i, bit in enumerate(bits):
        wait_until(start + i * period)
        if bit != "1":
            continue
        if channel.startswith("pagecache"):
            os.pread(fd, 1, i * STRIDE)
        elif channel == "flock":
            fcntl.flock(fd, fcntl.LOCK_EX)
            wait_until(start + (i + 0.9) * period)
            fcntl.flock(fd, fcntl.LOCK_UN)
        elif channel == "fcntl":
            posix_lock(fd, fcntl.F_RDLCK)
            wait_until(start + (i + 0.9) * period)
            posix_lock(fd, fcntl.F_UNLCK)
        else:
            held = []
            try:
                for _ in range(2000):
                    held.append(os.open("/dev/null", os.O_RDONLY))
            except OSError:
                pass
            wait_until(start + (i + 0.9) * period)
            for h in held:
                os.close(h)


def receive(channel: str, start: float, period: float, count: int) -> str:
    fd = os.open(channel.partition("=")[2] or SHARED, os.O_RDONLY)
    out = []
    for i in range(count):
        wait_until(start + (i + 0.05) * period)
        base = open_count() if channel == "filenr" else 0
        wait_until(start + (i + 0.5) * period)
        if channel.startswith("pagecache"):
            out.append("1" if page_cached(fd, i) else "0")
        elif channel == "flock":
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                out.append("1")
            else:
                fcntl.flock(fd, fcntl.LOCK_UN)
                out.append("0")
        elif channel == "fcntl":
            out.append("1" if posix_locked(fd) else "0")
        else:
            out.append("1" if open_count() - base > 1000 else "0")
    return "".join(out)


def main() -> None:
    role, channel, start, period, bits = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
    if role == "send":
        send(channel, start, period, bits)
    else:
        print(receive(channel, start, period, len(bits)), flush=True)


if __name__ == "__main__":
    main()
