"""A sandboxed bot that fails for a path its sandbox hides is told which path, and the exact
option that shows it (issue 23): in ``referee match``, ``referee check`` and the ladder's fault
details. A bot refused a path in a folder closed to other users (its sandbox runs it as a user
of its own) is told that instead, with the folder and how to open it. Real bots, real
sandboxes; the stderr patterns of the common runtimes on their own."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from referee.sandbox.misses import bind_hint, hidden_path
from referee.store.writer import LadderStore
from tests.check.helpers import check, sandbox, step
from tests.ladder.test_run import ladder

PY = sys.executable
ROOT = Path(__file__).resolve().parents[2]
FIRST = ROOT / "tests" / "bots" / "first_legal_bot.py"
GOOD = f"{PY} {FIRST}"
needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")


@pytest.fixture
def weights(tmp_path: Path) -> Path:
    """A data file in a folder the bot's command does not name."""
    tmp_path.chmod(0o755)
    data = tmp_path / "shared-data"
    data.mkdir(mode=0o755)
    made = data / "weights.txt"
    made.write_text("42\n")
    made.chmod(0o644)
    return made


@pytest.fixture
def needy(tmp_path: Path, weights: Path) -> Path:
    """A bot that opens that file by its absolute path before it says hello."""
    folder = tmp_path / "needy"
    folder.mkdir(mode=0o755)
    bot = folder / "bot.py"
    bot.write_text(f"open({str(weights)!r}).read()\n" + FIRST.read_text())
    return bot


@pytest.mark.parametrize(
    "line",
    [
        "python3: can't open file '{p}': [Errno 2] No such file or directory",
        "FileNotFoundError: [Errno 2] No such file or directory: '{p}'",
        "Error: Cannot find module '{p}'",
        "panic: open {p}: no such file or directory",
        "sh: 1: {p}: not found",
        "bwrap: execvp {p}: No such file or directory",
        "java.nio.file.NoSuchFileException: {p}",
        "Exception in thread main java.io.FileNotFoundException: {p} (No such file or directory)",
    ],
)
def test_the_runtimes_messages_name_the_path(line: str, weights: Path) -> None:
    stderr = "starting\n" + line.format(p=weights) + "\n"
    assert hidden_path(stderr) == str(weights)
    assert f"--sandbox-bind {weights}" in (bind_hint(stderr) or "")


@pytest.fixture
def closed(tmp_path: Path) -> Path:
    """A bot's file in a folder that other users may not enter (as ``mktemp -d`` makes one)."""
    folder = tmp_path / "closed"
    folder.mkdir()
    folder.chmod(0o700)
    bot = folder / "bot.py"
    bot.write_text(FIRST.read_text())
    bot.chmod(0o644)
    return bot


@pytest.mark.parametrize(
    "line",
    [
        "{py}: can't open file '{p}': [Errno 13] Permission denied",
        "PermissionError: [Errno 13] Permission denied: '{p}'",
        "Error: EACCES: permission denied, open '{p}'",
        "sh: 0: cannot open {p}: Permission denied",
        "Exception in thread main java.io.FileNotFoundException: {p} (Permission denied)",
    ],
)
def test_a_path_closed_to_other_users_is_named_with_the_folder_that_closes_it(line: str, closed: Path) -> None:
    hint = bind_hint("starting\n" + line.format(py=PY, p=closed) + "\n") or ""
    assert hint.startswith(f"the bot may not read {closed}: its sandbox runs it as a user of its own"), hint
    assert f"{closed.parent} is closed to other users (mode 700)" in hint
    assert f"chmod o+x {closed.parent}" in hint and "--sandbox-bind" not in hint


def test_a_file_other_users_may_not_read_is_named_itself(closed: Path) -> None:
    closed.parent.chmod(0o755)
    closed.chmod(0o600)
    hint = bind_hint(f"PermissionError: [Errno 13] Permission denied: '{closed}'") or ""
    assert f"{closed} is closed to other users (mode 600)" in hint and f"chmod o+r {closed}" in hint


def test_no_hint_for_a_path_that_is_not_here_or_that_every_sandbox_shows(tmp_path: Path) -> None:
    assert hidden_path(f"can't open file '{tmp_path}/nothing.py': [Errno 2] No such file or directory") is None
    assert hidden_path("open /usr/lib/x: no such file or directory") is None
    assert hidden_path(f"reading {FIRST}: all fine") is None  # no failure on the line


@pytest.mark.process
@needs_bwrap
def test_match_names_the_hidden_path_and_the_option_then_plays_with_it(needy: Path, weights: Path) -> None:
    def match(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [PY, "-m", "referee.cli", "match", "--sandbox", "on", "--set", "end=rounds", "--set", "rounds=1",
             *extra, f"{PY} {needy}", GOOD, GOOD, GOOD],
            cwd=needy.parent, capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip

    failed = match()
    assert failed.returncode == 0, failed.stderr
    said = failed.stdout + failed.stderr
    assert f"the bot looked for {weights}, which is on this machine but not in its sandbox" in said
    assert f"--sandbox-bind {weights}" in said
    fixed = match("--sandbox-bind", str(weights), "--json")
    assert [s["status"] for s in json.loads(fixed.stdout)["seats"]] == ["ok"] * 4, fixed.stderr


@pytest.mark.process
@needs_bwrap
def test_check_names_the_hidden_path(needy: Path, weights: Path) -> None:
    report = check(f"{PY} {needy}", sandbox=sandbox())
    first = step(report, "handshake.hello")
    assert first.verdict == "fail"
    assert f"--sandbox-bind {weights}" in (first.hint or ""), first


@pytest.mark.process
@needs_bwrap
def test_check_of_a_bot_in_a_closed_folder_names_the_folder(closed: Path) -> None:
    """What a clean clone in ``mktemp -d`` showed: the bot's own file, shown to it, refused."""
    report = check(f"{PY} {closed}", sandbox=sandbox())
    first = step(report, "handshake.hello")
    assert first.verdict == "fail"
    assert f"the bot may not read {closed}" in (first.hint or ""), first
    assert f"chmod o+x {closed.parent}" in (first.hint or ""), first


@pytest.mark.process
@needs_bwrap
def test_the_ladder_s_roll_call_names_the_hidden_path(needy: Path, weights: Path, tmp_path: Path) -> None:
    """The bot is left out before the first match, with the option that shows it the path."""
    config = tmp_path / "bots.toml"
    config.write_text(
        f'[[bot]]\nname = "needy"\ncommand = "{PY} {needy}"\n\n[[bot]]\nname = "good"\ncommand = "{GOOD}"\n\n'
        f'[[bot]]\nname = "good2"\ncommand = "{GOOD}"\n'
    )
    db = tmp_path / "l.db"
    ran = ladder("run", str(config), "--games", "1", "--db", str(db), "--sandbox", "on", "--quiet")
    assert ran.exit_code == 0, ran.output
    assert "bot needy refused: it failed its start-up check" in ran.output
    assert f"--sandbox-bind {weights}" in ran.output, ran.output
    store = LadderStore(db)
    try:
        assert store.progress()[0] == store.progress()[1]  # the ladder went on without it
    finally:
        store.close()
