"""`referee check --sandbox`: every step's bot runs in bubblewrap, or (with off, or without
bubblewrap under auto) not isolated, which the report says and `sandbox.works` skips; `on`
without bubblewrap is one line and exit 1; a bot on the JVM passes in the sandbox."""

from __future__ import annotations

import json
import os
import shutil
import socket
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

import referee.sandbox.bwrap
from referee.check.probe import Limits
from referee.check.start_causes import NEEDS_SANDBOX_PATH, WRONG_PYTHON
from referee.cli import main
from tests.check.helpers import GOOD, ROOT, author, by_verdict, check, needs_bwrap, sandbox, step

needs_java = pytest.mark.skipif(shutil.which("java") is None, reason="java is not installed")
JAVA = "java tests/bots/java/Bot.java"
JVM = Limits(per_decision=2.0, startup=20.0)
"""A JVM compiling a source file takes a second or two to say hello on a busy machine."""
QUICK_START = Limits(per_decision=1.0, bank=0.0, startup=1.0)
"""For a bot that never says hello in time: the check waits out the start-up limit twice."""
SANDBOX_STEPS = ("--only", "handshake.hello", "--only", "sandbox.works")
WHO_AM_I = (
    f'{sys.executable} -c "import json, os, socket, sys; '
    "[print(json.dumps({'type': 'hello', 'version': 1, 'name': f'{socket.gethostname()}:{os.getuid()}'}), "
    "flush=True) for line in sys.stdin if json.loads(line)['type'] == 'hello']\""
)
"""A bot that names itself after the host name and the uid it runs as."""
WRITES_ITS_FOLDER = (
    f'{sys.executable} -c "import runpy, sys; from pathlib import Path; '
    "exec('try: Path(\\'check-sandbox-probe.txt\\').write_text(\\'x\\')\\n"
    "except OSError as err: print(err, file=sys.stderr, flush=True)'); "
    "runpy.run_path(sys.argv[1], run_name='__main__')\" tests/bots/first_legal_bot.py"
)
"""The first-legal bot, after trying to write a file in its (read-only) folder (it names the
bot's file, so that the sandbox shows it)."""


@pytest.fixture(autouse=True)
def _repo_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the bot commands are relative to the repository


@pytest.fixture
def no_bwrap(monkeypatch: pytest.MonkeyPatch) -> None:
    """bubblewrap not found, as on a machine without it."""
    which = shutil.which

    def without_bwrap(name: str, *args: Any, **kwargs: Any) -> str | None:
        return None if name == "bwrap" else which(name, *args, **kwargs)

    monkeypatch.setattr(referee.sandbox.bwrap.shutil, "which", without_bwrap)


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, ["check", *args], catch_exceptions=False)


def as_json(result: Result) -> dict[str, Any]:
    report: dict[str, Any] = json.loads(result.stdout)
    return report


@pytest.mark.process
@needs_bwrap
def test_every_step_s_bot_runs_in_the_sandbox() -> None:
    """The bot sees the sandbox's host name and, under a root referee, a uid of its own."""
    result = invoke(WHO_AM_I, "--json", "--sandbox", "on", "--only", "handshake.*")
    assert result.exit_code == 0, result.output
    report = as_json(result)
    assert report["sandboxed"] is True
    assert report["sandbox"].startswith("bubblewrap (") and "no network, private /tmp" in report["sandbox"]
    host, _, uid = report["name"].partition(":")
    assert host == "bot"
    if os.geteuid() == 0:
        assert report["sandbox"].startswith("bubblewrap (own uid,")
        assert int(uid) >= referee.sandbox.bwrap.FIRST_UID
    assert result.stderr == ""


@pytest.mark.process
def test_off_runs_the_bot_as_it_is_and_says_so() -> None:
    result = invoke(WHO_AM_I, "--json", "--sandbox", "off", *SANDBOX_STEPS)
    assert result.exit_code == 0, result.output
    report = as_json(result)
    assert report["sandboxed"] is False and report["sandbox"] == "none — bots are not isolated"
    assert report["name"] == f"{socket.gethostname()}:{os.getuid()}"
    assert by_verdict_json(report, "pass") == ["handshake.hello"]
    assert by_verdict_json(report, "skip") == ["sandbox.works"]
    assert report["steps"][1]["message"] == "no sandbox: bots are not isolated"
    assert report["summary"]["ok"] and result.stderr == ""


