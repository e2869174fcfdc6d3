"""Reading a search bot's replay log in its tests: the entries, the time it took per decision
(``referee.replay.timing``) and the bank the referee's clock left it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from referee.replay.reader import read_log
from referee.replay.timing import decision_times


def entries(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def decision_seconds(log: Path, seat: int) -> list[float]:
    """For each request to ``seat``, the time from the request to its reply (from the log)."""
    return decision_times(read_log(log).matches[0])[seat]


def bank_left_ms(log: Path, seat: int) -> int:
    """The seat's bank as the referee's last request to it gave it, in milliseconds."""
    sent = [e["msg"] for e in entries(log) if e["type"] == "send" and e["seat"] == seat]
    requests = [msg for msg in sent if msg["type"].endswith("_request")]
    return int(requests[-1]["time"]["bank_ms"])
