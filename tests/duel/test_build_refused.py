"""A duel is about its two bots: one whose folder cannot be copied for its build (issue 31)
ends it with exit status 2 naming that bot and why, never a traceback."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli import main
from tests.duel.helpers import SHORT
from tests.ladder.test_build_refused import DEEP_BUILD, bot_folders

pytestmark = pytest.mark.process


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
def test_a_duel_whose_bot_cannot_be_copied_names_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("referee.players.build_folder.MAX_FILES", 3)
    bots = bot_folders(tmp_path, {"c": DEEP_BUILD})
    for index in range(3):
        (tmp_path / "c" / f"asset{index}").write_text("x")
    args = ["duel", "c", "a", "--bots", str(bots), "--opponents", "b", "--db", str(tmp_path / "d.db")]
    result = CliRunner().invoke(main, [*args, *SHORT, "--sandbox", "on", "-k", "2", "--sprt", "0,2"])
    assert result.exit_code == 2, result.output
    assert "bot c refused: cannot copy its folder" in result.output and "holds more than 3 files" in result.output
    assert "Traceback" not in result.output and "internal error" not in result.output
