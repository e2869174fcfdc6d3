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
from referee.sandbox.sight import HOME, SHARED, SHARED_ROOTS, inside

FAILED: Final = re.compile(
    r"no such file|not found|cannot find|can't open|cannot open|could not (?:find|open|load)|failed opening|"
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
READ_ONLY: Final = re.compile(r"read-only file system|erofs|errno 30", re.IGNORECASE)
"""Words of a line that says the bot tried to write where it may only read."""
AT_LINE: Final = re.compile(r"\s(?:in|at) /\S+?(?: on line \d+|:\d+)\s*$")
"""Where a runtime says its failure happened, at the end of a line (PHP: ``in /p/x.php on
line 3``, ``in /p/x.php:3``)."""
WRITABLE: Final = ("/tmp", HOME)
"""Where a sandboxed bot may write: its private ``/tmp`` and its home (both its own, emptied
with it)."""
CODE_FOLDERS: Final = frozenset(
    {"bin", "src", "lib", "lib64", "vendor", "node_modules", "app", "cmd", "scripts", "classes", "dist", "build",
     "target", "out", "include", "config", "share", "libexec", "deps", "_build", "pkg", "gems", ".venv", "venv"}
)  # fmt: skip
"""Names of the parts of a bot's project (``bin/`` beside ``src/`` and ``vendor/``): a path
refused beside one that was shown ends its chain in the folder holding both."""


def normal(path: str) -> str:
    """``path`` with ``.``, ``..`` and repeated slashes resolved as words, never on the disk:
    ``/shown/../root/x`` is ``/root/x``, outside ``/shown`` (``normpath`` keeps a leading
    ``//``, which is one more way to write ``/``)."""
    return "/" + os.path.normpath(path).lstrip("/")


def _lines(stderr: str, failure: re.Pattern[str]) -> Iterator[list[str]]:
    """The paths each of the last lines of ``stderr`` that ``failure`` matches names, in
    order, as words (``normal``), without the place a runtime says it was at (PHP's ``... in
    /p/src/Client.php on line 3``: the file that asked, not the path refused)."""
    for line in stderr.splitlines()[-MAX_LINES:]:
        if failure.search(line):
            found = [normal(p.rstrip(".]")) for p in PATH.findall(AT_LINE.sub("", line))]
            if found:
                yield found


def place_of(path: str, shown: Sequence[str]) -> str | None:
    """The deepest place holding ``path`` among those the bot was shown (``shown``) and those
    every sandbox shows (``SEEN_ANYWAY``); ``None`` when it lies outside all of them."""
    places = [normal(p) for p in shown if normal(p) != "/"]
    holding = [p for p in (*places, *SEEN_ANYWAY) if inside(path, p)]
    return max(holding, key=len, default=None)


def unshown_path(stderr: str, shown: Sequence[str]) -> str | None:
    """The first path a failure line of ``stderr`` names that lies outside every place the bot
    was shown (the program that says so, shown, comes before it); ``None`` when there is none."""
    for paths in _lines(stderr, FAILED):
        for path in paths:
            if path != "/" and place_of(path, shown) is None:
                return path
    return None


def denied_hint(stderr: str, shown: Sequence[str]) -> str | None:
    """The hint for a bot refused a path inside a place it was shown (its own folder, a bind),
    from the first line of ``stderr`` that says so, about the last path it names (``prog:
    can't open file 'y'``: ``y``); ``None`` when there is none. A place every sandbox shows
    (``/usr``, its home) is the system's or the bot's own business: no hint."""
    for paths in _lines(stderr, DENIED):
        path = paths[-1]
        place = place_of(path, shown)
        if path != "/" and place is not None and place not in SEEN_ANYWAY:
            below = "" if path == place else f" and every folder in it down to {path}"
            return (
                f"the bot may not read {path}, in {place}, which its sandbox shows it: the sandbox runs the "
                f"bot as a user of its own, so {place}{below} must be readable by other users "
                f"(chmod -R o+rX {place})"
            )
    return None


def write_hint(stderr: str, shown: Sequence[str]) -> str | None:
    """The hint for a bot that tried to write where its sandbox lets it only read (its own
    folder, shown read-only; anything else but its ``/tmp`` and home), from the first line of
    ``stderr`` that says so (``Read-only file system``), about the last path it names."""
    for paths in _lines(stderr, READ_ONLY):
        path = paths[-1]
        place = place_of(path, shown)
        if place in WRITABLE or (place is None and inside(path, "/tmp")):
            continue  # its own scratch (a full one, or a write the bot got wrong): no sandbox matter
        where = "which its sandbox does not show it" if place is None else f"in {place}, which its sandbox shows it"
        return (
            f"the bot tried to write {path}, {where} read-only: a sandboxed bot may write only in its private "
            f"/tmp ($TMPDIR) and its home {HOME} ($HOME), both emptied when it ends: write caches and scratch "
            "files there (what it must keep, make before the match, in its folder)"
        )
    return None


def _shared_words(folder: str) -> bool:
    """``referee.sandbox.sight.shared`` as words: ``/``, a shared folder or one holding one, a
    home folder itself (``/home/NAME``, ``/root``)."""
    if any(inside(s, folder) for s in (*SHARED, *SHARED_ROOTS)):
        return True
    return folder == "/root" or folder.rsplit("/", 1)[0] == "/home"


def _common(one: str, other: str) -> str:
    """The deepest folder holding both paths, as words."""
    same: list[str] = []
    for a, b in zip(one.split("/")[1:], other.split("/")[1:], strict=False):
        if a != b:
            break
        same.append(a)
    return "/" + "/".join(same)


def chain_end(path: str, shown: Sequence[str]) -> str | None:
    """The folder that ends the chain of binds for ``path``, a path outside what the bot was
    shown: the deepest folder holding both it and a place the bot was shown, when the parts of
    it below that folder are a project's (``bin/`` and ``vendor/``: ``CODE_FOLDERS``) and it is
    no shared folder. ``php /p/bin/bot`` is shown ``/p/bin``; it needs ``/p/vendor/x.php``, then
    ``/p/src/Y.php``: binding ``/p`` ends it at once. ``None``: bind the path itself."""
    ends: list[str] = []
    for place in (normal(p) for p in shown):
        if place in SEEN_ANYWAY or place == "/" or inside(path, place):
            continue
        common = _common(path, place)
        if common in (path, place) or _shared_words(common):
            continue
        parts = {p[len(common) :].lstrip("/").split("/")[0] for p in (path, place)}
        if parts & CODE_FOLDERS:
            ends.append(common)
    return max(ends, key=len, default=None)


def bind_hint(stderr: str, shown: Sequence[str], *, stranger: bool = True) -> str | None:
    """What to tell the operator of a sandboxed bot that failed, from its stderr and the
    places its sandbox showed it (``shown``): a write where it may only read
    (:func:`write_hint`), a path it was refused in one of them (:func:`denied_hint`, only when
    the bot ran as a user of its own: ``stranger``), else a path outside all of them, in the
    same words whether or not this machine has it, with the bind that shows it: the folder that
    ends the chain (:func:`chain_end`) when there is one, else the path."""
    for said in (write_hint(stderr, shown), denied_hint(stderr, shown) if stranger else None):
        if said is not None:
            return said
    path = unshown_path(stderr, shown)
    if path is None:
        return None
    end = chain_end(path, shown)
    if end is not None:
        return (
            f"the bot looked for {path}, which its sandbox does not show it: it lies in {end}, which holds the "
            f"bot's other parts too, so show it the whole folder: add --sandbox-bind {end} (read-only), or start "
            f"the bot in {end} as its own folder (shown whole), with a command relative to it"
        )
    return (
        f"the bot looked for {path}, which its sandbox does not show it: if it needs it, add "
        f"--sandbox-bind {path} (read-only), or keep what it needs in the folder its command names"
    )
