"""What `referee replay` tells a bot's author about a faulty bot, from real logs of real bot
processes making the common mistakes (tests/bots/mistake_bot.py): each fault with its hint,
a dropped seat's stderr and exit status under its fault, `--seat` ending with the fault and
the seat's stderr, and `--json` holding them."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from referee.hints import FLUSH, STDOUT_IS_PROTOCOL
from tests.replay.helpers import MatchLogs, replay

CRASH, DEBUG_PRINT, NO_FLUSH = 0, 1, 2
"""The seats of the ``mistakes`` match."""


def ok(*args: str | Path) -> list[str]:
    result = replay(*args)
    assert result.exit_code == 0, result.output
    return result.output.splitlines()


def entries(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def stderr_of(path: Path, seat: int) -> dict[str, Any]:
    (entry,) = [e for e in entries(path) if e["type"] == "stderr" and e["seat"] == seat]
    return entry


def after(lines: list[str], start: str) -> list[str]:
    """The lines after the first one that starts with ``start`` (leading spaces ignored)."""
    at = next(i for i, line in enumerate(lines) if line.strip().startswith(start))
    return lines[at + 1 :]


def rewrite(path: Path, out: Path, seat: int, **fields: Any) -> Path:
    """The log with fields of a seat's ``stderr`` entry changed (what a bot wrote is up to it)."""
    lines = []
    for entry in entries(path):
        if entry["type"] == "stderr" and entry["seat"] == seat:
            entry.update(fields)
        lines.append(json.dumps(entry) + "\n")
    out.write_text("".join(lines))
    return out


def test_each_fault_shows_its_hint_and_a_dropped_seats_stderr(match_log: MatchLogs) -> None:
    path = match_log("mistakes")
    lines = ok(path)
    stderr = stderr_of(path, CRASH)
    written = stderr["text"].splitlines()
    assert len(written) > 10 and stderr["exit_code"] == 1
    # the crash: the hint, then the last 10 lines of its stderr right under the fault, and its exit
    block = after(lines, f"! trick 0: seat {CRASH} mistake-crash: crash: the bot exited with code 1 → forfeit")
    assert block[0].strip() == "hint: the bot's program ended: its stderr (below, or in the log) shows why"
    assert block[1].strip() == f"stderr, last 10 of {len(written)} lines:"
    assert [line.strip() for line in block[2:12]] == [f"| {line}".strip() for line in written[-10:]]
    assert block[2:12][-1].strip() == "| RuntimeError: no strategy for this trick"
    assert any(line.strip() == "| Traceback (most recent call last):" for line in block[2:12])
    assert block[12].strip() == "program: exited with code 1"
    # the debug print on stdout: the line it sent and the hint about stdout
    block = after(lines, f"! trick 0: seat {DEBUG_PRINT} mistake-debug_print: bad_json")
    assert block[0].strip().startswith("it sent: my hand is [")
    assert block[1].strip() == f"hint: {STDOUT_IS_PROTOCOL}"
    assert [block[2].strip(), block[3].strip()] == ["stderr: empty", "program: exited with code 0"]
    # the reply left in the buffer: a time-out, and the question about flushing
    block = after(lines, f"! trick 0: seat {NO_FLUSH} mistake-no_flush: timeout")
    assert block[0].strip().startswith("hint: no reply arrived within the bot's time (the decision limit, then")
    assert "was the line flushed?" in block[0]
    assert "  seat 0 mistake-crash: crash (exited with code 1)" in lines
    assert "  seat 3 first-legal: ok" in lines


