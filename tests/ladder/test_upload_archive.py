"""An uploaded bot archive unpacked as hostile input (referee/ladder/upload_archive.py): good
zips and tarballs unpack whole, with their modes made plain and their manifest read; every
hostile archive is refused by its reason, with nothing left behind and nothing written outside
(a decoy beside the destination, a folder a link points to); any safe archive round-trips and
its hash ignores the order of its entries. Archives are made in memory with zipfile and tarfile."""

from __future__ import annotations

import bz2
import functools
import gzip
import io
import lzma
import os
import re
import stat
import struct
import tarfile
import tempfile
import unicodedata
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.ladder import upload_archive
from referee.ladder.upload_archive import (
    DEFAULT_LIMITS,
    MANIFEST_NAME,
    ArchiveLimits,
    ArchiveRefused,
    Manifest,
    Reason,
    archive_kind,
    unpack,
)
from tests.tiers import examples

ROOT = Path(__file__).resolve().parent.parent.parent
MB = 1_000_000

Entry = tuple[str, bytes] | tuple[str, bytes, int]
"""A zip entry: its name, contents and mode (file type and permissions; default a plain file,
or a folder for a name ending in ``/``)."""


def zipped(*entries: Entry, method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        for name, data, *mode in entries:
            info = zipfile.ZipInfo(name)
            info.external_attr = (mode[0] if mode else 0o40755 if name.endswith("/") else 0o100644) << 16
            info.compress_type = method
            archive.writestr(info, data)
    return buf.getvalue()


Member = tuple[tarfile.TarInfo, bytes]
"""A tar member: its header and its data."""


def member(name: str, data: bytes = b"", mode: int = 0o644, kind: bytes = tarfile.REGTYPE, link: str = "") -> Member:
    info = tarfile.TarInfo(name)
    info.type, info.mode, info.linkname, info.size = kind, mode, link, len(data)
    return info, data


def file(name: str, data: bytes = b"x", mode: int = 0o644) -> Member:
    return member(name, data, mode)


def folder(name: str, mode: int = 0o755) -> Member:
    return member(name, mode=mode, kind=tarfile.DIRTYPE)


def pax(name: str, headers: dict[str, str]) -> Member:
    info, data = file(name)
    info.pax_headers = headers
    return info, data


def tarred(*members: Member, gz: bool = True, fmt: int = tarfile.PAX_FORMAT) -> bytes:
    buf = io.BytesIO()
    mode = "w:gz" if gz else "w"
    with tarfile.open(fileobj=buf, mode=mode, format=fmt, encoding="utf-8", errors="surrogateescape") as archive:
        for info, data in members:
            archive.addfile(info, io.BytesIO(data) if data else None)
    return buf.getvalue()


def patched(data: bytes, old: bytes, new: bytes) -> bytes:
    """The archive with every ``old`` (a name, in the local header and the central directory)
    made ``new``, of the same length: names zipfile would never write."""
    assert len(old) == len(new) and data.count(old) == 2
    return data.replace(old, new)


def zip_field(data: bytes, local: int, central: int, fmt: str, value: int) -> bytes:
    """A one-entry zip with a field set in its local header (at offset ``local``) and its
    central directory record (``central``)."""
    out = bytearray(data)
    struct.pack_into(fmt, out, local, value)
    struct.pack_into(fmt, out, data.index(b"PK\x01\x02") + central, value)
    return bytes(out)


def snapshot(folder: Path) -> dict[str, tuple[int, bytes | None]]:
    """Every entry under ``folder``: its mode, and a file's bytes."""
    seen = {}
    for where, folders, files in os.walk(folder):
        for name in folders + files:
            path = Path(where) / name
            info = path.lstat()
            seen[str(path.relative_to(folder))] = (
                info.st_mode,
                path.read_bytes() if stat.S_ISREG(info.st_mode) else None,
            )
    return seen


@pytest.fixture
def into(tmp_path: Path) -> Path:
    """The destination, beside a decoy a ``../`` entry would overwrite and a folder outside
    that a link would lead to."""
    (tmp_path / "decoy.txt").write_bytes(b"keep")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "file").write_bytes(b"keep")
    return tmp_path / "bot"


def refused(archive: bytes, into: Path, reason: Reason, limits: ArchiveLimits = DEFAULT_LIMITS) -> ArchiveRefused:
    """Unpack ``archive``, which must be refused for ``reason``, leaving no trace: ``into`` not
    made, and nothing beside it changed (the decoy, the folder outside, no staging folder)."""
    before = snapshot(into.parent)
    with pytest.raises(ArchiveRefused) as caught:
        unpack(archive, into, limits)
    assert caught.value.reason == reason, str(caught.value)
    assert not os.path.lexists(into)
    assert snapshot(into.parent) == before
    return caught.value


