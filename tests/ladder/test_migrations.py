"""A ladder database written by any earlier referee opens, upgrades without losing a row, and
resumes (``referee/store/migrations.py``). One real database of each earlier schema is kept in
``tests/ladder/fixtures/`` (its README says which commit wrote each, and how); every test works
on a copy. An upgrade killed half-way leaves the version before it, and a database newer than
this referee is refused."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from referee.errors import LadderError
from referee.store import migrations
from referee.store.migrations import MIGRATIONS, Migration, NewerLadderDatabase, stored_version, upgraded
from referee.store.reader import LadderReader
from referee.store.records import ResultModes
from referee.store.schema import SCHEMA_VERSION, seed_value
from referee.store.writer import LadderStore
from tests.ladder.helpers import EARLIER, FIXTURES, ROOT, check_consistent, earlier_ladder, synthetic_store
from tests.ladder.test_run import ladder

Rows = dict[str, list[dict[str, Any]]]
KEYS = {
    "meta": "key",
    "bots": "name",
    "sets": "set_index",
    "matches": "id",
    "results": "match, seat",
    "ratings": "bot",
    "rating_history": "seq, bot",
    "faults": "match, number",
    "pairings": "set_index",
    "entrants": "name",
    "season": "id",
    "analyses": "match, seat",
}
"""Every table, with the key its rows are read in the order of."""


def raw(db: Path) -> closing[sqlite3.Connection]:
    """The database as SQLite sees it, without the referee's upgrade."""
    return closing(sqlite3.connect(db, isolation_level=None))


