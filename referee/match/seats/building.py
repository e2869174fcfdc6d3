"""Running a bot's build step with bounds: a time limit, a bounded output capture, and a
control group of its own.

A build is an author's code run by the referee before a ladder starts (``build = ...`` in a
bot list). Before, its output was captured whole (a build printing 1 GB took the referee's
memory to 2.98 GB) and it could run for ever. Now only the last ``KEPT_BYTES`` of its output
(stdout and stderr together) are kept and the rest counted; a build over its time is ended,
with every process it made (its session, its control group); and like a bot it runs in a
control group (more memory and processes than a bot: compilers need them).
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from referee.sandbox.cgroups import BotGroup, BotGroupLimits, CgroupError, CgroupHost
from referee.sandbox.groups import bot_groups

BUILD_TIMEOUT: Final = 600.0
"""Seconds a build may take by default (``build_timeout`` in a bot list)."""
KEPT_BYTES: Final = 64 * 1024
"""The end of a build's output kept to show when it fails; the rest is counted, not kept."""
BUILD_GROUP: Final = BotGroupLimits(memory_mb=4096, processes=1024, cpu_cores=float(os.cpu_count() or 1))
"""A build's bounds: a compiler or a package manager needs more than a bot."""


@dataclass(frozen=True)
class BuildRun:
    """How a build ended: its exit status (``None``: ended for its time), the end of its
    output and how many bytes it wrote in all."""

    returncode: int | None
    tail: str
    total_bytes: int
    seconds: float

    @property
    def dropped_bytes(self) -> int:
        return max(0, self.total_bytes - len(self.tail.encode("utf-8", errors="replace")))


def run_build(
    args: Sequence[str], cwd: str | Path, *, pass_fds: Sequence[int] = (), timeout: float = BUILD_TIMEOUT
) -> BuildRun:
    """Run ``args`` (the build, perhaps wrapped in the sandbox) in a session and a control
    group of its own; raises ``OSError`` when it cannot start."""
    group = _group()
    start = time.monotonic()
    try:
        join = group.preexec() if group is not None else None
        process = subprocess.Popen(
            list(args),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            pass_fds=tuple(pass_fds),
            preexec_fn=join,  # noqa: PLW1509 - only writes to open cgroup files
        )
    except BaseException:
        _release(group)
        raise
    finally:
        if group is not None:
            group.close_join_fds()
    try:
        tail, total, ended = _read_bounded(process, start + timeout)
        if ended:  # its output closed; the build itself must still end in time
            try:
                process.wait(timeout=max(0.0, start + timeout - time.monotonic()))
            except subprocess.TimeoutExpired:
                ended = False
    finally:
        _kill(process, group)  # what it left running, or all of it when over its time; reaped
        _release(group)
    code = process.returncode if ended else None
    return BuildRun(returncode=code, tail=tail, total_bytes=total, seconds=time.monotonic() - start)


def _read_bounded(process: subprocess.Popen[bytes], deadline: float) -> tuple[str, int, bool]:
    """Read the build's output until it closes or ``deadline``: its last ``KEPT_BYTES``, the
    bytes read in all, and whether it closed in time."""
    assert process.stdout is not None
    kept = bytearray()
    total = 0
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not selector.select(left):
                return _text(kept), total, False
            chunk = os.read(process.stdout.fileno(), 65536)
            if not chunk:
                return _text(kept), total, True
            total += len(chunk)
            kept += chunk
            if len(kept) > KEPT_BYTES:
                del kept[: len(kept) - KEPT_BYTES]


def _text(data: bytes | bytearray) -> str:
    return data.decode("utf-8", errors="replace")


def _group() -> BotGroup | None:
    host = bot_groups()
    if not isinstance(host, CgroupHost):
        return None
    return host.create("build", BUILD_GROUP)


def _kill(process: subprocess.Popen[bytes], group: BotGroup | None) -> None:
    """End the build and everything it started (its session; its control group)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    if group is not None:
        with contextlib.suppress(CgroupError, OSError):
            group.kill_all()
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=5)
    if process.stdout is not None:
        process.stdout.close()


def _release(group: BotGroup | None) -> None:
    if group is not None:
        with contextlib.suppress(CgroupError, OSError):
            group.remove()