def test_the_seat_view_ends_with_the_fault_and_the_stderr(match_log: MatchLogs) -> None:
    path = match_log("mistakes")
    written = stderr_of(path, CRASH)["text"].splitlines()
    lines = ok("--seat", str(CRASH), path)
    # the fault where it happened: after the request it never answered
    at = next(i for i, line in enumerate(lines) if line.startswith("! round 0 trick 0: crash"))
    assert '>> {"type":"play_request"' in lines[at - 1]
    assert "the bot's program ended" in lines[at + 1]
    assert not any(">>" in line or "<<" in line for line in lines[at:])  # nothing more went over the wire
    assert "-- round 1 --" not in lines  # it was gone by then
    # then all of its stderr, its exit status, and the fault again, last
    end = after(lines, f"-- seat {CRASH}'s program --")
    assert end[0] == f"stderr, all {len(written)} lines:"
    assert end[1 : 1 + len(written)] == [f"| {line}" for line in written]
    assert "| Traceback (most recent call last):" in end and "| RuntimeError: no strategy for this trick" in end
    assert end[len(written) + 1 :] == [
        "program: exited with code 1",
        "seat 0 was dropped at round 0 trick 0:",
        "  ! crash: the bot exited with code 1 → forfeit: the referee plays the seat from here",
        "      hint: the bot's program ended: its stderr (below, or in the log) shows why",
    ]
    # a round after it was dropped
    later = ok("--seat", str(CRASH), "--round", "1", path)
    assert "-- round 1 --" in later and "  (seat 0 was dropped before this round: nothing more was sent to it)" in later
    assert later[-3] == "seat 0 was dropped at round 0 trick 0:"


def test_the_seat_view_of_a_debug_print_and_a_time_out(match_log: MatchLogs) -> None:
    path = match_log("mistakes")
    lines = ok("--seat", str(DEBUG_PRINT), path)
    at = next(i for i, line in enumerate(lines) if line.startswith("! round 0 trick 0: bad_json"))
    assert "<< my hand is [" in lines[at - 1]  # right after the line it sent
    assert lines[at + 1].strip() == f"hint: {STDOUT_IS_PROTOCOL}"
    assert '>> {"type":"error","code":"bad_json"' in lines[at + 2]  # what the bot was told, after it
    assert lines[-6:-3] == ["stderr: empty", "program: exited with code 0", "seat 1 was dropped at round 0 trick 0:"]
    assert lines[-3].startswith("  ! bad_json: not a JSON line")
    assert lines[-2].strip().startswith("it sent: my hand is [")
    assert lines[-1].strip() == f"hint: {STDOUT_IS_PROTOCOL}"
    lines = ok("--seat", str(NO_FLUSH), path)
    assert lines[-2].startswith("  ! timeout: no reply within")
    assert FLUSH in lines[-1]
    # a seat without faults ends with its stderr and exit status
    assert ok("--seat", "3", path)[-3:] == ["-- seat 3's program --", "stderr: empty", "program: exited with code 0"]


def test_a_refused_hello(match_log: MatchLogs) -> None:
    path = match_log("wrong_version")
    text = ok(path)
    block = after(text, "! handshake: seat 1 seat 1: no_common_version")
    assert block[0].strip() == 'it sent: {"type": "hello", "version": 2, "name": "mistake-wrong_version"}'
    assert block[1].strip().startswith('hint: answer the referee\'s hello with a "version" from its "versions" list')
    lines = ok("--seat", "1", path)
    assert lines[-4] == "seat 1 was dropped in the handshake:"
    assert lines[-3].startswith("  ! no_common_version: protocol version 2 is not spoken here")
    assert "versions" in lines[-1] and lines[-1].strip().startswith("hint:")


def test_json_has_each_seats_stderr_and_each_faults_hint(match_log: MatchLogs) -> None:
    path = match_log("mistakes")
    result = replay("--json", path)
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    crash = document["seats"][CRASH]
    assert {"seat", "name", "command", "status", "substitutions", "penalties"} <= set(crash)
    assert crash["stderr"] == stderr_of(path, CRASH)["text"] and "Traceback" in crash["stderr"]
    assert (crash["status"], crash["exit_code"], crash["exit"], crash["stderr_dropped"]) == (
        "crash",
        1,
        "exited with code 1",
        0,
    )
    assert document["seats"][3]["stderr"] == "" and document["seats"][3]["exit_code"] == 0
    hints = {f["seat"]: f for f in document["faults"]}
    assert {"seat", "round", "phase", "trick", "reason", "message", "action", "rule", "reply", "line"} <= set(hints[0])
    assert hints[CRASH]["reason"] == "crash" and "stderr" in hints[CRASH]["hint"]
    assert hints[DEBUG_PRINT]["hint"] == STDOUT_IS_PROTOCOL
    assert hints[DEBUG_PRINT]["reply"].startswith("my hand is [")
    assert hints[NO_FLUSH]["reason"] == "timeout" and FLUSH in hints[NO_FLUSH]["hint"]