def tree_of(folder: Path) -> dict[str, tuple[bytes, bool]]:
    """The unpacked files (contents, executable), checking every mode is a plain one."""
    assert stat.S_IMODE(folder.stat().st_mode) == 0o755
    found = {}
    for where, folders, files in os.walk(folder):
        for name in folders:
            assert stat.S_IMODE((Path(where) / name).lstat().st_mode) == 0o755
        for name in files:
            path = Path(where) / name
            mode = path.lstat().st_mode
            assert stat.S_ISREG(mode) and stat.S_IMODE(mode) in (0o644, 0o755), (path, oct(mode))
            found[str(path.relative_to(folder))] = (path.read_bytes(), stat.S_IMODE(mode) == 0o755)
    return found


# --- good archives ---------------------------------------------------------------------------

MANIFEST = b'command = "python3 bot.py"\nbuild = "make"\n'


def test_a_zip_in_one_folder_is_unpacked_from_inside_it_with_its_executable_bits(into: Path) -> None:
    archive = zipped(
        ("mybot/", b""),
        ("mybot/bot.py", b"print('hi')\n", 0o100775),
        ("mybot/lib/cards.py", b"SUITS = 4\n", 0o100600),
        ("mybot/" + MANIFEST_NAME, MANIFEST),
    )
    done = unpack(archive, into)
    assert done.folder == into and done.wrapper == "mybot"
    assert done.manifest == Manifest(command="python3 bot.py", build="make")
    assert (done.files, done.total_bytes) == (3, 12 + 10 + len(MANIFEST))
    assert tree_of(into) == {
        "bot.py": (b"print('hi')\n", True),
        "lib/cards.py": (b"SUITS = 4\n", False),
        MANIFEST_NAME: (MANIFEST, False),
    }
    assert sorted(p.name for p in into.parent.iterdir()) == ["bot", "decoy.txt", "outside"]  # no staging left


def test_a_tar_gz_with_files_at_its_top_is_unpacked_as_it_is(into: Path) -> None:
    archive = tarred(
        folder(".", 0o700),  # tar -C bot -czf bot.tgz .
        file("./bot", b"#!/bin/sh\n", 0o744),
        folder("./data", 0o777),
        file("./data/table.bin", bytes(range(256)), 0o666),
        file("./" + MANIFEST_NAME, b'command = "./bot"\n'),
    )
    done = unpack(archive, into)
    assert done.wrapper is None
    assert done.manifest == Manifest(command="./bot")
    assert tree_of(into) == {
        "bot": (b"#!/bin/sh\n", True),
        "data/table.bin": (bytes(range(256)), False),
        MANIFEST_NAME: (b'command = "./bot"\n', False),
    }


def test_a_plain_tar_read_from_a_file_is_unpacked(into: Path, tmp_path: Path) -> None:
    upload = tmp_path / "upload.bin"  # the name says nothing: the bytes do
    upload.write_bytes(tarred(file("bot.py", b"pass\n"), gz=False))
    done = unpack(upload, into)
    assert (done.manifest, done.files) == (None, 1)
    assert tree_of(into) == {"bot.py": (b"pass\n", False)}


def test_sticky_bits_are_dropped_and_only_the_owner_execute_bit_counts(into: Path) -> None:
    archive = tarred(
        folder("tools", 0o1777),  # a sticky folder, as /tmp: it grants nothing, and is made 0755
        file("tools/sticky", b"1", 0o1755),
        file("tools/others", b"3", 0o655),  # group and others may execute, the owner not
        file("run", b"4", 0o100),
    )
    unpack(archive, into)
    assert {name: executable for name, (_, executable) in tree_of(into).items()} == {
        "tools/sticky": True,
        "tools/others": False,
        "run": True,
    }


def test_a_top_folder_beside_a_file_is_not_taken_as_the_root(into: Path) -> None:
    done = unpack(zipped(("src/bot.py", b"pass"), (MANIFEST_NAME, b'command = "python3 src/bot.py"')), into)
    assert done.wrapper is None and done.manifest == Manifest(command="python3 src/bot.py")
    assert set(tree_of(into)) == {"src/bot.py", MANIFEST_NAME}


def test_a_jar_a_wheel_or_an_egg_is_kept_as_a_file_a_runtime_reads(into: Path) -> None:
    """The one exception to ``nested-archive``: a zip a runtime reads as it is, by its name."""
    inner = zipped(("../escape.txt", b"never unpacked"))
    plain = b"PK is how this note begins, and it is no zip\n"
    unpack(zipped(("bot.py", b"pass"), ("lib/cards.jar", inner), ("lib/deps.WHL", inner), ("lib/old.egg", inner),
                  ("notes.zip", plain)), into)  # fmt: skip
    assert {name: data for name, (data, _) in tree_of(into).items()} == {
        "bot.py": b"pass",
        "lib/cards.jar": inner,
        "lib/deps.WHL": inner,
        "lib/old.egg": inner,
        "notes.zip": plain,  # a name alone is no archive
    }


