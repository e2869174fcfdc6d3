"""Bots in a ladder cannot carry knowledge from one rotation to the next or touch the ladder's
files: fresh processes per match by default, the bubblewrap sandbox, private files (0600 and a
0700 logs folder), and the mode of every result recorded and shown by ``ladder table``. Real
ladder runs with real bot processes."""

from __future__ import annotations

import json
import shutil
import stat
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from referee.ladder.setup import close_up, run_lock
from referee.ladder.standings import format_modes
from referee.store.records import ResultModes
from referee.store.writer import LadderStore
from tests.ladder.helpers import PY, ROOT, bot_list, check_consistent, earlier_ladder, synthetic_store
from tests.ladder.test_run import hellos, ladder, log_entries

SPY = f"{PY} {ROOT}/tests/bots/ladder_spy_bot.py"
needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (bwrap) is not installed")


def spy_reports(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the spy bots of one match said on stderr (one report per process)."""
    found = []
    for entry in entries:
        if entry["type"] == "stderr":
            for line in entry["text"].splitlines():
                if line.startswith("spy "):
                    found.append(json.loads(line[4:]))
    return found


def match_modes(db: Path) -> set[tuple[int | None, int | None]]:
    store = LadderStore(db)
    try:
        return {(r["sandboxed"], r["fresh_bots"]) for r in store.match_rows() if r["status"] == "done"}
    finally:
        store.close()


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.process
@needs_bwrap
def test_by_default_every_match_has_fresh_sandboxed_bots_and_private_files(tmp_path: Path) -> None:
    config = bot_list(tmp_path, ["first", "random"])
    db = tmp_path / "l.db"
    result = ladder("run", str(config), "--games", "1", "--db", str(db), "--seed", "5")
    assert result.exit_code == 0, result.output
    assert "results: 4 matches sandboxed with fresh bots" in result.output
    assert check_consistent(db) == {"done": 4, "total": 4}
    assert match_modes(db) == {(1, 1)}
    logs = log_entries(tmp_path / "l-logs")
    assert len(logs) == 4
    for name, entries in logs.items():
        assert hellos(entries) == [0, 1, 2, 3], f"{name}: not every seat had a new process"
        ended = sorted(e["seat"] for e in entries if e["type"] == "stderr")
        assert ended == [0, 1, 2, 3], f"{name}: every process is ended after its match, its stderr logged"
        assert all(e["exit_code"] == 0 for e in entries if e["type"] == "stderr")
    # the ladder's own files are private
    assert mode_of(db) == 0o600
    assert mode_of(Path(f"{db}.lock")) == 0o600
    assert mode_of(tmp_path / "l-logs") == 0o700
    assert {mode_of(log) for log in (tmp_path / "l-logs").iterdir()} == {0o600}
    table = ladder("table", "--db", str(db))
    assert "results: 4 matches sandboxed with fresh bots" in table.output and "warning" not in table.output
    rows = json.loads(ladder("table", "--db", str(db), "--json").output)
    assert all(r["sandboxed"] == r["fresh_bots"] == r["matches"] == 4 for r in rows)


@pytest.mark.process
def test_keep_bots_and_sandbox_off_are_recorded_and_shown(tmp_path: Path) -> None:
    config = bot_list(tmp_path, ["first", "random"])
    db = tmp_path / "l.db"
    result = ladder("run", str(config), "--games", "1", "--db", str(db), "--sandbox", "off", "--keep-bots", "-q")
    assert result.exit_code == 0, result.output
    assert result.output == ""  # --sandbox off: no warning either
    assert match_modes(db) == {(0, 0)}
    logs = log_entries(tmp_path / "l-logs")
    assert sum(len(hellos(entries)) for entries in logs.values()) == 4  # one process per seat, kept
    # the same ladder goes on with fresh bots: each match says how it was played
    result = ladder("run", str(config), "--games", "2", "--db", str(db), "--sandbox", "off", "-q")
    assert result.exit_code == 0, result.output
    assert match_modes(db) == {(0, 0), (0, 1)}
    table = ladder("table", "--db", str(db))
    assert "results: 8 matches: 8 NOT sandboxed, 4 with fresh bots, 4 with bots kept across matches" in table.output
    assert "warning: not every result comes from sandboxed, freshly started bots" in table.output
    rows = json.loads(ladder("table", "--db", str(db), "--json").output)
    assert all((r["matches"], r["sandboxed"], r["fresh_bots"]) == (8, 0, 4) for r in rows)


@pytest.mark.process
@needs_bwrap
def test_a_bot_cannot_remember_a_rotation_in_its_tmp(tmp_path: Path) -> None:
    memory = f"/tmp/ladder-spy-{uuid.uuid4().hex}"  # in the sandbox: its private /tmp
    config = bot_list(tmp_path, ["spy", "first"], spy=f"{SPY} memory={memory}")
    db = tmp_path / "l.db"
    result = ladder("run", str(config), "--games", "1", "--db", str(db), "--sandbox", "on", "-q")
    assert result.exit_code == 0, result.output
    reports = [r for entries in log_entries(tmp_path / "l-logs").values() for r in spy_reports(entries)]
    assert len(reports) == 8  # two seats in each of four matches, a new process each time
    assert all("memory_written" not in r for r in reports)  # it could write its memory file ...
    assert not any(r["memory_found"] for r in reports)  # ... and never found it again
    assert not Path(memory).exists()


@pytest.mark.process
def test_without_the_sandbox_the_same_bot_remembers(tmp_path: Path) -> None:
    """The control for the test above: fresh processes alone do not stop a bot that keeps its
    memory in a shared /tmp."""
    memory = tmp_path / "memory"
    config = bot_list(tmp_path, ["spy", "first"], spy=f"{SPY} memory={memory}")
    db = tmp_path / "l.db"
    result = ladder("run", str(config), "--games", "1", "--db", str(db), "--sandbox", "off", "-q")
    assert result.exit_code == 0, result.output
    logs = log_entries(tmp_path / "l-logs")
    assert all(r["memory_found"] for r in spy_reports(logs["00000-3"]))


@pytest.mark.process
@needs_bwrap
def test_a_bot_cannot_read_or_write_the_ladder_files_beside_it(tmp_path: Path) -> None:
    work = tmp_path / "work"  # the bots' working folder holds the ladder; bound, it is visible unless hidden
    work.mkdir()
    db = work / "l.db"
    peek = [db, Path(f"{db}-wal"), Path(f"{db}.lock"), work / "l-logs"]
    spy = f"{SPY} " + " ".join(f"peek={p}" for p in peek)
    config = bot_list(tmp_path, ["spy", "first"], spy=spy)
    args = ["run", str(config), "--games", "1", "--db", str(db), "--cwd", str(work), "--sandbox-bind", str(work)]
    result = ladder(*args, "--sandbox", "on", "-q")
    assert result.exit_code == 0, result.output
    assert check_consistent(db) == {"done": 4, "total": 4}
    logs = log_entries(work / "l-logs")
    reports = [r for entries in logs.values() for r in spy_reports(entries)]
    assert len(reports) == 8
    for report in reports:
        by_path = {Path(p["path"]): p for p in report["peek"]}
        hidden = (0, "error: Permission denied", "error: No such file or directory")  # masked, or not there at all
        for path in peek[:3]:
            assert by_path[path]["read_bytes"] in hidden, by_path[path]
            assert by_path[path]["wrote"] is not True, by_path[path]
        logs_seen = by_path[work / "l-logs"]
        assert logs_seen.get("listing", []) in ([], "error: Permission denied"), logs_seen
        assert logs_seen["exists"] or logs_seen.get("read_bytes") == hidden[2], logs_seen
    assert sorted(p.name for p in (work / "l-logs").iterdir()) == sorted(f"{k}.jsonl" for k in logs)
    assert all(b"forged" not in p.read_bytes() for p in work.rglob("*") if p.is_file())
    assert {mode_of(p) for p in work.iterdir() if p.is_file()} == {0o600}


def test_sandbox_on_without_bubblewrap_is_one_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    no_bwrap(monkeypatch)
    config = bot_list(tmp_path, ["first", "random"])
    db = tmp_path / "l.db"
    result = ladder("run", str(config), "--db", str(db), "--sandbox", "on", "-q")
    assert result.exit_code == 1
    assert result.output.count("\n") == 1 and "--sandbox on: cannot sandbox bots here" in result.output
    assert not db.exists()


@pytest.mark.process
def test_sandbox_auto_without_bubblewrap_warns_once_and_records_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    no_bwrap(monkeypatch)
    config = bot_list(tmp_path, ["first", "random"])
    db = tmp_path / "l.db"
    result = ladder("run", str(config), "--games", "1", "--db", str(db), "-q")
    assert result.exit_code == 0, result.output
    assert result.stderr.count("warning: bubblewrap (bwrap) is not available") == 1
    assert match_modes(db) == {(0, 1)}


def no_bwrap(monkeypatch: pytest.MonkeyPatch) -> None:
    which: Callable[..., str | None] = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None if name == "bwrap" else which(name, *a, **k))


def test_an_earlier_database_gets_the_mode_columns_and_stays_readable(tmp_path: Path) -> None:
    db = earlier_ladder("v1-dbafde3.db", tmp_path)  # written before the mode was recorded
    store = LadderStore(db)
    try:
        assert store.modes() == ResultModes(matches=4, sandboxed=0, unsandboxed=0, fresh_bots=0, kept_bots=0, unknown=4)
        assert check_consistent(db)["done"] == 4
    finally:
        store.close()
    table = ladder("table", "--db", str(db))
    assert table.exit_code == 0, table.output
    assert "results: 4 matches: 4 from before the mode was recorded" in table.output
    assert "warning" in table.output


def test_new_database_files_are_0600(tmp_path: Path) -> None:
    db = tmp_path / "new.db"
    synthetic_store(db, ["a", "b", "c", "d"], 1, lambda m: [10, 20, 30, 40]).close()
    assert mode_of(db) == 0o600
    old = tmp_path / "old.db"
    old.touch(mode=0o644)
    old.chmod(0o644)
    close_up(old)
    assert mode_of(old) == 0o600
    lock = Path(f"{old}.lock")
    lock.touch()
    lock.chmod(0o644)
    with run_lock(old):
        assert mode_of(lock) == 0o600


def test_format_modes() -> None:
    assert format_modes(ResultModes(0, 0, 0, 0, 0, 0)) == "results: none yet"
    assert format_modes(ResultModes(1, 1, 0, 1, 0, 0)) == "results: 1 match sandboxed with fresh bots"
    mixed = format_modes(ResultModes(6, 4, 2, 5, 1, 0))
    assert mixed.startswith(
        "results: 6 matches: 4 sandboxed, 2 NOT sandboxed, 5 with fresh bots, 1 with bots kept across matches"
    )
    assert "\nwarning:" in mixed


@pytest.mark.process
@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
def test_a_build_runs_sandboxed_on_a_copy_and_its_bot_plays_from_it(tmp_path: Path) -> None:
    """A build is the bot author's code: it writes a copy of its folder, nothing else (not the
    folder itself, not outside), and its bot plays from that copy; another bot of the same
    folder sees the folder as it is (what one build makes is its own bot's)."""
    folder = tmp_path / "bots"
    folder.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    first = ROOT / "tests" / "bots" / "first_legal_bot.py"
    (folder / "bot.py.in").write_text(first.read_text())
    build = f"cp bot.py.in bot.py && (touch {outside}/escaped 2>/dev/null && echo ESCAPED || true)"
    config = folder / "bots.toml"
    config.write_text(
        f'[[bot]]\nname = "a"\ncommand = "{PY} bot.py"\nbuild = "{build}"\n\n'
        f'[[bot]]\nname = "b"\ncommand = "{PY} bot.py.in"\n'
    )
    folder.chmod(0o755)
    tmp_path.chmod(0o755)
    before = sorted(p.name for p in folder.iterdir())
    result = ladder("run", str(config), "--games", "1", "--db", str(tmp_path / "l.db"), "--sandbox", "on")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in folder.iterdir()) == before  # the folder itself is never written
    assert not (outside / "escaped").exists()
    assert check_consistent(tmp_path / "l.db") == {"done": 4, "total": 4}
