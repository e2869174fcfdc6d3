"""The adversarial suite (issue 4), the referee's side: `referee match` as a real process that
is sent SIGINT or SIGTERM (the match ends as ``interrupted``, the bots are ended) or SIGKILL
(it cannot clean up: the log must still be readable up to the last flush, and the bots must
leave on their own when their stdin reaches end of file).

The bots are ``hostile_bot.py slow MARKER`` (0.05 s per play, well within the limits); they
write the tricks they were told of to ``$HOSTILE_TRACE.<pid>``.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from referee.cli import main
from tests.shared import kill_strays, wait_gone

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
_SCRIPT = Path(sys.executable).parent / "referee"
REFEREE = [str(_SCRIPT)] if _SCRIPT.exists() else [PY, "-c", "from referee.cli import main; main()"]


def wait_for(condition: Callable[[], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.02)


def has(path: Path, text: str) -> bool:
    return path.exists() and text.encode() in path.read_bytes()


def start_referee(log: Path, marker: str) -> subprocess.Popen[bytes]:
    """`referee match --log LOG --seed 1` between four slow bots (a full match to 100 points:
    far longer than any test waits). Unsandboxed: the bots write what they were told to
    ``$HOSTILE_TRACE`` on the host, and this is the path where the bots' own reaction to end of
    file is all that ends them (tests/sandbox/test_sandbox.py kills a referee of sandboxed bots)."""
    slow = f"{PY} {ROOT}/tests/bots/hostile_bot.py slow {marker}"
    return subprocess.Popen(
        [*REFEREE, "match", "--sandbox", "off", "--log", str(log), "--seed", "1", slow, slow, slow, slow],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_ends_the_match_as_interrupted(signum: int, status: int, tmp_path: Path) -> None:
    marker = f"adversarial-{uuid.uuid4().hex}"
    log = tmp_path / "m.jsonl"
    referee = start_referee(log, marker)
    try:
        # once a trick is in the log the match is under way (a second or so after the start)
        wait_for(lambda: has(log, '"trick_end"'), 180.0)
        time.sleep(0.2)
        referee.send_signal(signum)
        # a guard against a hang, not a verdict on speed: the match (to 100 points) would go on
        # for minutes; the log's result below says it was cut short by the signal
        out, err = referee.communicate(timeout=60)
        leftover = wait_gone(marker, 2.0)
    finally:
        if referee.poll() is None:
            referee.kill()
            referee.wait()
        kill_strays(marker)
    assert referee.returncode == status, err.decode()
    assert b"interrupted" in out
    assert b"Traceback" not in err
    raw = log.read_bytes()
    assert raw.endswith(b"\n")
    entries: list[dict[str, Any]] = [json.loads(line) for line in raw.splitlines()]  # every line parses
    kinds = [e["type"] for e in entries]
    assert kinds[0] == "header"
    result = kinds.index("result")
    assert entries[result]["reason"] == "interrupted"
    assert entries[result]["winners"] == []
    assert [s["status"] for s in entries[result]["seats"]] == ["ok"] * 4
    assert kinds[result + 1 :] == ["stderr"] * 4
    ends = [e for e in entries if e["type"] == "send" and e["msg"]["type"] == "match_end"]
    assert sorted(e["seat"] for e in ends) == [0, 1, 2, 3]
    assert {e["msg"]["reason"] for e in ends} == {"interrupted"}
    assert [e["exit_code"] for e in entries[result + 1 :]] == [0, 0, 0, 0]  # they left after goodbye
    assert leftover == []


def tricks_told(trace: Path) -> dict[int, int]:
    """By seat: how many ``trick_end`` messages each slow bot had received."""
    told: dict[int, int] = {}
    for path in trace.parent.glob(trace.name + ".*"):
        lines = path.read_text().splitlines()
        if lines and lines[0].startswith("match_start seat "):
            told[int(lines[0].split()[-1])] = lines.count("trick_end")
    return told


@pytest.mark.parametrize("delay", [0.0, 0.5, 1.5])
def test_a_killed_referee_leaves_a_readable_log_and_no_bot(
    delay: float, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGKILL ``delay`` seconds after the log's header (the handshake is done then). Nothing
    can clean up after SIGKILL: the bots must leave by themselves when their stdin reaches end
    of file (the slow bots, like the sample bots and first_legal_bot, exit at EOF). Every
    complete line of the log parses, and every trick a bot was told of is in the log (the log
    is flushed after each trick, before the trick is written to the bots)."""
    marker = f"adversarial-{uuid.uuid4().hex}"
    log = tmp_path / "m.jsonl"
    trace = tmp_path / "trace"
    monkeypatch.setenv("HOSTILE_TRACE", str(trace))
    referee = start_referee(log, marker)
    try:
        wait_for(lambda: has(log, '"header"'), 180.0)
        time.sleep(delay)
        referee.kill()
        referee.wait()
        leftover = wait_gone(marker, 5.0)  # the bots' own reaction to end of file
    finally:
        if referee.poll() is None:
            referee.kill()
            referee.wait()
        kill_strays(marker)
    assert referee.returncode == -signal.SIGKILL
    assert leftover == [], "bot processes outlived a SIGKILLed referee"
    raw = log.read_bytes()
    complete = raw.split(b"\n")[:-1]  # the last piece may be a line cut short
    entries = [json.loads(line) for line in complete]
    assert entries and entries[0]["type"] == "header"
    assert "result" not in [e["type"] for e in entries]
    logged = {
        seat: sum(1 for e in entries if e["type"] == "send" and e["seat"] == seat and e["msg"]["type"] == "trick_end")
        for seat in range(4)
    }
    told = tricks_told(trace)
    for seat, count in told.items():
        assert logged[seat] >= count, f"seat {seat} was told of {count} tricks, the log has {logged[seat]}"
    if delay >= 1.5:
        assert max(told.values()) >= 1  # killed after the first trick: it is in the log
        assert min(logged.values()) >= 1
    # `referee replay --verify` reads the killed log up to its last complete line
    verified = CliRunner().invoke(main, ["replay", "--verify", "--json", str(log)])
    assert verified.exit_code == 0, verified.output
    report = json.loads(verified.output)
    assert report["status"] == "truncated", report
