"""A bot's own folder is its own (issue 32): a ladder whose bots each have a ``folder =`` plays
them sandboxed however they find their code inside it (``perl -Ilib``, ``FindBin``,
``require_relative '../lib'``), while a bot of the list's own folder, which its other bots'
folders lie in, is shown only what its command names: its start-up check, sandboxed as its
matches would be, leaves it out, and the organizer is told which folder is crowded and by what."""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli import main
from tests.ladder.helpers import PY, ROOT, check_consistent

pytestmark = pytest.mark.process

BOTS = ROOT / "tests" / "bots"
FIRST = BOTS / "first_legal_bot.py"


def copy_bot(language: str, into: Path) -> None:
    for part in ("bin", "lib"):
        shutil.copytree(BOTS / language / part, into / part)


@pytest.mark.skipif(not all(map(shutil.which, ("bwrap", "perl", "ruby"))), reason="needs bwrap, perl, ruby")
def test_bots_with_folders_of_their_own_play_sandboxed_and_one_in_the_lists_folder_is_not_shown_it(
    tmp_path: Path,
) -> None:
    tmp_path.chmod(0o755)
    lists = tmp_path / "ladder"
    copy_bot("perl", lists / "bots" / "perl")
    copy_bot("ruby", lists / "bots" / "ruby")
    relative = lists / "bots" / "ruby" / "bin" / "bot"
    relative.write_text(relative.read_text().replace("require 'hearts'", "require_relative '../lib/hearts'"))
    copy_bot("ruby", lists)  # the list's own folder: the other bots' folders lie in it
    (lists / "bin" / "bot").write_text(relative.read_text())
    (lists / "bots.toml").write_text(
        '[[bot]]\nname = "perl"\nfolder = "bots/perl"\ncommand = "perl -Ilib bin/bot.pl"\n\n'
        '[[bot]]\nname = "ruby"\nfolder = "bots/ruby"\ncommand = "ruby bin/bot"\n\n'
        '[[bot]]\nname = "shared"\ncommand = "ruby bin/bot"\n\n'
        f'[[bot]]\nname = "python"\ncommand = "{PY} {FIRST}"\n'
    )
    for folder in [lists, *lists.rglob("*")]:
        folder.chmod(0o755 if folder.is_dir() else 0o644)
    db = tmp_path / "ladder.db"
    result = CliRunner().invoke(
        main, ["ladder", "run", str(lists / "bots.toml"), "--games", "1", "--db", str(db), "--quiet", "--sandbox", "on"]
    )
    assert result.exit_code == 0, result.output
    assert check_consistent(db) == {"done": 4, "total": 4}
    with contextlib.closing(sqlite3.connect(db)) as con:
        rows = con.execute("SELECT bot, SUM(status = 'crash') FROM results GROUP BY bot").fetchall()
    faults = dict(rows)
    assert faults["perl"] == faults["ruby"] == faults["python"] == 0, faults
    # lib/ of the list's folder is not its to see: its start-up check, in the sandbox its
    # matches would have, finds it out, and the folder is named with what crowds it
    assert "shared" not in faults, faults
    told = " ".join(result.output.split())
    assert "bot shared refused: it failed its start-up check" in told, told
    assert f"the folder {lists} is used by shared but holds {lists / 'bots' / 'perl'}" in told, told
    assert "give each bot a folder of its own" in told, told
