"""An entrant's uploaded bot archive, unpacked as hostile input (issue 42).

Whoever uploads an archive chooses every byte of it, and an archive is a list of instructions
for the machine that unpacks it: where to write (``/etc/cron.d/x``, ``../../ladder.db``), what
to make (a link to ``/``, a device, a setuid program), how much (a 50 KB zip that inflates to
50 GB), under which name (a newline, an escape sequence, bytes that are no text, two names one
file system folds into one). So nothing the archive says is followed blindly. Every entry's
name, kind, mode and size are checked before anything of it is written; the bytes are counted
as they are written, not as the archive declares them; folders are gone into by descriptors
that never follow a link, and files created with ``O_EXCL | O_NOFOLLOW``, so nothing ever lands
outside the folder being filled, and nothing is written twice. Everything goes into a
temporary sibling of the destination, which is renamed into place only when every entry
passed and removed on any failure: a refused upload leaves nothing behind.

Zip archives are read with ``zipfile``, entry by entry. Tar archives (plain or gzip) are read
as a stream with ``tarfile``, each member checked here first and then by ``tarfile``'s own
``data`` extraction filter (PEP 706), a second line of defence that refuses less than this
module does (it allows links that stay inside the tree). An entry with a setuid or setgid bit
is refused (a sticky bit is dropped), and so is a file whose first bytes are an archive or a
compressed stream (a nested archive: nothing checked what it holds), but for the few kinds a
runtime reads as they are (``RUN_AS_THEY_ARE``). Each refusal is an ``ArchiveRefused``
whose ``reason`` is one of ``Reason``; docs/ladder.md ("Uploaded archives") lists them, the
limits, the manifest and what the content hash covers.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import io
import os
import shutil
import stat
import struct
import tarfile
import tempfile
import unicodedata
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import IO, Final, Literal

import msgspec
import msgspec.toml

from referee.errors import BotConfigError, RefereeError
from referee.names import printable
from referee.players.bot_config import command_words
from referee.players.tree_walk import FOLDER_FLAGS

MiB: Final = 1024 * 1024

MANIFEST_NAME: Final = "hearts-bot.toml"
"""The manifest an archive may hold at its root: the bot's command and build line."""

STAGING_SUFFIX: Final = ".unpacking"
"""The end of the temporary sibling folder's name (``.INTO.XXXXXXXX.unpacking``): one left by a
process killed while unpacking is recognised by it and may be removed."""

HASH_VERSION: Final = b"hearts-bot-upload 1\0"
"""The first bytes hashed, so a change of what the hash covers changes every hash."""

TAR_HEADER_BYTES: Final = MiB
"""At most this much of a tar stream is read between two members (the next member's headers:
pax records, GNU long names, sparse maps), beside the member's own data. ``tarfile`` reads a
header whole into memory before it hands the member out, so a gzip-compressed pax header of
a gigabyte would otherwise be a memory bomb that no check of the member could stop."""

TAR_ENTRY_OVERHEAD: Final = 4 * 1024
"""What each member may add to the whole tar stream beyond its data (its header, a pax header,
the padding to 512 bytes): the stream read in all is bounded by the extracted limit plus this
much for each entry allowed."""

RUN_AS_THEY_ARE: Final = (".jar", ".whl", ".egg")
"""Zip files kept as files: a runtime reads each as it is (Java a ``.jar``, Python's zipimport
a ``.egg`` or a pure-Python ``.whl``), or the bot's own build installs it in its sandbox; no
other nested archive is taken (``Reason.NESTED_ARCHIVE``)."""

