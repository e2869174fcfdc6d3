"""Reading a ladder database: its settings, its schedule, and every result, figure, drop and
fault it holds. The database is at this referee's schema (``referee.store.schema``) when it
gets here, whichever referee wrote it: ``LadderStore`` upgrades it when it opens it."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec

from protocol.ruleset import RuleSet
from referee.errors import LadderError
from referee.shared import BotEntry, FaultReport
from referee.stats.ratings import Rating
from referee.store.database import has_table
from referee.store.records import (
    BotFigures,
    BotVersion,
    Drop,
    DuplicateSet,
    LadderSettings,
    ResultModes,
    ScheduledMatch,
    Season,
    StoredFault,
    match_key,
)
from referee.store.schema import seed_value
from referee.store.season import final_to_come, read_season

OPEN_SETS = "(SELECT set_index FROM sets WHERE closed IS NULL)"
"""The sets whose pending matches are still to be played (a closed set's never will be)."""


def complete(among: str = "", also: str = "") -> str:
    """The one definition of a complete duplicate set, as a query: the sets whose every match
    is done (``seq`` is set when a match is recorded), one row each, ``set_index`` first (then
    the columns ``also`` names, of each set's matches: ``MAX(seq)``, its last match). ``among``:
    a query of the set indexes to look at, where a caller reads only some (a running duel's
    newest, by the unique index on ``seq``). The ladder's compare and order, its pairs' set
    differences, ``set_scores`` and the duel's sets all read complete sets through it."""
    where = f" WHERE set_index IN ({among})" if among else ""
    columns = f"set_index, {also}" if also else "set_index"
    return f"SELECT {columns} FROM matches{where} GROUP BY set_index HAVING COUNT(seq) = COUNT(*)"


class LadderReader:
    """The queries over one ladder database at the current schema. Not for use from several
    threads."""

    def __init__(self, path: Path, db: sqlite3.Connection) -> None:
        self.path = path
        self.db = db

    def close(self) -> None:
        self.db.close()

    @property
    def initialized(self) -> bool:
        return has_table(self.db, "meta")

    # -- the settings and the schedule ---------------------------------------------------------
    def settings(self) -> LadderSettings:
        if not self.initialized:
            raise LadderError(f"{self.path}: no ladder here (run `referee ladder run` first)")
        meta = {k: json.loads(v) for k, v in self.db.execute("SELECT key, value FROM meta")}
        return LadderSettings(
            ladder_seed=meta["ladder_seed"],
            rules=msgspec.convert(meta["rules"], RuleSet),
            games=meta["games"],
            created=meta["created"],
        )

    def meta_value(self, key: str) -> object:
        """A ``meta`` entry beside the ladder's own settings, as stored (JSON), or ``None``: a
        duel's or gauntlet's settings are under ``duel`` (``referee.duel``), absent in a ladder."""
        if not self.initialized:
            return None
        found = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if found is None else json.loads(found[0])

    def bots(self) -> list[tuple[str, str]]:
        """(name, command) of every version, retired ones included, in config order."""
        return [(n, c) for n, c in self.db.execute("SELECT name, command FROM bots ORDER BY position, version")]

    def versions(self) -> list[BotVersion]:
        """Every version of every entrant, in config order (``referee.ladder.pool``)."""
        rows = self.db.execute(
            "SELECT name, COALESCE(entrant, name), version, command, entry, position, replaces, added, retired"
            " FROM bots ORDER BY position, version"
        )
        return [
            BotVersion(
                name=name,
                entrant=entrant,
                version=int(version),
                command=command,
                entry=None if entry is None else msgspec.json.decode(entry, type=BotEntry),
                position=int(position),
                replaces=replaces,
                added=added,
                retired=retired,
            )
            for name, entrant, version, command, entry, position, replaces, added, retired in rows
        ]

    def active(self) -> list[str]:
        """The versions that the schedule draws from (not retired), in config order."""
        return [n for (n,) in self.db.execute("SELECT name FROM bots WHERE retired IS NULL ORDER BY position")]

    def runnable(self) -> list[str]:
        """The versions that may still play: the active ones, and retired ones seated in a
        pending match of an open set (a set begun before they were retired is finished)."""
        seated = {name for match in self.pending() for name in match.seats}
        return [v.name for v in self.versions() if v.active or v.name in seated]

    def sets(self, stage: str | None = None) -> list[DuplicateSet]:
        """Every set drawn (of one ``stage``, ``regular`` or ``final``, when given)."""
        where, args = ("WHERE stage = ?", [stage]) if stage is not None else ("", [])
        rows = self.db.execute(f"SELECT set_index, seed, bots FROM sets {where} ORDER BY set_index", args)
        return [DuplicateSet(index, tuple(json.loads(table)), seed_value(seed)) for index, seed, table in rows]

    def season(self) -> Season | None:
        """The ladder's season (``referee.ladder.season``), or ``None`` for a ladder without one."""
        return read_season(self.db) if self.initialized else None

    def pending(self) -> list[ScheduledMatch]:
        """The matches still to play, in schedule order."""
        rows = self.db.execute(
            "SELECT set_index, rotation, seats, seed FROM matches"
            f" WHERE status = 'pending' AND set_index IN {OPEN_SETS} ORDER BY id"
        )
        return [ScheduledMatch(s, r, tuple(json.loads(seats)), seed_value(seed)) for s, r, seats, seed in rows]

    def progress(self) -> tuple[int, int]:
        """(matches done, matches in all): the done ones, the pending ones of open sets, and a
        table's matches for each set of ``games`` not drawn yet (sets are drawn as tables
        free up, ``referee.ladder.feed``)."""
        done, total = self.db.execute(
            f"SELECT COUNT(seq), COUNT(*) FROM matches WHERE seq IS NOT NULL OR set_index IN {OPEN_SETS}"
        ).fetchone()
        if not self.initialized:
            return int(done), int(total)
        settings = self.settings()
        (drawn,) = self.db.execute("SELECT COUNT(*) FROM sets WHERE stage = 'regular'").fetchone()
        later = max(0, settings.games - int(drawn)) + final_to_come(self.db)
        return int(done), int(total) + later * settings.rules.players

    def next_index(self) -> int:
        """The index of the next set to draw."""
        (index,) = self.db.execute("SELECT COALESCE(MAX(set_index), -1) + 1 FROM sets").fetchone()
        return int(index)

    # -- results ---------------------------------------------------------------------------------
    @staticmethod
    def _ratings(db: sqlite3.Connection, names: Sequence[str] | None = None) -> dict[str, Rating]:
        rows = db.execute("SELECT bot, mu, sigma FROM ratings").fetchall()
        return {b: Rating(mu, sigma) for b, mu, sigma in rows if names is None or b in names}

    def ratings(self) -> dict[str, Rating]:
        return self._ratings(self.db)

    def rated_matches(self, stage: str | None = None) -> list[tuple[tuple[str, ...], list[int]]]:
        """Every done match's seats and ranks, in the order the ratings took them (of the sets
        of one ``stage`` when given: the final's ratings are those of its matches alone)."""
        where, args = (
            ("AND m.set_index IN (SELECT set_index FROM sets WHERE stage = ?)", [stage]) if stage else ("", [])
        )
        rows = self.db.execute(
            "SELECT m.seq, r.seat, r.bot, r.rank FROM matches m JOIN results r ON r.match = m.id"
            f" WHERE m.status = 'done' {where} ORDER BY m.seq, r.seat",
            args,
        )
        matches: dict[int, list[tuple[str, int]]] = {}
        for seq, _, bot, rank in rows:
            matches.setdefault(seq, []).append((bot, rank))
        return [(tuple(b for b, _ in seats), [r for _, r in seats]) for seats in matches.values()]

    def figures(self, bot: str | None = None) -> dict[str, BotFigures]:
        """Every bot's totals (zeros for a bot that has not played yet); of ``bot`` alone, when
        given (through the index on ``results.bot``: a page of one bot need not add up all)."""
        where, args = ("WHERE b.name = ?", [bot]) if bot is not None else ("", [])
        rows = self.db.execute(
            f"""
            SELECT b.name, COUNT(DISTINCT r.match), COUNT(r.match), COALESCE(SUM(r.win), 0),
                   COALESCE(SUM(r.score), 0), COALESCE(SUM(m.rounds), 0), COALESCE(SUM(r.moons), 0),
                   COALESCE(SUM(r.status = 'crash'), 0), COALESCE(SUM(r.status = 'timeout'), 0),
                   COALESCE(SUM(r.status NOT IN ('ok', 'crash', 'timeout')), 0),
                   COUNT(DISTINCT CASE WHEN m.sandboxed = 1 THEN r.match END),
                   COUNT(DISTINCT CASE WHEN m.fresh_bots = 1 THEN r.match END)
            FROM bots b LEFT JOIN results r ON r.bot = b.name LEFT JOIN matches m ON m.id = r.match
            {where} GROUP BY b.name ORDER BY b.position
            """,
            args,
        )
        return {row[0]: BotFigures(*row) for row in rows}

    def modes(self) -> ResultModes:
        """How the done matches were played: sandboxed or not, fresh or kept bot processes."""
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
            WHERE r.bot IN ({placeholders}) AND m.set_index IN ({complete()})
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
        """The explained faults (of one bot, or of all), in the order rated; none for matches
        recorded before the ladder kept them (schema 3)."""
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
        cursor = self.db.execute(
            "SELECT id, set_index, rotation, seed, seats, status, seq, match_id, reason, rounds, log,"
            " sandboxed, fresh_bots FROM matches ORDER BY id"
        )
        names = [d[0] for d in cursor.description]
        rows = [dict(zip(names, row, strict=True)) for row in cursor]
        for row in rows:
            row["seed"] = seed_value(row["seed"])
        return rows
