"""``referee ladder times``: each bot's time per decision over the ladder's finished matches,
read from their replay logs (``referee.replay.timing``).

A ladder measures strength at a clock; how much of that clock each bot used belongs beside
the result (a bot that wins by thinking ten times longer has not shown the same thing). The
store says which bot sat where in each match and where its log is; a log that is missing or
unreadable is counted and named, not fatal: the figures are for the logs that remain.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from referee.ladder.setup import logs_folder
from referee.replay.reader import LogError, read_log
from referee.replay.timing import TimeSummary, decision_cpu, decision_times, summarize
from referee.store.writer import LadderStore


@dataclass
class LadderTimes:
    """Decision times by bot (in the order the ladder lists its bots) and the logs left out."""

    bots: dict[str, TimeSummary | None]
    matches: int
    """Finished matches whose logs were read."""
    unreadable: list[str] = field(default_factory=list)


def ladder_times(store: LadderStore) -> LadderTimes:
    """Read every finished match's log and pool each bot's decision times."""
    pooled: dict[str, list[float]] = {name: [] for name, _ in store.bots()}
    pooled_cpu: dict[str, list[float]] = {}
    read = 0
    unreadable: list[str] = []
    folder = logs_folder(store.path)
    for row in store.match_rows():
        if row["status"] != "done" or not row["log"]:
            continue
        seats = json.loads(row["seats"])
        path = Path(row["log"])
        if not path.is_absolute() and not path.exists():  # recorded relative to another folder
            path = folder / path.name
        try:
            match = read_log(path).last_of(row["match_id"])
            if match is None:
                raise LogError(f"no match {row['match_id']} in it")
            times, cpu = decision_times(match), decision_cpu(match)
        except (LogError, OSError, msgspec.MsgspecError, ValueError) as err:
            unreadable.append(f"{path}: {err}")
            continue
        read += 1
        for seat, seconds in enumerate(times):
            if seat < len(seats):
                pooled.setdefault(seats[seat], []).extend(seconds)
                pooled_cpu.setdefault(seats[seat], []).extend(cpu[seat])
    summaries = {name: summarize(times, pooled_cpu.get(name, ())) for name, times in pooled.items()}
    return LadderTimes(summaries, read, unreadable)
