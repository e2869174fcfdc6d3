"""``referee bench cluster``: what going through Dask costs a ladder match.

The same matches (four Python random bots, fresh and sandboxed as a ladder plays them) are
played by calling the worker's function (``referee.ladder.cluster_worker.play_task``) in this process
and through a one-worker local Dask cluster (submit, wait, fetch the result), alternating, one
at a time; the difference is Dask's overhead per match. The coordinator's check of each
returned log (read, verify against the rules engine, compare with the outcome) is timed too.
Needs the cluster extra (``pip install -e '.[cluster]'``).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import msgspec

from referee.bench.match import RANDOM_BOT
from referee.ladder.cluster_check import check_result
from referee.ladder.cluster_dask import dask_distributed, local_cluster
from referee.ladder.cluster_worker import MatchDone, MatchTask, play_task
from referee.match.config import MatchConfig
from referee.players.bot_config import BotEntry
from referee.rules.presets import ruleset
from referee.seeds import series_seed
from referee.store.records import ScheduledMatch


class ClusterBench(msgspec.Struct, frozen=True, kw_only=True):
    """The result of ``referee bench cluster`` (times per match)."""

    matches: int
    direct_ms: float
    dask_ms: float
    overhead_ms: float
    """``dask_ms - direct_ms``: scheduling, the task, the result's transfer."""
    result_bytes: int
    """Size of one returned result (the outcome and the log, as JSON)."""
    check_ms: float
    """The coordinator's check of a returned log (CPU in this process)."""


def bench_cluster(matches: int = 16, cwd: str | None = None) -> ClusterBench:
    """Play ``matches`` (plus one to warm up) both ways; figures per match."""
    dask = dask_distributed()
    rules = ruleset("american")
    command = RANDOM_BOT.format(python=sys.executable, seed=1)
    bots = [BotEntry(name="bot", command=command)]
    scheduled = [ScheduledMatch(i, 0, ("bot",) * rules.players, series_seed(1, i)) for i in range(matches + 1)]
    tasks = [
        msgspec.json.encode(
            MatchTask(
                set_index=m.set_index,
                rotation=m.rotation,
                seats=m.seats,
                seed=m.seed,
                rules=rules,
                bots=bots,
                cwd=cwd,
                config=MatchConfig(),
                sandbox_mode="auto",
            )
        )
        for m in scheduled
    ]
    direct = through = checking = 0.0
    size = 0
    cluster = local_cluster(1)
    client = dask.Client(cluster)
    try:
        client.submit(play_task, tasks[0], pure=False).result()  # warm up both sides
        play_task(tasks[0])
        for match, task in zip(scheduled[1:], tasks[1:], strict=True):
            start = time.perf_counter()
            play_task(task)
            direct += time.perf_counter() - start
            start = time.perf_counter()
            value = client.submit(play_task, task, pure=False).result()
            through += time.perf_counter() - start
            size = len(value)
            start = time.process_time()
            done = msgspec.json.decode(value, type=MatchDone)
            check_result(match, rules, {"bot": command}, done, Path("unused.jsonl"))
            checking += time.process_time() - start
    finally:
        client.close()
        cluster.close()
    return ClusterBench(
        matches=matches,
        direct_ms=round(direct / matches * 1000, 1),
        dask_ms=round(through / matches * 1000, 1),
        overhead_ms=round((through - direct) / matches * 1000, 1),
        result_bytes=size,
        check_ms=round(checking / matches * 1000, 1),
    )
