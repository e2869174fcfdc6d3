"""A folder of files written whole or not at all, and never through a link: where the static
copy of a ladder (``referee ladder export DIR``) is put.

A copy is published by a static web host that serves DIR as it finds it, maybe while the copy is
made again: a half-written DIR would be served half old, half new. So the files are written into
a new folder beside DIR (``.DIR.XXXX.part``, on the same file system), and that folder is
renamed to DIR once every file is in it. A DIR that holds anything is refused unless the
organizer says ``--force`` (a typo must not replace a folder of other work); with it, the old
DIR is renamed aside, the new one put in its place, and the old one removed (without following
any link in it: a link planted in DIR beforehand never leads a write or a removal outside). DIR
itself as a symbolic link is refused: the copy replaces DIR, it never writes through a link.

Every file is created new (``O_EXCL | O_NOFOLLOW``) at a path of plain segments checked here,
inside the new folder, which nobody else can write to."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from referee.errors import LadderError

T = TypeVar("T")
SEGMENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
"""A folder or file name in the copy: no ``.``, ``..``, hidden file, separator or odd byte."""


def check_folder(folder: Path, force: bool) -> None:
    """Refuse a DIR that is a link, not a folder, or (without ``force``) not empty."""
    if folder.is_symlink():
        raise LadderError(f"{folder}: a symbolic link: name the folder itself (the copy replaces DIR whole)")
    if folder.exists() and not folder.is_dir():
        raise LadderError(f"{folder}: not a folder")
    if folder.is_dir() and not force and any(folder.iterdir()):
        raise LadderError(f"{folder}: not empty (--force replaces what it holds with the copy)")


class NewFolder:
    """Files written into one new folder, by relative paths of plain segments."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.files = 0
        self.bytes = 0

    def write(self, relative: str, data: str | bytes) -> None:
        parts = relative.split("/")
        if not all(SEGMENT.fullmatch(part) for part in parts):
            raise LadderError(f"not a plain path inside the copy: {relative[:120]!r}")
        folder = self.root
        for part in parts[:-1]:
            folder = folder / part
            if not folder.is_dir() or folder.is_symlink():
                folder.mkdir()  # raises when something else is there: nothing is written through it
        content = data.encode() if isinstance(data, str) else data
        fd = os.open(folder / parts[-1], os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
        with os.fdopen(fd, "wb") as file:
            file.write(content)
        self.files += 1
        self.bytes += len(content)


def write_folder(folder: Path, fill: Callable[[NewFolder], T], *, force: bool = False) -> T:
    """``fill`` writes the files into a new folder, which then becomes ``folder`` whole: on any
    failure ``folder`` is left as it was and the new folder removed."""
    folder = Path(os.path.abspath(folder))
    check_folder(folder, force)
    folder.parent.mkdir(parents=True, exist_ok=True)
    part = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", suffix=".part", dir=folder.parent))
    try:
        os.chmod(part, 0o777 & ~_umask())  # mkdtemp's 0700 would hide the copy from a web server
        found = fill(NewFolder(part))
        check_folder(folder, force)  # again: a long export, and DIR may have changed meanwhile
        _put_in_place(part, folder)
    except BaseException:
        shutil.rmtree(part, ignore_errors=True)
        raise
    return found


def _put_in_place(part: Path, folder: Path) -> None:
    if not folder.exists():
        os.rename(part, folder)
        return
    aside = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", suffix=".old", dir=folder.parent))
    os.rename(folder, aside)  # onto the empty folder just made: DIR is never half old, half new
    try:
        os.rename(part, folder)
    except OSError:
        os.rename(aside, folder)
        raise
    shutil.rmtree(aside)  # fd-based, links inside removed, never followed


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