def dump(db: Path) -> Rows:
    """Every row of every ladder table, as column -> value."""
    with raw(db) as con:
        con.row_factory = sqlite3.Row
        present = {row[0] for row in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        return {
            table: [dict(row) for row in con.execute(f"SELECT * FROM {table} ORDER BY {key}")]
            for table, key in KEYS.items()
            if table in present
        }


def version_of(db: Path) -> int | None:
    with raw(db) as con:
        return stored_version(con, db)


def same_value(column: str, before: object, after: object) -> bool:
    """A value kept by the upgrade: equal, or, for a seed, the same number (migration 4 writes
    the integer seeds of the first ladders as hex text)."""
    if column == "seed":
        return number(before) == number(after)
    return before == after


def number(seed: object) -> int:
    """A stored seed: an integer, or hex text."""
    return seed if isinstance(seed, int) else seed_value(seed)


def assert_kept(before: Rows, after: Rows) -> None:
    """Every row of ``before`` is in ``after``, with every value it had; columns the upgrade
    added are NULL in them (but a bot's entrant, its own name, and its version, the first:
    migration 6; a set's stage, the regular season's: migration 8), and a table it added is
    empty. (``meta.schema`` is the version, which moves on.)"""
    for table, rows in before.items():
        assert len(after[table]) == len(rows), f"{table}: {len(rows)} rows before, {len(after[table])} after"
        for old, new in zip(rows, after[table], strict=True):
            if table == "meta" and old["key"] == "schema":
                continue
            for column, value in old.items():
                assert same_value(column, value, new[column]), f"{table}.{column}: {value!r} became {new[column]!r}"
            filled = {"bots": {"entrant": old.get("name"), "version": 1}, "sets": {"stage": "regular"}}.get(table, {})
            for column in new.keys() - old.keys():
                assert new[column] == filled.get(column), f"{table}.{column}: the upgrade wrote {new[column]!r}"
    assert all(not after[table] for table in after.keys() - before.keys())


def test_the_fixtures_hold_every_earlier_schema(tmp_path: Path) -> None:
    assert sorted(p.name for p in FIXTURES.glob("*.db")) == sorted(EARLIER)
    assert set(EARLIER.values()) == set(range(1, SCHEMA_VERSION))
    for name, version in EARLIER.items():
        assert version_of(earlier_ladder(name, tmp_path)) == version, name
    # the ad-hoc states they were written in: integer seeds (the first ladder), both kinds
    # (a ladder begun by it and extended by a later one), mode columns NULL in old matches
    with raw(tmp_path / "v1-dbafde3.db") as con:
        assert con.execute("SELECT DISTINCT typeof(seed) FROM matches").fetchall() == [("integer",)]
    with raw(tmp_path / "chain-dbafde3-to-1d94cdc.db") as con:
        assert con.execute("SELECT DISTINCT typeof(seed) FROM sets ORDER BY 1").fetchall() == [("integer",), ("text",)]
        modes = con.execute("SELECT DISTINCT sandboxed, fresh_bots FROM matches WHERE status = 'done'").fetchall()
        assert set(modes) == {(None, None), (0, 1), (0, 0)}


def test_the_migrations_are_numbered_one_after_another() -> None:
    assert [m.version for m in MIGRATIONS] == list(range(2, SCHEMA_VERSION + 1))


@pytest.mark.parametrize("name", EARLIER)
def test_an_earlier_database_upgrades_without_losing_a_row(tmp_path: Path, name: str) -> None:
    db = earlier_ladder(name, tmp_path)
    before = dump(db)
    store = LadderStore(db)
    try:
        assert store.db.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
        # every match, result, rating and fault reads back through the store
        matches = before["matches"]
        done = [m for m in matches if m["status"] == "done"]
        assert store.progress() == (len(done), len(matches))
        assert [r["id"] for r in store.match_rows()] == [m["id"] for m in matches]
        assert [(m.set_index, m.rotation) for m in store.pending()] == [
            (m["set_index"], m["rotation"]) for m in matches if m["status"] == "pending"
        ]
        assert [s.seed for s in store.sets()] == [number(s["seed"]) for s in before["sets"]]
        assert len(store.drops()) == sum(r["status"] != "ok" for r in before["results"])
        assert [f.report.message for f in store.fault_details()] == [f["message"] for f in before.get("faults", [])]
        assert len(store.history()) == len(before["rating_history"])
        assert sum(f.seats for f in store.figures().values()) == len(before["results"])
        assert store.modes().matches == len(done)
        assert store.settings().games == json.loads(next(m["value"] for m in before["meta"] if m["key"] == "games"))
    finally:
        store.close()
    after = dump(db)
    assert_kept(before, after)
    assert {r["value"] for r in after["meta"] if r["key"] == "schema"} == {str(SCHEMA_VERSION)}
    check_consistent(db)


def schema_of(db: Path) -> dict[str, Any]:
    """What the schema says of each table (columns, indexes, foreign keys), seed column types
    left out: the first ladders declared them INTEGER, which only a table rebuild changes, and
    their text values are kept as text either way."""
    with raw(db) as con:
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return {
            table: (
                [
                    (*c[1:2], None if c[1] == "seed" else c[2], *c[3:])
                    for c in con.execute(f"PRAGMA table_info({table})")
                ],
                sorted(tuple(i[1:]) for i in con.execute(f"PRAGMA index_list({table})")),
                sorted(tuple(k[2:]) for k in con.execute(f"PRAGMA foreign_key_list({table})")),
            )
            for table in tables
        }


@pytest.mark.parametrize("name", EARLIER)
def test_an_upgraded_database_has_the_schema_of_a_new_one(tmp_path: Path, name: str) -> None:
    db = earlier_ladder(name, tmp_path)
    LadderStore(db).close()
    synthetic_store(tmp_path / "new.db", ["a", "b"], 1, lambda m: [0, 0, 0, 0]).close()
    assert schema_of(db) == schema_of(tmp_path / "new.db")


@pytest.mark.process
@pytest.mark.parametrize("name", EARLIER)
def test_an_upgraded_database_resumes_where_it_stopped(tmp_path: Path, name: str) -> None:
    db = earlier_ladder(name, tmp_path)
    before = dump(db)
    done = [m for m in before["matches"] if m["status"] == "done"]
    pending = [m for m in before["matches"] if m["status"] == "pending"]
    assert done and pending
    result = ladder("run", str(tmp_path / "bots.toml"), "--db", str(db), "--sandbox", "off", "-q")
    assert result.exit_code == 0, result.output
    after = dump(db)
    # the finished matches were not played again: each kept its id, seq, time, log and results
    again = {m["id"]: m for m in after["matches"]}
    for match in done:
        assert all(same_value(k, v, again[match["id"]][k]) for k, v in match.items()), match
    kept = [r for r in after["results"] if r["match"] in {m["id"] for m in done}]
    assert len(kept) == len(before["results"]) and all(r in after["results"] for r in before["results"])
    # the pending ones were played, once each, rated after them
    assert all(again[m["id"]]["status"] == "done" for m in pending)
    assert sorted(again[m["id"]]["seq"] for m in pending) == list(range(len(done) + 1, len(after["matches"]) + 1))
    logs = sorted(p.name for p in (tmp_path / f"{db.stem}-logs").iterdir())
    assert logs == sorted(f"{m['set_index']:05d}-{m['rotation']}.jsonl" for m in pending)
    assert check_consistent(db) == {"done": len(after["matches"]), "total": len(after["matches"])}


def failing_at(version: int, change: str) -> tuple[Migration, ...]:
    """The migrations, the one to ``version`` replaced by its real change followed by
    ``change`` (Python run with the migration's connection as ``db``)."""

    def broken(db: sqlite3.Connection) -> None:
        real.change(db)
        exec(change, {"db": db, "os": os, "signal": signal})

    real = next(m for m in MIGRATIONS if m.version == version)
    return tuple(Migration(m.version, broken) if m is real else m for m in MIGRATIONS)


def test_a_migration_that_fails_midway_leaves_the_version_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = earlier_ladder("v1-dbafde3.db", tmp_path)
    before = dump(db)
    monkeypatch.setattr(migrations, "MIGRATIONS", failing_at(4, "db.execute('SELECT * FROM no_such_table')"))
    with pytest.raises(LadderError, match=r"upgrading the ladder database to schema 4 failed .* at schema 3"):
        LadderStore(db)
    assert version_of(db) == 3  # migrations 2 and 3 were done, each in its own transaction
    with raw(db) as con:
        assert con.execute("SELECT DISTINCT typeof(seed) FROM sets").fetchall() == [("integer",)]
    monkeypatch.undo()
    LadderStore(db).close()
    assert version_of(db) == SCHEMA_VERSION
    assert_kept(before, dump(db))


KILLED = """
import sys
from tests.ladder.test_migrations import failing_at
from referee.store import migrations
from referee.store.writer import LadderStore
migrations.MIGRATIONS = failing_at(int(sys.argv[2]), "os.kill(os.getpid(), signal.SIGKILL)")
LadderStore(sys.argv[1])
"""


def sqlite_master(db: Path) -> list[tuple[str, str, str | None]]:
    with raw(db) as con:
        return con.execute("SELECT type, name, sql FROM sqlite_master ORDER BY type, name").fetchall()


@pytest.mark.process
@pytest.mark.parametrize("version", [2, 3, 4, 5, 7, 8, 9])
def test_a_referee_killed_while_upgrading_leaves_the_version_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version: int
) -> None:
    earlier = {
        4: "chain-dbafde3-to-1d94cdc.db",
        5: "v4-e5bcbe2.db",
        7: "v6-7aa84db.db",
        8: "v7-f9885c8.db",
        9: "v8-2935c75.db",
    }
    name = earlier.get(version, "v1-dbafde3.db")
    db = earlier_ladder(name, tmp_path)
    before = dump(db)
    killed = subprocess.run([sys.executable, "-c", KILLED, str(db), str(version)], cwd=ROOT, check=False)
    assert killed.returncode == -signal.SIGKILL
    # exactly what the migrations before the killed one make of it: none of the killed one
    (tmp_path / "reference").mkdir()
    reference = earlier_ladder(name, tmp_path / "reference")
    monkeypatch.setattr(migrations, "MIGRATIONS", tuple(m for m in MIGRATIONS if m.version < version))
    LadderStore(reference).close()
    monkeypatch.undo()
    assert version_of(db) == version_of(reference) == max(EARLIER[name], version - 1)
    assert dump(db) == dump(reference) and sqlite_master(db) == sqlite_master(reference)
    # and the next open upgrades it
    LadderStore(db).close()
    assert version_of(db) == SCHEMA_VERSION
    assert_kept(before, dump(db))
    check_consistent(db)


