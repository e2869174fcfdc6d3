"""The ladder's SQLite database: the schedule, every result, the ratings and their history.

One file holds a whole ladder. The schedule is written up front, in one transaction with the
ladder's settings, as ``matches`` rows with status ``pending``. A finished match becomes
``done`` in one transaction together with its per-seat results, the new ratings of the bots
at its table and their history rows, so a process killed at any moment (SIGKILL included)
leaves either all of a match or none of it. ``record`` refuses a match that is already done,
so a result is never counted twice. The schema is described in ``docs/ladder.md``.

Each done match also records how its bots ran (``sandboxed``, ``fresh_bots``); databases made
before those columns existed get them added when opened, their old matches left unknown
(NULL). Each done match also keeps its faults explained (``faults``: the referee's message,
the bot's offending line, the hint, its exit status and last stderr lines), for
``referee ladder table --bot``; databases made before that table existed get it when opened,
their old matches without details. A new database file is created mode 0600 (SQLite gives
its WAL and shared-memory files the same mode): it holds every deal of the ladder, and a bot
must not read or rewrite it.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

from protocol.ruleset import RuleSet
from referee.ladder.errors import LadderError
from referee.ladder.ratings import INITIAL, Rating, finishing_ranks, rate_match
from referee.ladder.schedule import DuplicateSet, ScheduledMatch, match_key
from referee.match.outcome import FaultReport

SCHEMA_VERSION = 1

_FAULTS_SCHEMA = (
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
)""",
    "CREATE INDEX IF NOT EXISTS faults_bot ON faults(bot)",
)
"""The ``faults`` table: part of new databases, added to older ones when they are opened."""

SCHEMA = """
CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL                     -- JSON
);
CREATE TABLE bots (
    name TEXT PRIMARY KEY,
    command TEXT NOT NULL,
    position INTEGER NOT NULL               -- order in the config
);
CREATE TABLE sets (
    set_index INTEGER PRIMARY KEY,
    seed TEXT NOT NULL,                     -- hex: 128-bit seeds do not fit SQLite integers
    bots TEXT NOT NULL                      -- JSON: bot names by table position
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
""" + "\n".join(f"{statement};" for statement in _FAULTS_SCHEMA)

MODE_COLUMNS = ("sandboxed", "fresh_bots")
"""Columns of ``matches`` added after schema 1 was first released: added to older databases
when they are opened."""


@dataclass(frozen=True)
class LadderSettings:
    """What a ladder was created with; its schedule follows from these and the bot names."""

    ladder_seed: int
    rules: RuleSet
    games: int
    """Duplicate sets scheduled."""
    created: str


@dataclass(frozen=True)
class SeatResult:
    seat: int
    bot: str
    score: int
    status: str
    moons: int
    win: float


@dataclass(frozen=True)
class MatchRecord:
    """A finished match, as the ladder keeps it."""

    match: ScheduledMatch
    match_id: str
    reason: str
    rounds: int
    decisions: int
    log: str | None
    seats: list[SeatResult]
    sandboxed: bool | None = None
    """Whether the bots ran in the bubblewrap sandbox (``None``: not said)."""
    fresh_bots: bool | None = None
    """Whether every bot process was started for this match (``False``: ``--keep-bots``)."""
    faults: list[FaultReport] = field(default_factory=list)
    """Every fault of the match, explained (``MatchOutcome.faults``), in order."""

    @property
    def ranks(self) -> list[int]:
        return finishing_ranks([s.score for s in self.seats], [s.status != "ok" for s in self.seats])


@dataclass(frozen=True)
class BotFigures:
    """A bot's totals over the matches it played."""

    bot: str
    matches: int
    seats: int
    wins: float
    score: int
    rounds: int
    """Rounds summed over its seats (for points per round)."""
    moons: int
    crashes: int
    timeouts: int
    errors: int
    """Drops for any other reason (bad JSON, illegal move, protocol violation, ...)."""
    sandboxed: int = 0
    """Matches it played with its bots in the sandbox."""
    fresh_bots: int = 0
    """Matches it played with freshly started bot processes."""


@dataclass(frozen=True)
class ResultModes:
    """How the done matches of a ladder were played: counts of matches."""

    matches: int
    sandboxed: int
    unsandboxed: int
    fresh_bots: int
    kept_bots: int
    unknown: int
    """Matches recorded before the ladder kept the mode (either column NULL)."""

    @property
    def all_safe(self) -> bool:
        """Every result came from sandboxed, freshly started bots."""
        return self.sandboxed == self.fresh_bots == self.matches


