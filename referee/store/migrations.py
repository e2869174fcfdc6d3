"""Numbered upgrades of the ladder database, keyed on its schema version (SQLite's ``PRAGMA
user_version``), so that a ladder started by an earlier referee opens, upgrades and resumes.

The versions, and the commits whose code first wrote each:

1. ``dbafde3``, the first ladder: ``meta``, ``bots``, ``sets``, ``matches``, ``results``,
   ``ratings``, ``rating_history``, with seeds as integers. From ``5ef8122`` on, new seeds
   were written as hex text into the same tables (a ladder begun earlier kept its integers
   and, extended, held both).
2. ``71f432d``: ``matches.sandboxed`` and ``matches.fresh_bots``, how each match's bots ran.
3. ``c35a620``: the ``faults`` table and its ``faults_bot`` index, each fault explained.
4. ``e5bcbe2``: every seed as hex text, and the version kept in the file.
5. ``85eb0bb``: the ``pairings`` table, which two bots each set of a duel or a gauntlet
   measures (``referee.duel``; empty in a ladder). An earlier referee refuses such a database
   rather than take a duel for a ladder and schedule sets of its own into it.
6. ``7aa84db``: a pool that changes while the ladder lives (``referee.ladder.pool``): the
   ``bots`` table keeps versions (``entrant``, ``version``, ``replaces``, ``entry``, ``added``,
   ``retired``), and ``sets.closed`` says why a set's pending matches will never be played.
   Every bot of an earlier ladder becomes the first version of its own entrant, still playing.
7. ``f9885c8``: the ``entrants`` table, each entrant's secret kept as its SHA-256 only
   (``referee ladder entrant add``; ``referee.ladder.entrants``). An earlier ladder has none,
   and its pages are shown as before until one is made.
8. ``2935c75``: a season (``referee.ladder.season``): the ``season`` table (an end time, a
   submissions freeze, a final among the top N) and ``sets.stage``, which tells the final's
   sets from the regular season's. Every set of an earlier ladder is ``regular``, and it has
   no season until one is asked for.
9. This referee: the ``analyses`` table and its ``analyses_bot`` index, where a bot loses
   points in each match analysed (``referee ladder analyze``; ``referee.store.analysis``).
   An earlier ladder has none analysed.

Before version 4 nothing kept the version: every ladder said ``user_version`` 0 and
``meta.schema`` 1, and the code of versions 2 and 3 added its columns, table and index to any
older database it opened, one statement at a time outside a transaction, so a run killed
between two of them left a database with one mode column, or a ``faults`` table without its
index (which no later run added). Such a database's version is read from its tables: the
newest version whose every column, table and index it holds. A migration finds whatever part
of its change is already made and makes the rest.

Each migration is one transaction together with the new version number, so a referee killed
while upgrading leaves the database at the version before, and the next open goes on from
there. A database of a newer version than this referee's is refused (``NewerLadderDatabase``).
The migrations keep their own SQL as it was when they were written; ``referee.store.schema``
holds what a new database gets, and a test keeps the two in agreement."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from referee.errors import LadderError
from referee.store.database import has_table, transaction
from referee.store.schema import SCHEMA_VERSION


class NewerLadderDatabase(LadderError):
    """A ladder database of a newer schema than this referee's: refused, neither read nor
    changed, because this referee would miss, or damage, what the newer one keeps."""


@dataclass(frozen=True)
class Migration:
    version: int
    """The version it brings a database to (from the one before)."""
    change: Callable[[sqlite3.Connection], None]
    """Its statements, run in the upgrade's transaction."""


MODE_COLUMNS = ("sandboxed", "fresh_bots")


def _add_mode_columns(db: sqlite3.Connection) -> None:
    """Whichever of the two columns the database lacks (``71f432d`` added them one at a time)."""
    present = _columns(db, "matches")
    for column in MODE_COLUMNS:
        if column not in present:
            db.execute(f"ALTER TABLE matches ADD COLUMN {column} INTEGER")


