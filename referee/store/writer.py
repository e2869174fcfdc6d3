"""The ladder's SQLite database: the schedule, every result, the ratings and their history.

One file holds a whole ladder. The schedule is written up front, in one transaction with the
ladder's settings, as ``matches`` rows with status ``pending``. A finished match becomes
``done`` in one transaction together with its per-seat results, its faults explained, the new
ratings of the bots at its table and their history rows, so a process killed at any moment
(SIGKILL included) leaves either all of a match or none of it. ``record`` refuses a match that
is already done, so a result is never counted twice.

The tables are in ``referee.store.schema``; a database written by an earlier referee is
upgraded to them when it is opened (``referee.store.migrations``), so every query here and in
``LadderReader`` sees one schema. The file's creation and mode are ``referee.store.database``'s.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import msgspec

from referee.errors import LadderError
from referee.stats.ratings import INITIAL, Rating, rate_match
from referee.store import database
from referee.store.migrations import upgraded
from referee.store.reader import LadderReader
from referee.store.records import (
    BotVersion,
    DuplicateSet,
    Finalist,
    LadderSettings,
    PoolChange,
    ScheduledMatch,
    Season,
    StoredMatch,
)
from referee.store.schema import SCHEMA_VERSION, create_tables, seed_text


class LadderStore(LadderReader):
    """One ladder database, opened at the current schema (upgraded if an earlier referee wrote
    it), for reading and for recording results. Not for use from several threads."""

    def __init__(self, path: str | Path) -> None:
        path = Path(path)
        try:
            db = database.connect(path)
        except sqlite3.Error as err:
            raise LadderError(f"{path}: not a ladder database ({err})") from None
        try:
            db = upgraded(db, path)
        except sqlite3.Error as err:
            db.close()
            raise LadderError(f"{path}: not a ladder database ({err})") from None
        except BaseException:
            db.close()  # a newer database, or a failed upgrade: nothing of it stays open
            raise
        super().__init__(path, db)

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT``, or ``ROLLBACK`` on any exception."""
        with database.transaction(self.db) as db:
            yield db

    # -- creating and extending ----------------------------------------------------------------
    def initialize(
        self,
        settings: LadderSettings,
        bots: Sequence[tuple[str, str] | BotVersion],
        sets: Sequence[DuplicateSet],
        extra: Mapping[str, object] | None = None,
    ) -> None:
        """Create the schema, the settings, the bots and the first sets in one transaction: a
        process killed half-way leaves an empty database, which is created again next time.
        ``bots``: versions made from a bot list (``referee.ladder.pool``), or (name, command)
        pairs, each the first version of its own entrant. ``extra``: more ``meta`` entries (a
        duel's settings under ``duel``)."""
        with self.transaction() as db:
            create_tables(db)
            meta = {
                "schema": SCHEMA_VERSION,
                "ladder_seed": settings.ladder_seed,
                "rules": msgspec.to_builtins(settings.rules),
                "games": settings.games,
                "created": settings.created,
                **(extra or {}),
            }
            _insert(db, "meta", [{"key": k, "value": json.dumps(v)} for k, v in meta.items()])
            versions = [
                b if isinstance(b, BotVersion) else BotVersion(b[0], b[0], 1, b[1], None, i, added=settings.created)
                for i, b in enumerate(bots)
            ]
            _insert_versions(db, versions)
            self._insert_sets(db, sets)

    # -- the pool as it changes ------------------------------------------------------------------
    def change_pool(self, change: PoolChange, games: int, keep: Collection[int] = ()) -> list[int]:
        """Apply what reading the bot list found (``referee.ladder.pool.pool_change``) and set
        the sets in all to ``games``, in one transaction. A set not begun (no match done) that
        seats a version now retired is taken out of the schedule, unless it is in ``keep`` (a
        running ladder's sets in play); a begun one stays, to be finished with the versions it
        began with. Returns the indexes of the sets taken out.

        What the store already holds is not done again: a change worked out twice from the same
        pool (a signal's look beside the periodic one, a restart between the change and its
        telling) is a no-op, never an error, and a change made in full leaves ``games`` as it was.
        A new version whose name the store holds for another bot raises ``LadderError``: the
        change was worked out from an older pool, and nothing of it is applied."""
        with self.transaction() as db:
            todo = _still_to_do(change, {v.name: v for v in self.versions()}, self.path)
            if todo.empty and not change.empty:
                return []  # made already, in full (an empty change sets ``games`` only)
            change = todo
            _insert_versions(db, change.added)
            db.executemany("UPDATE bots SET retired = ? WHERE name = ?", [(change.at, n) for n in change.retired])
            db.executemany("UPDATE bots SET retired = NULL WHERE name = ?", [(n,) for n in change.back])
            db.executemany(
                "UPDATE bots SET entry = ? WHERE name = ?",
                [(msgspec.json.encode(e).decode(), n) for n, e in change.entries.items()],
            )
            db.executemany("UPDATE bots SET position = ? WHERE name = ?", [(p, n) for n, p in change.positions.items()])
            dropped = self._unbegun_sets_of_retired(db, keep)
            for table in ("matches", "pairings", "sets"):
                db.executemany(f"DELETE FROM {table} WHERE set_index = ?", [(i,) for i in dropped])
            db.execute("UPDATE meta SET value = ? WHERE key = 'games'", (json.dumps(games),))
        return dropped

    @staticmethod
    def _unbegun_sets_of_retired(db: sqlite3.Connection, keep: Collection[int]) -> list[int]:
        retired = {n for (n,) in db.execute("SELECT name FROM bots WHERE retired IS NOT NULL")}
        rows = db.execute(
            "SELECT s.set_index, s.bots FROM sets s WHERE NOT EXISTS"
            " (SELECT 1 FROM matches m WHERE m.set_index = s.set_index AND m.seq IS NOT NULL)"
        )
        return [int(i) for i, table in rows if i not in keep and retired & set(json.loads(table))]

    def schedule_set(self, duplicate_set: DuplicateSet, stage: str = "regular") -> list[ScheduledMatch]:
        """Add one drawn set (its matches pending) in one transaction; its matches. ``stage``:
        ``final`` for a set of the season's final."""
        with self.transaction() as db:
            self._insert_sets(db, [duplicate_set], stage)
        return duplicate_set.matches()

    # -- the season ------------------------------------------------------------------------------
    def set_season(self, season: Season) -> None:
        """Keep the season's settings (its times, the final's size), in one transaction; the
        finalists, once chosen, stay as they were."""
        with self.transaction() as db:
            db.execute(
                "INSERT INTO season (id, ends, ends_given, closes, closes_given, final_top, final_sets)"
                " VALUES (1, :ends, :ends_given, :closes, :closes_given, :final_top, :final_sets)"
                " ON CONFLICT (id) DO UPDATE SET ends = :ends, ends_given = :ends_given, closes = :closes,"
                " closes_given = :closes_given, final_top = :final_top, final_sets = :final_sets",
                {
                    "ends": season.ends,
                    "ends_given": season.ends_given,
                    "closes": season.closes,
                    "closes_given": season.closes_given,
                    "final_top": season.final_top,
                    "final_sets": season.final_sets,
                },
            )

    def end_regular(self, keep: Collection[int], reason: str) -> list[int]:
        """The end time has passed: close every regular set not begun (no match done) that is
        not in ``keep`` (the sets a table took before the end), and make ``games`` the sets the
        regular season drew, in one transaction. Done again (after a restart) it closes what
        is left. Returns the sets closed."""
        with self.transaction() as db:
            rows = db.execute(
                "SELECT s.set_index FROM sets s WHERE s.stage = 'regular' AND s.closed IS NULL AND NOT EXISTS"
                " (SELECT 1 FROM matches m WHERE m.set_index = s.set_index AND m.seq IS NOT NULL)"
            )
            closing = [int(i) for (i,) in rows if int(i) not in keep]
            db.executemany("UPDATE sets SET closed = ? WHERE set_index = ?", [(reason, i) for i in closing])
            (drawn,) = db.execute("SELECT COUNT(*) FROM sets WHERE stage = 'regular'").fetchone()
            db.execute("UPDATE meta SET value = ? WHERE key = 'games'", (json.dumps(int(drawn)),))
        return closing

    def choose_finalists(self, finalists: Sequence[Finalist], at: str) -> bool:
        """Keep the final's bots (best first, with their ratings of the regular season) once:
        ``False`` when they were chosen already (a restart keeps the first choice)."""
        chosen = json.dumps([[f.bot, f.mu, f.sigma] for f in finalists])
        with self.transaction() as db:
            cursor = db.execute(
                "UPDATE season SET finalists = ?, regular_ended = ? WHERE id = 1 AND finalists IS NULL", (chosen, at)
            )
            return cursor.rowcount == 1

    def close_sets(self, indexes: Collection[int], reason: str) -> None:
        """Give up the pending matches of these sets (a retired version in them cannot be
        started again): they stay in the database, never played; the set counts in no
        comparison, since it is never complete."""
        with self.transaction() as db:
            db.executemany("UPDATE sets SET closed = ? WHERE set_index = ?", [(reason, i) for i in indexes])

    def extend(
        self, sets: Sequence[DuplicateSet], games: int, pairings: Sequence[tuple[str, str]] | None = None
    ) -> None:
        """Schedule more sets (one transaction); ``pairings``: for a duel's sets, the bot under
        test and the one it is measured against in each."""
        with self.transaction() as db:
            self._insert_sets(db, sets)
            if pairings is not None:
                rows = [
                    {"set_index": s.index, "new": new, "old": old} for s, (new, old) in zip(sets, pairings, strict=True)
                ]
                _insert(db, "pairings", rows)
            db.execute("UPDATE meta SET value = ? WHERE key = 'games'", (json.dumps(games),))

    @staticmethod
    def _insert_sets(db: sqlite3.Connection, sets: Sequence[DuplicateSet], stage: str = "regular") -> None:
        for duplicate_set in sets:
            table = json.dumps(list(duplicate_set.table))
            row = {
                "set_index": duplicate_set.index,
                "seed": seed_text(duplicate_set.seed),
                "bots": table,
                "stage": stage,
            }
            _insert(db, "sets", [row])
            matches = duplicate_set.matches()
            _insert(
                db,
                "matches",
                [
                    {
                        "set_index": m.set_index,
                        "rotation": m.rotation,
                        "seed": seed_text(m.seed),
                        "seats": json.dumps(list(m.seats)),
                    }
                    for m in matches
                ],
            )

    # -- recording a result ----------------------------------------------------------------------
    def record(self, record: StoredMatch) -> dict[str, Rating] | None:
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
                "UPDATE matches SET status = 'done', seq = :seq, match_id = :match_id, reason = :reason,"
                " rounds = :rounds, decisions = :decisions, finished = :finished, log = :log,"
                " sandboxed = :sandboxed, fresh_bots = :fresh_bots WHERE id = :id",
                {
                    "seq": seq,
                    "match_id": record.match_id,
                    "reason": record.reason,
                    "rounds": record.rounds,
                    "decisions": record.decisions,
                    "finished": datetime.now(UTC).isoformat(timespec="seconds"),
                    "log": record.log,
                    "sandboxed": _flag(record.sandboxed),
                    "fresh_bots": _flag(record.fresh_bots),
                    "id": match_row,
                },
            )
            ranks = record.ranks
            _insert(db, "results", _result_rows(match_row, record, ranks))
            _insert(db, "faults", _fault_rows(match_row, record))
            before = self._ratings(db, sorted(set(m.seats)))
            after = rate_match(before, m.seats, ranks)
            db.executemany(
                "UPDATE ratings SET mu = ?, sigma = ? WHERE bot = ?", [(r.mu, r.sigma, b) for b, r in after.items()]
            )
            _insert(
                db, "rating_history", [{"seq": seq, "bot": b, "mu": r.mu, "sigma": r.sigma} for b, r in after.items()]
            )
            return after