def test_on_without_bubblewrap_is_one_line_and_exit_1(no_bwrap: None) -> None:
    result = invoke(GOOD, "--sandbox", "on")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        "Error: --sandbox on: cannot sandbox bots here: bwrap is not installed (Debian: apt-get install bubblewrap)"
    ]


@pytest.mark.process
def test_auto_without_bubblewrap_warns_once_and_runs_the_bot_unsandboxed(no_bwrap: None) -> None:
    result = invoke(GOOD, *SANDBOX_STEPS)
    assert result.exit_code == 0, result.output
    [warning] = result.stderr.splitlines()
    assert warning.startswith("warning: bubblewrap (bwrap) is not available: bots run NOT isolated")
    assert "  sandbox: none — bots are not isolated\n" in result.stdout
    assert "SKIP  sandbox.works" in result.stdout and "no sandbox: bots are not isolated" in result.stdout
    assert "2 steps: 1 passed, 0 warned, 0 failed, 1 skipped" in result.stdout

    report = as_json(invoke(GOOD, "--json", *SANDBOX_STEPS))
    assert report["sandboxed"] is False and by_verdict_json(report, "skip") == ["sandbox.works"]


def by_verdict_json(report: dict[str, Any], verdict: str) -> list[str]:
    return [s["name"] for s in report["steps"] if s["verdict"] == verdict]


@pytest.mark.process
@needs_bwrap
def test_the_text_report_names_the_sandbox() -> None:
    result = invoke(GOOD, "--sandbox", "on", *SANDBOX_STEPS)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[2].startswith("  sandbox: bubblewrap (")
    assert "PASS  sandbox.works" in result.stdout
    assert f"\nsandbox: {lines[2].removeprefix('  sandbox: ')}\nresult: PASS" in result.stdout


@pytest.mark.process
@needs_bwrap
def test_the_sandbox_step_warns_when_the_bot_reached_for_what_it_cannot_have() -> None:
    probe = ROOT / "check-sandbox-probe.txt"
    try:
        report = check(WRITES_ITS_FOLDER, "handshake.hello", "sandbox.works", sandbox=sandbox())
    finally:
        probe.unlink(missing_ok=True)
    works = step(report, "sandbox.works")
    assert works.verdict == "warn", works
    refused = ("Read-only file system", "Permission denied")  # a read-only bind, or the bare folder around it
    assert any(sign in works.warnings[0] for sign in refused) and "/tmp and $HOME are writable" in works.warnings[0]
    assert works.message.startswith("ran in bubblewrap (")
    assert report.summary.ok


@pytest.fixture
def outside() -> Iterator[Path]:
    """A folder the sandbox does not show (not the system, the repository, nor /tmp) holding
    a copy of the first-legal bot, readable by any uid."""
    if not os.path.isdir("/var/tmp"):
        pytest.skip("no /var/tmp")
    folder = Path(tempfile.mkdtemp(prefix="check-sandbox-", dir="/var/tmp"))
    try:
        folder.chmod(0o755)
        bot = folder / "bot.py"
        shutil.copyfile(ROOT / "tests" / "bots" / "first_legal_bot.py", bot)
        bot.chmod(0o644)
        yield folder
    finally:
        shutil.rmtree(folder)


@pytest.mark.process
@needs_bwrap
def test_a_bot_the_sandbox_does_not_show_fails_with_a_hint_and_passes_with_sandbox_bind(outside: Path) -> None:
    # the path is inside the code, not an argument, so the sandbox cannot guess the folder
    command = f"{sys.executable} -c \"import runpy; runpy.run_path('{outside / 'bot.py'}', run_name='__main__')\""
    result = invoke(command, "--sandbox", "on", *SANDBOX_STEPS)
    assert result.exit_code == 1
    assert "FAIL  handshake.hello" in result.stdout
    assert "No such file or directory" in result.stdout  # python's complaint, in the step's stderr
    # the path it looked for is read from that complaint, with the exact option to add
    assert f"the bot looked for {outside / 'bot.py'}, which its sandbox does not show it" in result.stdout
    assert f"--sandbox-bind {outside / 'bot.py'}" in result.stdout

    result = invoke(command, "--sandbox", "on", "--sandbox-bind", str(outside), *SANDBOX_STEPS)
    assert result.exit_code == 0, result.output
    assert "bubblewrap (" in result.stdout and "1 extra read-only path)" in result.stdout
    assert "2 steps: 2 passed" in result.stdout


