"""Decision times from a log (``referee.replay.timing``, ``referee replay --times``).

A real match's log is rewritten with known times: every request to seat 1 is answered 250 ms
later and every other seat's in 10, 20, 30 ... ms, so the figures can be checked exactly.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.replay.reader import read_log
from referee.replay.timing import decision_cpu, decision_times, summarize
from tests.replay.helpers import MatchLogs, replay

REQUESTS = {"pass_request", "play_request", "declare_request", "moon_request"}


def retimed(source: Path, target: Path) -> dict[int, int]:
    """Copy the log with made-up times; return the requests sent to each seat."""
    clock = 0.0
    asked: dict[int, int] = {}
    waiting: dict[int, float] = {}
    lines = []
    for line in source.read_text().splitlines():
        entry = json.loads(line)
        if entry["type"] == "send" and entry["msg"]["type"] in REQUESTS:
            seat = entry["seat"]
            asked[seat] = asked.get(seat, 0) + 1
            clock += 1.0
            waiting[seat] = entry["t"] = clock
        elif entry["type"] == "recv" and entry["seat"] in waiting:
            seat = entry["seat"]
            entry["t"] = waiting.pop(seat) + (0.25 if seat == 1 else 0.01 * (asked[seat] % 3 + 1))
        elif "t" in entry:
            entry["t"] = clock
        lines.append(json.dumps(entry, separators=(",", ":")))
    target.write_text("\n".join(lines) + "\n")
    return asked


def test_each_request_is_timed_to_the_next_line_of_its_seat(match_log: MatchLogs, tmp_path: Path) -> None:
    path = tmp_path / "timed.jsonl"
    asked = retimed(match_log("american"), path)
    times = decision_times(read_log(path).matches[0])
    assert [len(seconds) for seconds in times] == [asked[seat] for seat in range(4)]
    assert all(t == pytest.approx(0.25) for t in times[1])
    summary = summarize(times[0])
    assert summary is not None
    assert summary.decisions == asked[0]
    assert summary.max_ms == pytest.approx(30.0) and summary.median_ms in (10.0, 20.0, 30.0)
    assert summarize([]) is None
    assert summarize([0.001, 0.002, 0.003, 0.004]) == summarize([0.004, 0.003, 0.002, 0.001])
    quartet = summarize([0.001, 0.002, 0.003, 0.004])
    assert quartet is not None and (quartet.median_ms, quartet.p90_ms, quartet.max_ms) == (2.0, 4.0, 4.0)


def test_replay_times_prints_each_seat(match_log: MatchLogs, tmp_path: Path) -> None:
    path = tmp_path / "timed.jsonl"
    asked = retimed(match_log("american"), path)
    result = replay(path, "--times")
    assert result.exit_code == 0, result.output
    row = next(line for line in result.output.splitlines() if line.startswith("1 "))
    assert row.split()[2:7] == [str(asked[1]), "250.0", "250.0", "250.0", "250.0"]  # then the CPU columns
    data = json.loads(replay(path, "--times", "--json").output)
    assert data["seats"][1]["times"]["decisions"] == asked[1]
    assert replay(path, "--times", "--verify").exit_code == 2


def test_a_crafted_log_is_timed_without_a_crash(match_log: MatchLogs, tmp_path: Path) -> None:
    """Entries a referee never writes: a ``send`` whose message is no object or has no string
    type, a line received before any request, a seat out of range, a time of 1e308."""
    path = tmp_path / "timed.jsonl"
    asked = retimed(match_log("american"), path)
    lines = path.read_text().splitlines()
    crafted = [
        {"type": "send", "t": 1.0, "seat": 0, "msg": 5},
        {"type": "send", "t": 1.0, "seat": 0, "msg": [1]},
        {"type": "send", "t": 1.0, "seat": 0, "msg": {"type": 1}},
        {"type": "send", "t": 1.0, "seat": 0, "msg": {"type": ["play_request"]}},
        {"type": "recv", "t": 2.0, "seat": 0, "line": "{}"},
        {"type": "send", "t": 1.0, "seat": 9, "msg": {"type": "play_request"}},
        {"type": "recv", "t": 2.0, "seat": 9, "line": "{}"},
        {"type": "send", "t": -1e308, "seat": 2, "msg": {"type": "play_request"}},
        {"type": "recv", "t": 1e308, "seat": 2, "line": "{}"},
    ]
    crafted_path = tmp_path / "crafted.jsonl"
    body = [json.dumps(entry) for entry in crafted]
    crafted_path.write_text("\n".join([lines[0], *body, *lines[1:]]) + "\n")
    times = decision_times(read_log(crafted_path).matches[0])
    assert [len(seconds) for seconds in times] == [asked[seat] for seat in range(4)]
    result = replay(crafted_path, "--times")
    assert result.exit_code == 0, result.output
    assert "inf" not in result.output


def with_cpu(source: Path, target: Path) -> None:
    """Copy the log giving each reply of seat 2 a CPU time of 5 ms, seat 3's first a crafted
    negative one, seats 0 and 1 none (an older log, no group)."""
    crafted = iter(["0.004", "-1.0"])  # its hello, then its first reply; JSON has no NaN, msgspec refuses 1e999
    lines = []
    for line in source.read_text().splitlines():
        entry = json.loads(line)
        entry.pop("cpu", None)
        text = json.dumps(entry, separators=(",", ":"))
        if entry["type"] == "recv" and entry["seat"] == 2:
            text = text[:-1] + ',"cpu":0.005}'
        elif entry["type"] == "recv" and entry["seat"] == 3:
            text = text[:-1] + f',"cpu":{next(crafted, "0.004")}}}'
        lines.append(text)
    target.write_text("\n".join(lines) + "\n")


def test_cpu_per_decision_is_read_beside_the_wall_time(match_log: MatchLogs, tmp_path: Path) -> None:
    path = tmp_path / "cpu.jsonl"
    with_cpu(match_log("american"), path)
    match = read_log(path).matches[0]
    cpu = decision_cpu(match)
    walls = decision_times(match)
    assert cpu[0] == [] and cpu[1] == []
    assert cpu[2] == [0.005] * len(walls[2])
    assert cpu[3] == [0.0] + [0.004] * (len(walls[3]) - 1)  # -1 read as 0
    summary = summarize(walls[2], cpu[2])
    assert summary is not None and (summary.cpu_median_ms, summary.cpu_p99_ms) == (5.0, 5.0)
    plain = summarize(walls[0], cpu[0])
    assert plain is not None and plain.cpu_median_ms is None
    lines = replay("--times", path).output.splitlines()
    assert lines[1].endswith("cpu median  cpu p99")
    assert lines[2].endswith("-        -") and lines[4].endswith("5.0      5.0")
    data = json.loads(replay("--times", "--json", path).output)
    assert data["seats"][2]["times"]["cpu_p99_ms"] == 5.0 and data["seats"][0]["times"]["cpu_p99_ms"] is None
