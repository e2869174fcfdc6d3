"""The web view's one connection to the ladder's database: read-only, used by one worker
thread at a time, each page read in one short read transaction.

Why a thread: a query over 10,000 matches takes milliseconds of SQLite and Python; in the
trio run of ``ladder run --web`` that would be milliseconds the tables wait. In a worker thread
SQLite runs without the GIL, and one page at a time (the limiter) bounds what a flood of
requests can take from the tables to one thread's share of the process."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import trio

from referee.errors import LadderError
from referee.store.database import read_only, snapshot, user_version
from referee.store.reader import LadderReader
from referee.store.schema import SCHEMA_VERSION

T = TypeVar("T")


class Reading:
    """The read-only view of one ladder database."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            db = read_only(path)
        except sqlite3.Error as err:
            raise LadderError(f"{path}: cannot read the ladder database ({err})") from None
        self.reader = LadderReader(path, db)
        self.limiter = trio.CapacityLimiter(1)
        try:
            self._check()
        except BaseException:
            db.close()
            raise

    def _check(self) -> None:
        schema = user_version(self.reader.db)
        if not self.reader.initialized:
            raise LadderError(f"{self.path}: no ladder here yet (run `referee ladder run` first)")
        if schema != SCHEMA_VERSION:
            raise LadderError(
                f"{self.path}: a ladder database at schema {schema}, this referee reads {SCHEMA_VERSION}"
                f" (the web view never writes: `referee ladder table --db {self.path}` upgrades an older one)"
            )

    def read(self, query: Callable[[LadderReader], T]) -> T:
        """``query`` in one read transaction, in the calling thread."""
        with snapshot(self.reader.db):
            return query(self.reader)

    async def run(self, query: Callable[[LadderReader], T]) -> T:
        """``query`` in one read transaction, in a worker thread, one at a time."""
        return await trio.to_thread.run_sync(self.read, query, limiter=self.limiter)

    def close(self) -> None:
        self.reader.close()