def _add_faults_table(db: sqlite3.Connection) -> None:
    """The table and its index as ``c35a620`` made them, each unless it is there (that code
    made them one at a time). The same text as the table in ``schema.SCHEMA`` today, kept here
    as written: when a later migration changes the table, the two part ways."""
    db.execute(
        """CREATE TABLE IF NOT EXISTS faults (
    match INTEGER NOT NULL REFERENCES matches(id),
    number INTEGER NOT NULL,                -- 0, 1, ...: the order of the match's faults
    seat INTEGER NOT NULL,
    bot TEXT NOT NULL REFERENCES bots(name),
    reason TEXT NOT NULL,                   -- 'crash', 'timeout', 'bad_json', ...
    message TEXT NOT NULL,                  -- what the referee saw
    action TEXT NOT NULL,                   -- 'forfeit': the bot was dropped
    rule TEXT,
    line TEXT,                              -- the bot's offending line (cut), if one caused it
    hint TEXT,                              -- what to try (referee.hints)
    exit TEXT,                              -- how its program ended ('exited with code 3')
    stderr TEXT NOT NULL,                   -- JSON: the last lines of its stderr in the match
    stderr_lines INTEGER NOT NULL,          -- lines it wrote to stderr in all
    PRIMARY KEY (match, number)
)"""
    )
    db.execute("CREATE INDEX IF NOT EXISTS faults_bot ON faults(bot)")


def _seeds_as_text(db: sqlite3.Connection) -> None:
    """The integer seeds of ladders begun before ``5ef8122``, as the hex text every later seed
    is (``schema.seed_text``): the same numbers, so the same deals."""
    for table in ("sets", "matches"):
        db.execute(f"UPDATE {table} SET seed = printf('0x%x', seed) WHERE typeof(seed) = 'integer'")


def _add_pairings_table(db: sqlite3.Connection) -> None:
    """The table of a duel's or gauntlet's sets (empty in every database written before it)."""
    db.execute(
        """CREATE TABLE pairings (
    set_index INTEGER PRIMARY KEY REFERENCES sets(set_index),
    new TEXT NOT NULL REFERENCES bots(name),    -- the bot under test (a duel's or gauntlet's NEW)
    old TEXT NOT NULL REFERENCES bots(name)     -- the bot it is measured against in this set
)"""
    )


def _add_versions(db: sqlite3.Connection) -> None:
    """Bot versions and retirements, and closed sets. Every bot of an earlier ladder is the
    first version of the entrant of its name; its entry is not known (only its command was
    kept), and the first run after the upgrade fills it in when the command is the same."""
    for column in (
        "entrant TEXT",
        "version INTEGER NOT NULL DEFAULT 1",
        "replaces TEXT REFERENCES bots(name)",
        "entry TEXT",
        "added TEXT",
        "retired TEXT",
    ):
        db.execute(f"ALTER TABLE bots ADD COLUMN {column}")
    db.execute("UPDATE bots SET entrant = name")
    db.execute("ALTER TABLE sets ADD COLUMN closed TEXT")


def _add_entrants_table(db: sqlite3.Connection) -> None:
    """The entrants given a secret of their own (none in every database written before it)."""
    db.execute(
        """CREATE TABLE entrants (
    name TEXT PRIMARY KEY,                  -- its versions' bots.entrant (none needed yet)
    secret_sha256 TEXT NOT NULL,            -- hex SHA-256 of its secret: the secret itself is never kept
    added TEXT NOT NULL,                    -- when it was made (UTC)
    keyed TEXT NOT NULL                     -- when its secret was last made (UTC)
)"""
    )


def _add_season(db: sqlite3.Connection) -> None:
    """The season's table (empty: an earlier ladder has no season) and each set's stage (every
    earlier set was of the regular season: there was no final)."""
    db.execute(
        "ALTER TABLE sets ADD COLUMN stage TEXT NOT NULL DEFAULT 'regular' CHECK (stage IN ('regular', 'final'))"
    )
    db.execute(
        """CREATE TABLE season (
    id INTEGER PRIMARY KEY CHECK (id = 1),  -- one season a ladder
    ends TEXT,                              -- UTC: no duplicate set begins after it (NULL: no end)
    ends_given TEXT,                        -- --season-end as given ('+3d'): given again, the same season
    closes TEXT,                            -- UTC: no new version is taken after it (NULL: never closed)
    closes_given TEXT,                      -- --submissions-close as given
    final_top INTEGER NOT NULL DEFAULT 0,   -- the final seats the top N at the end time (0: no final)
    final_sets INTEGER NOT NULL DEFAULT 0,  -- duplicate sets of the final
    finalists TEXT,                         -- JSON: [[name, mu, sigma], ...] best first when the regular season ended
    regular_ended TEXT                      -- UTC: when the finalists were chosen (NULL: not yet)
)"""
    )


