"""``referee check`` against bots that send the hostile lines of ``tests/hostile_lines.py``:
the check never crashes, names the failure at the step where the line came, and prints what
the bot sent escaped, never raw."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli import main
from tests.check.helpers import ROOT, by_verdict, check, step
from tests.hostile_lines import HELLO_LINES, PLAY_LINES

pytestmark = pytest.mark.process

LINE_BOT = f"{sys.executable} {ROOT}/tests/bots/line_bot.py"


@pytest.mark.parametrize("case", ["deep_array", "deep_inside_hello", "huge_version"])
def test_a_hostile_hello_fails_the_handshake_step(case: str, tmp_path: Path) -> None:
    (tmp_path / "line").write_bytes(HELLO_LINES[case][0])
    report = check(f"{LINE_BOT} hello {tmp_path / 'line'}", "handshake.hello")
    result = step(report, "handshake.hello")
    assert result.verdict == "fail"
    assert HELLO_LINES[case][1] in " ".join(str(v) for v in (result.expected, result.got, result.message))


@pytest.mark.parametrize("case", ["deep_inside_play", "long_type", "nan"])
def test_a_hostile_reply_fails_the_play_steps_and_nothing_else(case: str, tmp_path: Path) -> None:
    (tmp_path / "line").write_bytes(PLAY_LINES[case][0])
    report = check(f"{LINE_BOT} every {tmp_path / 'line'}", "handshake.*", "play.*")
    assert "handshake.hello" in by_verdict(report, "pass")
    assert any(name.startswith("play.") for name in by_verdict(report, "fail"))


def test_the_report_shows_escape_sequences_escaped(tmp_path: Path) -> None:
    (tmp_path / "line").write_bytes(b'{"type":"play","id":{id},"card":"\x1b[2J\x1b[31m"}')
    result = CliRunner().invoke(
        main,
        # not sandboxed: under a root referee the bot's own uid may not read pytest's 0700 tmp_path
        ["check", "-v", "--sandbox", "off", "--only", "play.follow_suit", f"{LINE_BOT} every {tmp_path / 'line'}"],
    )
    assert result.exit_code == 1, result.output
    assert "\x1b" not in result.output and "Traceback" not in result.output
