"""A ladder's roll call (issue 32.2): before the first match each bot is started once, as its
matches will start it, and must say hello; one that cannot is left out by name with what it
printed (and the path its sandbox hid), as a bot whose build was refused is, and the others
play. Real bots, real ladders."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.ladder.helpers import PY, ROOT
from tests.ladder.test_build_refused import played
from tests.ladder.test_run import ladder

pytestmark = pytest.mark.process

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
BROKEN = "import sys; print('loading the weights', file=sys.stderr); raise SystemExit('no weights: giving up')"
"""A bot that says on stderr why it cannot start, and exits with status 1 before its hello."""


def bots(tmp_path: Path, broken: dict[str, str]) -> Path:
    """``a``, ``b`` and ``c``, each in a folder of its own (readable by the sandboxed bots):
    the first-legal bot, or the Python code ``broken`` gives it."""
    tmp_path.chmod(0o755)
    text = ""
    for name in ("a", "b", "c"):
        folder = tmp_path / name
        folder.mkdir(mode=0o755)
        code = broken.get(name) or (ROOT / "tests" / "bots" / "first_legal_bot.py").read_text()
        (folder / "bot.py").write_text(code)
        text += f'[[bot]]\nname = "{name}"\ncommand = "{PY} bot.py"\nfolder = "{name}"\n\n'
    (tmp_path / "bots.toml").write_text(text)
    return tmp_path / "bots.toml"


def run(config: Path, db: Path, sandbox: str = "off") -> tuple[int, str]:
    result = ladder(
        "run", str(config), "--db", str(db), "--sandbox", sandbox, "--games", "1", "--set", "end=rounds",
        "--set", "rounds=1",
    )  # fmt: skip
    return result.exit_code, result.output


def test_a_bot_that_cannot_say_hello_is_left_out_by_name_and_the_others_play(tmp_path: Path) -> None:
    code, output = run(bots(tmp_path, {"c": BROKEN}), tmp_path / "l.db")
    assert code == 0, output
    assert "bot c refused: it failed its start-up check (crash); the ladder goes on without it" in output
    assert "its program exited with code 1" in output
    assert f"  started: {PY} bot.py (in {tmp_path / 'c'})" in output  # what was started, and where
    assert "| loading the weights" in output and "| no weights: giving up" in output
    assert set(played(tmp_path / "l.db")) == {"a", "b"}


def test_too_few_bots_that_can_start_is_a_named_error(tmp_path: Path) -> None:
    code, output = run(bots(tmp_path, {"b": BROKEN, "c": BROKEN}), tmp_path / "l.db")
    assert code == 1, output
    assert "bot b refused" in output and "bot c refused" in output
    assert "a ladder needs at least two bots, 1 left" in output
    assert "Traceback" not in output.split("|")[0]


@needs_bwrap
def test_the_path_its_sandbox_hid_is_named(tmp_path: Path) -> None:
    weights = tmp_path / "weights"
    weights.mkdir(mode=0o755)
    (weights / "model.bin").write_text("x")
    reads = f"open({str(weights / 'model.bin')!r}).read()"
    code, output = run(bots(tmp_path, {"c": reads}), tmp_path / "l.db", sandbox="on")
    assert code == 0, output
    assert "bot c refused: it failed its start-up check (crash)" in output
    assert f"--sandbox-bind {weights / 'model.bin'}" in output
    assert set(played(tmp_path / "l.db")) == {"a", "b"}
