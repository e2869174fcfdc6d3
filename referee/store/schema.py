"""The ladder database as this referee writes it: every table of a new ladder, the number of
this schema, and how a seed is kept. A database written by an earlier referee is brought to
this schema by ``referee.store.migrations`` when it is opened. The tables are described for
users in docs/ladder.md ("The database")."""

from __future__ import annotations

import sqlite3

from referee.errors import LadderError

SCHEMA_VERSION = 9
"""The schema this referee writes and reads. The file keeps its own in SQLite's ``PRAGMA
user_version`` (and, for anyone reading with plain SQL, in ``meta.schema``); the versions and
what each added are listed in ``referee.store.migrations``."""

SCHEMA = """
CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL                     -- JSON
);
CREATE TABLE bots (
    name TEXT PRIMARY KEY,                  -- a version's name: the entrant's for its first, NAME@2, NAME@3, ...
    command TEXT NOT NULL,
    position INTEGER NOT NULL,              -- order in the config
    entrant TEXT,                           -- the bot list's name (every version of an entrant shares it)
    version INTEGER NOT NULL DEFAULT 1,     -- 1, 2, ...: a new one when its command, build or folder changes
    replaces TEXT REFERENCES bots(name),    -- the version this one replaced (NULL for a first version)
    entry TEXT,                             -- JSON: the bot list's entry (command, build, folder, build_timeout)
    added TEXT,                             -- when it joined the ladder (NULL: with the ladder, before schema 6)
    retired TEXT                            -- when it left the schedule (removed or replaced); NULL while it plays
);
CREATE TABLE sets (
    set_index INTEGER PRIMARY KEY,
    seed TEXT NOT NULL,                     -- hex: 128-bit seeds do not fit SQLite integers
    bots TEXT NOT NULL,                     -- JSON: bot names by table position
    closed TEXT,                            -- why its pending matches will never be played (NULL: open)
    stage TEXT NOT NULL DEFAULT 'regular' CHECK (stage IN ('regular', 'final'))  -- the season's final, or not
);
CREATE TABLE matches (
    id INTEGER PRIMARY KEY,                 -- schedule order
    set_index INTEGER NOT NULL REFERENCES sets(set_index),
    rotation INTEGER NOT NULL,
    seed TEXT NOT NULL,                     -- hex: 128-bit seeds do not fit SQLite integers
    seats TEXT NOT NULL,                    -- JSON: bot names by seat
    status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done')),
    seq INTEGER UNIQUE,                     -- 1, 2, 3, ...: the order results were rated in
    match_id TEXT,
    reason TEXT,
    rounds INTEGER,
    decisions INTEGER,
    finished TEXT,
    log TEXT,
    sandboxed INTEGER,                      -- 1: the bots ran in the sandbox, 0: not, NULL: not recorded
    fresh_bots INTEGER,                     -- 1: new bot processes for this match, 0: kept from earlier ones
    UNIQUE (set_index, rotation),
    CHECK ((status = 'done') = (seq IS NOT NULL))
);
CREATE TABLE results (
    match INTEGER NOT NULL REFERENCES matches(id),
    seat INTEGER NOT NULL,
    bot TEXT NOT NULL REFERENCES bots(name),
    score INTEGER NOT NULL,                 -- final match score (lower is better)
    rank INTEGER NOT NULL,                  -- 0 best; equal scores share a rank
    status TEXT NOT NULL,                   -- 'ok' or why the bot was dropped ('crash', 'timeout', ...)
    moons INTEGER NOT NULL,                 -- rounds in which this seat shot the moon
    win REAL NOT NULL,                      -- 1 for a sole winner, 1/k for one of k tied winners
    PRIMARY KEY (match, seat)
);
CREATE TABLE ratings (
    bot TEXT PRIMARY KEY REFERENCES bots(name),
    mu REAL NOT NULL,
    sigma REAL NOT NULL
);
CREATE TABLE rating_history (
    seq INTEGER NOT NULL,                   -- matches.seq of the match that moved the rating
    bot TEXT NOT NULL REFERENCES bots(name),
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    PRIMARY KEY (seq, bot)
);
CREATE INDEX results_bot ON results(bot);
CREATE TABLE faults (
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
);
CREATE INDEX faults_bot ON faults(bot);
CREATE TABLE pairings (
    set_index INTEGER PRIMARY KEY REFERENCES sets(set_index),
    new TEXT NOT NULL REFERENCES bots(name),    -- the bot under test (a duel's or gauntlet's NEW)
    old TEXT NOT NULL REFERENCES bots(name)     -- the bot it is measured against in this set
);
CREATE TABLE entrants (
    name TEXT PRIMARY KEY,                  -- its versions' bots.entrant (none needed yet)
    secret_sha256 TEXT NOT NULL,            -- hex SHA-256 of its secret: the secret itself is never kept
    added TEXT NOT NULL,                    -- when it was made (UTC)
    keyed TEXT NOT NULL                     -- when its secret was last made (UTC)
);
CREATE TABLE season (
    id INTEGER PRIMARY KEY CHECK (id = 1),  -- one season a ladder
    ends TEXT,                              -- UTC: no duplicate set begins after it (NULL: no end)
    ends_given TEXT,                        -- --season-end as given ('+3d'): given again, the same season
    closes TEXT,                            -- UTC: no new version is taken after it (NULL: never closed)
    closes_given TEXT,                      -- --submissions-close as given
    final_top INTEGER NOT NULL DEFAULT 0,   -- the final seats the top N at the end time (0: no final)
    final_sets INTEGER NOT NULL DEFAULT 0,  -- duplicate sets of the final
    finalists TEXT,                         -- JSON: [[name, mu, sigma], ...] best first when the regular season ended
    regular_ended TEXT                      -- UTC: when the finalists were chosen (NULL: not yet)
);
CREATE TABLE analyses (
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
);
CREATE INDEX analyses_bot ON analyses(bot);
"""
"""Every table of a new ladder (``pairings`` stays empty in a ladder: each set of a duel or a
gauntlet, ``referee.duel``, measures one bot against another; ``entrants`` holds the entrants
given a secret of their own, ``referee ladder entrant add``; ``season`` holds one row when the
ladder has a season, ``referee.ladder.season``; ``analyses`` one row a seat of each match
analysed, ``referee ladder analyze``). A change here needs a migration
that makes the same change to older databases (``tests/ladder/test_migrations.py`` compares the
two)."""


def create_tables(db: sqlite3.Connection) -> None:
    """The tables of a new ladder, marked with this schema's version, in the caller's open
    transaction (``executescript`` would commit it)."""
    current = ""
    for line in SCHEMA.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            db.execute(current)
            current = ""
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def seed_text(seed: int) -> str:
    """A seed as the database keeps it: hex text, which SQLite never turns into a number (a
    decimal of 128 bits would become an inexact REAL, even in a column declared INTEGER)."""
    return format(seed, "#x")


def seed_value(stored: object) -> int:
    """A seed as stored (hex text: migration 4 rewrote the integers of the first ladders)."""
    if isinstance(stored, str):
        try:
            return int(stored, 0)
        except ValueError:
            pass
    raise LadderError(f"a seed in the ladder database is not a hex number: {stored!r}")
