"""An uploaded bot's files carried to a cluster's workers, which share no file system with the
coordinator (issue 42, part 6).

An upload lives in ``NAME-uploads/ENTRANT/SEQ/files`` on the coordinator, which unpacked it
itself (``referee.ladder.uploads``). For a worker to build and start it, the coordinator packs
those files once into a deterministic tar (``pack_files``: sorted, no times, no owners, under
one wrapper folder, nothing but folders and regular files) and hands it to Dask once per
content hash (``UploadPacks``: ``client.scatter(..., hash=True, broadcast=True)``). The future
is an argument of every task that seats the bot, so Dask moves the bytes to each worker once
and keeps them there while the coordinator holds the future (it lets go once no version it
lists has that content).

A worker trusts no bytes that crossed the network: it unpacks them with the hostile unpacker
(``referee.ladder.upload_archive.unpack``) into a folder of its own scratch named by the
content hash (``WorkerUploads``), checks that what it unpacked has the version's content hash
(``BotEntry.content``), and the bot is built and started from there: on a worker an upload's
folder is the worker's copy, never the coordinator's path. Files that cannot be had or do not
verify refuse the bot by name, as a bot the worker cannot build is refused (the coordinator
retires it and the ladder plays on). A copy is removed with the last build that uses it.
"""

from __future__ import annotations

import dataclasses
import io
import os
import re
import stat
import tarfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from referee.errors import RefereeError
from referee.ladder.upload_archive import DEFAULT_LIMITS, TAR_ENTRY_OVERHEAD, ArchiveRefused, unpack
from referee.ladder.uploads import uploads_folder
from referee.players.bot_config import BotEntry
from referee.players.build_folder import remove_tree

WRAPPER: Final = "bot"
"""The one folder a pack's entries are under: the unpacker takes a lone top folder as the
wrapper and strips it, so the tree unpacked on a worker is the coordinator's, whatever it holds
(an upload whose own files are one folder keeps it)."""
WIRE_LIMITS: Final = dataclasses.replace(
    DEFAULT_LIMITS,
    archive_bytes=DEFAULT_LIMITS.extracted_bytes + DEFAULT_LIMITS.entries * TAR_ENTRY_OVERHEAD,
    path_bytes=DEFAULT_LIMITS.path_bytes + len(WRAPPER) + 1,
    depth=DEFAULT_LIMITS.depth + 1,
)
"""A pack is an uncompressed tar of a tree the upload limits already bounded, one folder
deeper: the same limits on what it unpacks to, with room for the tar's own headers."""
KEEP_UNLISTED: Final = 120.0
"""Seconds a pack is kept while no version listed has its content: a new upload's is made for
its check, before its version is in the pool."""
_HASH = re.compile(r"[0-9a-f]{64}")
_NO_FOLLOW: Final = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC


class UploadNotCarried(RefereeError):
    """An upload's files that cannot be packed on the coordinator or had on a worker."""


