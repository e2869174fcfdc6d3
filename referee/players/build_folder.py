"""The folder a sandboxed build writes: a copy of its bot's folder, owned by a stranger.

A build (``build = ...`` in a bot list) is the author's code, run by the referee before a
ladder starts. Run in place as the operator (often root), it could leave a setuid-root
program behind, plant a forged ``ladder.db-wal`` or a symlink that the referee later followed
(both were done). So a sandboxed build never writes the operator's files: the referee copies
the bot's folder (its ``folder``, or the list's folder) into a scratch folder of its own,
without the referee's private files, links copied as links and never followed, special files
left out, at most ``MAX_FILES`` files and ``MAX_BYTES`` bytes; the build runs there as a uid
of its own (``BUILD_FIRST_UID`` on, when the referee is root), on a ``nosuid`` mount (every
bubblewrap bind is one). When it has ended (with every process it made), ``seal`` gives the
copy to the referee's uid, strips setuid and setgid bits and write access of others, and the
bot plays from that copy, read-only. The scratch folder is removed when the referee ends.

The copy, the seal and the removal walk a tree by open folder descriptors
(``referee.players.tree_walk``): a build once nested folders past ``PATH_MAX`` and the seal,
which named each entry by its whole path, ended the referee before any match. What still
cannot be copied or sealed is a ``BuildFolderError`` naming the entry: the bot's, not the
referee's.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import os
import re
import secrets
import stat
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from referee.errors import RefereeError
from referee.names import printable
from referee.players.tree_walk import FOLDER_FLAGS, TreeError, walk

BUILD_FIRST_UID: Final = 60_000
"""Builds run as uids from here on (when the referee is root): not a bot's (61,000 on), not
the operator's; one drawn at random per build."""
BUILD_UIDS: Final = 1_000
MAX_FILES: Final = 100_000
"""Files (and folders and links) a bot's folder may hold to be copied for its build."""
MAX_BYTES: Final = 2 * 1024**3
"""Bytes a bot's folder may hold to be copied for its build."""
KEPT_BITS: Final = 0o755
"""Of a copied or built file's mode: no setuid, setgid or sticky bit, nobody else may write."""


class BuildFolderError(RefereeError):
    """A bot's folder cannot be copied for its build (too big, unreadable); the message says
    which and the way out."""


def build_uid() -> int:
    """A stranger's uid for one build (when the referee is root)."""
    return BUILD_FIRST_UID + secrets.randbelow(BUILD_UIDS)


_scratch: list[Path] = []
_scratch_parent: list[Path] = []
_scratch_lock = threading.Lock()


def scratch_in(parent: Path) -> None:
    """Make this process's scratch folder in ``parent`` rather than the system's temporary
    folder (a Dask worker's own directory, which Dask removes at the next worker start when
    its worker was killed: a killed process runs no ``atexit``). Only before the first copy."""
    with _scratch_lock:
        if not _scratch:
            _scratch_parent[:] = [parent]


def scratch_root() -> Path:
    """This process's scratch folder for build copies (``/tmp/hearts-builds-*``, or in the
    folder ``scratch_in`` gave; mode 0755: the bots, under uids of their own, pass through it
    to their copies; nobody else may write in it), removed when the process ends."""
    with _scratch_lock:
        if not _scratch:
            parent = _scratch_parent[0] if _scratch_parent else None
            root = Path(tempfile.mkdtemp(prefix="hearts-builds-", dir=parent))
            root.chmod(0o755)
            _scratch.append(root)
            atexit.register(remove_scratch)
        return _scratch[0]


def remove_scratch() -> None:
    """Remove the scratch folder and every copy in it (following no link)."""
    with _scratch_lock:
        for root in _scratch:
            remove_tree(root)
        _scratch.clear()


