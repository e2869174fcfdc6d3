"""A ladder that lives, as the organizer sees it in the browser (Playwright, Chromium): while
``referee ladder run CONFIG --web --keep-running`` plays, the organizer saves the bot list with
a late entrant and a new version of another bot; without a reload, the leaderboard shows both,
the old version marked retired, and both get matches; a new version's page links the version it
follows; killed with SIGKILL and run again, nothing played is lost."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.browser import URL, chromium_page
from tests.web.helpers import ROOT
from tests.web.test_ladder_page import version, wait_for

pytestmark = pytest.mark.browser

PY = sys.executable
RANDOM = f"{PY} {ROOT}/sample_bots/python/random_bot.py"
FIRST = f"{PY} {ROOT}/tests/bots/first_legal_bot.py"


def write_list(path: Path, bots: dict[str, str]) -> None:
    path.write_text("".join(f'[[bot]]\nname = "{n}"\ncommand = {json.dumps(c)}\n\n' for n, c in bots.items()))


def results_of(db: Path, bot: str) -> int:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    try:
        return int(con.execute("SELECT COUNT(*) FROM results WHERE bot = ?", (bot,)).fetchone()[0])
    finally:
        con.close()


def done_rows(db: Path) -> list[tuple[object, ...]]:
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT id, seq, seats, match_id FROM matches WHERE seq IS NOT NULL ORDER BY seq").fetchall()
    finally:
        con.close()


def test_an_organizer_adds_a_late_entrant_and_a_new_version_while_the_ladder_runs(tmp_path: Path) -> None:
    config, db = tmp_path / "bots.toml", tmp_path / "class.db"
    write_list(config, {"ann": RANDOM, "bob": FIRST, "cat": RANDOM})
    command = [PY, "-m", "referee", "ladder", "run", str(config), "--db", str(db), "--games", "2", "--seed", "4",
               "--sandbox", "off", "--keep-bots", "--set", "end=rounds", "--set", "rounds=1"]  # fmt: skip
    process = subprocess.Popen([*command, "--quiet", "--web", "--keep-running"], cwd=ROOT,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert process.stderr is not None
        url = next(found.group(1).rstrip("/") for line in process.stderr if (found := URL.search(line)))
        with chromium_page(1280, 860) as page:
            wait_for(lambda: version(url)["seq"] >= 8, "the first sets played")
            page.goto(url)
            page.evaluate("window.notReloaded = true")
            assert page.locator("table.board a.bot").all_inner_texts() != []
            # saved while it runs: a late entrant, and bob changed (another command line)
            write_list(config, {"ann": RANDOM, "bob": f"{FIRST} --v2", "cat": RANDOM, "dan": FIRST})
            wait_for(lambda: results_of(db, "dan") >= 2 and results_of(db, "bob@2") >= 2, "both play", limit=120)
            page.wait_for_selector("table.board a.bot:text-is('dan')", timeout=30_000)
            page.wait_for_selector("table.board a.bot:text-is('bob@2')", timeout=30_000)
            assert page.evaluate("window.notReloaded") is True  # the leaderboard changed in place
            rows = {r.split("\t")[1].split()[0]: r for r in page.locator("table.board tbody tr").all_inner_texts()}
            assert "retired" in rows["bob"] and "retired" not in rows["bob@2"], rows
            page.click("table.board a.bot:text-is('bob@2')")
            page.wait_for_selector("h1")
            assert "bob@2" in page.locator("h1").inner_text()
            assert page.locator("a[href='/bot/bob']").count() >= 1  # the version it follows, linked
            page.goto(f"{url}/matches?bot=dan")
            assert page.locator("table.matches tbody tr").count() >= 2
        os.kill(process.pid, signal.SIGKILL)  # mid-ladder, perhaps mid-match
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    before = done_rows(db)
    again = subprocess.run([*command, "--quiet"], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert again.returncode == 0, again.stderr
    assert done_rows(db)[: len(before)] == before  # nothing played was lost or played again
