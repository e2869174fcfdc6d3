"""Opening the ladder's SQLite file, and the one way the ladder writes to it: a transaction
that is whole or nothing.

A new file is created mode 0600 before SQLite opens it (SQLite gives its WAL and shared-memory
files the same mode): it holds every deal of the ladder, and a bot must not read or rewrite
it. The journal is WAL with ``synchronous = FULL``, so a committed transaction survives a
SIGKILL or a power cut and an uncommitted one leaves no trace."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from referee.errors import LadderError


def connect(path: Path) -> sqlite3.Connection:
    """The database at ``path`` (an empty one, mode 0600, when there is no file), as it is:
    not yet upgraded (``referee.store.migrations.upgraded``). Raises ``LadderError`` when
    the file cannot be created, ``sqlite3.Error`` when it is not a database."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    except OSError as err:
        raise LadderError(f"{path}: cannot create the ladder database ({err.strerror})") from None
    else:
        os.close(fd)  # an empty file: SQLite makes it a database, and keeps its mode
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = FULL")
        db.execute("PRAGMA foreign_keys = ON")
        db.execute("PRAGMA busy_timeout = 10000")
    except BaseException:
        db.close()
        raise
    return db


def read_only(path: Path) -> sqlite3.Connection:
    """The database at ``path`` opened for reading only (``mode=ro``, ``query_only``), for a
    view beside a running ladder: it never takes a write lock, so the ladder never waits on
    it, and in WAL mode the ladder's commits never wait for its reads either. It may be used
    from another thread than the one that opened it, by one thread at a time. Raises
    ``sqlite3.Error`` when there is no database there."""
    db = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True, isolation_level=None, check_same_thread=False)
    try:
        db.execute("PRAGMA query_only = ON")
        db.execute("PRAGMA busy_timeout = 2000")
        db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()  # not a database: raises here
    except BaseException:
        db.close()
        raise
    return db


@contextmanager
def snapshot(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One read transaction (``BEGIN`` ... ``COMMIT``): every query inside sees the same
    state of the file, however many matches end meanwhile. Keep it short: while it is open
    the ladder's WAL cannot be checkpointed past it."""
    db.execute("BEGIN")
    try:
        yield db
    finally:
        db.execute("COMMIT")


@contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """``BEGIN IMMEDIATE`` ... ``COMMIT``, or ``ROLLBACK`` on any exception: a process killed
    inside leaves the database as it was before ``BEGIN``."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def user_version(db: sqlite3.Connection) -> int:
    """The schema version the file says it is at (``PRAGMA user_version``: 0 for a database
    written before the version was kept, or for none; ``referee.store.migrations`` tells those
    apart)."""
    (version,) = db.execute("PRAGMA user_version").fetchone()
    return int(version)


def has_table(db: sqlite3.Connection, name: str) -> bool:
    found = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone()
    return found is not None