def _still_to_do(change: PoolChange, stored: Mapping[str, BotVersion], path: Path) -> PoolChange:
    """The part of ``change`` that ``stored`` (the versions by name) does not hold yet."""
    for version in change.added:
        held = stored.get(version.name)
        if held is not None and not _same_version(held, version):
            raise LadderError(
                f"{path}: version {version.name} is already in the ladder as another bot: this pool change"
                " was worked out from an older pool; not applied"
            )

    return PoolChange(
        change.at,
        added=[v for v in change.added if v.name not in stored],
        retired=[n for n in change.retired if (v := stored.get(n)) is not None and v.active],
        back=[n for n in change.back if (v := stored.get(n)) is not None and not v.active],
        entries={n: e for n, e in change.entries.items() if (v := stored.get(n)) is not None and v.entry != e},
        positions={n: p for n, p in change.positions.items() if (v := stored.get(n)) is not None and v.position != p},
    )


def _same_version(held: BotVersion, new: BotVersion) -> bool:
    """Whether the stored ``held`` is the version ``new`` would add: the same entrant, number,
    command, entry and predecessor (when it was added and where it stands are not the bot)."""
    return (held.entrant, held.version, held.command, held.entry, held.replaces) == (
        new.entrant,
        new.version,
        new.command,
        new.entry,
        new.replaces,
    )