def copy_for_build(source: Path, name: str, leave_out: Sequence[str | Path] = (), uid: int | None = None) -> Path:
    """A fresh copy of ``source`` for the build of bot ``name``, without ``leave_out`` (the
    referee's private files), owned by ``uid`` when given; raises ``BuildFolderError``."""
    label = re.sub(r"[^A-Za-z0-9._-]", "_", name)[:40] or "bot"
    target = Path(tempfile.mkdtemp(prefix=f"{label}-", dir=scratch_root()))
    try:
        _copy_tree(source, target, _left_out(source, leave_out), uid)
    except BaseException:
        remove_tree(target)
        raise
    return target


def seal(folder: Path) -> None:
    """After the build has ended: every file and folder of ``folder`` the referee's own, with
    no setuid, setgid or sticky bit and no write access for others (links are left as they
    are: nothing follows them); raises ``BuildFolderError`` naming what could not be sealed."""
    try:
        top = os.open(folder, FOLDER_FLAGS)
    except OSError as err:
        raise BuildFolderError(f"cannot open {folder}: {err.strerror}") from None
    try:
        walk(top, _Seal(os.geteuid(), os.getegid()).visit, _Seal.leave)
        os.fchown(top, os.geteuid(), os.getegid())
        os.fchmod(top, 0o755)
    except (TreeError, OSError) as err:
        raise BuildFolderError(f"cannot seal {folder}: {err}") from None
    finally:
        os.close(top)


def remove_tree(folder: Path) -> None:
    """Remove ``folder`` and all it holds, however deep (``shutil.rmtree`` recurses once per
    level, past Python's recursion limit on a deep tree), following no link; what cannot be
    removed is left."""
    with contextlib.suppress(TreeError, OSError):
        top = os.open(folder, FOLDER_FLAGS)
        try:
            walk(top, _unlink, _rmdir)
        finally:
            os.close(top)
        os.rmdir(folder)


def _left_out(source: Path, leave_out: Sequence[str | Path]) -> set[tuple[str, ...]]:
    """The referee's files within ``source``, as names from it down."""
    base = os.path.abspath(source)
    found = set()
    for path in leave_out:
        relative = os.path.relpath(os.path.abspath(path), base)
        if relative != "." and not relative.startswith(".."):
            found.add(Path(relative).parts)
    return found


def _copy_tree(source: Path, target: Path, left: set[tuple[str, ...]], uid: int | None) -> None:
    try:
        top = os.open(source, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)  # the operator's folder
    except OSError as err:
        raise BuildFolderError(f"cannot read {source}: {err.strerror}") from None
    copy = _Copy(source, os.open(target, FOLDER_FLAGS), left, uid)
    try:
        walk(top, copy.visit, copy.leave)
        if uid is not None:
            os.fchown(copy.into, uid, uid)
        os.fchmod(copy.into, 0o755)
    except TreeError as err:
        raise BuildFolderError(f"cannot copy {source}: {err}") from None
    finally:
        os.close(top)
        os.close(copy.into)


class _Copy:
    """Copies each entry the walk of the bot's folder visits into the copy's matching folder
    (``into``, a descriptor that goes down and up with the walk)."""

    def __init__(self, source: Path, into: int, left: set[tuple[str, ...]], uid: int | None) -> None:
        self.source = source
        self.into = into
        self.left = left
        self.uid = uid
        self.below: list[str] = []
        self.count = 0
        self.size = 0

    def visit(self, folder: int, name: str, info: os.stat_result) -> bool:
        if self.left and (*self.below, name) in self.left:
            return False
        self.count += 1
        if self.count > MAX_FILES:
            raise BuildFolderError(f"{self.source} holds more than {MAX_FILES:,} files: {_WAY_OUT}")
        if stat.S_ISLNK(info.st_mode):
            os.symlink(os.readlink(name, dir_fd=folder), name, dir_fd=self.into)
            if self.uid is not None:
                os.chown(name, self.uid, self.uid, dir_fd=self.into, follow_symlinks=False)
        elif stat.S_ISDIR(info.st_mode):
            os.mkdir(name, 0o700, dir_fd=self.into)  # its mode after what it holds is copied
            self._go(os.open(name, FOLDER_FLAGS, dir_fd=self.into))
            self.below.append(name)
            if self.uid is not None:
                os.fchown(self.into, self.uid, self.uid)
            return True
        elif stat.S_ISREG(info.st_mode):
            self.size += info.st_size
            if self.size > MAX_BYTES:
                raise BuildFolderError(f"{self.source} holds more than {MAX_BYTES // 1024**3} GiB: {_WAY_OUT}")
            _copy_file(folder, name, self.into, info, self.uid)
        return False  # special files are left out

    def leave(self, folder: int, name: str, info: os.stat_result) -> None:
        os.fchmod(self.into, info.st_mode & KEPT_BITS | 0o700)
        self._go(os.open("..", FOLDER_FLAGS, dir_fd=self.into))
        self.below.pop()

    def _go(self, into: int) -> None:
        os.close(self.into)
        self.into = into


