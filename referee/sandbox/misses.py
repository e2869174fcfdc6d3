"""Which path a sandboxed bot looked for and did not find: read from its stderr.

A bot that needs a path the sandbox does not show it (a toolchain in an odd place, a data file
beside it named by a path its command does not show) fails at start with a runtime's own
message: ``can't open file '/x/y.py': [Errno 2]``, ``Cannot find module '/x/y'``, ``open
/x/y: no such file or directory``, ``/x/y: Permission denied``. When the path such a line names
exists on this machine, the sandbox hid it: the operator is told the path and the exact option
that shows it (``--sandbox-bind PATH``), in ``match``, ``check`` and ``ladder`` output.
"""

from __future__ import annotations

import os
import re
from typing import Final

from referee.sandbox.bwrap import MERGED_DIRS, SYSTEM_PATHS
from referee.sandbox.sight import HOME, inside

FAILED: Final = re.compile(
    r"no such file|not found|cannot find|can't open|cannot open|could not (?:find|open|load)|"
    r"permission denied|enoent|eacces|nosuchfile|filenotfound|does not exist",
    re.IGNORECASE,
)
"""Words of a line that says something was not found or not allowed, in the common runtimes."""
PATH: Final = re.compile(r"(?<![\w.~-])(/[^\s'\"`()<>,;:]+)")
SEEN_ANYWAY: Final = (*SYSTEM_PATHS, *MERGED_DIRS, "/proc", "/dev", "/sys", HOME)
"""Paths every sandbox shows (or makes its own): missing there is the bot's own problem."""
MAX_LINES: Final = 400


def hidden_path(stderr: str) -> str | None:
    """The first path that a failure line of ``stderr`` names, that exists on this machine and
    that the sandbox does not show every bot; ``None`` when there is none."""
    for line in stderr.splitlines()[-MAX_LINES:]:
        if not FAILED.search(line):
            continue
        for found in PATH.findall(line):  # one group: a str each
            assert isinstance(found, str)
            path = os.path.normpath(found.rstrip(".]"))
            if any(inside(path, seen) for seen in SEEN_ANYWAY) or path == "/":
                continue
            if os.path.exists(path):
                return path
    return None


def bind_hint(stderr: str) -> str | None:
    """What to tell the operator of a sandboxed bot that failed, from its stderr."""
    path = hidden_path(stderr)
    if path is None:
        return None
    return (
        f"the bot looked for {path}, which is on this machine but not in its sandbox: add "
        f"--sandbox-bind {path} (read-only), or keep what the bot needs in the folder its command names"
    )