def _insert_versions(db: sqlite3.Connection, versions: Sequence[BotVersion]) -> None:
    """New versions, each with the first rating (a new version is rated from the start)."""
    rows = [
        {
            "name": v.name,
            "command": v.command,
            "position": v.position,
            "entrant": v.entrant,
            "version": v.version,
            "replaces": v.replaces,
            "entry": None if v.entry is None else msgspec.json.encode(v.entry).decode(),
            "added": v.added,
            "retired": v.retired,
        }
        for v in versions
    ]
    _insert(db, "bots", rows)
    _insert(db, "ratings", [{"bot": v.name, "mu": INITIAL.mu, "sigma": INITIAL.sigma} for v in versions])


def _result_rows(match_row: int, record: StoredMatch, ranks: Sequence[int]) -> list[dict[str, object]]:
    return [
        {
            "match": match_row,
            "seat": s.seat,
            "bot": s.bot,
            "score": s.score,
            "rank": rank,
            "status": s.status,
            "moons": s.moons,
            "win": s.win,
        }
        for s, rank in zip(record.seats, ranks, strict=True)
    ]


def _fault_rows(match_row: int, record: StoredMatch) -> list[dict[str, object]]:
    """The match's faults, numbered in order, each under the ladder's name of its bot."""
    return [
        {
            "match": match_row,
            "number": number,
            "seat": f.seat,
            "bot": record.match.seats[f.seat],
            "reason": f.reason,
            "message": f.message,
            "action": f.action,
            "rule": f.rule,
            "line": f.line,
            "hint": f.hint,
            "exit": f.exit,
            "stderr": json.dumps(f.stderr),
            "stderr_lines": f.stderr_lines,
        }
        for number, f in enumerate(record.faults)
    ]


def _insert(db: sqlite3.Connection, table: str, rows: Sequence[Mapping[str, object]]) -> None:
    """Insert rows given as column -> value (all with the columns of the first): every value
    goes to the column it is named for, whatever order the table's columns are in."""
    if not rows:
        return
    columns = list(rows[0])
    names = ", ".join(columns)
    values = ", ".join(f":{column}" for column in columns)
    db.executemany(f"INSERT INTO {table} ({names}) VALUES ({values})", rows)


def _flag(value: bool | None) -> int | None:
    return None if value is None else int(value)
