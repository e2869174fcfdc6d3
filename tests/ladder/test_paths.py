"""Where a bot list's commands and builds run: from the config file's folder (or ``--cwd``),
whatever the current folder; a build is a shell line (``sh -c``); a missing program or script
is named exactly, with the folder it was looked up from, before anything is built or played
(``referee/players/bot_config.py``, ``referee/ladder/play.py``)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from referee.cli import main
from referee.players.bot_config import BotEntry, config_folder, missing_program, read_bots, runnable
from referee.players.building import build
from tests.ladder.helpers import PY, ROOT, check_consistent

FIRST = (ROOT / "tests" / "bots" / "first_legal_bot.py").read_text()


def ladder(*args: str) -> Result:
    return CliRunner().invoke(main, ["ladder", *args])


def bot_folder(tmp_path: Path, bots: str) -> Path:
    """``tmp_path/cfg/bots.toml`` with ``sub/bot.py.in`` (a first-legal bot) beside it, and
    the current folder elsewhere."""
    folder = tmp_path / "cfg"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "bot.py.in").write_text(f"#!{PY}\n{FIRST}")
    (folder / "bots.toml").write_text(bots)
    return folder / "bots.toml"


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run from a folder that is not the config's."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


@pytest.mark.process
def test_a_shell_build_and_relative_paths_run_from_the_config_folder(tmp_path: Path, elsewhere: Path) -> None:
    config = bot_folder(
        tmp_path,
        '[[bot]]\nname = "built"\ncommand = "./sub/bot.py"\n'
        'build = "cd sub && cp bot.py.in bot.py && chmod +x bot.py"\n\n'
        f'[[bot]]\nname = "script"\ncommand = "{PY} sub/bot.py.in"\n',
    )
    db = tmp_path / "l.db"
    result = ladder("run", str(config), "--games", "1", "--db", str(db), "--quiet", "--sandbox", "off")
    assert result.exit_code == 0, result.output
    assert (config.parent / "sub" / "bot.py").is_file()  # built in cfg/sub, not in the current folder
    assert not (elsewhere / "sub").exists()
    assert check_consistent(db) == {"done": 4, "total": 4}


@pytest.mark.process
def test_cwd_still_chooses_the_folder(tmp_path: Path, elsewhere: Path) -> None:
    config = tmp_path / "bots.toml"
    config.write_text(
        f'[[bot]]\nname = "a"\ncommand = "{PY} tests/bots/first_legal_bot.py"\n\n'
        f'[[bot]]\nname = "b"\ncommand = "{PY} sample_bots/python/random_bot.py"\n'
    )
    db = tmp_path / "l.db"
    result = ladder("run", str(config), "--games", "1", "--db", str(db), "--quiet", "--sandbox", "off")
    assert result.exit_code == 1
    assert f"there is no {tmp_path}/tests/bots/first_legal_bot.py, looked up from {tmp_path}" in result.output
    assert "run from the config file's folder, or from its cwd or --cwd DIR when given" in result.output
    result = ladder(
        "run", str(config), "--games", "1", "--db", str(db), "--quiet", "--sandbox", "off", "--cwd", str(ROOT)
    )
    assert result.exit_code == 0, result.output
    assert check_consistent(db) == {"done": 4, "total": 4}


def test_a_missing_program_on_path_is_named_before_any_build(tmp_path: Path, elsewhere: Path) -> None:
    config = bot_folder(
        tmp_path,
        '[[bot]]\nname = "built"\ncommand = "./sub/bot.py"\nbuild = "touch built-marker"\n\n'
        '[[bot]]\nname = "ghost"\ncommand = "no-such-program-x7 --fast bot.x"\n',
    )
    db = tmp_path / "l.db"
    result = ladder("run", str(config), "--games", "1", "--db", str(db), "--quiet", "--sandbox", "off")
    assert result.exit_code == 1
    assert (
        "bot ghost: its command 'no-such-program-x7 --fast bot.x' needs the program 'no-such-program-x7', "
        "which is not installed here (not found on PATH)"
    ) in result.output
    assert not (config.parent / "built-marker").exists()
    assert not db.exists()


@pytest.mark.process
def test_a_missing_program_leaves_its_bot_out_and_the_others_play(tmp_path: Path, elsewhere: Path) -> None:
    """Issue 42: one entrant's missing program at a start is that bot's problem: named, left out
    with the warning a live edit gives, and the others play (exit 1 only below two bots)."""
    config = bot_folder(
        tmp_path,
        '[[bot]]\nname = "ghost"\ncommand = "no-such-program-x7 --fast bot.x"\n\n'
        f'[[bot]]\nname = "a"\ncommand = "{PY} sub/bot.py.in"\n\n[[bot]]\nname = "b"\ncommand = "{PY} sub/bot.py.in"\n',
    )
    db = tmp_path / "l.db"
    result = ladder("run", str(config), "--games", "1", "--db", str(db), "--quiet", "--sandbox", "off")
    assert result.exit_code == 0, result.output
    assert "bot ghost: its command 'no-such-program-x7 --fast bot.x' needs the program" in result.output
    assert "the ladder goes on without it" in result.output
    assert check_consistent(db)["done"] > 0
    with sqlite3.connect(db) as con:
        assert {name for (name,) in con.execute("SELECT DISTINCT bot FROM results")} == {"a", "b"}


@pytest.mark.process
def test_a_file_the_build_makes_is_looked_for_after_the_build(tmp_path: Path, elsewhere: Path) -> None:
    """``java -jar bot.jar`` with a build that makes ``bot.jar``: its program is checked before
    the builds, the file it names after (it was refused before its build could make it)."""
    config = bot_folder(
        tmp_path,
        '[[bot]]\nname = "made"\ncommand = "python3 made.py"\nbuild = "cp sub/bot.py.in made.py"\n\n'
        f'[[bot]]\nname = "b"\ncommand = "{PY} sub/bot.py.in"\n',
    )
    db = tmp_path / "l.db"
    result = ladder("run", str(config), "--games", "1", "--db", str(db), "--quiet", "--sandbox", "off")
    assert result.exit_code == 0, result.output
    assert check_consistent(db) == {"done": 4, "total": 4}


def test_a_missing_program_given_as_a_path_is_named_with_its_folder(tmp_path: Path, elsewhere: Path) -> None:
    config = bot_folder(
        tmp_path,
        f'[[bot]]\nname = "a"\ncommand = "./bin/bot --x"\n\n[[bot]]\nname = "b"\ncommand = "{PY} sub/bot.py.in"\n',
    )
    folder = config.parent
    result = ladder("run", str(config), "--games", "1", "--db", str(tmp_path / "l.db"), "--quiet", "--sandbox", "off")
    assert result.exit_code == 1
    assert (
        f"bot a: its command './bin/bot --x' needs the program './bin/bot': there is no {folder}/bin/bot"
        in result.output
    )
    assert f"looked up from {folder} (commands and builds run from the config file's folder" in result.output
    # not executable
    (folder / "bin").mkdir()
    (folder / "bin" / "bot").write_text("#!/bin/sh\n")
    result = ladder("run", str(config), "--games", "1", "--db", str(tmp_path / "l.db"), "--quiet", "--sandbox", "off")
    assert f"{folder}/bin/bot is not an executable file" in result.output


def test_a_missing_script_is_named(tmp_path: Path) -> None:
    folder = tmp_path
    assert missing_program(f"{PY} -u sub/bot.py --seed 3", folder) == (
        f"names the file 'sub/bot.py', but there is no {folder}/sub/bot.py, looked up from {folder} "
        "(commands and builds run from the config file's folder, or from its cwd or --cwd DIR when given)"
    )
    assert missing_program(f"{PY} /nonexistent/bot.py", folder) == (
        "names the file '/nonexistent/bot.py', but there is no /nonexistent/bot.py"
    )
    assert missing_program(f"{PY} --log=x.py", folder) is None  # an option, not a file to find
    assert missing_program("sh -c 'exec python3 bot.py'", folder) is None  # a shell line, not a file
    assert (
        missing_program("/nonexistent/bot", folder)
        == "needs the program '/nonexistent/bot': there is no /nonexistent/bot"
    )


@pytest.mark.process
def test_a_failed_build_says_what_ran_where_and_how_it_ended(tmp_path: Path) -> None:
    entry = BotEntry(name="a", command="./a", build="echo compiling; cd nosuchdir && make")
    with pytest.raises(Exception, match="building a failed") as caught:
        build(entry, tmp_path)
    text = str(caught.value)
    assert f"sh -c 'echo compiling; cd nosuchdir && make' in {tmp_path} exited with code 2" in text
    assert "  | compiling" in text and "nosuchdir" in text.splitlines()[-1]


def test_runnable_knows_shell_builtins() -> None:
    assert runnable(BotEntry(name="a", command="./a", build="cd sub && cp a.in a"))
    assert runnable(BotEntry(name="a", command="./a", build="CC=cc cp a.in a"))
    assert not runnable(BotEntry(name="a", command="./a", build="no-such-tool-x7 -C sub"))
    assert not runnable(BotEntry(name="a", command="no-such-tool-x7 a.js"))


@pytest.mark.process
def test_a_config_may_name_its_folder_relative_to_itself(tmp_path: Path, elsewhere: Path) -> None:
    project = tmp_path / "project"
    (project / "ladders").mkdir(parents=True)
    (project / "bot.py").write_text(FIRST)
    config = project / "ladders" / "bots.toml"
    config.write_text(
        f'cwd = ".."\n\n[[bot]]\nname = "a"\ncommand = "{PY} bot.py"\n\n[[bot]]\nname = "b"\ncommand = "{PY} bot.py"\n'
    )
    assert config_folder(config) == project
    db = tmp_path / "l.db"
    result = ladder("run", str(config), "--games", "1", "--db", str(db), "--quiet", "--sandbox", "off")
    assert result.exit_code == 0, result.output
    config.write_text('cwd = "../nowhere"\n' + config.read_text().split("\n", 1)[1])
    result = ladder("run", str(config), "--games", "1", "--db", str(db), "--quiet", "--sandbox", "off")
    assert result.exit_code == 1
    assert f"cwd = '../nowhere': there is no folder {project}/nowhere (taken from {project}/ladders)" in result.output


@pytest.mark.process
def test_the_sample_bot_list_runs_from_any_folder(elsewhere: Path) -> None:
    config = ROOT / "sample_bots" / "bots.toml"
    folder = config_folder(config)
    assert folder == ROOT  # its cwd: the repository root
    for entry in read_bots(config):
        if not runnable(entry):
            continue  # node or make missing here
        built = build(entry, folder)
        assert missing_program(entry.command, built.folder) is None, entry
