"""Which path a sandboxed bot looked for and did not find: read from its stderr.

A bot that needs a path the sandbox does not show it (a toolchain in an odd place, a data file
beside it named by a path its command does not show) fails at start with a runtime's own
message: ``can't open file '/x/y.py': [Errno 2]``, ``Cannot find module '/x/y'``, ``open
/x/y: no such file or directory``, ``/x/y: Permission denied``. When the path such a line names
exists on this machine, the sandbox hid it: the operator is told the path and the exact option
that shows it (``--sandbox-bind PATH``), in ``match``, ``check`` and ``ladder`` output.

A sandbox runs its bot as a user of its own, so a bot whose files lie in a folder closed to
other users (``mktemp -d`` makes one, mode 0700; so are many home folders) is shown them and
still may not read them: ``can't open file '/x/y.py': [Errno 13] Permission denied``. That is
said as what it is, with the folder that shuts the bot out and how to open it, and not as a
hidden path (binding it again would change nothing).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
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
DENIED: Final = re.compile(r"permission denied|eacces|errno 13", re.IGNORECASE)
"""Words of a line that says the bot was not allowed to read or enter a path."""


def _paths(stderr: str, failure: re.Pattern[str]) -> Iterator[list[str]]:
    """The paths each of the last lines of ``stderr`` that ``failure`` matches names, in order."""
    for line in stderr.splitlines()[-MAX_LINES:]:
        if failure.search(line):
            yield [os.path.normpath(found.rstrip(".]")) for found in PATH.findall(line)]


def hidden_path(stderr: str) -> str | None:
    """The first path that a failure line of ``stderr`` names, that exists on this machine and
    that the sandbox does not show every bot; ``None`` when there is none."""
    for paths in _paths(stderr, FAILED):
        for path in paths:
            if any(inside(path, seen) for seen in SEEN_ANYWAY) or path == "/":
                continue
            if os.path.exists(path):
                return path
    return None


def closed_to_others(path: str) -> str | None:
    """``path`` itself when other users may not read it (enter it, for a folder), else the
    deepest folder on the way to it that they may not enter; ``None`` when they may, or when
    ``path`` is not on this machine.

    The deepest, since a sandbox makes the folders above what it shows anew, open: a closed
    folder that shuts a bot out lies inside what it was shown."""
    try:
        if not os.path.exists(path):
            return None
        target = os.path.abspath(path)
        needed = stat.S_IXOTH if os.path.isdir(target) else stat.S_IROTH
        if not os.stat(target).st_mode & needed:
            return target
        folder = os.path.dirname(target)
        while True:
            if not os.stat(folder).st_mode & stat.S_IXOTH:
                return folder
            if folder == "/":
                return None
            folder = os.path.dirname(folder)
    except OSError:
        return None


def denied_hint(stderr: str) -> str | None:
    """The hint for a sandboxed bot refused a path that other users may not read, from the
    last such path on a line of ``stderr`` that says so (``prog: can't open file 'y'``: ``y``);
    ``None`` when there is none."""
    for paths in _paths(stderr, DENIED):
        for path in reversed(paths):
            blocker = closed_to_others(path)
            if blocker is None:
                continue
            opening = "o+x" if os.path.isdir(blocker) else "o+r"
            return (
                f"the bot may not read {path}: its sandbox runs it as a user of its own, and {blocker} is "
                f"closed to other users (mode {stat.S_IMODE(os.stat(blocker).st_mode):o}): open it to them "
                f"(chmod {opening} {blocker}), or keep the bot in a folder other users may read"
            )
    return None


def bind_hint(stderr: str) -> str | None:
    """What to tell the operator of a sandboxed bot that failed, from its stderr: a path it may
    not read (:func:`denied_hint`), else a path its sandbox hid."""
    denied = denied_hint(stderr)
    if denied is not None:
        return denied
    path = hidden_path(stderr)
    if path is None:
        return None
    return (
        f"the bot looked for {path}, which is on this machine but not in its sandbox: add "
        f"--sandbox-bind {path} (read-only), or keep what the bot needs in the folder its command names"
    )