def test_the_hash_follows_the_content_not_the_packing(tmp_path: Path) -> None:
    def hashed(archive: bytes) -> str:
        with tempfile.TemporaryDirectory(dir=tmp_path) as scratch:
            return unpack(archive, Path(scratch) / "bot").content_hash

    base = hashed(zipped(("bot.py", b"pass", 0o100755), ("lib/a.py", b"A")))
    assert base == hashed(tarred(file("lib/a.py", b"A"), file("bot.py", b"pass", 0o700)))
    assert base == hashed(zipped(("v2/lib/a.py", b"A"), ("v2/bot.py", b"pass", 0o100755)))  # a wrapper's name aside
    assert base != hashed(zipped(("bot.py", b"pass", 0o100644), ("lib/a.py", b"A")))  # not executable
    assert base != hashed(zipped(("bot.py", b"pass", 0o100755), ("lib/a.py", b"B")))  # a file's contents
    assert base != hashed(zipped(("bot.py", b"pass", 0o100755), ("lib/b.py", b"A")))  # a file's name
    assert base != hashed(zipped(("bot.py", b"pass", 0o100755), ("lib/a.py", b"A"), ("empty/", b"")))  # a folder


def test_an_existing_destination_is_the_callers_mistake_and_left_alone(into: Path) -> None:
    into.mkdir()
    (into / "old").write_bytes(b"old")
    with pytest.raises(FileExistsError):
        unpack(zipped(("bot.py", b"pass")), into)
    assert snapshot(into) == {"old": ((into / "old").lstat().st_mode, b"old")}


# --- hostile archives, each refused by name --------------------------------------------------

Build = Callable[[Path], bytes]
"""An archive, made knowing where the decoy lies (the test's folder)."""


@functools.cache
def zeros_zip() -> bytes:
    return zipped(("zeros.bin", bytes(50 * MB)))  # about 50 KB: a ratio of 1,000


@functools.cache
def zeros_tar_gz() -> bytes:
    return tarred(file("zeros.bin", bytes(50 * MB)))


def changed(data: bytes, at: int) -> bytes:
    """The archive with the byte at ``at`` changed (of an entry's data: its CRC no longer
    matches, or its deflate stream is broken)."""
    return data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1 :]


def bomb_among_others() -> bytes:
    """One entry of zeros beside incompressible bytes: the whole archive's ratio is about 3,
    the entry's 1,000."""
    return zipped(("noise.bin", os.urandom(MB)), ("zeros.bin", bytes(2 * MB)))


SIZES: list[tuple[str, Build, Reason, ArchiveLimits]] = [
    (
        "archive-over-limit",
        lambda _: zipped(("a", os.urandom(2000)), method=zipfile.ZIP_STORED),
        Reason.ARCHIVE_TOO_LARGE,
        ArchiveLimits(archive_bytes=1000),
    ),
    (
        "zip-total",
        lambda _: zipped(("a", b"a" * 600), ("b", b"b" * 600)),
        Reason.TOO_LARGE,
        ArchiveLimits(extracted_bytes=1000),
    ),
    (
        "tar-total",
        lambda _: tarred(file("a", b"a" * 600), file("b", b"b" * 600)),
        Reason.TOO_LARGE,
        ArchiveLimits(extracted_bytes=1000),
    ),
    (
        "zip-count",
        lambda _: zipped(*[(f"f{i}", b"") for i in range(4)]),
        Reason.TOO_MANY_ENTRIES,
        ArchiveLimits(entries=3),
    ),
    (
        "tar-count",
        lambda _: tarred(*[file(f"f{i}") for i in range(4)]),
        Reason.TOO_MANY_ENTRIES,
        ArchiveLimits(entries=3),
    ),
    (
        "zip-folders-count",
        lambda _: zipped(("a/", b""), ("b/", b""), ("c/", b""), ("f", b"")),
        Reason.TOO_MANY_ENTRIES,
        ArchiveLimits(entries=3),
    ),
    ("zip-entry", lambda _: zipped(("big", b"b" * 2000)), Reason.ENTRY_TOO_LARGE, ArchiveLimits(entry_bytes=1000)),
    ("tar-entry", lambda _: tarred(file("big", b"b" * 2000)), Reason.ENTRY_TOO_LARGE, ArchiveLimits(entry_bytes=1000)),
    ("zip-bomb", lambda _: zeros_zip(), Reason.ZIP_BOMB, DEFAULT_LIMITS),
    ("zip-bomb-one-entry", lambda _: bomb_among_others(), Reason.ZIP_BOMB, DEFAULT_LIMITS),
    (
        "zip-bomb-archive",
        lambda _: zipped(*[(f"z{i}", bytes(900_000)) for i in range(20)]),
        Reason.ZIP_BOMB,
        DEFAULT_LIMITS,
    ),
    ("tar-gz-bomb", lambda _: zeros_tar_gz(), Reason.ZIP_BOMB, DEFAULT_LIMITS),
    (
        "pax-header-bomb",
        lambda _: tarred(pax("bot.py", {"comment": "x" * (2 * 1024 * 1024)})),
        Reason.TAR_HEADERS_TOO_LARGE,
        DEFAULT_LIMITS,
    ),
]


