"""`referee match`: the score table, --json, exit codes."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli import main

ROOT = Path(__file__).resolve().parents[2]
GOOD = f"{sys.executable} {ROOT}/tests/bots/first_legal_bot.py"
CRASH = f"{sys.executable} {ROOT}/tests/bots/hostile_bot.py crash"


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["match", *args])
    return result.exit_code, result.output


@pytest.mark.process
def test_json_result_names_scores_winners_and_each_seat(tmp_path: Path) -> None:
    code, out = invoke("--seed", "2", "--json", "--log", str(tmp_path / "l.jsonl"), CRASH, GOOD, GOOD, GOOD)
    assert code == 0, out
    result = json.loads(out)
    assert set(result) >= {"scores", "winners", "seats", "reason"}
    assert [s["status"] for s in result["seats"]] == ["crash", "ok", "ok", "ok"]
    assert 0 not in result["winners"]
    assert result["log"].endswith("l.jsonl")


@pytest.mark.process
def test_table_output() -> None:
    code, out = invoke("--seed", "2", "--set", "end=rounds", "--set", "rounds=2", GOOD, GOOD, GOOD, GOOD)
    assert code == 0, out
    lines = out.splitlines()
    assert lines[1].split()[0] == "round"
    assert lines[2].split()[0] == "1" and lines[3].split()[0] == "2"
    assert "rounds_played after 2 rounds" in out


@pytest.mark.process
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--variant", "nope", GOOD, GOOD, GOOD, GOOD], "no preset named 'nope'"),
        ([GOOD, GOOD, GOOD], "needs 4 bots, got 3"),
        (["--set", "players=2", GOOD, GOOD], "players must be 3 or more"),
        (["no-such-program-here", GOOD, GOOD, GOOD], "cannot start bot 'no-such-program-here'"),
    ],
)
def test_referee_errors_exit_non_zero_with_a_message(args: list[str], message: str) -> None:
    code, out = invoke(*args)
    assert code != 0
    assert message in out
    assert "Traceback" not in out