def test_long_and_hostile_stderr(match_log: MatchLogs, tmp_path: Path) -> None:
    """A log keeps 64 KiB of stderr: the views show its last lines with a count, escapes shown."""
    text = "".join(f"line {i}\n" for i in range(119)) + "\x1b[2J\x1b]0;PWNED\x07 last words\n"
    path = rewrite(match_log("mistakes"), tmp_path / "long.jsonl", CRASH, text=text, dropped_bytes=4096)
    lines = ok("--seat", str(CRASH), path)
    end = after(lines, f"-- seat {CRASH}'s program --")
    assert end[0] == "stderr, last 50 of 120 lines, and 4096 bytes after them that the log did not keep:"
    assert end[1] == "| line 70" and end[50] == "| \\x1b[2J\\x1b]0;PWNED\\x07 last words"
    shown = replay(path).output
    assert "stderr, last 10 of 120 lines, and 4096 bytes" in shown and "| line 110" in shown
    assert "| line 109" not in shown
    for args in ([], ["--seat", str(CRASH)]):
        assert "\x1b" not in replay(*args, path).output and "\x07" not in replay(*args, path).output
    # a signal: the hint names its likely cause
    killed = rewrite(match_log("mistakes"), tmp_path / "killed.jsonl", CRASH, exit_code=-9)
    lines = ok(killed)
    block = after(lines, f"! trick 0: seat {CRASH} mistake-crash: crash")
    assert block[0].strip().startswith("hint: the bot was killed outright: out of memory")
    assert "program: killed by signal 9 (SIGKILL)" in [line.strip() for line in block]


def test_a_log_cut_before_the_stderr_entries(match_log: MatchLogs, tmp_path: Path) -> None:
    path = match_log("mistakes")
    kept = [line for line in path.read_text().splitlines(keepends=True) if '"type":"stderr"' not in line]
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(kept))
    lines = ok(cut)
    block = after(lines, f"! trick 0: seat {CRASH} mistake-crash: crash")
    assert block[1].strip() == "stderr: not in the log (it ends before the bots' programs did)"
    assert ok("--seat", str(CRASH), cut)[-4] == "stderr: not in the log (it ends before the bots' programs did)"
    document = json.loads(replay("--json", cut).output)
    assert document["seats"][CRASH]["stderr"] is None and document["seats"][CRASH]["exit"] is None


def test_a_kept_bots_stderr_entries_are_joined(match_log: MatchLogs, tmp_path: Path) -> None:
    """A ladder's kept bot has an entry per match (no exit status: it still runs); entries for
    one seat in one match are joined."""
    path = match_log("mistakes")
    raw = path.read_text()
    extra = json.dumps({"type": "stderr", "seat": 3, "text": "more\n", "dropped_bytes": 0, "exit_code": None})
    joined = tmp_path / "joined.jsonl"
    joined.write_text(
        raw.replace('{"type":"stderr","seat":3,"text":""', '{"type":"stderr","seat":3,"text":"first"') + extra + "\n"
    )
    seat = json.loads(replay("--json", joined).output)["seats"][3]
    assert (seat["stderr"], seat["exit_code"], seat["exit"]) == ("first\nmore\n", 0, "exited with code 0")
    kept = tmp_path / "kept.jsonl"
    seat_3 = r'\{"type":"stderr","seat":3,"text":"","dropped_bytes":0,"exit_code":0[^}]*\}'  # cpu_seconds may follow
    assert len(re.findall(seat_3, raw)) == 1
    kept.write_text(re.sub(seat_3, lambda _: extra, raw))
    assert ok("--seat", "3", kept)[-3:] == ["stderr, all 1 line:", "| more", "program: still running"]