@pytest.mark.parametrize(("build", "reason", "limits"), [pytest.param(*case[1:], id=case[0]) for case in SIZES])
def test_an_archive_over_a_limit_is_refused(into: Path, build: Build, reason: Reason, limits: ArchiveLimits) -> None:
    refused(build(into.parent), into, reason, limits)


def test_a_zip_bomb_is_refused_by_its_declared_sizes_the_whole_archive_or_one_entry(into: Path) -> None:
    whole = refused(zeros_zip(), into, Reason.ZIP_BOMB)
    assert re.search(r"declared as 50,000,000 bytes from [\d,]+: over 100 times", str(whole)), str(whole)
    entry = refused(bomb_among_others(), into, Reason.ZIP_BOMB)
    assert re.search(r"'zeros.bin': 2,000,000 bytes from [\d,]+: over 100 times", str(entry)), str(entry)


@pytest.mark.parametrize(
    ("archive", "reason", "limits"),
    [
        pytest.param(
            lambda: tarred(file("big", b"b" * 2000)),
            Reason.ENTRY_TOO_LARGE,
            ArchiveLimits(entry_bytes=1000),
            id="entry",
        ),
        pytest.param(
            lambda: tarred(file("a", b"a" * 600), file("b", b"b" * 600)),
            Reason.TOO_LARGE,
            ArchiveLimits(extracted_bytes=1000),
            id="total",
        ),
        pytest.param(zeros_tar_gz, Reason.ZIP_BOMB, DEFAULT_LIMITS, id="ratio"),
        pytest.param(bomb_among_others, Reason.ZIP_BOMB, DEFAULT_LIMITS, id="zip-entry-ratio"),
    ],
)
def test_the_limits_hold_on_the_bytes_as_written_not_only_as_declared(
    into: Path, monkeypatch: pytest.MonkeyPatch, archive: Callable[[], bytes], reason: Reason, limits: ArchiveLimits
) -> None:
    """With the checks of declared sizes switched off, the bytes counted as they are written
    still refuse, and what was written of them is removed."""
    monkeypatch.setattr(upload_archive._Tree, "expect", lambda *_: None)
    err = refused(archive(), into, reason, limits)
    if reason is Reason.ZIP_BOMB:
        assert "declared" not in str(err)


def test_a_zip_entry_larger_than_its_declared_size_is_never_written_past_it(into: Path) -> None:
    """zipfile stops at the declared size and then finds the CRC wrong: refused, nothing kept.
    (The limits are checked on the bytes as written too, whatever was declared.)"""
    honest = zipped(("big.bin", b"z" * 5000))
    lying = zip_field(honest, 22, 24, "<L", 100)  # uncompressed size, local header and directory
    refused(lying, into, Reason.CORRUPT, ArchiveLimits(entry_bytes=1000))


