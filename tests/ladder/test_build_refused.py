"""A hostile build's output is that bot's problem, never the referee's (issue 31): a build that
nests folders past ``PATH_MAX`` and names files with any bytes is copied and sealed, and its bot
plays from what it built; a bot whose folder cannot be copied is refused by name and the
ladder plays the others. Real builds in real sandboxes, real ladders."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from referee.ladder.standings import standings
from referee.store.writer import LadderStore
from tests.ladder.helpers import PY, ROOT, check_consistent
from tests.ladder.test_run import ladder

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")

DEEP_BUILD = """#!/bin/sh
# What a hostile build leaves: 200 folders of 40 characters (twice PATH_MAX; one `cd -P` at a
# time, as `mkdir -p` of the whole path would fail), names that are not UTF-8 or hold a newline.
set -e
cp source.py bot.py
printf 'x' > "$(printf 'caf\\351-\\377')"
printf 'x' > "$(printf 'two\\nlines')"
name=dddddddddddddddddddddddddddddddddddddddd
i=0
while [ "$i" -lt 200 ]; do
  mkdir "$name"
  cd -P "$name"
  i=$((i + 1))
done
echo deep > leaf.txt
"""


def bot_folders(tmp_path: Path, build: dict[str, str]) -> Path:
    """Three bots, each in a folder of its own readable by the sandboxed bots, ``a``, ``b`` and
    ``c``; ``build`` maps some to a build script (its ``build.sh``). A bot with a build has
    only ``source.py``: it plays only if it runs from what its build made (``bot.py``)."""
    tmp_path.chmod(0o755)
    text = ""
    for name in ("a", "b", "c"):
        folder = tmp_path / name
        folder.mkdir(mode=0o755)
        first = (ROOT / "tests" / "bots" / "first_legal_bot.py").read_text()
        (folder / ("source.py" if name in build else "bot.py")).write_text(first)
        text += f'[[bot]]\nname = "{name}"\ncommand = "{PY} bot.py"\nfolder = "{name}"\n'
        if name in build:
            (folder / "build.sh").write_text(build[name])
            text += 'build = "sh build.sh"\n'
        text += "\n"
    (tmp_path / "bots.toml").write_text(text)
    return tmp_path / "bots.toml"


def run(bots: Path, db: Path) -> tuple[int, str]:
    result = ladder(
        "run", str(bots), "--db", str(db), "--sandbox", "on", "--games", "1", "--set", "end=rounds", "--set", "rounds=1"
    )
    return result.exit_code, result.output


def played(db: Path) -> dict[str, int]:
    store = LadderStore(db)
    try:
        return {row.bot: row.matches for row in standings(store)}
    finally:
        store.close()


@pytest.mark.process
@needs_bwrap
def test_a_build_deeper_than_path_max_plays_from_what_it_built(tmp_path: Path) -> None:
    bots = bot_folders(tmp_path, {"c": DEEP_BUILD})
    code, output = run(bots, tmp_path / "l.db")
    assert code == 0, output
    assert "refused" not in output and "internal error" not in output
    assert check_consistent(tmp_path / "l.db")["done"] > 0
    assert played(tmp_path / "l.db")["c"] > 0  # it started from its copy: its folder has no bot.py
    assert not (tmp_path / "c" / "bot.py").exists()


@pytest.mark.process
@needs_bwrap
def test_a_bot_whose_folder_cannot_be_copied_is_refused_by_name_and_the_others_play(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("referee.players.build_folder.MAX_FILES", 3)
    bots = bot_folders(tmp_path, {"c": DEEP_BUILD})
    for index in range(3):
        (tmp_path / "c" / f"asset{index}").write_text("x")
    code, output = run(bots, tmp_path / "l.db")
    assert code == 0, output
    assert "bot c refused: cannot copy its folder" in output and "holds more than 3 files" in output
    assert "the ladder goes on without it" in output
    assert set(played(tmp_path / "l.db")) == {"a", "b"}


@needs_bwrap
@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a folder of mode 000: nothing here is unreadable to it")
def test_a_bot_whose_folder_cannot_be_read_is_refused_by_name(tmp_path: Path) -> None:
    bots = bot_folders(tmp_path, {"c": DEEP_BUILD})
    (tmp_path / "c" / "closed").mkdir(mode=0o000)
    try:
        code, output = run(bots, tmp_path / "l.db")
    finally:
        (tmp_path / "c" / "closed").chmod(0o700)
    assert code == 0, output
    assert "bot c refused: cannot copy its folder" in output and "'closed': Permission denied" in output
    assert set(played(tmp_path / "l.db")) == {"a", "b"}


@pytest.mark.process
@needs_bwrap
def test_too_few_bots_left_is_a_named_error_not_a_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("referee.players.build_folder.MAX_FILES", 3)
    bots = bot_folders(tmp_path, {"b": DEEP_BUILD, "c": DEEP_BUILD})
    for name in ("b", "c"):
        for index in range(3):
            (tmp_path / name / f"asset{index}").write_text("x")
    code, output = run(bots, tmp_path / "l.db")
    assert code == 1, output
    assert "bot b refused" in output and "bot c refused" in output
    assert "a ladder needs at least two bots, 1 left" in output
    assert "internal error" not in output and "Traceback" not in output
