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
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import secrets
import shutil
import stat
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from referee.errors import RefereeError

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
_scratch_lock = threading.Lock()


def scratch_root() -> Path:
    """This process's scratch folder for build copies (``/tmp/hearts-builds-*``, mode 0755:
    the bots, under uids of their own, pass through it to their copies; nobody else may
    write in it), removed when the process ends."""
    with _scratch_lock:
        if not _scratch:
            root = Path(tempfile.mkdtemp(prefix="hearts-builds-"))
            root.chmod(0o755)
            _scratch.append(root)
            atexit.register(remove_scratch)
        return _scratch[0]


def remove_scratch() -> None:
    """Remove the scratch folder and every copy in it (``rmtree`` follows no link)."""
    with _scratch_lock:
        for root in _scratch:
            shutil.rmtree(root, ignore_errors=True)
        _scratch.clear()


def copy_for_build(source: Path, name: str, leave_out: Sequence[str | Path] = (), uid: int | None = None) -> Path:
    """A fresh copy of ``source`` for the build of bot ``name``, without ``leave_out`` (the
    referee's private files), owned by ``uid`` when given; raises ``BuildFolderError``."""
    left = {os.path.abspath(p) for p in leave_out}
    label = re.sub(r"[^A-Za-z0-9._-]", "_", name)[:40] or "bot"
    target = Path(tempfile.mkdtemp(prefix=f"{label}-", dir=scratch_root()))
    try:
        _copy_tree(source, target, left)
        if uid is not None:
            _give(target, uid, uid)
        target.chmod(0o755)
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise
    return target


def seal(folder: Path) -> None:
    """After the build has ended: every file and folder of ``folder`` the referee's own, with
    no setuid, setgid or sticky bit and no write access for others (links are left as they
    are: nothing follows them)."""
    _give(folder, os.geteuid(), os.getegid(), strip=True)


def _copy_tree(source: Path, target: Path, left: set[str]) -> None:
    count = 0
    size = 0
    for root, dirs, names in os.walk(source, followlinks=False, onerror=_unreadable):
        into = target / os.path.relpath(root, source)
        for entry in sorted([*dirs, *names]):
            path = os.path.join(root, entry)
            if path in left:
                continue
            count += 1
            if count > MAX_FILES:
                raise BuildFolderError(f"{source} holds more than {MAX_FILES:,} files: {_WAY_OUT}")
            info = os.lstat(path)
            made = into / entry
            if stat.S_ISLNK(info.st_mode):
                os.symlink(os.readlink(path), made)
            elif stat.S_ISDIR(info.st_mode):
                made.mkdir(mode=0o700)  # its mode after what it holds is copied
            elif stat.S_ISREG(info.st_mode):
                size += info.st_size
                if size > MAX_BYTES:
                    raise BuildFolderError(f"{source} holds more than {MAX_BYTES // 1024**3} GiB: {_WAY_OUT}")
                _copy_file(path, made, info)
        dirs[:] = [d for d in dirs if (into / d).is_dir() and not (into / d).is_symlink()]  # copied, not links
    for root, dirs, _names in os.walk(target, topdown=False):
        for entry in dirs:
            made = Path(root) / entry
            if not made.is_symlink():
                origin = source / made.relative_to(target)
                made.chmod(os.lstat(origin).st_mode & KEPT_BITS | 0o700)


def _copy_file(path: str, made: Path, info: os.stat_result) -> None:
    """One regular file, opened without following a link (it was one when looked at), its
    mode (less setuid and others' write) and times kept: ``make`` compares them."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as err:
        raise BuildFolderError(f"cannot read {path}: {err.strerror}") from None
    with os.fdopen(fd, "rb") as src, open(made, "xb") as dst:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise BuildFolderError(f"{path} changed while it was copied")
        shutil.copyfileobj(src, dst, 1024 * 1024)
    made.chmod(info.st_mode & KEPT_BITS)
    os.utime(made, ns=(info.st_atime_ns, info.st_mtime_ns))


def _unreadable(err: OSError) -> None:
    raise BuildFolderError(f"cannot read {err.filename}: {err.strerror}")


def _give(folder: Path, uid: int, gid: int, *, strip: bool = False) -> None:
    """``chown`` every entry of ``folder`` (links themselves, never what they point to); with
    ``strip``, also drop setuid, setgid, sticky and others' write bits."""
    for root, dirs, names in os.walk(folder, followlinks=False):
        for entry in [*dirs, *names]:
            path = os.path.join(root, entry)
            os.chown(path, uid, gid, follow_symlinks=False)
            if strip:
                mode = os.lstat(path).st_mode
                if not stat.S_ISLNK(mode) and stat.S_IMODE(mode) & ~KEPT_BITS:
                    with contextlib.suppress(FileNotFoundError):
                        os.chmod(path, stat.S_IMODE(mode) & KEPT_BITS)
    os.chown(folder, uid, gid, follow_symlinks=False)
    if strip:
        folder.chmod(0o755)


_WAY_OUT = 'give the bot a folder of its own in the bot list (folder = "..."): its build runs on a copy of it'
