"""Entrants' uploaded bots, kept beside the ladder's database: each upload a new version of its
entrant, taken into the pool as a bot list's entry is.

An upload is an archive (``referee.ladder.upload_archive`` unpacks it as hostile input) with
its command, and optionally its build line, given with it or in its ``hearts-bot.toml``. It is
kept in ``NAME-uploads/ENTRANT/SEQ/`` beside ``NAME.db``: ``files/`` (what was unpacked: the
bot's own folder, built and run as a bot list's ``folder``) and ``upload.json`` (its state),
so a restart finds every version again, and a retired version still seated in a begun set
keeps its files. An upload is taken whole or not at all: its folder appears (a rename) only
once its files are unpacked and its state written, so ``kill -9`` at any moment leaves either
no upload or a whole one (a half-unpacked staging folder beside it, which nothing reads).

Its state moves as the ladder takes it: ``received`` (unpacked, waiting for the ladder's next
look), ``building`` (its build line running in the sandbox), ``checking`` (started once, as a
start checks a bot), then ``playing`` (in the pool) or ``refused`` (the archive, its build or
its start-up check said no: ``detail`` says why, with the build's or the start's output). The
ladder's pool holds each entrant's latest upload it took (``playing``), and takes the uploads
received one at a time (``referee.ladder.follow``); an entrant's name may not also be an entry
of the bot list (the list and the uploads are two ways
in, and one entrant is one of them).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Final, Literal, TypeVar

import msgspec

from referee.errors import RefereeError
from referee.ladder.entrants import name_problem
from referee.ladder.upload_archive import ArchiveRefused, unpack
from referee.players.bot_config import BotConfigError, BotEntry, command_words

State = Literal["received", "building", "checking", "playing", "refused"]
TAKING: Final = frozenset({"received", "building", "checking"})
"""The states of an upload not taken yet: a run killed while building or checking one takes
it again from the start at its next look (its ``received`` files are untouched)."""
MAX_UPLOADS: Final = 100
"""Uploads kept per entrant: more are refused (each may still be seated in a begun set, so
none is removed while the ladder lives)."""
MAX_DETAIL: Final = 8_000
"""Characters of a refusal's explanation kept (a build's output is capped already)."""


class UploadRefused(RefereeError):
    """An upload not taken at all (no folder is made): its entrant's name, its command, or the
    entrant's count of uploads."""


class Upload(msgspec.Struct, frozen=True, kw_only=True):
    """One upload's state, as ``upload.json`` keeps it."""

    entrant: str
    seq: int
    received: str
    """When it was received (ISO 8601, UTC)."""
    state: State
    command: str | None = None
    build: str | None = None
    content: str | None = None
    """The hash of its files (``upload_archive``), the version's ``BotEntry.content``."""
    files: int = 0
    bytes: int = 0
    detail: str = ""
    """Why it was refused, or what the ladder made of it (``alice@3 playing``)."""
    version: str | None = None
    """The ladder's version it became, once playing."""


def uploads_folder(db: str | Path) -> Path:
    """Where a ladder's uploads are kept: ``NAME-uploads/`` beside ``NAME.db``."""
    path = Path(db)
    return path.with_name(f"{path.stem}-uploads")


def receive(
    db: str | Path, entrant: str, archive: bytes, *, command: str | None, build: str | None, now: str
) -> Upload:
    """Keep an upload of ``entrant``: unpacked, its state written, then its folder made visible
    in one rename. An archive refused (``ArchiveRefused``) is kept as a ``refused`` upload with
    its reason, for the entrant's page; a bad name or command, or one upload too many, raises
    ``UploadRefused`` and keeps nothing."""
    _check_name(entrant)
    folder = uploads_folder(db) / entrant
    folder.mkdir(parents=True, exist_ok=True, mode=0o755)
    seq = _next_seq(folder)
    staging = Path(tempfile.mkdtemp(prefix=".", suffix=".receiving", dir=folder))
    try:
        os.chmod(staging, 0o755)
        try:
            unpacked = unpack(archive, staging / "files")
        except ArchiveRefused as refused:
            upload = Upload(entrant=entrant, seq=seq, received=now, state="refused",
                            detail=f"the archive was refused ({refused.reason}): {refused}")  # fmt: skip
        else:
            manifest = unpacked.manifest
            run = command or (manifest.command if manifest is not None else None)
            built = build if command else (manifest.build if manifest is not None else build)
            if not run:
                raise UploadRefused("no command: give one with the upload, or in the archive's hearts-bot.toml")
            _check_line(run, "command")
            if built:
                _check_line(built, "build")
            upload = Upload(entrant=entrant, seq=seq, received=now, state="received", command=run, build=built,
                            content=unpacked.content_hash, files=unpacked.files,
                            bytes=unpacked.total_bytes)  # fmt: skip
        return _place(staging, folder, upload)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _place(staging: Path, folder: Path, upload: Upload) -> Upload:
    """Write the state and rename the upload into place as ``SEQ``; another upload of the same
    entrant that took the number meanwhile makes it the next one (a rename never replaces a
    folder that holds files)."""
    for _ in range(MAX_UPLOADS):
        _write(staging, upload)
        try:
            os.rename(staging, folder / str(upload.seq))  # the upload appears whole, or not at all
        except OSError:
            upload = msgspec.structs.replace(upload, seq=_next_seq(folder))
            continue
        return upload
    raise UploadRefused(f"{folder.name}: no number left for an upload")