NAMES: list[tuple[str, Build, Reason]] = [
    ("zip-absolute", lambda site: zipped((str(site / "decoy.txt"), b"pwned")), Reason.ABSOLUTE_PATH),
    ("tar-absolute", lambda site: tarred(file(str(site / "decoy.txt"), b"pwned")), Reason.ABSOLUTE_PATH),
    ("zip-dot-dot", lambda _: zipped(("bot.py", b"pass"), ("../decoy.txt", b"pwned")), Reason.PARENT_PATH),
    ("zip-dot-dot-inside", lambda _: zipped(("a/../../decoy.txt", b"pwned")), Reason.PARENT_PATH),
    ("tar-dot-dot", lambda _: tarred(file("../decoy.txt", b"pwned")), Reason.PARENT_PATH),
    ("tar-dot-dot-folder", lambda _: tarred(folder("../outside")), Reason.PARENT_PATH),
    ("zip-empty", lambda _: zipped(("", b"x")), Reason.EMPTY_NAME),
    ("zip-dot", lambda _: zipped((".", b"x")), Reason.EMPTY_NAME),
    ("tar-dot-file", lambda _: tarred(file("./", b"x")), Reason.EMPTY_NAME),
    ("zip-newline", lambda _: zipped(("bot\n.py", b"x")), Reason.CONTROL_CHARACTER),
    ("zip-escape", lambda _: zipped(("\x1b[2J.py", b"x")), Reason.CONTROL_CHARACTER),
    ("zip-nul", lambda _: patched(zipped(("botX.py", b"x")), b"botX.py", b"bot\0.py"), Reason.CONTROL_CHARACTER),
    ("tar-bell", lambda _: tarred(file("bell\x07")), Reason.CONTROL_CHARACTER),
    ("tar-bidi", lambda _: tarred(file("gnp.\u202eexe")), Reason.CONTROL_CHARACTER),
    ("tar-del", lambda _: tarred(file("del\x7f")), Reason.CONTROL_CHARACTER),
    ("zip-backslash", lambda _: zipped(("..\\decoy.txt", b"pwned")), Reason.BACKSLASH),
    ("tar-backslash", lambda _: tarred(file("src\\bot.py")), Reason.BACKSLASH),
    ("zip-not-utf8", lambda _: patched(zipped(("botX.py", b"x")), b"botX.py", b"bot\xff.py"), Reason.NOT_UTF8),
    (
        "zip-flagged-not-utf8",
        lambda _: patched(zipped(("bé.py", b"x")), "bé.py".encode(), b"b\xff\xfe.py"),
        Reason.NOT_UTF8,
    ),
    ("tar-not-utf8", lambda _: tarred(file("bot\udcff.py"), fmt=tarfile.GNU_FORMAT), Reason.NOT_UTF8),
    ("zip-long-part", lambda _: zipped(("a" * 256, b"x")), Reason.NAME_TOO_LONG),
    ("tar-long-path", lambda _: tarred(file("/".join(["d" * 250] * 5))), Reason.NAME_TOO_LONG),
    ("zip-deep", lambda _: zipped(("d/" * 33 + "f", b"x")), Reason.TOO_DEEP),
    ("tar-deep", lambda _: tarred(file("d/" * 33 + "f")), Reason.TOO_DEEP),
]


@pytest.mark.parametrize(("build", "reason"), [pytest.param(*case[1:], id=case[0]) for case in NAMES])
def test_a_hostile_name_is_refused(into: Path, build: Build, reason: Reason) -> None:
    refused(build(into.parent), into, reason)


def test_a_refusal_names_the_entry_safely(into: Path) -> None:
    err = refused(zipped(("ok.py", b""), ("\x1b[2J\u202e.py", b"x")), into, Reason.CONTROL_CHARACTER)
    assert "\x1b" not in str(err) and "\u202e" not in str(err) and "\\x1b[2J\\u202e.py" in str(err)


NFC, NFD = unicodedata.normalize("NFC", "café.py"), unicodedata.normalize("NFD", "café.py")

DUPLICATES: list[tuple[str, Build, Reason]] = [
    ("zip-same-path", lambda _: zipped(("bot.py", b"good"), ("bot.py", b"evil")), Reason.DUPLICATE),
    ("tar-same-path", lambda _: tarred(file("bot.py", b"good"), file("./bot.py", b"evil")), Reason.DUPLICATE),
    ("zip-case", lambda _: zipped(("Bot.py", b"good"), ("bot.py", b"evil")), Reason.DUPLICATE),
    ("tar-nfc-nfd", lambda _: tarred(file(NFC, b"good"), file(NFD, b"evil")), Reason.DUPLICATE),
    ("zip-nfd-nfc", lambda _: zipped((NFD, b"good"), (NFC, b"evil")), Reason.DUPLICATE),
    ("zip-folder-spelled-twice", lambda _: zipped(("Lib/a.py", b"a"), ("lib/b.py", b"b")), Reason.DUPLICATE),
    ("zip-file-where-a-folder-is", lambda _: zipped(("lib/a.py", b"a"), ("lib", b"evil")), Reason.DUPLICATE),
    ("tar-folder-twice", lambda _: tarred(folder("lib"), folder("lib/")), Reason.DUPLICATE),
    ("zip-parent-is-file", lambda _: zipped(("lib", b"a file"), ("lib/a.py", b"a")), Reason.PARENT_IS_FILE),
    ("tar-parent-is-file", lambda _: tarred(file("lib"), folder("LIB/sub")), Reason.PARENT_IS_FILE),
]


@pytest.mark.filterwarnings("ignore:Duplicate name")
@pytest.mark.parametrize(("build", "reason"), [pytest.param(*case[1:], id=case[0]) for case in DUPLICATES])
def test_an_entry_that_would_land_on_another_is_refused(into: Path, build: Build, reason: Reason) -> None:
    refused(build(into.parent), into, reason)


