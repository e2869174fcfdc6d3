"""``ladder run --analyze N``: while the ladder plays, a process of its own at the lowest CPU
priority (nice 19, one core: ``referee analyze``'s valuing in that process) analyses up to N
finished matches per bot not analysed yet, newest first (``referee.ladder.analysis``: each one
stored in one short transaction, so the bot pages show it at once, and a worker stopped at any
moment keeps what it stored).

It never stops the ladder: a match that cannot be analysed is skipped and said so, any other
error is told on stderr and the worker goes on with the next match (or ends alone); the ladder
only starts it and, at its end, tells it so. Once told, the worker finishes what it was asked
(up to N matches per bot, counted from its start) and ends; Ctrl-C stops it at once, and
``referee ladder analyze`` goes on later from the next match not analysed.

The worker opens the ladder's database as it is (never creating nor migrating it: the ladder
does), waiting for the ladder to have made it."""

from __future__ import annotations

import contextlib
import os
import select
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from referee.analysis import Budget
from referee.ladder.analysis import AnalyseSettings, analyse_one
from referee.store.analysis import open_existing, result_bots, to_analyse

NICE = 19
IDLE = 2.0
"""Seconds the worker waits when nothing is left to analyse for now."""
STOP_WAIT = 5.0
"""Seconds the ladder waits for a worker it stops (then kills it)."""

Say = Callable[[str], None]


def _say(line: str) -> None:
    print(f"analysis: {line}", file=sys.stderr, flush=True)


def analyse_some(
    db: Path, con: sqlite3.Connection, per_bot: int, done: dict[str, int], skipped: set[int], *,
    settings: AnalyseSettings, say: Say,
) -> int:  # fmt: skip
    """One pass: for each bot with fewer than ``per_bot`` matches analysed by this worker (in
    ``done``), its newest finished match not analysed yet (nor ``skipped``: a log that cannot
    be analysed is tried once); how many were analysed or skipped."""
    bots = result_bots(con)
    worked = 0
    for bot in bots:
        if done.get(bot, 0) >= per_bot:
            continue
        todo = [m for m in to_analyse(con, bot, len(skipped) + 1) if m.match not in skipped]
        if not todo:
            continue
        match = todo[0]
        try:
            why = analyse_one(db, con, match, settings)
        except Exception as err:  # never the ladder's end: told, and the next match
            why = f"{type(err).__name__}: {err}"
        worked += 1
        if why is None:
            done[bot] = done.get(bot, 0) + 1
        else:
            skipped.add(match.match)
            say(f"match {match.key} ({bot}): skipped, {why}"[:400])
    return worked


def work(db: Path, per_bot: int, settings: AnalyseSettings, *, ended: Callable[[], bool], say: Say = _say) -> int:
    """Analyse until every bot has ``per_bot`` matches done, or nothing is left once ``ended()``
    (the ladder over); the matches analysed or skipped."""
    done: dict[str, int] = {}
    skipped: set[int] = set()
    con = None
    while con is None:
        con = open_existing(db)
        if con is None:
            if ended():
                return 0
            time.sleep(IDLE / 4)
    total = 0
    try:
        while True:
            over = ended()  # read before the pass: a match finished just before the end is seen
            worked = analyse_some(db, con, per_bot, done, skipped, settings=settings, say=say)
            total += worked
            if worked == 0:
                if over:
                    return total
                time.sleep(IDLE)
    finally:
        con.close()


def _stdin_closed() -> bool:
    """The ladder's end: it closes the worker's stdin (or the ladder is gone)."""
    ready, _, _ = select.select([sys.stdin], [], [], 0)
    return bool(ready) and os.read(sys.stdin.fileno(), 1) == b""


def main(argv: list[str]) -> int:
    """``python -m referee.ladder.background DB N BUDGET SEED``: the worker itself."""
    db, per_bot, budget, seed = Path(argv[0]), int(argv[1]), int(argv[2]), int(argv[3])
    with contextlib.suppress(OSError):
        os.nice(NICE)
    settings = AnalyseSettings(seed=seed, budget=Budget.at_most(budget), workers=1)
    try:
        total = work(db, per_bot, settings, ended=_stdin_closed)
    except KeyboardInterrupt:
        return 130
    except Exception as err:  # the worker ends; the ladder goes on
        _say(f"stopped: {type(err).__name__}: {err}"[:400])
        return 1
    _say(f"{total} match{'es' if total != 1 else ''} analysed in the background")
    return 0


class BackgroundAnalysis:
    """The worker process, as the ladder starts and ends it."""

    def __init__(self, db: Path, per_bot: int, budget: int, seed: int = 1) -> None:
        command = [sys.executable, "-m", "referee.ladder.background", str(db), str(per_bot), str(budget), str(seed)]
        self.process: subprocess.Popen[bytes] | None = None
        try:
            self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
        except OSError as err:
            _say(f"not started: {err}")

    def finish(self, wait: bool) -> int | None:
        """Tell the worker the ladder is over; ``wait``: let it finish what it was asked (Ctrl-C
        stops it), else stop it now. Its exit status (``None``: not started)."""
        process = self.process
        if process is None:
            return None
        with contextlib.suppress(OSError):
            assert process.stdin is not None
            process.stdin.close()
        if not wait:
            process.terminate()
        try:
            return process.wait(None if wait else STOP_WAIT)
        except (KeyboardInterrupt, subprocess.TimeoutExpired):
            process.kill()
            return process.wait()


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
