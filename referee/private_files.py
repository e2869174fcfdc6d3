"""Files only the referee may read: logs and the ladder's database hold every hand, so no other
user, and no sandboxed bot, may read them.

And files the referee trusts: it never writes, chmods or reads back through a link (``O_NOFOLLOW``),
and a folder of its own (a ladder's logs) must be its own, not one somebody else made or
replaced: a build once planted a link where the logs folder goes and the root referee chmodded
the outside folder it named and wrote every match log into it."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path
from typing import IO

from referee.errors import RefereeError


class UntrustedFile(RefereeError):
    """A path the referee would write is a link, not a regular file or folder, or another
    user's; the message names it and the way out."""


def open_private(path: Path) -> IO[bytes]:
    """Open a log for appending, readable by its owner only (0600; a new folder 0700): a log
    holds every hand, so no other user, and no sandboxed bot, may read it. Never through a
    link; raises ``UntrustedFile``."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = open_no_link(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise UntrustedFile(f"{path} is not a regular file: the referee writes logs to files only")
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


def private_folder(folder: Path) -> None:
    """A folder of the referee's own, mode 0700 (also when it existed with a wider mode): not
    a link, and owned by the referee's user; raises ``UntrustedFile``."""
    if folder.is_symlink():  # even one that leads nowhere: mkdir would make its target
        raise _link(folder)
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = open_no_link(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        _own(folder, fd)
        if os.fstat(fd).st_mode & 0o077:
            os.fchmod(fd, 0o700)
    finally:
        os.close(fd)


def trusted_file(path: Path) -> None:
    """An existing file the referee will open and trust (a database, its WAL, journal or lock):
    a regular file, not a link, of the referee's own user, made 0600; nothing when there is no
    such file. Raises ``UntrustedFile``.

    Looked at through an ``O_PATH`` descriptor: closing an ordinary one would drop every POSIX
    lock this process holds on the file, SQLite's among them (another reader then took itself
    for the first, reset the shared-memory file, and the referee died of SIGBUS)."""
    try:
        fd = os.open(path, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISLNK(mode):
            raise _link(path)
        if not stat.S_ISREG(mode):
            raise UntrustedFile(f"{path} is not a regular file; remove it")
        _own(path, fd)
        if mode & 0o077:
            os.chmod(f"/proc/self/fd/{fd}", 0o600)  # this very file, not a path that may change
    finally:
        os.close(fd)


def open_no_link(path: str | Path, flags: int) -> int:
    """``os.open`` that never goes through a link (``UntrustedFile`` for one)."""
    try:
        return os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError as err:
        if err.errno == errno.ELOOP or (err.errno == errno.ENOTDIR and os.path.islink(path)):
            raise _link(path) from None
        if err.errno == errno.ENOTDIR and flags & os.O_DIRECTORY:
            raise UntrustedFile(f"{path} is not a folder; remove it, or choose another place") from None
        raise


def _link(path: str | Path) -> UntrustedFile:
    return UntrustedFile(
        f"{path} is a symbolic link: the referee never writes or trusts a file through one "
        "(a bot or a build may have planted it); remove it, or give the real path"
    )


def _own(path: Path, fd: int) -> None:
    owner = os.fstat(fd).st_uid
    if owner != os.geteuid():
        raise UntrustedFile(
            f"{path} belongs to uid {owner}, not to the referee's user (uid {os.geteuid()}): the referee "
            "trusts only what it made; remove it, or run the referee as its owner"
        )
