"""What `referee match` tells a bot author about each common mistake, in text and `--json`:
the reason, the referee's message, the offending line, a hint, the exit status, the last lines
of stderr and the command to look closer."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from referee.cli import main
from referee.match.text import who

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parents[2]
GOOD = f"{sys.executable} {ROOT}/tests/bots/first_legal_bot.py"
MISTAKE = f"{sys.executable} {ROOT}/tests/bots/mistake_bot.py"
SHORT = ("--set", "end=rounds", "--set", "rounds=1", "--seed", "4", "--time-per-move", "0.5", "--time-bank", "0.5")


def match(mode: str, *extra: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["match", *SHORT, *extra, f"{MISTAKE} {mode}", GOOD, GOOD, GOOD])
    assert "Traceback (most recent call last)" not in result.output.split("stderr")[0]
    return result.exit_code, result.output


@pytest.mark.parametrize(
    ("mode", "reason", "expected"),
    [
        ("debug_print", "bad_json", ["it sent: my hand is", "stdout carries the protocol only"]),
        ("no_flush", "timeout", ["was the line flushed?"]),
        ("crash", "crash", ["exited with code 1", "| RuntimeError: no strategy for this trick", "last 10 of"]),
        ("segfault", "crash", ["signal 11", "SIGSEGV", "segmentation fault"]),
        ("wrong_version", "no_common_version", ['"versions" list']),
    ],
)
def test_each_mistake_is_explained_in_the_text(mode: str, reason: str, expected: list[str], tmp_path: Path) -> None:
    log = tmp_path / "m.jsonl"
    code, out = match(mode, "--log", str(log))
    assert code == 0, out
    # a bot with no hello is known by its command, once (issue 43: ``seat 0 seat 0``)
    assert f"seat 0 mistake-{mode}: {reason}" in out or f"seat 0 ({MISTAKE} {mode}): {reason}" in out
    assert "seat 0 seat 0" not in out
    assert "! seat 0" in out and f": {reason}" in out
    for text in expected:
        assert text in out, out
    assert f"look closer: referee replay {log} --seat 0" in out
    assert "hint: " in out


def test_without_a_log_it_says_how_to_get_one() -> None:
    code, out = match("debug_print")
    assert code == 0
    assert "run again with --log FILE" in out


def test_json_holds_the_same_explanation(tmp_path: Path) -> None:
    code, out = match("crash", "--json", "--log", str(tmp_path / "m.jsonl"))
    assert code == 0, out
    result: dict[str, Any] = json.loads(out)
    (fault,) = result["faults"]
    assert fault["seat"] == 0 and fault["reason"] == "crash" and fault["action"] == "forfeit"
    assert fault["exit"] == "exited with code 1"
    assert "stderr" in fault["hint"]
    assert fault["stderr"][-1] == "RuntimeError: no strategy for this trick"
    assert fault["stderr_lines"] >= 3


def test_a_match_without_faults_reports_none() -> None:
    result = CliRunner().invoke(main, ["match", "--json", *SHORT, GOOD, GOOD, GOOD, GOOD])
    assert result.exit_code == 0
    assert json.loads(result.output)["faults"] == []
    text = CliRunner().invoke(main, ["match", *SHORT, GOOD, GOOD, GOOD, GOOD]).output
    assert "! seat" not in text and "after 1 round;" not in text and "after 1 round" in text


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_raw_node_tcp_bot_of_the_docs_plays_a_match(tmp_path: Path) -> None:
    """docs/writing-a-bot.md's TCP example outside Python: Node's net module, the token from
    the environment."""
    (tmp_path / "token").write_text("node-token-123\n")
    referee = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "referee.cli",
            "match",
            "--json",
            *SHORT,
            "--port",
            "0",
            f"tcp:node:@{tmp_path / 'token'}",
            GOOD,
            GOOD,
            GOOD,
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert referee.stderr is not None
    line = referee.stderr.readline()
    address = line.split("connect to ")[1].split()[0]
    bot = subprocess.Popen(
        ["node", "sample_bots/javascript/tcp_bot.js", address],
        cwd=ROOT,
        env={**os.environ, "HEARTS_TOKEN": "node-token-123"},
    )
    out, _ = referee.communicate(timeout=60)
    assert bot.wait(timeout=10) == 0
    result = json.loads(out)
    assert [s["status"] for s in result["seats"]] == ["ok"] * 4
    assert result["seats"][0]["name"] == "node-tcp"


def test_a_bot_that_crashes_after_goodbye_is_a_note_under_the_result_not_a_fault() -> None:
    """The match was over and counts; the bot still has something to fix."""
    result = CliRunner().invoke(main, ["match", *SHORT, "--json", f"{MISTAKE} crash_at_goodbye", GOOD, GOOD, GOOD])
    assert result.exit_code == 0, result.output
    outcome = json.loads(result.stdout)
    assert outcome["faults"] == [] and outcome["reason"] != "forfeit"
    [note] = outcome["notes"]
    assert note.startswith("seat 0 mistake-crash_at_goodbye: its program exited with code 1 after goodbye")
    assert "the result stands" in note and note.endswith("its stderr ends: RuntimeError: no statistics to save")

    code, out = match("crash_at_goodbye")
    assert code == 0, out
    lines = out.splitlines()
    result_at = next(i for i, line in enumerate(lines) if line.startswith("result: "))
    assert f"note: {note}" in lines[result_at:] and "! seat 0" not in out


@pytest.mark.process
def test_a_bot_dying_before_its_hello_is_named_by_its_command_once() -> None:
    """Issue 43: it was ``seat 0 seat 0: crash``, without its command."""
    dies = f"{sys.executable} -c 'import sys; sys.exit(3)'"
    result = CliRunner().invoke(main, ["match", *SHORT, dies, GOOD, GOOD, GOOD])
    assert result.exit_code == 0, result.output
    assert f"  seat 0 ({dies}): crash" in result.output
    assert f"! seat 0 ({dies}): crash (dropped" in result.output
    assert "seat 0 seat 0" not in result.output


def test_a_seat_is_named_once() -> None:
    assert who(0, "seat 0", None) == "seat 0"
    assert who(0, "seat 0", "php bin/bot") == "seat 0 (php bin/bot)"
    assert who(2, "alice", "php bin/bot") == "seat 2 alice"
    assert who(1, "seat 1", "evil\x1b[2J") == "seat 1 (evil\\x1b[2J)"
