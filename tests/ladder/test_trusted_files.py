"""The referee never writes, chmods or trusts its files through a link, nor trusts a file of
another user (issue 22): a planted link where the logs folder goes, a forged ``-wal`` or lock
beside the database, a log path that is a link, each refused with the way out, nothing outside
touched."""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from referee.ladder.setup import close_up, run_lock
from referee.private_files import UntrustedFile, open_private, private_folder, trusted_file
from tests.ladder.helpers import PY, ROOT
from tests.ladder.test_run import ladder


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    made = tmp_path / "outside"
    made.mkdir(mode=0o755)
    (made / "file").write_text("keep")
    (made / "file").chmod(0o644)
    return made


def untouched(outside: Path) -> bool:
    return (
        stat.S_IMODE(outside.stat().st_mode) == 0o755
        and sorted(p.name for p in outside.iterdir()) == ["file"]
        and stat.S_IMODE((outside / "file").stat().st_mode) == 0o644
    )


@pytest.mark.parametrize("to", ["outside", "outside/new"])
def test_a_link_where_the_logs_folder_goes_is_refused(tmp_path: Path, outside: Path, to: str) -> None:
    os.symlink(tmp_path / to, tmp_path / "l-logs")  # to a folder, or to none yet
    with pytest.raises(UntrustedFile, match=r"l-logs is a symbolic link: the referee never writes"):
        private_folder(tmp_path / "l-logs")
    with pytest.raises(UntrustedFile):
        close_up(tmp_path / "l.db")
    assert untouched(outside)


@pytest.mark.parametrize("suffix", ["", "-wal", "-journal", "-shm", ".lock"])
def test_a_link_beside_the_database_is_refused(tmp_path: Path, outside: Path, suffix: str) -> None:
    os.symlink(outside / "file", tmp_path / f"l.db{suffix}")
    with pytest.raises(UntrustedFile, match="is a symbolic link"):
        close_up(tmp_path / "l.db")
    assert untouched(outside)


def test_the_run_lock_is_never_taken_through_a_link(tmp_path: Path, outside: Path) -> None:
    os.symlink(outside / "file", tmp_path / "l.db.lock")
    with pytest.raises(UntrustedFile), run_lock(tmp_path / "l.db"):
        pass
    assert untouched(outside)


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can make a file of another user")
def test_a_wal_of_another_user_is_refused(tmp_path: Path) -> None:
    wal = tmp_path / "l.db-wal"
    wal.write_bytes(b"forged")
    os.chown(wal, 61_234, 61_234)  # as a bot's uid would have made it
    with pytest.raises(UntrustedFile, match=r"belongs to uid 61234, not to the referee's user"):
        trusted_file(wal)


def test_a_log_is_never_written_through_a_link(tmp_path: Path, outside: Path) -> None:
    os.symlink(outside / "file", tmp_path / "match.jsonl")
    with pytest.raises(UntrustedFile, match="is a symbolic link"):
        open_private(tmp_path / "match.jsonl")
    assert untouched(outside) and (outside / "file").read_text() == "keep"


def test_the_ladder_names_the_planted_link_and_touches_nothing(tmp_path: Path, outside: Path) -> None:
    first = ROOT / "tests" / "bots" / "first_legal_bot.py"
    config = tmp_path / "bots.toml"
    config.write_text(
        f'[[bot]]\nname = "a"\ncommand = "{PY} {first}"\n\n[[bot]]\nname = "b"\ncommand = "{PY} {first}"\n'
    )
    os.symlink(outside, tmp_path / "l-logs")
    result = ladder("run", str(config), "--games", "1", "--db", str(tmp_path / "l.db"), "--sandbox", "off")
    assert result.exit_code == 1
    assert "l-logs is a symbolic link" in result.output and "remove it" in result.output
    assert untouched(outside)
    assert not (tmp_path / "l.db").exists()


@pytest.mark.process
def test_looking_at_the_database_keeps_sqlites_locks(tmp_path: Path) -> None:
    """Closing any descriptor of a file drops every POSIX lock the process holds on it: checked
    with ordinary descriptors, the referee's own SQLite connection lost its locks, another
    reader reset the shared memory and the referee died of SIGBUS. The check must not."""
    db = tmp_path / "l.db"
    con = sqlite3.connect(db, isolation_level=None)
    try:
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("CREATE TABLE t (x)")
        con.execute("BEGIN EXCLUSIVE")  # this process holds the write lock
        close_up(db)
        other = subprocess.run(
            [
                sys.executable,
                "-c",
                f"import sqlite3; c = sqlite3.connect({str(db)!r}, timeout=0); c.execute('BEGIN EXCLUSIVE')",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        assert other.returncode != 0 and "database is locked" in other.stderr
    finally:
        con.close()