def uploads(db: str | Path, entrant: str | None = None) -> list[Upload]:
    """Every upload kept (of ``entrant``, or of all), oldest first by entrant; an upload whose
    state cannot be read is left out (nothing writes one that way)."""
    root = uploads_folder(db)
    names = [entrant] if entrant is not None else sorted(_folders(root))
    found = []
    for name in names:
        for seq in sorted(int(s) for s in _folders(root / name) if s.isascii() and s.isdigit()):
            upload = _read(root / name / str(seq))
            if upload is not None:
                found.append(upload)
    return found


def waiting(db: str | Path, settled: set[tuple[str, int]]) -> list[Upload]:
    """The uploads not taken yet (``TAKING``), oldest first. Only the state of an upload not in
    ``settled`` is read, and one found taken or refused is added to it: an upload is taken or
    refused once and never comes back, so a follower that looks every few seconds reads each
    ``upload.json`` until it is settled, not every upload of the class at every look."""
    root = uploads_folder(db)
    found = []
    for name in sorted(_folders(root)):
        for seq in sorted(int(s) for s in _folders(root / name) if s.isascii() and s.isdigit()):
            if (name, seq) in settled:
                continue
            upload = _read(root / name / str(seq))
            if upload is None:
                continue
            if upload.state in TAKING:
                found.append(upload)
            else:
                settled.add((name, seq))
    return sorted(found, key=lambda u: u.received)


def moved(db: str | Path, entrant: str) -> str:
    """A mark that changes whenever an upload of ``entrant`` appears or its state moves (each
    ``upload.json``'s number and time), read without opening a file: what the entrant's page
    asks every few seconds to know when to show itself again."""
    root = uploads_folder(db) / entrant
    marks = []
    for seq in sorted(_folders(root)):
        with contextlib.suppress(OSError):
            marks.append(f"{seq}:{os.stat(root / seq / 'upload.json').st_mtime_ns}")
    return ",".join(marks)


def playing(db: str | Path) -> dict[str, Upload]:
    """Each entrant's latest upload the ladder took, by entrant."""
    return {u.entrant: u for u in uploads(db) if u.state == "playing"}


def entry_of(db: str | Path, upload: Upload) -> BotEntry:
    """The bot list's entry an upload makes: its folder the upload's files (absolute: a bot
    list's ``folder`` taken from any folder), its ``content`` the hash of its files."""
    folder = str(files_of(db, upload))
    return BotEntry(name=upload.entrant, command=upload.command or "", build=upload.build, folder=folder,
                    content=upload.content)  # fmt: skip


def files_of(db: str | Path, upload: Upload) -> Path:
    return uploads_folder(db).absolute() / upload.entrant / str(upload.seq) / "files"


def mark(db: str | Path, upload: Upload, state: State, detail: str, version: str | None = None) -> Upload:
    """Write ``upload``'s new state (atomically: a file renamed over the old)."""
    changed = msgspec.structs.replace(upload, state=state, detail=detail[-MAX_DETAIL:], version=version)
    _write(uploads_folder(db) / upload.entrant / str(upload.seq), changed)
    return changed


def _check_name(entrant: str) -> None:
    problem = name_problem(entrant)
    if problem is not None:
        raise UploadRefused(f"entrant {problem}")


def _check_line(line: str, what: str) -> None:
    try:
        command_words(line)
    except BotConfigError as err:
        raise UploadRefused(f"the {what}: {err}") from None


def _next_seq(folder: Path) -> int:
    taken = [int(s) for s in _folders(folder) if s.isascii() and s.isdigit()]
    if len(taken) >= MAX_UPLOADS:
        raise UploadRefused(f"{folder.name} has {len(taken)} uploads, the most kept for one entrant")
    return max(taken, default=0) + 1


def _folders(folder: Path) -> Iterator[str]:
    with contextlib.suppress(OSError), os.scandir(folder) as found:
        for item in found:
            if item.is_dir(follow_symlinks=False) and not item.name.startswith("."):
                yield item.name


def _read(folder: Path) -> Upload | None:
    return read_kept(folder / "upload.json", Upload, 64 * 1024)


def _write(folder: Path, upload: Upload) -> None:
    keep_whole(folder / "upload.json", upload)


def _no_link(path: str, flags: int) -> int:
    return os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)


T = TypeVar("T")


def keep_whole(path: Path, value: object) -> None:
    """``value`` as JSON at ``path``, whole or not at all: a draft beside it, synced, renamed
    over the old; never written through a link. What the run keeps for the pages (an upload's
    state, the sandbox's word) is read by another process at any moment."""
    draft = path.with_name(f".{path.name}.draft")
    with open(draft, "wb", opener=_no_link) as handle:
        handle.write(msgspec.json.encode(value))
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(draft, path)


def read_kept(path: Path, kind: type[T], most: int) -> T | None:
    """What ``keep_whole`` kept at ``path`` (at most ``most`` bytes read, no link followed), or
    ``None`` when it cannot be read as a ``kind``."""
    try:
        with open(path, "rb", opener=_no_link) as handle:
            return msgspec.json.decode(handle.read(most), type=kind)
    except (OSError, msgspec.DecodeError):
        return None