def pack_files(folder: Path) -> bytes:
    """The files of ``folder`` as a tar the same for the same tree: its folders and regular
    files in the order of their names, under ``WRAPPER``, each with mode 0755 or 0644 (the
    executable bit is what the content hash keeps), no time, no owner. A link or any other kind
    of file is refused (an unpacked upload holds none)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT, encoding="utf-8") as tar:
        tar.addfile(_entry(WRAPPER, tarfile.DIRTYPE, 0o755))
        for relative, info in _tree(folder, ""):
            name = f"{WRAPPER}/{relative}"
            if stat.S_ISDIR(info.st_mode):
                tar.addfile(_entry(name, tarfile.DIRTYPE, 0o755))
                continue
            fd = os.open(folder / relative, _NO_FOLLOW)
            with open(fd, "rb") as source:
                opened = os.fstat(source.fileno())
                if not stat.S_ISREG(opened.st_mode) or opened.st_ino != info.st_ino:
                    raise UploadNotCarried(f"{relative}: changed while it was packed")
                entry = _entry(name, tarfile.REGTYPE, 0o755 if info.st_mode & stat.S_IXUSR else 0o644)
                entry.size = opened.st_size
                tar.addfile(entry, source)
    return buffer.getvalue()


def _entry(name: str, kind: bytes, mode: int) -> tarfile.TarInfo:
    entry = tarfile.TarInfo(name)
    entry.type, entry.mode, entry.mtime = kind, mode, 0
    entry.uid = entry.gid = 0
    entry.uname = entry.gname = ""
    return entry


def _tree(root: Path, under: str) -> Iterator[tuple[str, os.stat_result]]:
    """Every folder and regular file below ``root / under``, by name, a folder before what it
    holds; anything else is refused by name."""
    with os.scandir(root / under if under else root) as found:
        items = sorted(found, key=lambda item: item.name.encode("utf-8", "surrogateescape"))
    for item in items:
        relative = f"{under}/{item.name}" if under else item.name
        info = item.stat(follow_symlinks=False)
        if stat.S_ISDIR(info.st_mode):
            yield relative, info
            yield from _tree(root, relative)
        elif stat.S_ISREG(info.st_mode):
            yield relative, info
        else:
            raise UploadNotCarried(f"{relative}: not a folder or a regular file; an upload's files hold none")


def upload_folder(db: str | Path, entry: BotEntry) -> Path | None:
    """The coordinator's folder of an uploaded version's files (``NAME-uploads/ENTRANT/SEQ/files``,
    its ``content`` the upload's hash), or ``None`` for a bot of the list."""
    if entry.folder is None or entry.content is None or _HASH.fullmatch(entry.content) is None:
        return None
    folder = Path(entry.folder)
    inside = folder.parent.parent.parent == uploads_folder(db).absolute()
    return folder if inside and folder.name == "files" and folder.parent.name.isdigit() else None


class UploadPacks:
    """The coordinator's packs of uploaded versions, handed to Dask once per content hash: by
    content hash, the future of the bytes, or why they could not be packed (said to the
    worker, which refuses the bot with it)."""

    def __init__(self, db: str | Path, client: Any) -> None:
        self.db = db
        self.client = client
        self.lock = threading.Lock()
        """Packs are made in the follower's thread (a new upload's check) and the run's."""
        self.sent: dict[str, Any] = {}
        self.made: dict[str, float] = {}
        """When each pack was made (``time.monotonic``)."""

    def for_task(self, seated: Sequence[BotEntry]) -> tuple[dict[str, str], dict[str, Any]]:
        """For the bots a task seats: the content hash of each upload by its name, and the
        future (or the reason) of each content hash, to be the task's argument."""
        packed: dict[str, str] = {}
        files: dict[str, Any] = {}
        for entry in seated:
            folder = upload_folder(self.db, entry)
            if folder is None or entry.content is None:
                continue
            packed[entry.name] = entry.content
            files[entry.content] = self._sent(entry.content, folder)
        return packed, files

    def keep_only(self, listed: Sequence[BotEntry]) -> None:
        """Let go of the packs of contents no version listed has, made ``KEEP_UNLISTED``
        seconds ago or more (Dask forgets their bytes once no task holds them either)."""
        wanted = {entry.content for entry in listed}
        old = time.monotonic() - KEEP_UNLISTED
        with self.lock:
            for content in [c for c in self.sent if c not in wanted and self.made[c] <= old]:
                del self.sent[content], self.made[content]

    def _sent(self, content: str, folder: Path) -> Any:
        with self.lock:
            found = self.sent.get(content)
            if found is None:
                try:
                    found = self.client.scatter(pack_files(folder), hash=True, broadcast=True)
                except (OSError, RefereeError, UnicodeError) as err:
                    found = f"the coordinator could not pack its files: {err}"
                self.sent[content] = found
                self.made[content] = time.monotonic()
            return found


class WorkerUploads:
    """A worker's copies of uploaded versions' files, by content hash, each unpacked from the
    bytes a task brought and checked against its hash (see the module's docstring)."""

    def __init__(self) -> None:
        self.copies: dict[str, Path] = {}

    def folder(self, content: str, sent: object, scratch: Path) -> Path:
        """The folder of the files of content hash ``content``: the copy made before, or
        unpacked now from ``sent`` (the pack's bytes, or why the coordinator had none) into
        ``scratch``. Raises ``UploadNotCarried`` saying why there is none."""
        found = self.copies.get(content)
        if found is not None and found.is_dir():
            return found
        if _HASH.fullmatch(content) is None:
            raise UploadNotCarried("its content hash is not one")
        if isinstance(sent, str):
            raise UploadNotCarried(sent)
        if not isinstance(sent, bytes):
            raise UploadNotCarried("its files did not come with the task")
        into = scratch / "hearts-uploads" / content
        into.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        remove_tree(into)  # a copy this process did not make (or left half made) is not used
        try:
            unpacked = unpack(sent, into, WIRE_LIMITS)
        except ArchiveRefused as err:
            raise UploadNotCarried(f"its files as received were refused ({err.reason}): {err}") from None
        if unpacked.content_hash != content:
            remove_tree(into)
            raise UploadNotCarried(
                f"its files as received have content hash {unpacked.content_hash[:12]}, not its {content[:12]}"
            )
        self.copies[content] = into
        return into

    def remove(self, content: str, still: Mapping[str, str]) -> None:
        """Remove the copy of ``content`` unless a build in ``still`` (content by build key)
        uses it."""
        if content in still.values():
            return
        folder = self.copies.pop(content, None)
        if folder is not None:
            remove_tree(folder)
