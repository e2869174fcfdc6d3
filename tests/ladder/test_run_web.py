"""``ladder run --web``: the pages are served beside the tables (by a process of their own),
and a view that fails (its port taken) is told and never stops the ladder."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli import main
from tests.browser import URL
from tests.ladder.helpers import ROOT, bot_list, check_consistent

SHORT = ["--set", "end=rounds", "--set", "rounds=1", "--sandbox", "off", "--games", "1", "--quiet"]


@pytest.mark.process
def test_a_view_that_cannot_listen_is_told_and_the_ladder_plays_on(tmp_path: Path) -> None:
    config = bot_list(tmp_path, ["first", "random"])
    db = tmp_path / "l.db"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(
            main, ["ladder", "run", str(config), "--db", str(db), *SHORT, "--web", "--web-port", str(port)]
        )
    assert result.exit_code == 0, result.output
    assert "the web view stopped" in result.output
    assert check_consistent(db) == {"done": 4, "total": 4}


@pytest.mark.process
def test_the_pages_are_served_while_the_ladder_plays(tmp_path: Path) -> None:
    config = bot_list(tmp_path, ["first", "random"])
    db = tmp_path / "l.db"
    whole = ["--sandbox", "off", "--games", "3", "--quiet"]  # 12 whole matches: the pages are up well before the end
    result = CliRunner().invoke(main, ["ladder", "run", str(config), "--db", str(db), *whole, "--web"])
    assert result.exit_code == 0, result.output
    assert "ladder pages: open http://127.0.0.1:" in result.output
    assert check_consistent(db) == {"done": 12, "total": 12}


def test_ladder_web_says_what_is_wrong_with_its_database(tmp_path: Path) -> None:
    missing = CliRunner().invoke(main, ["ladder", "web", "--db", str(tmp_path / "none.db")])
    assert missing.exit_code == 1 and "no such ladder" in missing.output
    (tmp_path / "empty.db").write_bytes(b"")
    empty = CliRunner().invoke(main, ["ladder", "web", "--db", str(tmp_path / "empty.db")])
    assert empty.exit_code == 1 and "no ladder here yet" in empty.output
    (tmp_path / "text.db").write_text("not a database\n" * 100)
    text = CliRunner().invoke(main, ["ladder", "web", "--db", str(tmp_path / "text.db")])
    assert text.exit_code == 1 and "cannot read the ladder database" in text.output
    assert (tmp_path / "text.db").read_text() == "not a database\n" * 100  # only ever read


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as page:
            return page.status == 200
    except OSError:
        return False


@pytest.mark.process
def test_the_pages_stop_with_a_run_killed_by_sigkill(tmp_path: Path) -> None:
    config = bot_list(tmp_path, ["first", "random"])
    run = subprocess.Popen(
        [sys.executable, "-m", "referee", "ladder", "run", str(config), "--db", str(tmp_path / "l.db"), "--games", "50",
         "--sandbox", "off", "--quiet", "--web"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert run.stderr is not None
        url = next(found.group(1) for line in run.stderr if (found := URL.search(line)))
        assert answers(url)
    finally:
        run.kill()  # no goodbye: the pages' process learns it from its stdin, closed with the run
        run.wait()
    deadline = time.monotonic() + 20
    while answers(url):
        assert time.monotonic() < deadline, "the pages outlived the ladder that served them"
        time.sleep(0.2)