@dataclass(frozen=True)
class Drop:
    """A seat of a done match whose bot was dropped (``results.status`` other than ``ok``)."""

    match: str
    """The match's key, ``SET-ROTATION`` (its log's name)."""
    seq: int
    seat: int
    bot: str
    reason: str
    log: str | None


@dataclass(frozen=True)
class StoredFault:
    """A fault of a done match as the ``faults`` table keeps it, explained; the report's
    ``name`` is the ladder's name of the bot."""

    match: str
    seq: int
    log: str | None
    report: FaultReport


class LadderStore:
    """One ladder database. Not for use from several threads."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.modes_recorded = True
        """False for an old database whose mode columns could not be added (read-only)."""
        self.faults_recorded = True
        """False for an old database whose ``faults`` table could not be added (read-only)."""
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass
        except OSError as err:
            raise LadderError(f"{self.path}: cannot create the ladder database ({err.strerror})") from None
        else:
            os.close(fd)  # an empty file: SQLite makes it a database, and keeps its mode
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None)
            self.db.execute("PRAGMA journal_mode = WAL")
            self.db.execute("PRAGMA synchronous = FULL")
            self.db.execute("PRAGMA foreign_keys = ON")
            self.db.execute("PRAGMA busy_timeout = 10000")
            self._add_mode_columns()
            self._add_faults_table()
        except sqlite3.Error as err:
            raise LadderError(f"{self.path}: not a ladder database ({err})") from None

    def _add_mode_columns(self) -> None:
        """Give a database made before ``sandboxed`` and ``fresh_bots`` existed those columns
        (NULL for its old matches). A database that cannot be written stays readable."""
        if not self.initialized:
            return
        present = {row[1] for row in self.db.execute("PRAGMA table_info(matches)")}
        missing = [c for c in MODE_COLUMNS if c not in present]
        try:
            for column in missing:
                self.db.execute(f"ALTER TABLE matches ADD COLUMN {column} INTEGER")
        except sqlite3.OperationalError:
            self.modes_recorded = False

    def _add_faults_table(self) -> None:
        """Give a database made before ``faults`` existed that table (empty: its old matches
        have no fault details). A database that cannot be written stays readable."""
        if not self.initialized:
            return
        if self._has_table("faults"):
            return
        try:
            for statement in _FAULTS_SCHEMA:
                self.db.execute(statement)
        except sqlite3.OperationalError:
            self.faults_recorded = False

    def _has_table(self, name: str) -> bool:
        found = self.db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone()
        return found is not None

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT``, or ``ROLLBACK`` on any exception."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # -- creating and extending ----------------------------------------------------------------
    @property
    def initialized(self) -> bool:
        return self._has_table("meta")

    def initialize(
        self, settings: LadderSettings, bots: Sequence[tuple[str, str]], sets: Sequence[DuplicateSet]
    ) -> None:
        """Create the schema, the settings, the bots and the schedule in one transaction: a
        process killed half-way leaves an empty database, which is created again next time."""
        with self.transaction() as db:
            for statement in _statements(SCHEMA):
                db.execute(statement)
            meta = {
                "schema": SCHEMA_VERSION,
                "ladder_seed": settings.ladder_seed,
                "rules": msgspec.to_builtins(settings.rules),
                "games": settings.games,
                "created": settings.created,
            }
            db.executemany("INSERT INTO meta VALUES (?, ?)", [(k, json.dumps(v)) for k, v in meta.items()])
            db.executemany(
                "INSERT INTO bots VALUES (?, ?, ?)", [(name, command, i) for i, (name, command) in enumerate(bots)]
            )
            db.executemany(
                "INSERT INTO ratings VALUES (?, ?, ?)", [(name, INITIAL.mu, INITIAL.sigma) for name, _ in bots]
            )
            self._insert_sets(db, sets)

    def extend(self, sets: Sequence[DuplicateSet], games: int) -> None:
        """Schedule more sets (one transaction)."""
        with self.transaction() as db:
            self._insert_sets(db, sets)
            db.execute("UPDATE meta SET value = ? WHERE key = 'games'", (json.dumps(games),))

    @staticmethod
    def _insert_sets(db: sqlite3.Connection, sets: Sequence[DuplicateSet]) -> None:
        for duplicate_set in sets:
            db.execute(
                "INSERT INTO sets VALUES (?, ?, ?)",
                (duplicate_set.index, seed_text(duplicate_set.seed), json.dumps(list(duplicate_set.table))),
            )
            db.executemany(
                "INSERT INTO matches (set_index, rotation, seed, seats) VALUES (?, ?, ?, ?)",
                [
                    (m.set_index, m.rotation, seed_text(m.seed), json.dumps(list(m.seats)))
                    for m in duplicate_set.matches()
                ],
            )

    # -- reading the settings and the schedule -------------------------------------------------
    def settings(self) -> LadderSettings:
        if not self.initialized:
            raise LadderError(f"{self.path}: no ladder here (run `referee ladder run` first)")
        meta = {k: json.loads(v) for k, v in self.db.execute("SELECT key, value FROM meta")}
        if meta.get("schema") != SCHEMA_VERSION:
            raise LadderError(f"{self.path}: ladder schema {meta.get('schema')}, this referee reads {SCHEMA_VERSION}")
        return LadderSettings(
            ladder_seed=meta["ladder_seed"],
            rules=msgspec.convert(meta["rules"], RuleSet),
            games=meta["games"],
            created=meta["created"],
        )

    def bots(self) -> list[tuple[str, str]]:
        """(name, command) in config order."""
        return [(n, c) for n, c in self.db.execute("SELECT name, command FROM bots ORDER BY position")]

    def sets(self) -> list[DuplicateSet]:
        return [
            DuplicateSet(index, tuple(json.loads(table)), seed_value(seed))
            for index, seed, table in self.db.execute("SELECT set_index, seed, bots FROM sets ORDER BY set_index")
        ]

    def pending(self) -> list[ScheduledMatch]:
        """The matches still to play, in schedule order."""
        rows = self.db.execute(
            "SELECT set_index, rotation, seats, seed FROM matches WHERE status = 'pending' ORDER BY id"
        )
        return [ScheduledMatch(s, r, tuple(json.loads(seats)), seed_value(seed)) for s, r, seats, seed in rows]

    def progress(self) -> tuple[int, int]:
        """(matches done, matches scheduled)."""
        done, total = self.db.execute("SELECT COUNT(seq), COUNT(*) FROM matches").fetchone()
        return int(done), int(total)

    # -- recording a result ----------------------------------------------------------------------
    def record(self, record: MatchRecord) -> dict[str, Rating] | None:
        """Store a finished match and update the ratings, in one transaction. Returns the new
        ratings of the bots at the table, or ``None`` (and changes nothing) when that match is
        already done."""
        m = record.match
        with self.transaction() as db:
            row = db.execute(
                "SELECT id, status, seats FROM matches WHERE set_index = ? AND rotation = ?", (m.set_index, m.rotation)
            ).fetchone()
            if row is None:
                raise LadderError(f"match {m.key} is not in the schedule")
            match_row, status, seats = row
            if status == "done":
                return None
            if tuple(json.loads(seats)) != tuple(s.bot for s in record.seats):
                raise LadderError(f"match {m.key}: the result's seats do not match the schedule")
            (seq,) = db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM matches").fetchone()
            db.execute(
                "UPDATE matches SET status = 'done', seq = ?, match_id = ?, reason = ?, rounds = ?, decisions = ?,"
                " finished = ?, log = ?, sandboxed = ?, fresh_bots = ? WHERE id = ?",
                (
                    seq,
                    record.match_id,
                    record.reason,
                    record.rounds,
                    record.decisions,
                    datetime.now(UTC).isoformat(timespec="seconds"),
                    record.log,
                    _flag(record.sandboxed),
                    _flag(record.fresh_bots),
                    match_row,
                ),
            )
            ranks = record.ranks
            db.executemany(
                "INSERT INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (match_row, s.seat, s.bot, s.score, rank, s.status, s.moons, s.win)
                    for s, rank in zip(record.seats, ranks, strict=True)
                ],
            )
            db.executemany(
                "INSERT INTO faults VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        match_row,
                        number,
                        f.seat,
                        m.seats[f.seat],
                        f.reason,
                        f.message,
                        f.action,
                        f.rule,
                        f.line,
                        f.hint,
                        f.exit,
                        json.dumps(f.stderr),
                        f.stderr_lines,
                    )
                    for number, f in enumerate(record.faults)
                ],
            )
            names = sorted(set(m.seats))
            before = self._ratings(db, names)
            after = rate_match(before, m.seats, ranks)
            db.executemany(
                "UPDATE ratings SET mu = ?, sigma = ? WHERE bot = ?", [(r.mu, r.sigma, b) for b, r in after.items()]
            )
            db.executemany(
                "INSERT INTO rating_history VALUES (?, ?, ?, ?)", [(seq, b, r.mu, r.sigma) for b, r in after.items()]
            )
            return after

    # -- reading results -------------------------------------------------------------------------
    @staticmethod
    def _ratings(db: sqlite3.Connection, names: Sequence[str] | None = None) -> dict[str, Rating]:
        rows = db.execute("SELECT bot, mu, sigma FROM ratings").fetchall()
        return {b: Rating(mu, sigma) for b, mu, sigma in rows if names is None or b in names}

    def ratings(self) -> dict[str, Rating]:
        return self._ratings(self.db)

    def rated_matches(self) -> list[tuple[tuple[str, ...], list[int]]]:
        """Every done match's seats and ranks, in the order the ratings took them."""
        rows = self.db.execute(
            "SELECT m.seq, r.seat, r.bot, r.rank FROM matches m JOIN results r ON r.match = m.id"
            " WHERE m.status = 'done' ORDER BY m.seq, r.seat"
        )
        matches: dict[int, list[tuple[str, int]]] = {}
        for seq, _, bot, rank in rows:
            matches.setdefault(seq, []).append((bot, rank))
        return [(tuple(b for b, _ in seats), [r for _, r in seats]) for seats in matches.values()]

    def figures(self) -> dict[str, BotFigures]:
        """Every bot's totals (zeros for a bot that has not played yet)."""
        sandboxed, fresh = ("m.sandboxed", "m.fresh_bots") if self.modes_recorded else ("NULL", "NULL")
        rows = self.db.execute(
            f"""
            SELECT b.name, COUNT(DISTINCT r.match), COUNT(r.match), COALESCE(SUM(r.win), 0),
                   COALESCE(SUM(r.score), 0), COALESCE(SUM(m.rounds), 0), COALESCE(SUM(r.moons), 0),
                   COALESCE(SUM(r.status = 'crash'), 0), COALESCE(SUM(r.status = 'timeout'), 0),
                   COALESCE(SUM(r.status NOT IN ('ok', 'crash', 'timeout')), 0),
                   COUNT(DISTINCT CASE WHEN {sandboxed} = 1 THEN r.match END),
                   COUNT(DISTINCT CASE WHEN {fresh} = 1 THEN r.match END)
            FROM bots b LEFT JOIN results r ON r.bot = b.name LEFT JOIN matches m ON m.id = r.match
            GROUP BY b.name ORDER BY b.position
            """
        )
        return {row[0]: BotFigures(*row) for row in rows}

    def modes(self) -> ResultModes:
        """How the done matches were played: sandboxed or not, fresh or kept bot processes."""
        if not self.modes_recorded:
            (done,) = self.db.execute("SELECT COUNT(*) FROM matches WHERE status = 'done'").fetchone()
            return ResultModes(int(done), 0, 0, 0, 0, int(done))
        row = self.db.execute(
            """
            SELECT COUNT(*), COALESCE(SUM(sandboxed = 1), 0), COALESCE(SUM(sandboxed = 0), 0),
                   COALESCE(SUM(fresh_bots = 1), 0), COALESCE(SUM(fresh_bots = 0), 0),
                   COALESCE(SUM(sandboxed IS NULL OR fresh_bots IS NULL), 0)
            FROM matches WHERE status = 'done'
            """
        ).fetchone()
        return ResultModes(*(int(v) for v in row))

    def set_scores(self, bots: Sequence[str]) -> dict[int, list[list[tuple[str, int]]]]:
        """For every complete set (all rotations done) with at least one of ``bots`` at the
        table: per match, the (bot, score) of every seat those bots held."""
        placeholders = ",".join("?" * len(bots))
        rows = self.db.execute(
            f"""
            SELECT m.set_index, m.rotation, r.bot, r.score
            FROM matches m JOIN results r ON r.match = m.id
            WHERE r.bot IN ({placeholders}) AND m.set_index IN (
                SELECT set_index FROM matches GROUP BY set_index HAVING COUNT(seq) = COUNT(*))
            ORDER BY m.set_index, m.rotation, r.seat
            """,
            list(bots),
        )
        found: dict[int, dict[int, list[tuple[str, int]]]] = {}
        for set_index, rotation, bot, score in rows:
            found.setdefault(set_index, {}).setdefault(rotation, []).append((bot, score))
        return {s: list(rotations.values()) for s, rotations in found.items()}

    def drops(self, bot: str | None = None) -> list[Drop]:
        """Every seat whose bot was dropped (of one bot, or of all), in the order rated."""
        where, args = ("AND r.bot = ?", [bot]) if bot is not None else ("", [])
        rows = self.db.execute(
            "SELECT m.set_index, m.rotation, m.seq, r.seat, r.bot, r.status, m.log"
            f" FROM results r JOIN matches m ON m.id = r.match WHERE r.status != 'ok' {where}"
            " ORDER BY m.seq, r.seat",
            args,
        )
        return [
            Drop(match_key(s, rotation), int(seq), int(seat), str(b), str(status), log)
            for s, rotation, seq, seat, b, status, log in rows
        ]

    def drop_counts(self) -> dict[str, int]:
        """Drops per bot (bots never dropped left out), most first."""
        rows = self.db.execute(
            "SELECT bot, COUNT(*) FROM results WHERE status != 'ok' GROUP BY bot ORDER BY COUNT(*) DESC, bot"
        )
        return {str(bot): int(n) for bot, n in rows}

    def fault_details(self, bot: str | None = None) -> list[StoredFault]:
        """The explained faults (of one bot, or of all), in the order rated; empty for a
        database whose ``faults`` table could not be added, and none for matches recorded
        before it existed."""
        if not self.faults_recorded:
            return []
        where, args = ("AND f.bot = ?", [bot]) if bot is not None else ("", [])
        rows = self.db.execute(
            "SELECT m.set_index, m.rotation, m.seq, m.log, f.seat, f.bot, f.reason, f.message, f.action, f.rule,"
            " f.line, f.hint, f.exit, f.stderr, f.stderr_lines"
            f" FROM faults f JOIN matches m ON m.id = f.match WHERE m.status = 'done' {where}"
            " ORDER BY m.seq, f.number",
            args,
        )
        found = []
        for s, rotation, seq, log, seat, name, reason, message, action, rule, line, hint, exit_, stderr, count in rows:
            report = FaultReport(
                seat=seat,
                name=name,
                reason=reason,
                message=message,
                action=action,
                rule=rule,
                line=line,
                hint=hint,
                exit=exit_,
                stderr=[str(text) for text in json.loads(stderr)],
                stderr_lines=count,
            )
            found.append(StoredFault(match_key(s, rotation), int(seq), log, report))
        return found

    def history(self) -> list[tuple[int, str, float, float]]:
        """(seq, bot, mu, sigma) rows in order."""
        rows = self.db.execute("SELECT seq, bot, mu, sigma FROM rating_history ORDER BY seq, bot")
        return [(int(seq), str(bot), float(mu), float(sigma)) for seq, bot, mu, sigma in rows]

    def match_rows(self) -> list[dict[str, Any]]:
        """Every match of the schedule with its status (for scripts and tests)."""
        modes = ", sandboxed, fresh_bots" if self.modes_recorded else ""
        cursor = self.db.execute(
            "SELECT id, set_index, rotation, seed, seats, status, seq, match_id, reason, rounds, log"
            f"{modes} FROM matches ORDER BY id"
        )
        names = [d[0] for d in cursor.description]
        rows = [dict(zip(names, row, strict=True)) for row in cursor]
        for row in rows:
            row["seed"] = seed_value(row["seed"])
        return rows


def _flag(value: bool | None) -> int | None:
    return None if value is None else int(value)


def seed_text(seed: int) -> str:
    """A seed as the database keeps it: hex text, which SQLite never turns into a number (a
    decimal of 128 bits would become an inexact REAL, even in a column declared INTEGER)."""
    return format(seed, "#x")


def seed_value(stored: object) -> int:
    """A seed as stored: hex text, or an integer in ladders written before seeds were 128
    bits."""
    if isinstance(stored, str):
        return int(stored, 0)
    if isinstance(stored, int):
        return stored
    raise LadderError(f"a seed in the ladder database is not a number: {stored!r}")


def _statements(script: str) -> list[str]:
    """The SQL statements of a script (``executescript`` would commit the open transaction)."""
    statements: list[str] = []
    current = ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            statements.append(current)
            current = ""
    return statements