def _copy_file(folder: int, name: str, into: int, info: os.stat_result, uid: int | None) -> None:
    """One regular file, opened without following a link (it was one when looked at), its
    mode (less setuid and others' write) and times kept: ``make`` compares them."""
    source = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=folder)
    try:
        if not stat.S_ISREG(os.fstat(source).st_mode):
            raise BuildFolderError(f"{printable(name, 80)} changed while it was copied")
        made = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=into)
        try:
            _pour(source, made)
            os.fchmod(made, info.st_mode & KEPT_BITS)
            if uid is not None:
                os.fchown(made, uid, uid)
            os.utime(made, ns=(info.st_atime_ns, info.st_mtime_ns))
        finally:
            os.close(made)
    finally:
        os.close(source)


def _pour(source: int, made: int) -> None:
    """All of ``source`` into ``made``, in the kernel (``sendfile``) where it can."""
    try:
        while os.sendfile(made, source, None, 1 << 30):
            pass
    except OSError as err:
        if err.errno not in {errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP} or os.lseek(made, 0, os.SEEK_CUR):
            raise
        while chunk := os.read(source, 1024 * 1024):
            os.write(made, chunk)


class _Seal:
    """Gives each entry of a build's output to the referee (``uid``, ``gid``) and strips its
    mode. A folder is first opened to its owner (so that a referee that is not root can walk
    it) and given its mode when what it holds is done."""

    def __init__(self, uid: int, gid: int) -> None:
        self.uid = uid
        self.gid = gid

    def visit(self, folder: int, name: str, info: os.stat_result) -> bool:
        os.chown(name, self.uid, self.gid, dir_fd=folder, follow_symlinks=False)
        if stat.S_ISLNK(info.st_mode):
            return False
        mode = stat.S_IMODE(info.st_mode)
        first = mode & KEPT_BITS | (0o700 if stat.S_ISDIR(info.st_mode) else 0)
        if first != mode:
            os.chmod(name, first, dir_fd=folder)  # not a link (looked at): nothing of the build runs
        return stat.S_ISDIR(info.st_mode)

    @staticmethod
    def leave(folder: int, name: str, info: os.stat_result) -> None:
        kept = stat.S_IMODE(info.st_mode) & KEPT_BITS
        if kept | 0o700 != kept:
            os.chmod(name, kept, dir_fd=folder)


def _unlink(folder: int, name: str, info: os.stat_result) -> bool:
    if not stat.S_ISDIR(info.st_mode):
        os.unlink(name, dir_fd=folder)
        return False
    if info.st_mode & 0o700 != 0o700:
        os.chmod(name, 0o700, dir_fd=folder)
    return True


def _rmdir(folder: int, name: str, info: os.stat_result) -> None:
    os.rmdir(name, dir_fd=folder)


_WAY_OUT = 'give the bot a folder of its own in the bot list (folder = "..."): its build runs on a copy of it'
