"""Logs hold what bots sent, and a log file may itself be crafted: `referee replay` shows escape
sequences escaped (in faults, names, stderr), and refuses a header whose rules cannot be
played before sizing anything by them."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli import main

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parents[2]
GOOD = f"{sys.executable} {ROOT}/tests/bots/first_legal_bot.py"
LINE_BOT = f"{sys.executable} {ROOT}/tests/bots/line_bot.py"
ESCAPES = b'\x1b[2J\x1b]0;PWNED\x07\x1b[31mHACKED{"type":"play"'


def escaping_log(tmp_path: Path) -> Path:
    (tmp_path / "line").write_bytes(ESCAPES)
    log = tmp_path / "esc.jsonl"
    result = CliRunner().invoke(
        main,
        [
            "match",
            "--sandbox",
            "off",
            "--set",
            "end=rounds",
            "--set",
            "rounds=1",
            "--log",
            str(log),
            f"{LINE_BOT} play {tmp_path / 'line'}",
            GOOD,
            GOOD,
            GOOD,
        ],
    )
    assert result.exit_code == 0, result.output
    return log


def test_a_bots_escape_sequences_are_shown_not_obeyed(tmp_path: Path) -> None:
    log = escaping_log(tmp_path)
    for args in ([], ["--seat", "0"], ["--verify"]):
        result = CliRunner().invoke(main, ["replay", *args, str(log)])
        assert result.exit_code == 0, result.output
        assert "\x1b" not in result.output and "\x07" not in result.output
    shown = CliRunner().invoke(main, ["replay", str(log)]).output
    assert "\\x1b[2J" in shown  # the fault's "it sent" line, escaped


def test_a_crafted_name_in_the_header_is_escaped(tmp_path: Path) -> None:
    log = escaping_log(tmp_path)
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    entries[0]["seats"][1]["name"] = "\x1b[2J\x1b[41mNAME"
    crafted = tmp_path / "crafted.jsonl"
    crafted.write_text("".join(json.dumps(e) + "\n" for e in entries))
    for args in ([], ["--seat", "2"]):
        result = CliRunner().invoke(main, ["replay", *args, str(crafted)])
        assert "\x1b" not in result.output, args


def test_a_header_with_absurd_rules_is_refused_before_anything_is_built(tmp_path: Path) -> None:
    log = escaping_log(tmp_path)
    text = log.read_text().replace('"players":4,', '"players":100000000,', 1)
    crafted = tmp_path / "players.jsonl"
    crafted.write_text(text)
    for args in (["--verify"], [], ["--html", str(tmp_path / "v.html")]):
        result = CliRunner().invoke(main, ["replay", *args, str(crafted)])
        assert result.exit_code == 3, result.output
        assert "rules cannot be played" in result.output
