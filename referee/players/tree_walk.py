"""Walking a folder tree a build made, by open folder descriptors, never by whole paths.

A build's output is the author's: it once nested folders deeper than ``PATH_MAX`` and the
referee, which ``chown``-ed each entry by its whole path, ended with ``File name too long``
before any match. So every step here names one entry relative to its open folder (``dir_fd``),
and the walk holds one folder descriptor however deep it goes: it comes back up by ``..``,
checked to be the folder it came down from (a tree deeper than the limit of open descriptors
would end a walk that held one per level; Python's recursion too). Links are never followed
(``O_NOFOLLOW``; a link is an entry like a file), and names are any bytes (``os.fsencode``
gives them back whole: non-UTF-8, newlines).

Nothing may change a tree while it is walked: the build that wrote it has ended with every
process it made, and the referee's copies are its own.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable, Iterator
from typing import Final

from referee.errors import RefereeError
from referee.names import printable

FOLDER_FLAGS: Final = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
"""How a folder of the tree is opened: a folder, never through a link."""

Visit = Callable[[int, str, os.stat_result], bool]
"""Called for each entry (its folder's descriptor, its name, its ``lstat``) before what it
holds; returns whether to go into it (only a folder may be gone into)."""
Leave = Callable[[int, str, os.stat_result], None]
"""Called for each folder gone into, after what it holds, with its parent's descriptor."""


class TreeError(RefereeError):
    """An entry of a tree could not be read or changed: the message names it (its name, how
    deep it lies) and the system's reason."""


def walk(top: int, visit: Visit, leave: Leave | None = None) -> None:
    """Visit every entry under the open folder ``top`` (not ``top`` itself), depth first,
    holding one more descriptor whatever the depth; raises ``TreeError``."""
    frames: list[tuple[list[str], str, os.stat_result]] = []
    """For each folder above the current one: its names still to visit, the name of the folder
    gone into from it, and its own ``stat`` (to check the way back up by ``..``)."""
    here = os.dup(top)
    try:
        names = _names(here, ".", 0)
        home = os.fstat(here)
        while True:
            name, info = _next(here, names, visit, len(frames))
            if name is not None and info is not None:
                below = _open(here, name, info, len(frames))
                frames.append((names, name, home))
                os.close(here)
                here, home, names = below, info, _names(below, name, len(frames))
                continue
            if not frames:
                return
            names, name, parent = frames.pop()
            above = _up(here, parent, name, len(frames))
            os.close(here)
            here, left, home = above, home, parent
            if leave is not None:
                with _naming(name, len(frames)):
                    leave(here, name, left)
    finally:
        os.close(here)


def _next(folder: int, names: list[str], visit: Visit, depth: int) -> tuple[str | None, os.stat_result | None]:
    """Visit the folder's names left until one is to be gone into: that one (``None`` when
    none is left)."""
    while names:
        name = names.pop()
        with _naming(name, depth):
            info = os.stat(name, dir_fd=folder, follow_symlinks=False)
            inside = visit(folder, name, info)
        if inside:
            if not stat.S_ISDIR(info.st_mode):
                raise TreeError(f"{_where(name, depth)}: not a folder, cannot be gone into")
            return name, info
    return None, None


def _names(folder: int, name: str, depth: int) -> list[str]:
    with _naming(name, depth):
        return os.listdir(folder)


def _open(folder: int, name: str, info: os.stat_result, depth: int) -> int:
    with _naming(name, depth):
        below = os.open(name, FOLDER_FLAGS, dir_fd=folder)
    if not _same(os.fstat(below), info):
        os.close(below)
        raise TreeError(f"{_where(name, depth)}: changed while it was walked")
    return below


def _up(folder: int, parent: os.stat_result, name: str, depth: int) -> int:
    """The folder above ``folder`` (``name`` in it), checked to be the one come down from."""
    with _naming(name, depth):
        above = os.open("..", FOLDER_FLAGS, dir_fd=folder)
    if not _same(os.fstat(above), parent):
        os.close(above)
        raise TreeError(f"{_where(name, depth)}: moved while it was walked")
    return above


def _same(one: os.stat_result, other: os.stat_result) -> bool:
    return (one.st_dev, one.st_ino) == (other.st_dev, other.st_ino)


@contextlib.contextmanager
def _naming(name: str, depth: int) -> Iterator[None]:
    """An ``OSError`` on the entry ``name`` as a ``TreeError`` naming it."""
    try:
        yield
    except OSError as err:
        raise TreeError(f"{_where(name, depth)}: {err.strerror or err}") from None


def _where(name: str, depth: int) -> str:
    shown = f"'{printable(name, 80)}'"
    return f"{shown} ({depth} folders deep)" if depth else shown
