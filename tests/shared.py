"""Small helpers several test folders need: the processes a test's marker names (and waiting
for them to go, or ending them), and whether a log verifies move by move."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path

from referee.replay.reader import read_log
from referee.replay.verify import verify


def stray(marker: str) -> list[int]:
    """The processes whose command line holds ``marker`` (what a test left running)."""
    found = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True, check=False)
    return [int(pid) for pid in found.stdout.split()]


def wait_gone(marker: str, timeout: float = 2.0) -> list[int]:
    """The processes with the marker still there after up to ``timeout`` seconds (a group
    member killed by the referee may take a moment to disappear)."""
    deadline = time.monotonic() + timeout
    while (left := stray(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def kill_strays(marker: str) -> None:
    """Clean-up after a failed test: SIGKILL whatever still carries the marker."""
    for pid in stray(marker):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def verified(log: Path) -> str:
    """The verification status of the log's first match (``verified`` when every move checks)."""
    record = verify(read_log(log).matches[0])
    assert record.verification is not None
    return record.verification.status
