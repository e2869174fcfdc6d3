"""Kill a real ``referee ladder run`` with SIGKILL at several moments, run it again, and
nothing is lost or counted twice: every match done once, ratings equal to a fresh replay of
the stored results, one complete replay log per match, and no bot process left behind."""

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

from tests.ladder.helpers import BOTS, ROOT, bot_list, check_consistent
from tests.shared import quick_bot, stray

pytestmark = pytest.mark.process

GAMES = 3
MATCHES = GAMES * 4


def ladder_command(config: Path, db: Path) -> list[str]:
    return [
        sys.executable,
        "-c",
        "from referee.cli import main; main()",
        "ladder",
        "run",
        str(config),
        "--games",
        str(GAMES),
        "--db",
        str(db),
        "--seed",
        "17",
        "--quiet",
    ]


def marked_ladder(tmp_path: Path) -> tuple[str, Path, Path]:
    """Four bots whose commands carry a new marker (to find what a run left behind): the
    marker, their bot list and the ladder's database."""
    marker = f"marker-{uuid.uuid4().hex}"
    players = {  # one Python bot, three quick processes: the language adds nothing here
        "first": quick_bot(BOTS["first"]),
        "random": quick_bot(BOTS["random"], random_seed=1),
        "heuristic": BOTS["heuristic"],
        "random2": quick_bot(BOTS["random"], random_seed=2),
    }
    commands = {name: f"{command} {marker}" for name, command in players.items()}
    return marker, bot_list(tmp_path, list(players), **commands), tmp_path / "ladder.db"


def run_to_the_end(config: Path, db: Path) -> None:
    """The ladder run again, to its end (the resume)."""
    again = subprocess.run(
        ladder_command(config, db), cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert again.returncode == 0, again.stdout + again.stderr


def count(db: Path, query: str) -> int:
    """A count read from a database another process is writing (0 while it is not made yet)."""
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0.1)
        try:
            return int(con.execute(query).fetchone()[0])
        finally:
            con.close()
    except sqlite3.Error:
        return 0  # not made yet, or being made


def done_count(db: Path) -> int:
    return count(db, "SELECT COUNT(seq) FROM matches")


def wait_for(predicate: object, timeout: float = 180.0) -> None:
    """Wait until ``predicate()`` holds: a hang guard, generous so that a loaded machine cannot fail it."""
    deadline = time.monotonic() + timeout
    while not predicate():  # type: ignore[operator]
        assert time.monotonic() < deadline, "the ladder did not get there in time"
        time.sleep(0.01)


def scheduled(db: Path) -> bool:
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0.1)
        try:
            return int(con.execute("SELECT COUNT(*) FROM matches").fetchone()[0]) > 0
        finally:
            con.close()
    except sqlite3.Error:
        return False


def result_rows(db: Path) -> list[tuple[object, ...]]:
    if not scheduled(db):
        return []
    con = sqlite3.connect(db)
    try:
        return con.execute(
            "SELECT m.set_index, m.rotation, m.seq, m.match_id, r.seat, r.bot, r.score, r.rank, r.status"
            " FROM matches m JOIN results r ON r.match = m.id ORDER BY m.seq, r.seat"
        ).fetchall()
    finally:
        con.close()


@pytest.mark.parametrize("moment", ["at_once", "schedule_stored", "after_first_match", "mid_match"])
def test_sigkill_at_any_moment_then_resume(moment: str, tmp_path: Path) -> None:
    marker, config, db = marked_ladder(tmp_path)
    process = subprocess.Popen(ladder_command(config, db), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        if moment == "at_once":
            time.sleep(0.3)
        elif moment == "schedule_stored":
            wait_for(lambda: scheduled(db))
        elif moment == "after_first_match":
            wait_for(lambda: done_count(db) >= 1)
        else:  # a match under way: its log has started, its result is not in

            def under_way() -> bool:
                done = done_count(db)
                logs = list((tmp_path / "ladder-logs").glob("*.jsonl"))
                return done >= 5 and len(logs) > done and any(log.stat().st_size > 0 for log in logs)

            wait_for(under_way)
        assert process.poll() is None, "the run ended before it could be killed"
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.wait(10)
    assert process.returncode == -signal.SIGKILL
    before = done_count(db)
    assert before < MATCHES
    if before:
        check_consistent(db)
    kept = result_rows(db)

    run_to_the_end(config, db)
    counts = check_consistent(db)
    assert counts == {"done": MATCHES, "total": MATCHES}
    assert result_rows(db)[: len(kept)] == kept  # what was done before the kill is untouched
    for log in sorted((tmp_path / "ladder-logs").glob("*.jsonl")):
        kinds = [json.loads(line)["type"] for line in log.read_text().splitlines()]
        assert kinds.count("header") == 1 and kinds.count("result") == 1, log.name
    assert len(list((tmp_path / "ladder-logs").glob("*.jsonl"))) == MATCHES
    # bots of the killed run are in their own sessions; they exit at the end of their input
    deadline = time.monotonic() + 10
    while stray(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert stray(marker) == []


def test_sigterm_stops_the_ladder_cleanly_and_it_resumes(tmp_path: Path) -> None:
    marker, config, db = marked_ladder(tmp_path)
    process = subprocess.Popen(ladder_command(config, db), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        wait_for(lambda: done_count(db) >= 1)
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode != 0
    assert b"interrupted" in err and b"kept" in err
    assert stray(marker) == []  # the ladder ended its bots itself
    kept = result_rows(db)
    run_to_the_end(config, db)
    assert check_consistent(db) == {"done": MATCHES, "total": MATCHES}
    assert result_rows(db)[: len(kept)] == kept
