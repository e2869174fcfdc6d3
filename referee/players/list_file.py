"""A bot list's file, read as hostile input: the one place every reader of a bot list reads it.

Whoever can write at the list's path can put anything there, and a running ladder reads it
again every few seconds (``referee.ladder.follow``): a FIFO (``rm bots.toml; mkfifo bots.toml``)
would block the read forever, with the ladder inside it; a symlink to ``/dev/zero`` or a huge
file would fill the ladder's memory. So the list is opened without blocking (a FIFO opens at
once, with or without a writer), the descriptor opened is checked (``fstat``, not the path, which
may change between a check and an open), anything but a regular file is refused, naming what it
is, and no more than ``MAX_LIST_BYTES`` is ever read, even from a file that grows while it is
read. A symlink to a regular file is a regular file here: organizers keep lists so.

Every refusal is a ``BotConfigError`` naming the file and what is wrong; a list that is not there
at all is ``ListMissing``, which a running ladder waits out (an editor may be between removing
the old file and writing the new one)."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Final

from referee.errors import BotConfigError

MAX_LIST_BYTES: Final = 1024 * 1024
"""The largest bot list read (1 MiB). Ample: an entry is a name, a command line and perhaps a
build line and a folder, under 200 bytes, so a list of hundreds of bots is a few tens of KB;
a file larger than this is no bot list, and reading it whole is what an attack wants."""

_OPENING: Final = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
"""Read only; ``O_NONBLOCK``: a FIFO opens at once instead of waiting for a writer (and is then
refused); ``O_NOCTTY``: a terminal device never becomes the referee's controlling terminal."""

_KINDS: Final[tuple[tuple[Callable[[int], bool], str], ...]] = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a directory"),
)
"""What a path that is not a regular file can be, as a refusal names it."""


_LIMIT: Final = f"a bot list is at most {MAX_LIST_BYTES:,} bytes (1 MiB); a list of hundreds of bots is a few KB"


class ListMissing(BotConfigError):
    """No file at the list's path (a dangling symlink included)."""


def read_list_file(path: str | Path) -> bytes:
    """The bytes of the bot list at ``path`` (followed if a symlink), at most
    ``MAX_LIST_BYTES``; raises ``BotConfigError`` naming the file and why it is not read: not a
    regular file (what it is instead), too large, or not readable (the system's reason), and
    ``ListMissing`` when there is nothing at ``path``. Never blocks on what the path names."""
    try:
        fd = os.open(path, _OPENING)
    except FileNotFoundError:
        raise ListMissing(f"{path}: no such file") from None
    except OSError as err:
        raise BotConfigError(f"{path}: {_unopened(path, err)}") from None
    try:
        return _bounded(fd, path)
    finally:
        os.close(fd)


def _unopened(path: str | Path, err: OSError) -> str:
    """Why ``path`` could not be opened. A socket refuses ``open`` itself (``ENXIO``), so its
    kind is named from the path: nothing is read from it either way."""
    try:
        kind = _kind(os.stat(path).st_mode)
    except OSError:
        kind = None
    if kind is not None:
        return _not_regular(kind)
    return f"cannot be opened ({err.strerror or err})"


def _bounded(fd: int, path: str | Path) -> bytes:
    """The contents of the opened ``fd``, checked as the module's docstring says."""
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise BotConfigError(f"{path}: {_not_regular(_kind(info.st_mode))}")
    if info.st_size > MAX_LIST_BYTES:
        raise BotConfigError(f"{path}: is {info.st_size:,} bytes; {_LIMIT}")
    chunks: list[bytes] = []
    size = 0
    while size <= MAX_LIST_BYTES:
        try:
            chunk = os.read(fd, MAX_LIST_BYTES + 1 - size)
        except OSError as err:
            raise BotConfigError(f"{path}: cannot be read ({err.strerror or err})") from None
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
    raise BotConfigError(f"{path}: grew past {MAX_LIST_BYTES:,} bytes while it was read; {_LIMIT}")


def _not_regular(kind: str | None) -> str:
    return f"is {kind}, not a regular file: a bot list is a TOML file" if kind else "not a regular file"


def _kind(mode: int) -> str | None:
    """What a file of this mode is when it is not a regular file (``None``: regular, or a
    kind no test names)."""
    return next((name for test, name in _KINDS if test(mode)), None)
