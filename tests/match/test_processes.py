"""Real bot processes: hostile bots in every named way, the match always completes, the
reason is named, the others are unaffected and no process is left behind."""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path

import pytest
import trio

from referee.match.config import MatchConfig
from referee.match.play import TableOptions, play_match
from referee.rules import ruleset
from tests.shared import stray

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parents[2]
GOOD = f"{sys.executable} tests/bots/first_legal_bot.py"
SHORT = ruleset("american", {"end": "rounds", "rounds": 1})
FAST = MatchConfig(per_decision=0.5, bank=0.5, startup=5.0, grace=0.3)


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("crash", "crash"),
        ("close_stdout", "disconnect"),
        ("garbage", "bad_json"),
        ("sleep", "timeout"),
        ("ignore_term", "timeout"),
        ("fork_child", "crash"),
        ("no_newline", "timeout"),
    ],
)
def test_hostile_bot_is_named_and_nothing_is_left(mode: str, reason: str, tmp_path: Path) -> None:
    marker = f"marker-{uuid.uuid4().hex}"
    hostile = f"{sys.executable} tests/bots/hostile_bot.py {mode} {marker}"
    log = tmp_path / "m.jsonl"
    outcome = trio.run(
        lambda: play_match(
            [hostile, GOOD, GOOD, GOOD], SHORT, seed=5, log_path=log, options=TableOptions(config=FAST, cwd=ROOT)
        )
    )
    assert outcome.seats[0].status == reason
    assert [s.status for s in outcome.seats[1:]] == ["ok", "ok", "ok"]
    assert outcome.reason == "rounds_played"
    assert 0 not in outcome.winners
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["reason"] for e in entries if e["type"] == "fault"] == [reason]
    assert entries[-1]["type"] == "stderr" or entries[-1]["type"] == "result"
    assert stray(marker) == []


def test_crash_reports_the_exit_code(tmp_path: Path) -> None:
    hostile = f"{sys.executable} tests/bots/hostile_bot.py crash"
    log = tmp_path / "m.jsonl"
    trio.run(
        lambda: play_match(
            [hostile, GOOD, GOOD, GOOD], SHORT, seed=5, log_path=log, options=TableOptions(config=FAST, cwd=ROOT)
        )
    )
    fault = next(json.loads(x) for x in log.read_text().splitlines() if '"fault"' in x)
    assert fault["message"] == "the bot exited with code 3"


def test_stderr_is_kept_capped_in_the_log(tmp_path: Path) -> None:
    spammer = f"{sys.executable} tests/bots/hostile_bot.py stderr_spam"
    log = tmp_path / "m.jsonl"
    outcome = trio.run(
        lambda: play_match(
            [spammer, GOOD, GOOD, GOOD], SHORT, seed=5, log_path=log, options=TableOptions(config=FAST, cwd=ROOT)
        )
    )
    assert outcome.seats[0].status == "ok"
    stderr = next(json.loads(x) for x in log.read_text().splitlines() if '"stderr"' in x and '"seat":0' in x)
    assert len(stderr["text"]) == 64 * 1024
    assert stderr["dropped_bytes"] == 300_000 - 64 * 1024


def test_same_seed_same_match(tmp_path: Path) -> None:
    def moves(name: str) -> list[str]:
        log = tmp_path / name
        trio.run(
            lambda: play_match([GOOD] * 4, SHORT, seed=9, log_path=log, options=TableOptions(config=FAST, cwd=ROOT))
        )
        entries = [json.loads(x) for x in log.read_text().splitlines()]
        return [e["msg"]["card"] for e in entries if e["type"] == "send" and e["msg"]["type"] == "card_played"]

    first = moves("a.jsonl")
    assert len(first) == 4 * 52  # every card, told to every seat
    assert first == moves("b.jsonl")