KINDS: list[tuple[str, Build, Reason]] = [
    (
        "tar-symlink-inside",
        lambda _: tarred(file("bot.py"), member("run", kind=tarfile.SYMTYPE, link="bot.py")),
        Reason.LINK,
    ),
    (
        "tar-symlink-out-then-through",
        lambda site: tarred(
            member("out", kind=tarfile.SYMTYPE, link=str(site / "outside")), file("out/pwned", b"pwned")
        ),
        Reason.LINK,
    ),
    (
        "tar-symlink-up-then-through",
        lambda _: tarred(member("up", kind=tarfile.SYMTYPE, link="../outside"), file("up/file", b"pwned")),
        Reason.LINK,
    ),
    ("tar-hard-link-out", lambda _: tarred(member("decoy", kind=tarfile.LNKTYPE, link="../decoy.txt")), Reason.LINK),
    (
        "tar-hard-link-inside",
        lambda _: tarred(file("bot.py"), member("copy", kind=tarfile.LNKTYPE, link="bot.py")),
        Reason.LINK,
    ),
    ("zip-symlink", lambda _: zipped(("up", b"../outside", 0o120777), ("up/file", b"pwned")), Reason.LINK),
    ("tar-char-device", lambda _: tarred(member("null", kind=tarfile.CHRTYPE)), Reason.SPECIAL_FILE),
    ("tar-block-device", lambda _: tarred(member("sda", kind=tarfile.BLKTYPE)), Reason.SPECIAL_FILE),
    ("tar-fifo", lambda _: tarred(member("pipe", kind=tarfile.FIFOTYPE)), Reason.SPECIAL_FILE),
    (
        "tar-sparse",
        lambda _: tarred(member("holes", kind=tarfile.GNUTYPE_SPARSE), fmt=tarfile.GNU_FORMAT),
        Reason.SPECIAL_FILE,
    ),
    ("tar-unknown-type", lambda _: tarred(member("odd", kind=b"Z")), Reason.SPECIAL_FILE),
    ("zip-char-device", lambda _: zipped(("null", b"", 0o020666)), Reason.SPECIAL_FILE),
    ("zip-block-device", lambda _: zipped(("sda", b"", 0o060660)), Reason.SPECIAL_FILE),
    ("zip-fifo", lambda _: zipped(("pipe", b"", 0o010644)), Reason.SPECIAL_FILE),
    ("zip-socket", lambda _: zipped(("sock", b"", 0o140755)), Reason.SPECIAL_FILE),
    ("zip-folder-mode-on-a-file", lambda _: zipped(("dir", b"x", 0o040755)), Reason.SPECIAL_FILE),
    ("tar-setuid", lambda _: tarred(file("bot", b"#!/bin/sh\n", 0o4755)), Reason.SETUID),
    ("tar-setgid", lambda _: tarred(file("bot.py"), file("tools/run", b"x", 0o2711)), Reason.SETUID),
    ("tar-setgid-folder", lambda _: tarred(folder("lib", 0o2755), file("lib/a.py")), Reason.SETUID),
    ("zip-setuid", lambda _: zipped(("bot", b"#!/bin/sh\n", 0o104755)), Reason.SETUID),
    ("zip-setgid-folder", lambda _: zipped(("lib/", b"", 0o42755), ("lib/a.py", b"x")), Reason.SETUID),
    ("zip-encrypted", lambda _: zip_field(zipped(("bot.py", b"x")), 6, 8, "<H", 0x1), Reason.ENCRYPTED),
    ("zip-bzip2", lambda _: zipped(("bot.py", b"x"), method=zipfile.ZIP_BZIP2), Reason.UNSUPPORTED_COMPRESSION),
]


@pytest.mark.parametrize(("build", "reason"), [pytest.param(*case[1:], id=case[0]) for case in KINDS])
def test_a_link_a_special_file_or_an_unreadable_entry_is_refused(into: Path, build: Build, reason: Reason) -> None:
    refused(build(into.parent), into, reason)


def tar_bz2() -> bytes:
    return bz2.compress(tarred(file("bot.py"), gz=False))


