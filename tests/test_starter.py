"""``referee new LANGUAGE FOLDER`` (issue 23): for each of the six languages, the folder as
created builds with the command its README gives, passes ``referee check`` in the default
sandbox without any option, and plays a ladder (its build sandboxed, as a stranger, on a copy)
from the bot-list lines its README gives. Real toolchains; a language whose toolchain is not
installed here is skipped."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli import main
from referee.starter import SAMPLES, STARTERS, starter
from referee.store.writer import LadderStore

PY = sys.executable
ROOMY = ("--time-per-move", "30", "--time-bank", "60", "--startup", "60")
"""A clock no bot misses on a busy machine: these tests judge what the bots say, not how fast."""


def referee(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PY, "-m", "referee.cli", *args], cwd=cwd, capture_output=True, text=True, timeout=1800, check=False
    )


def usable(language: str) -> None:
    chosen = STARTERS[language]
    for program in chosen.needs:
        if shutil.which(program) is None:
            pytest.skip(f"{program} is not installed ({chosen.packages})")
    for source, _ in chosen.files:
        if not (SAMPLES / source).is_file():
            pytest.skip(f"the {language} kit is not here yet ({source})")


def readme_block(readme: str, kind: str) -> str:
    """The first fenced block of ``kind`` under each heading, joined: the README's commands."""
    return "\n".join(re.findall(rf"```{kind}\n(.*?)```", readme, re.DOTALL))


@pytest.mark.process
@pytest.mark.parametrize("language", list(STARTERS))
def test_a_new_bot_builds_passes_the_check_and_plays_a_ladder(language: str, tmp_path: Path) -> None:
    usable(language)
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed")
    tmp_path.chmod(0o755)
    folder = tmp_path / "my-bot"
    made = CliRunner().invoke(main, ["new", language, str(folder)])
    assert made.exit_code == 0, made.output
    chosen = STARTERS[language]
    readme = (folder / "README.md").read_text()
    commands = readme_block(readme, "sh")
    assert f'referee check "{chosen.command}"' in commands
    if chosen.build:
        assert chosen.build in commands
        built = subprocess.run(
            ["sh", "-c", chosen.build], cwd=folder, capture_output=True, text=True, timeout=1800, check=False
        )
        assert built.returncode == 0, built.stdout + built.stderr
    checked = referee("check", chosen.command, *ROOMY, cwd=folder)
    assert checked.returncode == 0, checked.stdout[-3000:] + checked.stderr[-3000:]
    assert "result: PASS" in checked.stdout and "bubblewrap" in checked.stdout, checked.stdout[-2000:]

    config = tmp_path / "ladder" / "bots.toml"
    config.parent.mkdir(mode=0o755)
    entry = readme_block(readme, "toml")
    assert tomllib.loads(entry)["bot"][0]["folder"] == str(folder.resolve())
    config.write_text(f'{entry}\n\n[[bot]]\nname = "random"\ncommand = "{PY} {SAMPLES}/python/random_bot.py"\n')
    for product in ("bot", "bot.jar", "classes", "target"):  # the ladder builds its own, sandboxed
        path = folder / product
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            os.unlink(path)
    db = tmp_path / "ladder" / "l.db"
    played = referee("ladder", "run", str(config), "--games", "1", "--db", str(db), "--quiet", *ROOMY, cwd=tmp_path)
    assert played.returncode == 0, played.stdout[-3000:] + played.stderr[-3000:]
    store = LadderStore(db)
    try:
        done, total = store.progress()
        assert done == total > 0
        assert store.drops() == [] and store.fault_details() == []
    finally:
        store.close()


def test_other_names_of_the_languages() -> None:
    assert starter("cpp") is STARTERS["c++"] and starter("JS") is STARTERS["javascript"]
    assert starter("golang") is STARTERS["go"]


def test_an_unknown_language_or_a_used_folder_is_refused_and_nothing_written(tmp_path: Path) -> None:
    unknown = CliRunner().invoke(main, ["new", "cobol", str(tmp_path / "x")])
    assert unknown.exit_code == 1 and "no starter for 'cobol': choose one of python, javascript" in unknown.output
    assert not (tmp_path / "x").exists()
    used = tmp_path / "used"
    used.mkdir()
    (used / "mine.txt").write_text("keep")
    refused = CliRunner().invoke(main, ["new", "python", str(used)])
    assert refused.exit_code == 1 and "exists and is not an empty folder" in refused.output
    assert sorted(p.name for p in used.iterdir()) == ["mine.txt"]
