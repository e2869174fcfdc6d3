"""Files only the referee may read: logs and the ladder's database hold every hand, so no other
user, and no sandboxed bot, may read them."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import IO


def open_private(path: Path) -> IO[bytes]:
    """Open a log for appending, readable by its owner only (0600; a new folder 0700): a log
    holds every hand, so no other user, and no sandboxed bot, may read it."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    close_up(fd)  # an older, more open file is closed up before anything is added
    return os.fdopen(fd, "ab")


def close_up(fd: int) -> None:
    """Make an open file of ours 0600 if it is more open (a file of another owner is left as
    it is: only its owner may change its mode)."""
    with contextlib.suppress(OSError):
        if os.fstat(fd).st_mode & 0o077:
            os.fchmod(fd, 0o600)


def create_private(path: str | Path) -> None:
    """Create an empty private log file now (before any bot starts, so that the sandbox can
    hide it)."""
    open_private(Path(path)).close()