FORMATS: list[tuple[str, Build, Reason]] = [
    ("empty-bytes", lambda _: b"", Reason.UNKNOWN_FORMAT),
    ("text", lambda _: b"print('a bot, not an archive')\n" * 20, Reason.UNKNOWN_FORMAT),
    ("tar-bz2", lambda _: tar_bz2(), Reason.UNKNOWN_FORMAT),
    ("7z", lambda _: b"7z\xbc\xaf\x27\x1c" + bytes(100), Reason.UNKNOWN_FORMAT),
    ("zip-cut", lambda _: zipped(("bot.py", os.urandom(3000)))[:2000], Reason.CORRUPT),
    (
        "zip-bad-crc",
        lambda _: changed(zipped(("bot.py", b"stored data"), method=zipfile.ZIP_STORED), 30 + 6 + 3),
        Reason.CORRUPT,
    ),
    ("zip-bad-deflate", lambda _: changed(zipped(("bot.py", os.urandom(100) * 10)), 30 + 6 + 1), Reason.CORRUPT),
    ("tar-gz-cut", lambda _: tarred(file("bot.py", os.urandom(5000)))[:3000], Reason.CORRUPT),
    ("gzip-of-text", lambda _: gzip.compress(b"not a tar\n" * 100), Reason.CORRUPT),
    ("zip-only-folders", lambda _: zipped(("bot/", b""), ("bot/lib/", b"")), Reason.EMPTY),
    ("tar-only-a-folder", lambda _: tarred(folder("bot")), Reason.EMPTY),
]


@pytest.mark.parametrize(("build", "reason"), [pytest.param(*case[1:], id=case[0]) for case in FORMATS])
def test_what_is_no_archive_or_no_bot_is_refused(into: Path, build: Build, reason: Reason) -> None:
    refused(build(into.parent), into, reason)


def inner_archives() -> dict[str, bytes]:
    """Every kind of archive or compressed stream an upload may not hold, by kind: made by the
    standard library where it can, else their first bytes (which is all that is read)."""
    tar = tarred(file("x.py"), gz=False)
    return {
        "zip": zipped(("x.py", b"x")),
        "empty-zip": zipped(),
        "tar": tar,
        "tar-gz": tarred(file("x.py")),
        "gzip": gzip.compress(b"x" * 100),
        "bzip2": bz2.compress(b"x" * 100),
        "empty-bzip2": bz2.compress(b""),
        "xz": lzma.compress(b"x" * 100),
        "7z": b"7z\xbc\xaf\x27\x1c\x00\x04" + bytes(100),
        "rar4": b"Rar!\x1a\x07\x00" + bytes(100),
        "rar5": b"Rar!\x1a\x07\x01\x00" + bytes(100),
        "zstd": b"\x28\xb5\x2f\xfd\x04\x58" + bytes(100),
    }


@pytest.mark.parametrize("kind", list(inner_archives()))
@pytest.mark.parametrize("outer", ["zip", "tar-gz"])
def test_a_nested_archive_is_refused_by_its_bytes_whatever_its_name(into: Path, kind: str, outer: str) -> None:
    """An archive inside the upload would hold what no check here saw: refused by its first
    bytes, under a name that says nothing (``table.bin``), and so is a ``.jar`` that is no zip."""
    inner = inner_archives()[kind]
    entries = [("bot.py", b"pass"), ("data/table.bin", inner)]
    archive = zipped(*entries) if outer == "zip" else tarred(*(file(name, data) for name, data in entries))
    err = refused(archive, into, Reason.NESTED_ARCHIVE)
    assert "'data/table.bin'" in str(err)
    if not kind.endswith("zip"):  # a .jar must be a zip, as Java reads it
        refused(zipped(("bot.py", b"pass"), ("lib/cards.jar", inner)), into, Reason.NESTED_ARCHIVE)


MANIFESTS: list[tuple[str, bytes]] = [
    ("unknown-key", b'command = "python3 bot.py"\nimage = "ubuntu"\n'),
    ("no-command", b'build = "make"\n'),
    ("command-not-a-string", b"command = 3\n"),
    ("not-toml", b"command: python3 bot.py\n"),
    ("not-utf8", b'command = "python3 b\xffot.py"\n'),
    ("empty-command", b'command = "   "\n'),
    ("unclosed-quote", b'command = "python3 \'bot.py"\n'),
    ("nul-in-build", b'command = "./bot"\nbuild = "make\\u0000"\n'),
    ("too-large", b'command = "python3 bot.py"\n' + b"#" * 17_000 + b"\n"),
]


@pytest.mark.parametrize("manifest", [pytest.param(data, id=name) for name, data in MANIFESTS])
def test_a_bad_manifest_is_refused(into: Path, manifest: bytes) -> None:
    err = refused(zipped(("bot/bot.py", b"pass"), ("bot/" + MANIFEST_NAME, manifest)), into, Reason.BAD_MANIFEST)
    assert MANIFEST_NAME in str(err)


def test_a_manifest_that_is_a_folder_is_refused(into: Path) -> None:
    refused(zipped(("bot.py", b"pass"), (MANIFEST_NAME + "/x", b"")), into, Reason.BAD_MANIFEST)


