"""What a sandboxed bot's failure says about its sandbox: read from its stderr and from the
places its sandbox showed it, never from this machine.

A bot that needs a path its sandbox does not show it (a toolchain in an odd place, a data file
beside it named by a path its command does not show) fails at start with a runtime's own
message: ``can't open file '/x/y.py': [Errno 2]``, ``Cannot find module '/x/y'``, ``open
/x/y: no such file or directory``, ``/x/y: Permission denied``. When that path lies outside
every place the sandbox showed the bot, the operator is told the path and the exact option
that would show it (``--sandbox-bind PATH``), in ``match``, ``check`` and ``ladder`` output.

A sandbox run by root runs its bot as a user of its own, so a bot whose files lie in a folder
closed to other users (``mktemp -d`` makes one, mode 0700; so are many home folders) is shown
them and still may not read them: ``can't open file '/x/y.py': [Errno 13] Permission denied``.
When the path lies inside a place the bot was shown, that is said as what it is, with the place
and how to open it, and not as a hidden path (binding it again would change nothing).

**No look at the host.** Whatever path a line names was written by the bot, and the hint ends up
on pages the bot's author reads (a ladder's bot page, ``ladder table --bot``). Were the hint to
depend on whether that path exists here, or on its mode, a bot could ask about any path of the
organizer's machine (``/root/.ssh/id_rsa``, another entrant's files) and read the answer on its
own page. So this module makes no file-system call at all: the places a bot was shown are what
its sandbox computed from its command before it started (``ProcessLink.shown``), paths are
compared as words (``os.path.normpath``: a ``..`` cannot step out of a place), and a path
outside them gets the same words whether or not this machine has it. Symlinks change nothing:
nothing is followed, so a link in a bot's own folder that points into the organizer's home
tells nothing either.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from typing import Final

from referee.sandbox.bwrap import MERGED_DIRS, SYSTEM_PATHS
from referee.sandbox.sight import HOME, inside

FAILED: Final = re.compile(
    r"no such file|not found|cannot find|can't open|cannot open|could not (?:find|open|load)|"
    r"permission denied|enoent|eacces|errno 13|nosuchfile|filenotfound|does not exist",
    re.IGNORECASE,
)
"""Words of a line that says something was not found or not allowed, in the common runtimes."""
PATH: Final = re.compile(r"(?<![\w.~-])(/[^\s'\"`()<>,;:]+)")
SEEN_ANYWAY: Final = (*SYSTEM_PATHS, *MERGED_DIRS, "/proc", "/dev", "/sys", HOME)
"""Paths every sandbox shows (or makes its own): missing there is the bot's own problem."""
MAX_LINES: Final = 400
DENIED: Final = re.compile(r"permission denied|eacces|errno 13", re.IGNORECASE)
"""Words of a line that says the bot was not allowed to read or enter a path."""


def normal(path: str) -> str:
    """``path`` with ``.``, ``..`` and repeated slashes resolved as words, never on the disk:
    ``/shown/../root/x`` is ``/root/x``, outside ``/shown`` (``normpath`` keeps a leading
    ``//``, which is one more way to write ``/``)."""
    return "/" + os.path.normpath(path).lstrip("/")


def _named(stderr: str, failure: re.Pattern[str]) -> Iterator[str]:
    """The path each of the last lines of ``stderr`` that ``failure`` matches is about, in
    order: the last it names (``/venv/bin/python: can't open file '/x/y.py'`` is about
    ``/x/y.py``, not the program that says so)."""
    for line in stderr.splitlines()[-MAX_LINES:]:
        if failure.search(line):
            found = PATH.findall(line)
            if found:
                yield normal(found[-1].rstrip(".]"))


def place_of(path: str, shown: Sequence[str]) -> str | None:
    """The deepest place holding ``path`` among those the bot was shown (``shown``) and those
    every sandbox shows (``SEEN_ANYWAY``); ``None`` when it lies outside all of them."""
    places = [normal(p) for p in shown if normal(p) != "/"]
    holding = [p for p in (*places, *SEEN_ANYWAY) if inside(path, p)]
    return max(holding, key=len, default=None)


def unshown_path(stderr: str, shown: Sequence[str]) -> str | None:
    """The first path a failure line of ``stderr`` is about that lies outside every place the
    bot was shown; ``None`` when there is none."""
    for path in _named(stderr, FAILED):
        if path != "/" and place_of(path, shown) is None:
            return path
    return None


def denied_hint(stderr: str, shown: Sequence[str]) -> str | None:
    """The hint for a bot refused a path inside a place it was shown (its own folder, a bind),
    from the first line of ``stderr`` that says so (``prog: can't open file 'y'``: ``y``);
    ``None`` when there is none. A place every sandbox shows (``/usr``, its home) is the
    system's or the bot's own business: no hint."""
    for path in _named(stderr, DENIED):
        place = place_of(path, shown)
        if place is not None and place not in SEEN_ANYWAY:
            below = "" if path == place else f" and every folder in it down to {path}"
            return (
                f"the bot may not read {path}, in {place}, which its sandbox shows it: the sandbox runs the "
                f"bot as a user of its own, so {place}{below} must be readable by other users "
                f"(chmod -R o+rX {place})"
            )
    return None


def bind_hint(stderr: str, shown: Sequence[str], *, stranger: bool = True) -> str | None:
    """What to tell the operator of a sandboxed bot that failed, from its stderr and the
    places its sandbox showed it (``shown``): a path it was refused in one of them
    (:func:`denied_hint`, only when the bot ran as a user of its own: ``stranger``), else a
    path outside all of them, in the same words whether or not this machine has it."""
    denied = denied_hint(stderr, shown) if stranger else None
    if denied is not None:
        return denied
    path = unshown_path(stderr, shown)
    if path is None:
        return None
    return (
        f"the bot looked for {path}, which its sandbox does not show it: if it needs it, add "
        f"--sandbox-bind {path} (read-only), or keep what it needs in the folder its command names"
    )
