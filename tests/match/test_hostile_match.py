"""End to end with real bot processes: ``referee match`` with a bot that sends each hostile line
of ``tests/hostile_lines.py`` (as a reply or as its hello) exits 0, names that seat's reason,
reports ``ok`` for the others, and writes a log that ``referee replay`` reads, verifies, prints
(text, one seat's view, JSON) and turns into HTML."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli import main
from tests.hostile_lines import HELLO_LINES, PLAY_LINES

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parents[2]
GOOD = f"{sys.executable} {ROOT}/tests/bots/first_legal_bot.py"
LINE_BOT = f"{sys.executable} {ROOT}/tests/bots/line_bot.py"


def referee(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def play(tmp_path: Path, when: str, line: bytes, seat: int) -> tuple[dict[str, object], Path]:
    (tmp_path / "line").write_bytes(line)
    tmp_path.chmod(0o755)  # sandboxed bots run as their own uid; pytest's folders are 0700
    bots = [GOOD] * 4
    bots[seat] = f"{LINE_BOT} {when} {tmp_path / 'line'}"
    log = tmp_path / "match.jsonl"
    code, out = referee(
        "match", "--json", "--seed", "3", "--set", "end=rounds", "--set", "rounds=1", "--log", str(log), *bots
    )
    assert code == 0, out
    return json.loads(out), log


def replays_everywhere(log: Path, tmp_path: Path, seat: int) -> None:
    code, out = referee("replay", "--verify", str(log))
    assert code == 0 and "verified" in out, out
    for args in ([], ["--seat", str(seat)], ["--json"], ["--html", str(tmp_path / "view.html")]):
        code, out = referee("replay", *args, str(log))
        assert code == 0, (args, out)
    assert (tmp_path / "view.html").stat().st_size > 1000


@pytest.mark.parametrize("case", sorted(PLAY_LINES))
def test_a_hostile_reply_ends_the_match_normally(case: str, tmp_path: Path) -> None:
    line, reason = PLAY_LINES[case]
    result, log = play(tmp_path, "play", line, 0)
    assert [s["status"] for s in result["seats"]] == [reason, "ok", "ok", "ok"]  # type: ignore[index]
    assert result["reason"] == "rounds_played"
    replays_everywhere(log, tmp_path, 0)


@pytest.mark.parametrize("case", sorted(HELLO_LINES))
def test_a_hostile_hello_ends_the_match_normally(case: str, tmp_path: Path) -> None:
    line, reason = HELLO_LINES[case]
    result, log = play(tmp_path, "hello", line, 2)
    assert [s["status"] for s in result["seats"]] == ["ok", "ok", reason, "ok"]  # type: ignore[index]
    assert result["seats"][2]["name"] == "seat 2"  # type: ignore[index]
    replays_everywhere(log, tmp_path, 2)


def test_a_forged_name_cannot_forge_result_lines(tmp_path: Path) -> None:
    name = "x\r\nresult: forger won; rounds_played\n  seat 1 first-legal: crash\x1b[1A"
    hello = json.dumps({"type": "hello", "version": 1, "name": name}).encode()
    (tmp_path / "line").write_bytes(hello)
    tmp_path.chmod(0o755)
    bots = [GOOD] * 4
    bots[0] = f"{LINE_BOT} hello {tmp_path / 'line'}"
    code, out = referee("match", "--seed", "3", "--set", "end=rounds", "--set", "rounds=1", *bots)
    assert code == 0, out
    assert "\x1b" not in out and "\r" not in out
    assert not any(line.startswith("result: forger") for line in out.splitlines())
    assert sum(line.startswith("result:") for line in out.splitlines()) == 1