@pytest.mark.process
@needs_bwrap
def test_a_bot_that_passes_only_without_the_sandbox_is_told_the_sandbox_is_why(outside: Path) -> None:
    """It says nothing on stderr, so no path can be read from it: the check starts it once more
    without the sandbox, and it passes there."""
    bot = outside / "bot.py"
    command = (
        f'{sys.executable} -c "import os, runpy, sys; os.path.exists({str(bot)!r}) or sys.exit(3); '
        f"runpy.run_path({str(bot)!r}, run_name='__main__')\""
    )
    report = check(command, "handshake.hello", sandbox=sandbox())
    hello = step(report, "handshake.hello")
    assert hello.verdict == "fail" and hello.stderr == ""
    assert hello.message.endswith("(it passes without the sandbox)")
    assert hello.hint == NEEDS_SANDBOX_PATH and "--sandbox-bind PATH" in hello.hint


@pytest.mark.process
@needs_bwrap
def test_an_unflushed_hello_in_the_sandbox_is_not_blamed_on_the_sandbox() -> None:
    """It fails without the sandbox too: the hint is about flushing, the sandbox goes unnamed."""
    report = check(author("no_flush"), "handshake.hello", limits=QUICK_START, sandbox=sandbox())
    hello = step(report, "handshake.hello")
    assert hello.verdict == "fail" and hello.reason == "timeout"
    assert hello.hint is not None and "flushed" in hello.hint
    assert "sandbox" not in hello.hint and "sandbox" not in hello.message


@pytest.mark.process
@pytest.mark.parametrize("sandboxed", [False, True])
def test_a_python_without_the_kit_is_told_to_use_the_referee_s_python(sandboxed: bool) -> None:
    """The traceback of a kit bot run by a Python the kit is not installed in."""
    command = f'{sys.executable} -c "raise ModuleNotFoundError(\\"No module named \'protocol\'\\")"'
    if sandboxed and shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed")
    report = check(command, "handshake.hello", sandbox=sandbox() if sandboxed else None)
    hello = step(report, "handshake.hello")
    assert "No module named 'protocol'" in hello.stderr
    assert hello.verdict == "fail" and hello.hint == WRONG_PYTHON
    assert "sys.executable" in WRONG_PYTHON and "pip install -e" in WRONG_PYTHON


@pytest.mark.parametrize("option", [("--sandbox", "on"), ("--sandbox-bind", ".")])
def test_a_tcp_bot_is_not_started_so_it_cannot_be_sandboxed(option: tuple[str, str]) -> None:
    result = invoke("tcp:bot", *option)
    assert result.exit_code == 2
    assert "are for bots the check starts" in result.output


@pytest.mark.process
@needs_bwrap
@needs_java
def test_a_jvm_bot_passes_in_the_sandbox() -> None:
    """tests/bots/java/Bot.java, run from its source; a few steps of each kind (a whole check
    takes half a minute of JVM starts)."""
    report = check(
        JAVA,
        "handshake.hello",
        "sandbox.works",
        "pass.legal",
        "play.follow_suit",
        "compat.unknown_fields",
        "ids.large",
        "exit.goodbye",
        "timing.*",
        limits=JVM,
        jobs=2,
        sandbox=sandbox(),
    )
    assert by_verdict(report, "fail") == [], [(s.name, s.message) for s in report.steps if s.verdict == "fail"]
    assert by_verdict(report, "skip") == []
    assert report.sandboxed and report.name == "java-first-legal"
    assert step(report, "sandbox.works").message.startswith(f"ran in {report.sandbox}")
    assert "up to 9007199254740991" in step(report, "ids.large").message
    assert step(report, "exit.goodbye").message.startswith("exited with status 0")