def test_a_database_newer_than_the_referee_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "new.db"
    synthetic_store(db, ["a", "b"], 1, lambda m: [0, 0, 0, 0]).close()
    with raw(db) as con:
        con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    before = dump(db)
    with pytest.raises(NewerLadderDatabase, match=f"schema {SCHEMA_VERSION + 1}, and this referee knows schema"):
        LadderStore(db)
    assert dump(db) == before and version_of(db) == SCHEMA_VERSION + 1
    table = ladder("table", "--db", str(db))
    assert table.exit_code == 1 and "written by a newer referee" in table.output


def test_a_database_of_an_unknown_schema_is_refused(tmp_path: Path) -> None:
    db = earlier_ladder("v1-dbafde3.db", tmp_path)
    with raw(db) as con:
        con.execute("UPDATE meta SET value = '7' WHERE key = 'schema'")
    with pytest.raises(LadderError, match="unknown schema"):
        LadderStore(db)


@pytest.mark.parametrize(
    ("name", "half_done", "version"),
    [
        # the code of schema 2 added its two columns one statement at a time
        ("v2-71f432d.db", "ALTER TABLE matches DROP COLUMN fresh_bots", 1),
        # the code of schema 3 created the faults table, then its index, separately
        ("v3-1d94cdc.db", "DROP INDEX faults_bot", 2),
    ],
)
def test_a_database_left_half_changed_by_an_earlier_referee_is_completed(
    tmp_path: Path, name: str, half_done: str, version: int
) -> None:
    db = earlier_ladder(name, tmp_path)
    with raw(db) as con:
        con.execute(half_done)
    before = dump(db)
    assert version_of(db) == version
    LadderStore(db).close()
    assert version_of(db) == SCHEMA_VERSION
    assert_kept(before, dump(db))
    synthetic_store(tmp_path / "new.db", ["a", "b"], 1, lambda m: [0, 0, 0, 0]).close()
    assert schema_of(db) == schema_of(tmp_path / "new.db")


