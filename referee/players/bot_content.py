"""What a bot's version is made of besides its entry: the hash of the files it runs from.

A bot whose files change in place under the same command is another program: it must be
another version, with a rating of its own (two programs shared one name and one rating).
So each entry read from a bot list is given ``content``, a sha256 over

- its own folder (``folder = ...``), every file and link in it, recursively: each one's path
  relative to the folder, whether it is executable, and its bytes (a link: the text it holds,
  never what it points to);
- else, the files its command names that lie in the list's folder (``python3 bot.py``:
  ``bot.py``), as they are: a folder shared with other bots is not the bot's alone.

Left out: version control and caches (``SKIPPED``), and whatever a ``.gitignore`` in the
bot's folder, or in a folder between the list's folder and it, ignores (a simple subset of
git's rules: ``#`` comments, ``/`` anchors, a trailing ``/`` for folders, ``*`` and ``?``; no
``!``): what a build makes in place (the C sample's ``bot``) is no new version. A folder over
``MAX_FILES`` files or ``MAX_BYTES`` bytes is not hashed (``None``: the entry's command,
build and folder alone tell its versions, as before). Nothing is followed out of the folder,
and a file's digest is kept by its size and modification time, so a look at an unchanged
folder reads nothing again.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Final

import msgspec

from referee.players.bot_config import BotEntry, command_words

SKIPPED: Final = frozenset({".git", ".hg", ".svn", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"})
"""Names never hashed, at any depth: version control's own files and caches."""
MAX_FILES: Final = 20_000
MAX_BYTES: Final = 512 * 1024 * 1024
"""A folder larger than either is not hashed (and says so by ``None``): hashing it at every
look would cost the ladder more than the version is worth."""
_DIGESTS: dict[tuple[str, int, int, int], bytes] = {}
"""File digests by (path, size, modification time, inode): an unchanged file is not read again."""


class _TooLarge(Exception):
    pass


def with_content(entries: Sequence[BotEntry], cwd: str | Path) -> list[BotEntry]:
    """``entries`` each with its ``content`` (see the module's docstring); ``cwd``: the folder
    the list's commands run from."""
    base = Path(os.path.abspath(cwd))
    return [msgspec.structs.replace(e, content=content_hash(e, base)) for e in entries]


def content_hash(entry: BotEntry, base: Path) -> str | None:
    """The hash of what ``entry`` runs from, or ``None`` when it cannot be told (no such
    folder, a folder too large, a command that cannot be split)."""
    digest = hashlib.sha256()
    try:
        if entry.folder is not None:
            folder = Path(os.path.normpath(base / entry.folder))
            if not folder.is_dir():
                return None
            rules = _ignores_above(base, folder)
            files = _walk(folder, folder, rules)
        else:
            files = _named(entry.command, base)
        listed = []
        size = 0
        for found in files:  # bounded while walking: a huge folder is left before it is listed
            listed.append(found)
            size += found[2].st_size
            if len(listed) > MAX_FILES or size > MAX_BYTES:
                raise _TooLarge
        for relative, path, info in sorted(listed, key=lambda f: f[0]):
            digest.update(relative.encode("utf-8", "surrogateescape") + b"\0")
            digest.update(_file_digest(path, info))
    except (_TooLarge, OSError, ValueError):
        return None
    return digest.hexdigest()


Rule = tuple[Path, str, bool, bool]
"""A ``.gitignore`` line: the folder it applies from, its pattern, anchored, folders only."""


def _rules(folder: Path) -> list[Rule]:
    try:
        with open(folder / ".gitignore", "rb") as handle:
            text = handle.read(64 * 1024).decode("utf-8", "replace")
    except OSError:
        return []
    rules = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", "!")):
            continue
        only_folders = line.endswith("/")
        line = line.rstrip("/")
        anchored = "/" in line
        rules.append((folder, line.lstrip("/"), anchored, only_folders))
    return rules


def _ignores_above(base: Path, folder: Path) -> list[Rule]:
    """The ``.gitignore`` rules of the folders from ``base`` down to ``folder``'s parent."""
    if not folder.is_relative_to(base):
        return []
    rules: list[Rule] = []
    here = base
    for part in folder.relative_to(base).parts:
        rules += _rules(here)
        here = here / part
    return rules


def _ignored(path: Path, is_folder: bool, rules: Sequence[Rule]) -> bool:
    for where, pattern, anchored, only_folders in rules:
        if only_folders and not is_folder:
            continue
        relative = path.relative_to(where).as_posix() if path.is_relative_to(where) else None
        if relative is None:
            continue
        if anchored and fnmatch.fnmatchcase(relative, pattern):
            return True
        if not anchored and fnmatch.fnmatchcase(path.name, pattern):
            return True
    return False


def _walk(folder: Path, top: Path, rules: list[Rule]) -> Iterator[tuple[str, Path, os.stat_result]]:
    rules = [*rules, *_rules(folder)]
    with os.scandir(folder) as found:
        for item in found:
            path = Path(item.path)
            info = item.stat(follow_symlinks=False)
            is_folder = stat.S_ISDIR(info.st_mode)
            if item.name in SKIPPED or _ignored(path, is_folder, rules):
                continue
            if is_folder:
                yield from _walk(path, top, rules)
            elif stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode):
                yield path.relative_to(top).as_posix(), path, info


def _named(command: str, base: Path) -> Iterator[tuple[str, Path, os.stat_result]]:
    """The regular files in ``base`` that the command's words name (its program given as a
    path among them)."""
    for word in command_words(command):
        if word.startswith("-") or os.path.isabs(word):
            continue
        path = Path(os.path.normpath(base / word))
        if not path.is_relative_to(base):
            continue
        try:
            info = path.lstat()
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode):
            yield word, path, info


def _file_digest(path: Path, info: os.stat_result) -> bytes:
    """The file's executable bit and contents (a link's text), hashed; kept by its stat."""
    if stat.S_ISLNK(info.st_mode):
        return b"L" + hashlib.sha256(os.readlink(path).encode("utf-8", "surrogateescape")).digest()
    key = (str(path), info.st_size, info.st_mtime_ns, info.st_ino)
    found = _DIGESTS.get(key)
    if found is None:
        digest = hashlib.sha256()
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise OSError(f"{path}: not a regular file")
            while chunk := os.read(fd, 1 << 20):
                digest.update(chunk)
        finally:
            os.close(fd)
        found = digest.digest()
        if len(_DIGESTS) >= MAX_FILES * 4:  # a long-lived ladder's folders come and go
            _DIGESTS.clear()
        _DIGESTS[key] = found
    return (b"X" if info.st_mode & 0o111 else b"F") + found
