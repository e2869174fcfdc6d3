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


C_BOT = Path(__file__).resolve().parent.parent / "sample_bots" / "c" / "bot"
"""The sample C bot, built once when process tests are collected (``tests/conftest.py``)."""


def quick_bot(python: str, *, random_seed: int | None = None) -> str:
    """A bot command for a test that needs a real process but not a language: the sample C bot
    (first legal card, or random legal moves with ``random_seed``), which starts in about a
    millisecond where a Python bot takes 200 ms of CPU; ``python``, the Python bot that plays
    alike, where the C bot could not be built (no compiler: the suite still runs)."""
    if not os.access(C_BOT, os.X_OK):
        return python
    return f"{C_BOT}" if random_seed is None else f"{C_BOT} --random {random_seed}"
