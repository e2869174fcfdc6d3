"""docs/testing-bots.md's CI recipe, run as the page writes it, on a bot spread over folders
(``tests/duel/spread_bot.py``: ``bin/`` loading ``src/`` and ``vendor/``, a config file read
by a relative path), sandboxed: two commits in ``new/``, the parent checked out in ``old/`` by
the workflow's own step, the duel by its own shell lines, to a verdict. Only the bounds, the
rules and the opponent are shortened (a ``referee`` first on PATH adds ``--sprt 0,20``, one
round a match and the quick C bot), so that it ends in seconds. Then the layout of the issue
that found this (issue 43): both versions started from the new one's folder, which is then
neither's own, named with the fix; the database kept out of every bot's folder."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from referee.cli import main
from tests.duel.helpers import SHORT, quick_first
from tests.duel.spread_bot import copied, spread_bot
from tests.ladder.helpers import ROOT

DOC = ROOT / "docs" / "testing-bots.md"
PYTHON_COMMAND = "python3 bin/hearts-bot"
"""The spread bot run as a PHP bot of the issue was (``php bin/hearts-bot``): its program an
interpreter, its script an argument, so that only its folder shown whole lets it start."""
QUICK = ["--sprt", "0,20", *SHORT]
"""Ends a duel of a bot against itself at the test's first look (30 sets of one round)."""


def workflow() -> dict[str, Any]:
    """The GitHub Actions workflow of the page's CI section."""
    text = DOC.read_text()
    section = text[text.index("### In a bot's CI") :]
    block = re.search(r"```yaml\n(.*?)```", section, re.DOTALL)
    assert block is not None, "no workflow in docs/testing-bots.md's CI section"
    found: dict[str, Any] = yaml.safe_load(block.group(1))
    return found


def test_the_workflow_is_one_a_user_can_paste() -> None:
    flow = workflow()
    (job,) = flow["jobs"].values()
    steps = job["steps"]
    checkouts = [s for s in steps if str(s.get("uses", "")).startswith("actions/checkout@")]
    assert checkouts[0]["with"] == {"path": "new", "fetch-depth": 2}  # this commit and its parent
    runs = "\n".join(s["run"] for s in steps if "run" in s)
    assert "bubblewrap" in runs and "apparmor_restrict_unprivileged_userns=0" in runs
    assert '"dir=new $BOT" "dir=old $BOT"' in runs
    # a bot that does not commit its dependencies installs them in both checkouts (issue 43's PHP bot)
    assert "# for v in new old; do (cd $v && composer install" in runs
    uploaded = next(s for s in steps if str(s.get("uses", "")).startswith("actions/upload-artifact@"))
    assert "duel.db" in uploaded["with"]["path"]


