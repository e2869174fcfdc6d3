"""Kill a real ``referee duel`` with SIGKILL at several moments, run the same command again, and
no set is lost or repeated: every set scheduled once with its pairing, each of its matches
played and recorded exactly once, the sets finished before the kill untouched, one replay log
per match, and no bot process left behind."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.duel.helpers import SHORT, quick_first, quick_random
from tests.ladder.helpers import ROOT, check_consistent
from tests.ladder.test_resume import count, done_count, result_rows, stray, wait_for

pytestmark = pytest.mark.process

SETS = 5
MATCHES = SETS * 4


def duel_command(db: Path, marker: str) -> list[str]:
    first, random = quick_first(), quick_random()  # quick processes: the language adds nothing here
    return [
        sys.executable, "-c", "from referee.cli import main; main()", "duel", f"{first} {marker}",
        f"{random} {marker}", "--opponents", f"{first} {marker}", "--max-sets", str(SETS), "--db", str(db),
        "--seed", "17", "-k", "2", *SHORT, "--quiet",
    ]  # fmt: skip


def sets_scheduled(db: Path) -> int:
    return count(db, "SELECT COUNT(*) FROM pairings")


def match_under_way(db: Path) -> bool:
    """A match has started (its log is written to) and its result is not in."""
    done = done_count(db)
    logs = list((db.parent / "duel-logs").glob("*.jsonl"))
    return done >= 5 and len(logs) > done and any(log.stat().st_size > 0 for log in logs)


@pytest.mark.parametrize("moment", ["set_scheduled", "after_first_match", "mid_match"])
def test_a_duel_killed_at_any_moment_resumes_without_losing_or_repeating_a_set(moment: str, tmp_path: Path) -> None:
    marker = f"marker-{uuid.uuid4().hex}"
    db = tmp_path / "duel.db"
    process = subprocess.Popen(duel_command(db, marker), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        if moment == "set_scheduled":
            wait_for(lambda: sets_scheduled(db) >= 1)
        elif moment == "after_first_match":
            wait_for(lambda: done_count(db) >= 1)
        else:
            wait_for(lambda: match_under_way(db))
        assert process.poll() is None, "the duel ended before it could be killed"
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.wait(10)
    assert process.returncode == -signal.SIGKILL
    assert done_count(db) < MATCHES
    kept = result_rows(db)

    again = subprocess.run(duel_command(db, marker), cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert again.returncode == 3, again.stdout + again.stderr  # no --sprt: stopped at --max-sets, no decision
    assert check_consistent(db) == {"done": MATCHES, "total": MATCHES}  # every match once, ratings replayed
    assert result_rows(db)[: len(kept)] == kept  # what was done before the kill is untouched
    con = sqlite3.connect(db)
    try:
        pairings = con.execute("SELECT set_index, new, old FROM pairings ORDER BY set_index").fetchall()
        per_set = con.execute("SELECT set_index, COUNT(*), COUNT(seq) FROM matches GROUP BY set_index").fetchall()
    finally:
        con.close()
    assert pairings == [(i, "new", "old") for i in range(SETS)]  # no set lost, none scheduled twice
    assert per_set == [(i, 4, 4) for i in range(SETS)]
    logs = sorted((tmp_path / "duel-logs").glob("*.jsonl"))
    assert len(logs) == MATCHES
    for log in logs:
        kinds = [json.loads(line)["type"] for line in log.read_text().splitlines()]
        assert kinds.count("header") == 1 and kinds.count("result") == 1, log.name
    deadline = time.monotonic() + 10
    while stray(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert stray(marker) == []


def test_sigterm_stops_a_duel_cleanly_it_says_so_and_resumes(tmp_path: Path) -> None:
    marker = f"marker-{uuid.uuid4().hex}"
    db = tmp_path / "duel.db"
    command = [*duel_command(db, marker)[:-1], "--json"]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        wait_for(lambda: done_count(db) >= 1)
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 3  # stopped before a decision (none was asked for)
    assert b"interrupted" in err and b"kept" in err
    stopped = json.loads(out)
    assert stopped["interrupted"] and stopped["this_run"] is None and stopped["exit_status"] == 3
    assert stray(marker) == []  # the duel ended its bots itself
    kept = result_rows(db)
    again = subprocess.run(duel_command(db, marker), cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert again.returncode == 3, again.stdout + again.stderr
    assert check_consistent(db) == {"done": MATCHES, "total": MATCHES}
    assert result_rows(db)[: len(kept)] == kept
