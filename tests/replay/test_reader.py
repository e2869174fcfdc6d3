"""Reading logs: format versions, entry types from newer referees, several matches in one file,
cut-off and broken files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.replay import LogError, UnsupportedLogFormat, parse_log, read_log
from tests.replay.helpers import MatchLogs, replay


def lines(path: Path) -> list[str]:
    return path.read_text().splitlines()


@pytest.mark.parametrize("version", [0, 3, "1", None])
def test_an_unknown_log_format_is_refused(version: object, match_log: MatchLogs, tmp_path: Path) -> None:
    log = lines(match_log("achterhoeks"))
    header = json.loads(log[0])
    header["log_format"] = version
    path = tmp_path / "old.jsonl"
    path.write_text("\n".join([json.dumps(header), *log[1:]]) + "\n")
    with pytest.raises(UnsupportedLogFormat) as caught:
        read_log(path)
    assert f"log format {json.dumps(version)} is not supported" in str(caught.value)
    assert str(caught.value).endswith("this referee reads 1, 2")
    for args in ((path,), ("--verify", path), ("--json", path)):
        result = replay(*args)
        assert result.exit_code == 3
        assert "is not supported; this referee reads 1, 2" in result.output


def test_unknown_entry_types_and_fields_are_ignored(match_log: MatchLogs, tmp_path: Path) -> None:
    log = [json.loads(line) for line in lines(match_log("achterhoeks"))]
    log.insert(5, {"type": "annotation", "text": "from a newer referee"})
    log[0]["future_field"] = {"x": 1}
    for entry in log:
        if entry["type"] == "send" and entry["msg"]["type"] == "trick_end":
            entry["msg"]["new_field"] = True  # a newer referee may add fields to messages
    path = tmp_path / "newer.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in log))
    result = replay("--verify", path)
    assert result.exit_code == 0 and result.output.startswith("verified"), result.output


def test_several_matches_in_one_file(match_log: MatchLogs, tmp_path: Path) -> None:
    first, second = match_log("achterhoeks").read_bytes(), match_log("moon_choice").read_bytes()
    path = tmp_path / "both.jsonl"
    path.write_bytes(first + second)
    log = read_log(path)
    assert [len(m.entries) + 1 for m in log.matches] == [first.count(b"\n"), second.count(b"\n")]
    result = replay("--verify", path)
    assert result.exit_code == 0
    assert result.output.count("verified") == 2 and result.output.count("match ") == 2
    match_id = log.matches[1].header.match_id
    for which in ("1", match_id):
        chosen = replay("--json", "--match", which, path)
        assert json.loads(chosen.output)["match_id"] == match_id
    refused = replay("--html", tmp_path / "x.html", path)
    assert refused.exit_code == 2 and "choose one with --match" in refused.output
    assert replay("--match", "7", path).exit_code == 2


def test_a_final_line_without_newline_is_ignored(match_log: MatchLogs) -> None:
    data = match_log("achterhoeks").read_bytes()
    cut = data[: len(data) - 5]
    log = parse_log(cut)
    assert log.cut_line == data.count(b"\n")
    assert len(log.matches[0].entries) + 1 == data.count(b"\n") - 1
    only_header = parse_log(data[:50])
    assert only_header.matches == [] and only_header.cut_line == 1


def test_broken_files_are_named(tmp_path: Path, match_log: MatchLogs) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    result = replay(empty)
    assert result.exit_code == 3 and "the log is empty" in result.output
    garbage = tmp_path / "garbage.jsonl"
    good = lines(match_log("achterhoeks"))
    garbage.write_text("\n".join([*good[:10], "not json", *good[10:]]) + "\n")
    with pytest.raises(LogError, match="line 11 is not a log entry"):
        read_log(garbage)
    headless = tmp_path / "headless.jsonl"
    headless.write_text("\n".join(good[1:]) + "\n")
    with pytest.raises(LogError, match="line 1: a 'send' entry before any header"):
        read_log(headless)
    assert replay(headless).exit_code == 3


def test_a_format_1_log_with_an_integer_seed_still_reads_and_verifies(match_log: MatchLogs, tmp_path: Path) -> None:
    """Format 2 writes the seed as a string of digits; a format-1 log (an integer seed) reads
    and verifies as before, and a seed that is no integer is a bad header."""
    log = lines(match_log("achterhoeks"))
    header = json.loads(log[0])
    assert header["log_format"] == 2 and isinstance(header["seed"], str) and header["seed"].isdigit()
    old = {**header, "log_format": 1, "seed": int(header["seed"])}
    path = tmp_path / "format1.jsonl"
    path.write_text("\n".join([json.dumps(old), *log[1:]]) + "\n")
    assert replay("--verify", path).exit_code == 0
    assert read_log(path).matches[0].header.seed_number() == int(header["seed"])
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([json.dumps({**header, "seed": "12abc"}), *log[1:]]) + "\n")
    assert replay("--verify", bad).exit_code != 0
