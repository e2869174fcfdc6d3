"""The search bots' tests (search and ISMCTS) play real matches through `referee match` in a
subprocess and read their logs: the entries, the time a seat took per decision
(``referee.replay.timing``) and the bank the referee's clock left it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from referee.replay.reader import read_log
from referee.replay.timing import decision_times

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
HEURISTIC = f"{PY} sample_bots/python/heuristic_bot.py"


def random_bot(seed: int) -> str:
    return f"{PY} sample_bots/python/random_bot.py --seed {seed}"


def match(
    variant: str, bots: list[str], seed: int, log: Path, *extra: str, rounds: int = 1, timeout: float = 300
) -> dict[str, Any]:
    """``referee match --json`` of ``rounds`` rounds (``extra``: more options); its result."""
    done = subprocess.run(
        [PY, "-m", "referee.cli", "match", "--json", "--variant", variant, "--seed", str(seed),
         "--set", "end=rounds", "--set", f"rounds={rounds}", "--log", str(log), *extra, *bots],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


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
