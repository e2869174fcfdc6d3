"""`referee check` on the command line: exit codes, the human report, --json."""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner

from referee.check.report import start_cost
from referee.check.results import StepResult
from referee.check.steps import STEPS
from referee.cli import main
from tests.check.helpers import GOOD, ROOT, check_hostile


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["check", *args], catch_exceptions=False)
    return result.exit_code, result.output


def invoke_json(*args: str) -> tuple[int, dict[str, Any]]:
    """The exit code and the JSON on stdout (stderr may hold a warning about the sandbox)."""
    result = CliRunner().invoke(main, ["check", "--json", *args], catch_exceptions=False)
    report: dict[str, Any] = json.loads(result.stdout)
    return result.exit_code, report


@pytest.fixture(autouse=True)
def _repo_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the bot commands are relative to the repository


def test_check_is_a_referee_command() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0 and "check" in result.output


@pytest.mark.process
def test_a_good_bot_passes_with_exit_code_0() -> None:
    """Without a sandbox (--sandbox off) every step passes but the one about the sandbox."""
    code, out = invoke(GOOD, "--jobs", "3", "--sandbox", "off")
    assert code == 0, out
    lines = out.splitlines()
    assert lines[0] == f"referee check: {GOOD}"
    clock = "clock 1 s a decision + 10 s bank (referee match's default); start-up 10 s; 46 steps"
    assert lines[1] == f"  variant american; {clock}"
    assert lines[2] == "  sandbox: none — bots are not isolated"
    step_lines = [line for line in lines if line[:4] in ("PASS", "WARN", "FAIL", "SKIP")]
    assert [line.split()[1] for line in step_lines] == [s.name for s in STEPS]
    assert [line.split()[1] for line in step_lines if line.startswith("SKIP")] == ["sandbox.works"]
    assert "no sandbox: bots are not isolated" in out
    assert "46 steps: 45 passed, 0 warned, 0 failed, 1 skipped" in out
    assert "\nsandbox: none — bots are not isolated\nresult: PASS" in out
    assert out.rstrip().endswith("result: PASS")


@pytest.mark.process
def test_a_failing_step_shows_expected_got_transcript_and_stderr() -> None:
    code, out = invoke(check_hostile("crash_on_unknown"), "--only", "compat.unknown_event", "--time-per-move", "1")
    assert code == 1, out
    details = out[out.index("--- FAIL compat.unknown_event") :]
    assert "verifies: A message type the bot does not know" in details
    assert "problem:  the bot exited with code 1 (crash)" in details
    assert "expected: a 'play' reply with id" in details
    assert "got:      the bot exited with code 1" in details
    assert "transcript (ms since the step began; >> to the bot, << from the bot):" in details
    assert '>> {"type":"hello","protocol":"hearts-bot","versions":[1]' in details
    assert "<< {" in details
    assert '>> {"type":"weather","x":1}' in details
    assert "stderr:\n  | KeyError: 'weather'" in details
    assert "hint:     the bot's program ended: its stderr (below, or in the log) shows why" in details
    assert "the bot at the end of the step: exited with code 1" in details
    assert "result: FAIL — crash (compat.unknown_event)" in out


@pytest.mark.process
def test_json_output_has_the_steps_and_a_summary() -> None:
    code, report = invoke_json(check_hostile("int32_id"), "--only", "handshake.hello", "--only", "ids.*")
    assert code == 1
    assert set(report) == {
        "bot", "name", "variant", "per_decision_ms", "bank_ms", "startup_ms", "grace_ms", "sandboxed", "sandbox",
        "steps", "summary", "exit_code",
    }  # fmt: skip
    assert report["name"] == "check-hostile-int32_id"
    assert report["exit_code"] == 1
    assert [s["name"] for s in report["steps"]] == ["handshake.hello", "ids.large", "ids.non_sequential"]
    assert [s["verdict"] for s in report["steps"]] == ["pass", "fail", "pass"]
    failed = report["steps"][1]
    assert set(failed) == {
        "name", "summary", "verdict", "message", "warnings", "expected", "got", "reason", "hint", "seconds",
        "decisions", "startup_ms", "transcript", "stderr", "exit_code",
    }  # fmt: skip
    assert failed["expected"] == "a 'pass' reply with id 2147483648 within 1000 ms + 10000 ms of bank"
    assert failed["reason"] == "wrong_id"
    assert failed["hint"] == 'copy the request\'s "id" into the reply; answer each request once, in order'
    assert report["per_decision_ms"] == 1000 and report["bank_ms"] == 10000 and report["startup_ms"] == 10000
    assert '"id": -2147483648' in failed["got"]
    assert {line["direction"] for line in failed["transcript"]} == {"send", "recv"}
    assert set(failed["decisions"][0]) == {"request", "id", "ms"}
    assert report["steps"][2]["transcript"] == []  # kept for failures and warnings only
    summary = report["summary"]
    assert summary["steps"] == 3 and summary["passed"] == 2 and summary["failed"] == 1 and not summary["ok"]
    assert summary["decisions"] > 0 and summary["median_ms"] is not None
    assert summary["causes"] == [
        {
            "verdict": "fail",
            "reason": "wrong_id",
            "rule": None,
            "message": failed["message"],
            "hint": failed["hint"],
            "steps": ["ids.large"],
        }
    ]


@pytest.mark.process
def test_json_of_a_passing_bot_and_exit_code_0() -> None:
    code, report = invoke_json(GOOD, "--only", "play.*", "--only", "timing.*", "--variant", "dutch")
    assert code == 0
    assert report["variant"] == "dutch" and report["summary"]["ok"] and report["exit_code"] == 0
    assert all(s["verdict"] == "pass" for s in report["steps"])


@pytest.mark.process
def test_fail_fast_skips_the_rest() -> None:
    code, out = invoke(check_hostile("illegal_card"), "-x")
    assert code == 1
    assert "FAIL  play.lead_two_of_clubs" in out
    assert "SKIP  exit.goodbye" in out and "not run: --fail-fast stopped after play.lead_two_of_clubs failed" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--variant", "nope", GOOD], "Invalid value for '--variant'"),
        (["--only", "nothing.like.this", GOOD], "no step matches nothing.like.this"),
        (["  "], "the bot's command line is empty"),
        (["--time-per-move", "0", GOOD], "Invalid value for '--time-per-move'"),
        ([], "Missing argument 'BOT'"),
    ],
)
def test_usage_errors_exit_with_code_2(args: list[str], message: str) -> None:
    code, out = invoke(*args)
    assert code == 2
    assert message in out
    assert "Traceback" not in out


def test_a_slow_start_is_priced_once_the_first_step_measured_it() -> None:
    """Every step starts the bot afresh: a 6 s start over 46 steps is said before it is spent."""
    first = StepResult(name="handshake.hello", summary="", verdict="pass", startup_ms=6000.0)
    assert start_cost(first, 46) == (
        "note: the bot took 6.0 s to say hello, and every step starts it afresh: starting it alone will take "
        "about 4.6 min for 46 steps (-j N runs N steps at once)"
    )
    assert start_cost(first, 46, jobs=4) is not None and "about 69 s for 46 steps" in str(start_cost(first, 46, 4))
    quick = StepResult(name="handshake.hello", summary="", verdict="pass", startup_ms=200.0)
    assert start_cost(quick, 46) is None  # 9 s in all: not worth a word
    failed = StepResult(name="handshake.hello", summary="", verdict="fail", startup_ms=6000.0)
    assert start_cost(failed, 46) is None  # the rest are skipped: no starts to price
