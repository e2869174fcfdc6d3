"""Small helpers several test folders need: the processes a test's marker names, and whether a
log verifies move by move."""

from __future__ import annotations

import subprocess
from pathlib import Path

from referee.replay.reader import read_log
from referee.replay.verify import verify


def stray(marker: str) -> list[int]:
    """The processes whose command line holds ``marker`` (what a test left running)."""
    found = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True, check=False)
    return [int(pid) for pid in found.stdout.split()]


def verified(log: Path) -> str:
    """The verification status of the log's first match (``verified`` when every move checks)."""
    record = verify(read_log(log).matches[0])
    assert record.verification is not None
    return record.verification.status
