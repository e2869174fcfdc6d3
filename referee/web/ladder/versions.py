"""A bot's entrant and version, whatever schema the database is at.

From schema 6 the ``bots`` table says which entrant of the config each row is a version of
(``entrant``, ``version``: ``NAME`` is version 1, ``NAME@2`` the next) and when a version left
the schedule (``retired``). Before it, every bot is its own entrant at version 1, never
retired. This module is the one place that knows the difference."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass


@dataclass(frozen=True)
class Version:
    """One row of ``bots``: a version of an entrant."""

    name: str
    """``bots.name``: what results, ratings and faults are kept under."""
    entrant: str
    number: int
    retired: str | None = None
    """When it left the schedule (ISO time); ``None`` while it plays."""


def versions(db: sqlite3.Connection) -> dict[str, Version]:
    """Every bot of the database, in config order, with its entrant and version."""
    columns = {str(row[1]) for row in db.execute("PRAGMA table_info(bots)")}
    if not {"entrant", "version", "retired"} <= columns:  # before schema 6: one version each
        return {str(n): Version(str(n), str(n), 1) for (n,) in db.execute("SELECT name FROM bots ORDER BY position")}
    rows = db.execute("SELECT name, entrant, version, retired FROM bots ORDER BY position")
    return {
        str(name): Version(str(name), str(entrant or name), int(number or 1), retired)
        for name, entrant, number, retired in rows
    }


def of_entrant(found: dict[str, Version], entrant: str) -> list[Version]:
    """The versions of one entrant, first to last."""
    return sorted((v for v in found.values() if v.entrant == entrant), key=lambda v: v.number)