@pytest.mark.process
def test_the_docs_ci_recipe_gives_a_verdict_on_a_bot_spread_over_folders(tmp_path: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed")
    tmp_path.chmod(0o755)
    flow = workflow()
    (job,) = flow["jobs"].values()
    assert job["env"]["BOT"].split("#")[0].strip() == PYTHON_COMMAND  # the bot below is the page's
    workspace = tmp_path / "workspace"
    new = spread_bot(workspace / "new")
    git = ["git", "-C", str(new), "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "the parent"], check=True)
    (new / "config.json").write_text('{"name": "spread-2"}\n')
    subprocess.run([*git, "commit", "-q", "-am", "this commit"], check=True)
    shortened = tmp_path / "bin"
    shortened.mkdir()
    referee = shortened / "referee"
    extra = " ".join(shlex.quote(a) for a in [*QUICK, "--opponents", quick_first()])
    referee.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m referee.cli "$@" {extra}\n')
    referee.chmod(0o755)
    env = {
        **os.environ,
        **{k: str(v) for k, v in job["env"].items()},
        "PATH": f"{shortened}:{Path(sys.executable).parent}:{os.environ['PATH']}",
        "XDG_STATE_HOME": str(tmp_path / "state"),
    }
    steps = [s for s in job["steps"] if "run" in s and "pip install" not in s["run"]]
    assert [s["name"] for s in steps] == [
        "The previous commit, in a folder of its own",
        "Is this commit better than the previous one?",
    ]
    outputs = []
    for step in steps:
        done = subprocess.run(
            ["bash", "-e", "-c", step["run"]],
            cwd=workspace,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        outputs.append(done.stdout + done.stderr)
    assert (workspace / "old" / "bin" / "hearts-bot").is_file(), outputs[0]
    assert json.loads((workspace / "old" / "config.json").read_text())["name"] == "spread"  # the parent
    assert done.returncode in (0, 1), outputs[-1]  # a verdict: H1 or H0, neither broken nor undecided
    found = json.loads((workspace / "duel.json").read_text())
    assert found["verdict"] == "H0" and done.returncode == 1  # the same moves: never better
    assert {bot: (f["dropped"], f["unstarted"]) for bot, f in found["faults"].items()} == {
        "new": (0, False),
        "old": (0, False),
        "opponent": (0, False),
    }
    assert "NOT isolated" not in outputs[-1] and "shown whole to none" not in outputs[-1]
    assert (workspace / "duel.db").is_file() and (workspace / "duel-logs").is_dir()  # beside the bots, in neither
    assert not list(new.glob("duel*")) and not list((workspace / "old").glob("duel*"))


@pytest.mark.process
def test_a_folder_both_bots_start_in_is_named_with_the_fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tmp_path.chmod(0o755)
    new = spread_bot(tmp_path / "new")
    copied(new, tmp_path / "previous")
    monkeypatch.chdir(new)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    opponent = ["--opponents", quick_first()]
    # the command: OLD starts in NEW's folder, so that folder is neither's own
    broken = CliRunner().invoke(main, ["duel", PYTHON_COMMAND, "python3 ../previous/bin/hearts-bot", *opponent, *QUICK])
    assert broken.exit_code == 2, broken.output
    assert f"the folder {new} is used by new, old but holds other bots' files" in broken.output
    assert "dir=FOLDER as its first word" in broken.output
    states = tmp_path / "state" / "hearts-referee"
    assert f"duel database: {states}/duel-" in broken.output  # not in the bot's folder
    assert not list(new.glob("duel*")) and len(list(states.glob("duel-*.db"))) == 1
    # the fix the line names: a folder of its own for OLD, however its command names its file
    spellings = ["bin/hearts-bot", f"{tmp_path}/previous/bin/hearts-bot"]
    for old in (f"dir=../previous python3 {script}" for script in spellings):
        fixed = CliRunner().invoke(main, ["duel", PYTHON_COMMAND, old, *opponent, "--max-sets", "1", *SHORT, "--json"])
        assert fixed.exit_code == 3, fixed.output  # one set, no test: no decision, and no broken bot
        assert "shown whole to none" not in fixed.output
        found = json.loads(fixed.stdout)
        assert [f["dropped"] for f in found["faults"].values()] == [0, 0, 0]
        assert Path(found["db"]).parent == states and not list(new.glob("duel*"))
    assert len(list(states.glob("duel-*.db"))) == 2  # the broken duel's and the fixed one's (both spellings: one)


def bot_list(folder: Path, *, own_folders: bool) -> Path:
    """``duel.toml`` in ``folder``: ``new`` and ``old`` (the spread bot in ``new/`` and ``old/``),
    each with a ``folder =`` of its own or both started from the list's folder, and ``first``."""
    text = f"[[bot]]\nname = 'first'\ncommand = {json.dumps(quick_first())}\n"
    for version in ("new", "old"):
        where = (
            f"folder = '{version}'\ncommand = '{PYTHON_COMMAND}'"
            if own_folders
            else f"command = 'python3 {version}/bin/hearts-bot'"
        )
        text += f"[[bot]]\nname = '{version}'\n{where}\n"
    (folder / "duel.toml").write_text(text)
    return folder / "duel.toml"


@pytest.mark.process
def test_a_bot_list_without_folders_is_told_to_give_each_bot_one(tmp_path: Path) -> None:
    """The docs' bot-list form without ``folder =``: both versions start in the list's folder.
    The line names the list's fix (``folder =``; a list has no ``dir=``) and the files of the
    other bot, not the folder itself; with a folder each, the same bots play."""
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed")
    tmp_path.chmod(0o755)
    ci = tmp_path / "ci"  # the versions and the list; the databases beside it
    copied(spread_bot(ci / "new"), ci / "old")
    args = ["duel", "new", "old", "--opponents", "first", "--sandbox", "on", *SHORT]
    bots = bot_list(ci, own_folders=False)
    broken = CliRunner().invoke(main, [*args, "--bots", str(bots), "--db", str(tmp_path / "d.db"), *QUICK])
    assert broken.exit_code == 2, broken.output
    files = f"{ci}/old/bin/hearts-bot, {ci}/new/bin/hearts-bot"
    assert f"the folder {ci} is used by new, old but holds other bots' files ({files}): " in broken.output
    assert 'give each bot a folder of its own: folder = "FOLDER" in its entry of the bot list' in broken.output
    assert "dir=" not in broken.output
    bots = bot_list(ci, own_folders=True)
    fixed = CliRunner().invoke(
        main, [*args, "--bots", str(bots), "--db", str(tmp_path / "f.db"), "--max-sets", "1", "--json"]
    )
    assert fixed.exit_code == 3 and "shown whole to none" not in fixed.output, fixed.output
    assert [f["dropped"] for f in json.loads(fixed.stdout)["faults"].values()] == [0, 0, 0]


@pytest.mark.process
def test_a_db_inside_a_bots_folder_is_named_with_its_fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--db`` given inside a bot's folder is used as given, and the folder is named: the
    database and its logs are the referee's files there, and the fix adds ``--db`` elsewhere."""
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed")
    tmp_path.chmod(0o755)
    new = spread_bot(tmp_path / "new")
    copied(new, tmp_path / "previous")
    monkeypatch.chdir(new)
    old = f"dir=../previous {PYTHON_COMMAND}"
    args = ["duel", PYTHON_COMMAND, old, "--opponents", quick_first(), "--db", "duel.db", "--sandbox", "on", *QUICK]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    line = next(line for line in result.output.splitlines() if line.startswith(f"the folder {new} "))
    assert f"is used by new but holds the referee's files ({new}/duel.db, " in line
    assert "other bots' files" not in line  # OLD has a folder of its own
    assert line.endswith('"dir=../previous php bin/bot"; and --db outside every bot\'s folder; docs/testing-bots.md)')
    assert (new / "duel.db").is_file()  # used as given
