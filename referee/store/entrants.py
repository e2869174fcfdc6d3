"""The ladder's entrants in its database (the ``entrants`` table, schema 7): each one's name
and the SHA-256 of its secret, never the secret itself, so that a copy of the database (a
backup, a file handed to a helper, a ladder published read-only) opens no entrant's view.
What a secret is, and how one is checked, is ``referee.ladder.entrants``'s."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Literal

from referee.store.database import transaction

Kept = Literal["made", "new secret", "kept"]
"""What ``keep_secret`` did: made the entrant, gave it a new secret, or left one it has."""


@dataclass(frozen=True)
class StoredEntrant:
    name: str
    versions: int
    """Versions of it in the ladder (``bots`` rows whose ``entrant`` is its name)."""
    added: str
    keyed: str
    """When its secret was last made (UTC)."""


def entrants(db: sqlite3.Connection) -> list[StoredEntrant]:
    """Every entrant with a secret, by name, with how many versions it has."""
    rows = db.execute(
        "SELECT e.name, COUNT(b.name), e.added, e.keyed FROM entrants e LEFT JOIN bots b ON b.entrant = e.name"
        " GROUP BY e.name ORDER BY e.name"
    )
    return [StoredEntrant(str(name), int(count), str(added), str(keyed)) for name, count, added, keyed in rows]


def secret_digests(db: sqlite3.Connection) -> tuple[tuple[str, str], ...]:
    """(name, hex SHA-256 of its secret) of every entrant: what a key is checked against."""
    rows = db.execute("SELECT name, secret_sha256 FROM entrants ORDER BY name")
    return tuple((str(name), str(digest)) for name, digest in rows)


def keep_secret(db: sqlite3.Connection, name: str, digest: str, when: str, *, again: bool) -> Kept:
    """Keep ``digest`` as the entrant's secret, in one transaction: a new entrant is made; one
    that has a secret gets this one only when ``again`` (its old secret then opens nothing)."""
    with transaction(db):
        found = db.execute("SELECT 1 FROM entrants WHERE name = ?", (name,)).fetchone()
        if found is None:
            row = (name, digest, when, when)
            db.execute("INSERT INTO entrants (name, secret_sha256, added, keyed) VALUES (?, ?, ?, ?)", row)
            return "made"
        if not again:
            return "kept"
        db.execute("UPDATE entrants SET secret_sha256 = ?, keyed = ? WHERE name = ?", (digest, when, name))
        return "new secret"