def _add_analyses(db: sqlite3.Connection) -> None:
    """The table of analysed matches and its index (none analysed in an earlier ladder)."""
    db.execute(
        """CREATE TABLE analyses (
    match INTEGER NOT NULL REFERENCES matches(id),
    seat INTEGER NOT NULL,
    bot TEXT NOT NULL REFERENCES bots(name),
    analysed TEXT NOT NULL,                 -- when (UTC)
    settings TEXT NOT NULL,                 -- JSON: the analysis's seed, policy and budget
    decisions INTEGER NOT NULL,             -- the seat's decisions in the match
    valued INTEGER NOT NULL,                -- those with more than one choice, valued
    total_loss REAL NOT NULL,               -- points lost against the best choices, summed
    phases TEXT NOT NULL,                   -- JSON: {phase: [decisions, sum of losses, sum of their squares]}
    grades TEXT NOT NULL,                   -- JSON: {grade: decisions}
    luck REAL NOT NULL,                     -- points the seat's cards were better than the table's
    luck_half REAL NOT NULL,                -- half-width of its 95% interval
    expected REAL NOT NULL,                 -- points its dealt cards were worth
    actual INTEGER NOT NULL,                -- points it took
    worst TEXT NOT NULL,                    -- JSON: its three worst graded decisions (referee.store.analysis)
    PRIMARY KEY (match, seat)
)"""
    )
    db.execute("CREATE INDEX analyses_bot ON analyses(bot)")


MIGRATIONS: tuple[Migration, ...] = (
    Migration(2, _add_mode_columns),
    Migration(3, _add_faults_table),
    Migration(4, _seeds_as_text),
    Migration(5, _add_pairings_table),
    Migration(6, _add_versions),
    Migration(7, _add_entrants_table),
    Migration(8, _add_season),
    Migration(9, _add_analyses),
)
"""In order; version 1 is where every ladder began, so it has none."""


def upgraded(db: sqlite3.Connection, path: Path) -> sqlite3.Connection:
    """``db`` at this referee's schema: upgraded in place, or, when its file cannot be written
    (a ladder handed over read-only), copied into memory and upgraded there for reading only,
    the file left as it is. A database with no ladder yet is left empty."""
    try:
        upgrade(db, path)
    except sqlite3.Error as err:
        if not _read_only(err):
            raise
    else:
        return db
    copy = sqlite3.connect(":memory:", isolation_level=None)
    db.backup(copy)
    db.close()
    upgrade(copy, path)
    copy.execute("PRAGMA query_only = ON")
    return copy


def upgrade(db: sqlite3.Connection, path: Path) -> None:
    """Run every migration past the database's version, each in its own transaction. Raises
    ``NewerLadderDatabase`` for a database newer than this referee."""
    version = stored_version(db, path)
    if version is None:
        return
    if version > SCHEMA_VERSION:
        raise NewerLadderDatabase(
            f"{path}: ladder database schema {version}, and this referee knows schema {SCHEMA_VERSION} at most:"
            " it was written by a newer referee; use that one (or upgrade this one) to read or run it"
        )
    for migration in MIGRATIONS:
        if migration.version > version:
            _migrate(db, migration, path)


def _migrate(db: sqlite3.Connection, migration: Migration, path: Path) -> None:
    """One migration and its version number, in one transaction."""
    try:
        with transaction(db):
            if (stored_version(db, path) or 0) >= migration.version:
                return  # another process upgraded it while this one waited for the lock
            migration.change(db)
            db.execute(f"PRAGMA user_version = {migration.version}")
            db.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (json.dumps(migration.version),))
    except sqlite3.Error as err:
        if _read_only(err):
            raise  # for ``upgraded``, which reads such a database in memory
        raise LadderError(
            f"{path}: upgrading the ladder database to schema {migration.version} failed ({err}); it was"
            f" left as it was, at schema {migration.version - 1}"
        ) from None


def stored_version(db: sqlite3.Connection, path: Path) -> int | None:
    """The database's schema version; ``None`` for one without a ladder."""
    (version,) = db.execute("PRAGMA user_version").fetchone()
    if version:
        return int(version)
    if not has_table(db, "meta"):
        return None
    return _version_from_tables(db, path)


def _version_from_tables(db: sqlite3.Connection, path: Path) -> int:
    """The version of a database written before the version was kept (see the module's
    docstring)."""
    found = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    if found is None or json.loads(found[0]) != 1:
        said = "none" if found is None else found[0]
        raise LadderError(f"{path}: a ladder database of an unknown schema (meta.schema {said}, no version)")
    if not set(MODE_COLUMNS) <= _columns(db, "matches"):
        return 1
    index = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'faults_bot'").fetchone()
    if not has_table(db, "faults") or index is None:
        return 2
    return 3


def _read_only(err: sqlite3.Error) -> bool:
    return err.sqlite_errorcode & 0xFF == sqlite3.SQLITE_READONLY


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {str(row[1]) for row in db.execute(f"PRAGMA table_info({table})")}