@pytest.fixture
def read_only(tmp_path: Path) -> Iterator[tuple[Path, sqlite3.Connection]]:
    """An earlier ladder opened as a file that cannot be written (root writes any file
    whatever its mode, so SQLite is asked for read-only instead)."""
    db = earlier_ladder("v1-dbafde3.db", tmp_path)
    with raw(db) as con:
        con.execute("PRAGMA journal_mode = DELETE")  # no -wal or -shm to create when reading
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, isolation_level=None)
    yield db, con
    con.close()


def test_an_earlier_read_only_database_is_upgraded_in_memory_for_reading(
    read_only: tuple[Path, sqlite3.Connection],
) -> None:
    db, con = read_only
    before = dump(db)
    reader = LadderReader(db, upgraded(con, db))
    try:
        assert reader.modes() == ResultModes(
            matches=4, sandboxed=0, unsandboxed=0, fresh_bots=0, kept_bots=0, unknown=4
        )
        assert {f.fresh_bots for f in reader.figures().values()} == {0}
        assert all(r["sandboxed"] is None for r in reader.match_rows())
        assert reader.fault_details() == [] and len(reader.drops()) == 8
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            reader.db.execute("DELETE FROM results")
    finally:
        reader.close()
    assert dump(db) == before and version_of(db) == 1  # the file is as it was


def test_a_ladder_from_before_entrants_gets_the_table_and_takes_one(tmp_path: Path) -> None:
    """Schema 7: a ladder of schema 6 (``7aa84db``) has no ``entrants`` table; ``entrant add``
    upgrades it, keeps every row, and its bot of that name is the entrant's version."""
    db = earlier_ladder("v6-7aa84db.db", tmp_path)
    with raw(db) as con:
        assert con.execute("SELECT 1 FROM sqlite_master WHERE name = 'entrants'").fetchone() is None
    before = dump(db)
    made = ladder("entrant", "add", "crash", "--db", str(db))
    assert made.exit_code == 0 and "entrant crash: made (its 1 version in v6-7aa84db.db)" in made.output
    assert version_of(db) == SCHEMA_VERSION
    after = dump(db)
    assert [row["name"] for row in after["entrants"]] == ["crash"]
    assert_kept(before, {table: rows for table, rows in after.items() if table != "entrants"})
    listed = ladder("entrant", "list", "--db", str(db))
    assert listed.output.startswith("crash: 1 version, link made ")