def test_tarfiles_data_filter_is_a_second_line_that_is_asked_about_every_member(
    into: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The filter is consulted for each member (against the folder being filled), and a
    member it refuses is refused, whatever the checks before it let through."""
    asked: list[str] = []
    real = tarfile.data_filter

    def spy(info: tarfile.TarInfo, dest: str) -> tarfile.TarInfo:
        asked.append(info.name)
        assert Path(dest).parent == into.parent and Path(dest).name.endswith(upload_archive.STAGING_SUFFIX)
        if info.name == "refused.py":
            raise tarfile.SpecialFileError(info)
        return real(info, dest)

    monkeypatch.setattr(tarfile, "data_filter", spy)
    unpack(tarred(file("a.py"), file("b.py")), into)
    assert asked == ["a.py", "b.py"]
    refused(tarred(file("ok.py"), file("refused.py")), into.parent / "other", Reason.DATA_FILTER)


def test_every_reason_is_documented() -> None:
    """docs/ladder.md's "Uploaded archives" lists every reason code and every default limit."""
    text = (ROOT / "docs" / "ladder.md").read_text()
    section = text[text.index("## Uploaded archives") :]
    section = section[: section.find("\n## ", 1) if "\n## " in section[1:] else len(section)]
    assert [reason.value for reason in Reason if f"`{reason.value}`" not in section] == []
    for figure in ("20 MiB", "200 MiB", "5,000", "50 MiB", "100", "1 MiB", "1,024", "255", "32", "16 KiB"):
        assert figure in section, figure


# --- any safe archive round-trips ------------------------------------------------------------


def _key(path: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(unicodedata.normalize("NFD", unicodedata.normalize("NFD", p).casefold()) for p in path)


def _distinct(paths: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """The paths that can lie in one tree: none on another (as a case-folding, normalising
    file system sees them), none under a file, each folder spelled one way."""
    files: set[tuple[str, ...]] = set()
    folders: dict[tuple[str, ...], tuple[str, ...]] = {}
    kept = []
    for path in paths:
        above = [path[:depth] for depth in range(1, len(path))]
        if _key(path) in files or _key(path) in folders or any(_key(a) in files for a in above):
            continue
        if any(folders.get(_key(a), a) != a for a in above):
            continue
        files.add(_key(path))
        folders.update((_key(a), a) for a in above)
        kept.append(path)
    return kept


PART = st.text(st.characters(categories=("L", "N")) | st.sampled_from("-_.~ "), min_size=1, max_size=8).filter(
    lambda part: part not in (".", "..")
)
Tree = dict[tuple[str, ...], tuple[bytes, bool]]
"""Files by path: contents, executable."""


def _tree(files: list[tuple[tuple[str, ...], bytes, bool]]) -> Tree:
    """The files that fit in one tree, beside a ``bot.py`` at the top (so no folder is taken
    as the root)."""
    drawn = {path: (data, executable) for path, data, executable in files}
    return {path: drawn.get(path, (b"pass", True)) for path in _distinct([("bot.py",), *drawn])}


PLAIN_BYTES = st.binary(max_size=300).filter(lambda data: archive_kind(data) is None)
"""A file's contents that are no archive (one would be refused as nested: not a safe tree)."""
TREES = st.lists(
    st.tuples(st.lists(PART, min_size=1, max_size=4).map(tuple), PLAIN_BYTES, st.booleans()), max_size=12
).map(_tree)


def zip_tree(tree: Tree, order: list[tuple[str, ...]]) -> bytes:
    return zipped(*[("/".join(path), tree[path][0], 0o100755 if tree[path][1] else 0o100644) for path in order])


def tar_tree(tree: Tree, order: list[tuple[str, ...]]) -> bytes:
    return tarred(*[file("/".join(path), tree[path][0], 0o755 if tree[path][1] else 0o644) for path in order])


@settings(max_examples=examples(40))
@given(tree=TREES, data=st.data())
def test_any_safe_archive_round_trips_and_its_hash_ignores_the_order(tree: Tree, data: st.DataObject) -> None:
    order = list(tree)
    shuffled = data.draw(st.permutations(order))
    expected = {os.path.join(*path): contents for path, contents in tree.items()}
    with tempfile.TemporaryDirectory() as scratch:
        made = [
            unpack(zip_tree(tree, order), Path(scratch) / "zip"),
            unpack(zip_tree(tree, shuffled), Path(scratch) / "zip-shuffled"),
            unpack(tar_tree(tree, shuffled), Path(scratch) / "tar"),
        ]
        for done in made:
            assert tree_of(done.folder) == expected
            assert (done.files, done.total_bytes) == (len(tree), sum(len(d) for d, _ in tree.values()))
        assert len({done.content_hash for done in made}) == 1