_CHUNK: Final = 64 * 1024
_HEAD: Final = 512
"""The first bytes of a file read before any is written: enough to tell an archive (a tar's
``ustar`` mark lies at byte 257)."""
_BZIP2: Final = tuple(b"BZh%d%s" % (size, mark) for size in range(1, 10) for mark in (b"1AY&SY", b"\x17rE8P\x90"))
"""A bzip2 stream's first bytes: ``BZh``, its block size, then a block's or the end's mark."""
_MAGIC: Final = (
    ("a zip", 0, (b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")),
    ("a gzip stream", 0, (b"\x1f\x8b\x08",)),
    ("a bzip2 stream", 0, _BZIP2),
    ("an xz stream", 0, (b"\xfd7zXZ\x00",)),
    ("a 7z archive", 0, (b"7z\xbc\xaf\x27\x1c",)),
    ("a rar archive", 0, (b"Rar!\x1a\x07",)),
    ("a zstd stream", 0, (b"\x28\xb5\x2f\xfd",)),
    ("a tar archive", 257, (b"ustar",)),
)
"""What a nested archive's first bytes are, by kind: where its mark lies and its marks."""
_SET_ID: Final = stat.S_ISUID | stat.S_ISGID
_ZIP_ENCRYPTED: Final = 0x1 | 0x40  # traditional PKWARE encryption, strong encryption
_ZIP_UTF8: Final = 0x800
_ZIP_METHODS: Final = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)
_EOCD: Final = struct.Struct("<4s4H2LH")
_EOCD64_LOCATOR: Final = struct.Struct("<4sLQL")
_EOCD64: Final = struct.Struct("<4sQ2H2L4Q")
_TAR_FILES: Final = (tarfile.REGTYPE, tarfile.AREGTYPE, tarfile.CONTTYPE)
_FILE_FLAGS: Final = os.O_NOFOLLOW | os.O_CLOEXEC
_BROKEN: Final = (zipfile.BadZipFile, tarfile.ReadError, gzip.BadGzipFile, zlib.error, EOFError, NotImplementedError)
"""What the readers raise on an archive that is damaged or no archive at all (never what a
write raises: a full disk is not the archive's fault)."""


class Reason(StrEnum):
    """Why an archive was refused: a code to store and show, one per hostile thing."""

    ARCHIVE_TOO_LARGE = "archive-too-large"
    UNKNOWN_FORMAT = "unknown-format"
    CORRUPT = "corrupt"
    TAR_HEADERS_TOO_LARGE = "tar-headers-too-large"
    TOO_MANY_ENTRIES = "too-many-entries"
    TOO_LARGE = "too-large"
    ENTRY_TOO_LARGE = "entry-too-large"
    ZIP_BOMB = "zip-bomb"
    SETUID = "setuid"
    NESTED_ARCHIVE = "nested-archive"
    ENCRYPTED = "encrypted"
    UNSUPPORTED_COMPRESSION = "unsupported-compression"
    EMPTY_NAME = "empty-name"
    NOT_UTF8 = "not-utf8"
    CONTROL_CHARACTER = "control-character"
    BACKSLASH = "backslash"
    ABSOLUTE_PATH = "absolute-path"
    PARENT_PATH = "parent-path"
    NAME_TOO_LONG = "name-too-long"
    TOO_DEEP = "too-deep"
    DUPLICATE = "duplicate"
    PARENT_IS_FILE = "parent-is-file"
    LINK = "link"
    SPECIAL_FILE = "special-file"
    DATA_FILTER = "data-filter"
    EMPTY = "empty"
    BAD_MANIFEST = "bad-manifest"


class ArchiveRefused(RefereeError):
    """An uploaded archive that is not unpacked: ``reason`` says which check refused it, the
    message names the entry (made printable) and what is wrong with it."""

    def __init__(self, reason: Reason, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True)
class ArchiveLimits:
    """How much an upload may be. A bot is source code, perhaps a binary or a table: a few MB
    at most; these are generous for that and small for a machine."""

    archive_bytes: int = 20 * MiB
    """The archive as uploaded (compressed)."""
    extracted_bytes: int = 200 * MiB
    """Every file's bytes together, as written."""
    entries: int = 5_000
    """Entries of every kind (files and folders)."""
    entry_bytes: int = 50 * MiB
    """One file, as written."""
    ratio: int = 100
    """Extracted over compressed, for one zip entry or the whole archive: a zip bomb's mark
    (source code deflates 3 to 10 times; zeros 1,000 times)."""
    ratio_floor: int = MiB
    """The ratio is judged only past this many extracted bytes (a small file of zeros is fine)."""
    path_bytes: int = 1_024
    """A whole name in the archive, UTF-8 bytes."""
    name_bytes: int = 255
    """One component of a name (a file system's own limit)."""
    depth: int = 32
    """Folders nested in a name."""
    manifest_bytes: int = 16 * 1024
    """The manifest file."""


DEFAULT_LIMITS: Final = ArchiveLimits()


class Manifest(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """``hearts-bot.toml``: how the uploaded bot is built and started, in its root folder. Each
    line must be one the referee can run, as in a bot list (``command_words``)."""

    command: str
    """The bot's command line, run in the bot's folder."""
    build: str | None = None
    """The build line, run once in the sandbox before the bot is checked."""


@dataclass(frozen=True)
class Unpacked:
    """What an accepted archive became."""

    folder: Path
    """The destination, now holding the bot's files (mode 0755)."""
    content_hash: str
    """sha256 (hex) of the tree as unpacked: paths, executable bits, contents (see ``_digest``).
    Equal for equal trees however they were packed: a new version only when the content changes."""
    files: int
    total_bytes: int
    manifest: Manifest | None
    wrapper: str | None
    """The one top-level folder taken as the root (its contents are ``folder``), if any."""


def unpack(archive: Path | bytes, into: Path, limits: ArchiveLimits = DEFAULT_LIMITS) -> Unpacked:
    """Unpack a zip, tar or tar.gz archive (told apart by its first bytes, never its name) into
    ``into``, which must not exist yet: its parent must. Raises ``ArchiveRefused`` for anything
    hostile, leaving nothing behind; ``FileExistsError`` when ``into`` exists (the caller's
    mistake, not the archive's)."""
    data = archive if isinstance(archive, bytes) else _read_archive(archive, limits)
    if len(data) > limits.archive_bytes:
        raise ArchiveRefused(Reason.ARCHIVE_TOO_LARGE, f"the archive is over {_amount(limits.archive_bytes)}")
    kind = _format(data)
    if os.path.lexists(into):
        raise FileExistsError(f"{into}: already exists; an upload is unpacked into a new folder")
    staging = Path(tempfile.mkdtemp(prefix=f".{into.name}.", suffix=STAGING_SUFFIX, dir=into.parent))
    try:
        top = os.open(staging, FOLDER_FLAGS)
        try:
            tree = _Tree(top, limits, len(data))
            with _reading():
                if kind == "zip":
                    _unpack_zip(data, tree)
                else:
                    _unpack_tar(data, kind == "gzip", tree, str(staging))
        finally:
            os.close(top)
        return _finish(tree, staging, into, limits)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _read_archive(path: Path, limits: ArchiveLimits) -> bytes:
    """The archive's bytes, one more than the limit at most (enough to tell it is over)."""
    with path.open("rb") as file:
        return file.read(limits.archive_bytes + 1)


def _format(data: bytes) -> Literal["zip", "gzip", "tar"]:
    """Which kind of archive the first bytes say (a name or a content type can say anything)."""
    if data[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        return "zip"
    if data[:2] == b"\x1f\x8b":
        return "gzip"
    if data[257:262] == b"ustar":
        return "tar"
    raise ArchiveRefused(Reason.UNKNOWN_FORMAT, "not a zip, tar or tar.gz archive (told by its first bytes)")


@contextlib.contextmanager
def _reading() -> Iterator[None]:
    """A damaged archive, or bytes that only begin like one, as a refusal."""
    try:
        yield
    except _BROKEN as err:
        raise ArchiveRefused(Reason.CORRUPT, f"the archive cannot be read: {printable(str(err), 200)}") from None


def _amount(size: int) -> str:
    return f"{size / MiB:g} MiB" if size >= MiB else f"{size:,} bytes"


def _shown(name: str) -> str:
    """An entry's name as a message quotes it: every unprintable character escaped."""
    return f"'{printable(name, 120)}'"


def _refuse(reason: Reason, name: str, why: str) -> ArchiveRefused:
    return ArchiveRefused(reason, f"{_shown(name)}: {why}")


def _too_many(limits: ArchiveLimits) -> ArchiveRefused:
    return ArchiveRefused(Reason.TOO_MANY_ENTRIES, f"the archive holds over {limits.entries:,} entries")


def _entry_path(raw: bytes, folder: bool, limits: ArchiveLimits) -> tuple[str, ...]:
    """The entry's path in the tree, its components; refuses every name that is not a plain
    relative path of printable UTF-8 (``.`` components and repeated slashes are dropped:
    tar's ``./`` prefix). An empty path is the root itself, allowed for a folder only."""
    try:
        name = raw.decode("utf-8")
    except UnicodeDecodeError:
        shown = raw.decode("utf-8", "backslashreplace")
        raise _refuse(Reason.NOT_UTF8, shown, "the name is not UTF-8") from None
    if len(raw) > limits.path_bytes:
        raise _refuse(Reason.NAME_TOO_LONG, name, f"the name is over {limits.path_bytes:,} bytes")
    if "\\" in name:
        raise _refuse(Reason.BACKSLASH, name, "a backslash in a name (folders are separated by /)")
    if odd := next((c for c in name if not c.isprintable()), None):
        raise _refuse(Reason.CONTROL_CHARACTER, name, f"the name holds the character {odd!r}")
    if name.startswith("/"):
        raise _refuse(Reason.ABSOLUTE_PATH, name, "an absolute path")
    parts = tuple(part for part in name.split("/") if part not in ("", "."))
    if ".." in parts:
        raise _refuse(Reason.PARENT_PATH, name, "a .. in the path")
    if any(len(part.encode()) > limits.name_bytes for part in parts):
        raise _refuse(Reason.NAME_TOO_LONG, name, f"a part of the name is over {limits.name_bytes} bytes")
    if len(parts) > limits.depth:
        raise _refuse(Reason.TOO_DEEP, name, f"nested over {limits.depth} folders deep")
    if not parts and not folder:
        raise _refuse(Reason.EMPTY_NAME, name, "a file with an empty name")
    return parts


def _key(parts: tuple[str, ...]) -> tuple[str, ...]:
    """A path as a case-insensitive, normalising file system sees it (canonical caseless
    match: NFD of the case fold of NFD): two entries with one key are one file there."""
    return tuple(unicodedata.normalize("NFD", unicodedata.normalize("NFD", part).casefold()) for part in parts)


class _Tree:
    """The temporary folder being filled: where each entry may go, and what was written."""

    def __init__(self, top: int, limits: ArchiveLimits, archive_bytes: int) -> None:
        self.limits = limits
        self._top = top
        self._archive_bytes = archive_bytes
        self._entries = 0
        self._folders: dict[tuple[str, ...], tuple[str, ...]] = {}
        """Every folder of the tree (named by an entry or lying on a path), by key: as spelled."""
        self._named: set[tuple[str, ...]] = set()
        """The keys of folders that an entry named."""
        self._file_keys: set[tuple[str, ...]] = set()
        self.files: dict[tuple[str, ...], tuple[bool, bytes]] = {}
        """Each file written: whether executable, the sha256 of its contents."""
        self.written = 0

    @property
    def folders(self) -> list[tuple[str, ...]]:
        return list(self._folders.values())

    def count(self, entries: int = 1) -> None:
        self._entries += entries
        if self._entries > self.limits.entries:
            raise _too_many(self.limits)

    def folder(self, parts: tuple[str, ...]) -> None:
        """A folder entry (the root itself when ``parts`` is empty)."""
        if parts:
            self._claim(parts, folder=True)
            os.close(self._open_folder(parts))

    def expect(self, parts: tuple[str, ...], size: int, compressed: int | None) -> None:
        """Refuse a file by its declared size before any of it is read."""
        self._weigh(parts, size, self.written + size, compressed)

    def file(self, parts: tuple[str, ...], source: IO[bytes], executable: bool, compressed: int | None) -> None:
        """Write a file entry from ``source``, counting its bytes as they come; its first bytes
        are read before anything is written, and refused when they are a nested archive. The
        new file is created, never opened: ``O_EXCL`` (and ``O_NOFOLLOW``) in a folder reached
        without following a link."""
        self._claim(parts, folder=False)
        head = source.read(_HEAD)
        _refuse_nested(parts, head)
        digest, size = hashlib.sha256(), 0
        parent = self._open_folder(parts[:-1])

        def opener(path: str, flags: int) -> int:
            return os.open(path, flags | _FILE_FLAGS, 0o600, dir_fd=parent)

        try:
            with open(parts[-1], "xb", opener=opener) as out:
                chunk = head
                while chunk:
                    size += len(chunk)
                    self.written += len(chunk)
                    self._weigh(parts, size, self.written, compressed)
                    digest.update(chunk)
                    out.write(chunk)
                    chunk = source.read(_CHUNK)
                os.fchmod(out.fileno(), 0o755 if executable else 0o644)
        finally:
            os.close(parent)
        self.files[parts] = (executable, digest.digest())

    def _weigh(self, parts: tuple[str, ...], size: int, total: int, compressed: int | None) -> None:
        """Refuse a file of ``size`` bytes (the tree then ``total``) that passes a limit."""
        limits, name = self.limits, "/".join(parts)
        if size > limits.entry_bytes:
            raise _refuse(Reason.ENTRY_TOO_LARGE, name, f"a file over {_amount(limits.entry_bytes)}")
        if total > limits.extracted_bytes:
            raise _refuse(Reason.TOO_LARGE, name, f"the files pass {_amount(limits.extracted_bytes)} here")
        if compressed is not None and size > limits.ratio_floor and size > limits.ratio * max(compressed, 1):
            raise _refuse(Reason.ZIP_BOMB, name, f"{size:,} bytes from {compressed:,}: over {limits.ratio} times")
        if total > limits.ratio_floor and total > limits.ratio * self._archive_bytes:
            why = f"{total:,} bytes from an archive of {self._archive_bytes:,}: over {limits.ratio} times"
            raise _refuse(Reason.ZIP_BOMB, name, why)

    def _claim(self, parts: tuple[str, ...], folder: bool) -> None:
        """Refuse an entry that would land on another: the same path again (as a case-folding,
        normalising file system sees it), or a path through a file."""
        name = "/".join(parts)
        for depth in range(1, len(parts)):
            above = parts[:depth]
            if _key(above) in self._file_keys:
                raise _refuse(Reason.PARENT_IS_FILE, name, f"{_shown('/'.join(above))} is a file of the archive")
            self._spell(above, name)
        key = _key(parts)
        if key in self._file_keys or key in self._named or (not folder and key in self._folders):
            raise _refuse(Reason.DUPLICATE, name, "a second entry for this path (letter case and Unicode forms aside)")
        if folder:
            self._spell(parts, name)
            self._named.add(key)
        else:
            self._file_keys.add(key)

    def _spell(self, parts: tuple[str, ...], name: str) -> None:
        spelled = self._folders.setdefault(_key(parts), parts)
        if spelled != parts:
            why = f"its folder {_shown('/'.join(parts))} is also spelled {_shown('/'.join(spelled))}"
            raise _refuse(Reason.DUPLICATE, name, why)

    def _open_folder(self, parts: tuple[str, ...]) -> int:
        """The folder ``parts`` (made 0755 when new), reached one component at a time from the
        top without following a link."""
        here = os.dup(self._top)
        try:
            for part in parts:
                new = _make(here, part)
                below = os.open(part, FOLDER_FLAGS, dir_fd=here)
                os.close(here)
                here = below
                if new:
                    os.fchmod(here, 0o755)
            return here
        except BaseException:
            os.close(here)
            raise


def archive_kind(head: bytes) -> str | None:
    """What archive or compressed stream a file's first bytes (``HEAD_BYTES``) begin, if any
    (``"a zip"``, ``"a gzip stream"``...), whatever the file's name says."""
    return next((kind for kind, at, marks in _MAGIC if head[at:].startswith(marks)), None)


def _refuse_nested(parts: tuple[str, ...], head: bytes) -> None:
    """Refuse a file whose first bytes are an archive or a compressed stream (by its bytes,
    whatever its name says): what it holds passed none of the checks here. A zip named as a
    kind a runtime reads as it is (``RUN_AS_THEY_ARE``) is kept as a file."""
    kind = archive_kind(head)
    if kind is None or (kind == "a zip" and parts[-1].lower().endswith(RUN_AS_THEY_ARE)):
        return
    why = f"{kind} inside the archive (by its first bytes); upload its files unpacked instead"
    raise _refuse(Reason.NESTED_ARCHIVE, "/".join(parts), why)


def _refuse_set_id(name: str, mode: int) -> None:
    """Refuse an entry whose mode has a setuid or setgid bit: a program that would run with its
    owner's or group's rights is no bot's business (a sticky bit, harmless, is dropped)."""
    if mode & _SET_ID:
        bits = " and ".join(bit for flag, bit in ((stat.S_ISUID, "setuid"), (stat.S_ISGID, "setgid")) if mode & flag)
        raise _refuse(Reason.SETUID, name, f"a {bits} bit (mode {mode & 0o7777:o}): chmod ug-s it before packing")


def _make(folder: int, name: str) -> bool:
    """Make the folder ``name`` unless it is there: whether it was made."""
    try:
        os.mkdir(name, 0o700, dir_fd=folder)
    except FileExistsError:
        return False
    return True


def _unpack_zip(data: bytes, tree: _Tree) -> None:
    """Every entry of a zip archive: the count and the declared sizes first, from the central
    directory, then each entry as it is written."""
    limits = tree.limits
    if _central_records(data) > limits.entries:
        raise _too_many(limits)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except UnicodeDecodeError:
        raise ArchiveRefused(Reason.NOT_UTF8, "a name the zip marks as UTF-8 is not UTF-8") from None
    with archive:
        entries = archive.infolist()
        tree.count(len(entries))
        total = sum(entry.file_size for entry in entries)
        if total > limits.extracted_bytes:
            why = f"the files are declared as {total:,} bytes, over {_amount(limits.extracted_bytes)}"
            raise ArchiveRefused(Reason.TOO_LARGE, why)
        if total > limits.ratio_floor and total > limits.ratio * len(data):
            why = f"the files are declared as {total:,} bytes from {len(data):,}: over {limits.ratio} times"
            raise ArchiveRefused(Reason.ZIP_BOMB, why)
        for entry in entries:
            _zip_entry(archive, entry, tree)


def _central_records(data: bytes) -> int:
    """How many entries ``zipfile`` would read from the central directory (at least: the
    records' signature counted there), found before it reads them: it makes an object of
    each, and 20 MiB of the smallest records are 250,000 entries and over 100 MiB of memory.
    The directory is found as ``zipfile`` finds it, from the (zip64) end record."""
    end = len(data) - _EOCD.size
    if not (data[end : end + 4] == b"PK\x05\x06" and data[-2:] == b"\0\0"):
        end = data.rfind(b"PK\x05\x06", max(0, len(data) - _EOCD.size - 0xFFFF))
    if end < 0 or end + _EOCD.size > len(data):
        return 0  # no end record: zipfile refuses the archive itself
    size = _EOCD.unpack_from(data, end)[5]
    locator = end - _EOCD64_LOCATOR.size
    record = locator - _EOCD64.size
    if record >= 0 and data[locator : locator + 4] == b"PK\x06\x07" and data[record : record + 4] == b"PK\x06\x06":
        end, size = record, _EOCD64.unpack_from(data, record)[8]
    return data.count(b"PK\x01\x02", max(0, end - size), end)


def _zip_entry(archive: zipfile.ZipFile, entry: zipfile.ZipInfo, tree: _Tree) -> None:
    """One zip entry: its name as the archive's bytes (UTF-8 when flagged, else any bytes,
    which must then be UTF-8 too), its Unix mode's file type, encryption and method."""
    raw = entry.orig_filename.encode("utf-8" if entry.flag_bits & _ZIP_UTF8 else "cp437")
    folder = raw.endswith(b"/")
    parts = _entry_path(raw, folder, tree.limits)
    name = "/".join(parts)
    mode = entry.external_attr >> 16
    kind = stat.S_IFMT(mode)
    if kind == stat.S_IFLNK:
        raise _refuse(Reason.LINK, name, "a symbolic link (by its mode); an upload holds no links")
    if kind not in (0, stat.S_IFREG, stat.S_IFDIR) or (kind == stat.S_IFDIR and not folder):
        raise _refuse(Reason.SPECIAL_FILE, name, f"not a file or folder (its mode is {mode:o})")
    _refuse_set_id(name, mode)
    if entry.flag_bits & _ZIP_ENCRYPTED:
        raise _refuse(Reason.ENCRYPTED, name, "encrypted")
    if folder:
        tree.folder(parts)
        return
    if entry.compress_type not in _ZIP_METHODS:
        why = f"compressed by method {entry.compress_type} (only stored and deflated are read)"
        raise _refuse(Reason.UNSUPPORTED_COMPRESSION, name, why)
    tree.expect(parts, entry.file_size, entry.compress_size)
    with archive.open(entry) as source:
        tree.file(parts, source, bool(mode & stat.S_IXUSR), entry.compress_size)


class _Meter(io.BufferedIOBase):
    """The tar stream (decompressed), read through a meter. ``tarfile`` reads a member's
    headers whole before it hands the member out, where no check here can see them; so at
    most ``TAR_HEADER_BYTES`` may be read beyond the data of the last member handed out, and
    ``total`` in all."""

    def __init__(self, source: io.BufferedIOBase, total: int) -> None:
        super().__init__()
        self._source = source
        self._total = total
        self._now = TAR_HEADER_BYTES

    def grant(self, data: int) -> None:
        """Allow the data of the member just handed out (in 512-byte blocks) and the next headers."""
        self._now = -(-data // tarfile.BLOCKSIZE) * tarfile.BLOCKSIZE + TAR_HEADER_BYTES

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1, /) -> bytes:
        chunk = self._source.read(size if size is not None and size >= 0 else tarfile.RECORDSIZE)
        self._now -= len(chunk)
        self._total -= len(chunk)
        if self._now < 0 or self._total < 0:
            why = f"tar headers (pax records, long names) over {_amount(TAR_HEADER_BYTES)} for one entry"
            raise ArchiveRefused(Reason.TAR_HEADERS_TOO_LARGE, why)
        return chunk


_TAR_KINDS: Final = {
    tarfile.CHRTYPE: "a character device",
    tarfile.BLKTYPE: "a block device",
    tarfile.FIFOTYPE: "a FIFO",
    tarfile.GNUTYPE_SPARSE: "a sparse file",
}


def _unpack_tar(data: bytes, compressed: bool, tree: _Tree, root: str) -> None:
    """Every member of a tar stream, in order, each checked before its data is read."""
    limits = tree.limits
    source: io.BufferedIOBase = gzip.GzipFile(fileobj=io.BytesIO(data)) if compressed else io.BytesIO(data)
    meter = _Meter(source, limits.extracted_bytes + limits.entries * TAR_ENTRY_OVERHEAD + TAR_HEADER_BYTES)
    with tarfile.open(fileobj=meter, mode="r|", encoding="utf-8", errors="surrogateescape") as archive:
        for member in archive:
            tree.count()
            meter.grant(member.size if member.type in _TAR_FILES else 0)
            _tar_member(archive, member, tree, root)


def _tar_member(archive: tarfile.TarFile, member: tarfile.TarInfo, tree: _Tree, root: str) -> None:
    """One tar member: checked here, then by the ``data`` filter against the folder being filled."""
    raw = member.name.encode("utf-8", "surrogateescape")  # the name's bytes as in the archive
    parts = _entry_path(raw, member.isdir(), tree.limits)
    name = "/".join(parts)
    if member.issym() or member.islnk():
        kind = "symbolic" if member.issym() else "hard"
        raise _refuse(Reason.LINK, name, f"a {kind} link; an upload holds no links")
    if not member.isdir() and member.type not in _TAR_FILES:
        raise _refuse(Reason.SPECIAL_FILE, name, _TAR_KINDS.get(member.type, f"a tar entry of type {member.type!r}"))
    _refuse_set_id(name, member.mode)
    try:
        filtered = tarfile.data_filter(member, root)
    except tarfile.FilterError as err:
        raise _refuse(Reason.DATA_FILTER, name, f"refused by tarfile's data filter: {err}") from None
    if member.isdir():
        tree.folder(parts)
        return
    tree.expect(parts, member.size, None)
    source = archive.extractfile(member)
    if source is None:  # never for a regular file
        raise _refuse(Reason.SPECIAL_FILE, name, "no data to read")
    tree.file(parts, source, bool(filtered.mode & stat.S_IXUSR), None)


def _finish(tree: _Tree, staging: Path, into: Path, limits: ArchiveLimits) -> Unpacked:
    """The tree checked whole (a file at least, the manifest), then renamed into place: its
    one top-level folder, when it has nothing else at its top, or the staging folder itself."""
    if not tree.files:
        raise ArchiveRefused(Reason.EMPTY, "the archive holds no file")
    wrapper = _wrapper(tree)
    strip = 1 if wrapper else 0
    root = staging / wrapper if wrapper else staging
    manifest = _manifest(root, tree, strip, limits)
    digest = _digest(tree, strip)
    os.chmod(root, 0o755)
    os.rename(root, into)
    if wrapper:
        os.rmdir(staging)
    return Unpacked(into, digest, len(tree.files), tree.written, manifest, wrapper)


def _wrapper(tree: _Tree) -> str | None:
    """The single top-level folder, when the archive's top holds nothing else: many tools
    wrap an archive's files so (GitHub's "Download ZIP", ``tar czf bot.tgz bot/``)."""
    tops = {parts[0] for parts in [*tree.files, *tree.folders]}
    if len(tops) == 1 and all(len(parts) > 1 for parts in tree.files):
        return next(iter(tops))
    return None


def _manifest(root: Path, tree: _Tree, strip: int, limits: ArchiveLimits) -> Manifest | None:
    """The root's ``hearts-bot.toml``, read strictly: ``command``, perhaps ``build``, nothing else."""
    if any(parts[strip:] == (MANIFEST_NAME,) for parts in tree.folders):
        raise ArchiveRefused(Reason.BAD_MANIFEST, f"{MANIFEST_NAME} is a folder")
    if not any(parts[strip:] == (MANIFEST_NAME,) for parts in tree.files):
        return None
    with open(root / MANIFEST_NAME, "rb", opener=lambda path, flags: os.open(path, flags | _FILE_FLAGS)) as file:
        data = file.read(limits.manifest_bytes + 1)
    if len(data) > limits.manifest_bytes:
        raise ArchiveRefused(Reason.BAD_MANIFEST, f"{MANIFEST_NAME} is over {limits.manifest_bytes:,} bytes")
    try:
        manifest = msgspec.toml.decode(data, type=Manifest)
        for line in (manifest.command, manifest.build):
            if line is not None:
                command_words(line)
    except (msgspec.MsgspecError, BotConfigError) as err:
        raise ArchiveRefused(Reason.BAD_MANIFEST, f"{MANIFEST_NAME}: {printable(str(err), 200)}") from None
    return manifest


def _digest(tree: _Tree, strip: int) -> str:
    """The content hash: sha256 of ``HASH_VERSION``, then of each folder and file in the order
    of its path's UTF-8 bytes (relative to the root): a kind letter (``d`` folder, ``f`` file,
    ``x`` executable file), NUL, the path (``/`` between components), NUL, and for a file the
    sha256 of its contents (32 bytes). Names hold no NUL, so two trees never give one stream."""
    records = [("/".join(parts[strip:]).encode(), b"d", b"") for parts in tree.folders if parts[strip:]]
    for parts, (executable, contents) in tree.files.items():
        records.append(("/".join(parts[strip:]).encode(), b"x" if executable else b"f", contents))
    digest = hashlib.sha256(HASH_VERSION)
    for path, kind, contents in sorted(records):
        digest.update(kind + b"\0" + path + b"\0" + contents)
    return digest.hexdigest()
