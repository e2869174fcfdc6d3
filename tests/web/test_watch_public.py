"""What the watch page is told about the log it follows: its name, never the server's path."""

from __future__ import annotations

import os
from pathlib import Path

import msgspec

from referee.web.watch import LogTail


def test_the_page_is_told_the_logs_name_not_its_path(tmp_path: Path) -> None:
    """Issue 43: the watch page named the log by the server's path (``/srv/x/match.jsonl``);
    it names a log by its file name, a ladder's from ``<ladder>`` as its pages do, and an error
    about the log by the same name."""
    log = tmp_path / "secret-place" / "match.jsonl"
    log.parent.mkdir()
    log.write_bytes(b"")
    tail = LogTail(log)
    tail.poll()
    pushed = tail.push("update", 0, 0)
    assert msgspec.json.decode(pushed)["log"] == "match.jsonl" and b"secret-place" not in pushed
    ladder = tmp_path / "class" / "class-logs"
    ladder.mkdir(parents=True)
    (ladder / "00001-0.jsonl").write_bytes(b"")
    tail = LogTail(ladder, folder=ladder)
    tail.poll()
    assert msgspec.json.decode(tail.push("update", 0, 0))["log"] == "<ladder>/class-logs/00001-0.jsonl"
    os.mkfifo(tmp_path / "pipe.jsonl")
    tail = LogTail(tmp_path / "pipe.jsonl")
    tail.poll()
    pushed = tail.push("update", 0, 0)
    assert msgspec.json.decode(pushed)["error"] == "pipe.jsonl is not a regular file"
    assert str(tmp_path).encode() not in pushed
