"""``referee bench fairness``: does a bot that spins slow down its neighbours?

A table of the search bot (fixed work: ``--playouts``, so its time per decision measures the
CPU it gets, not its clock), a spinner (``spinner_bot.py``: ``N`` busy loops as threads,
processes or ``setsid`` processes, started at its hello) and two random bots. Each scenario
plays the same seeded matches; the search bot's time per decision comes from the logs
(``referee.replay.timing``), with every seat's time-outs. The baseline has a random bot where
the spinner sits. With ``--compare`` every scenario is also played without control groups
(``BotLimits(group=None)``: what the referee did before them). Figures go to
``docs/performance.md``; no test asserts a speed.
"""

from __future__ import annotations

import contextlib
import functools
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import msgspec
import trio

from protocol.ruleset import RuleSet
from referee.match.config import MatchConfig
from referee.match.play import TableOptions, play_match
from referee.players.process import BotLimits
from referee.replay.reader import read_log
from referee.replay.timing import decision_cpu, decision_times, summarize
from referee.rules.presets import ruleset
from referee.sandbox.bwrap import Sandbox

SPINNER = Path(__file__).resolve().parent / "spinner_bot.py"
REPO = Path(__file__).resolve().parents[2]
SCENARIOS = ("none", "threads", "processes", "setsid")


class FairnessCase(msgspec.Struct, frozen=True, kw_only=True):
    scenario: str
    """``none`` (no spinner at the table), ``threads``, ``processes`` or ``setsid``."""
    spinners: int
    groups: bool
    """Whether every bot had its control group."""
    freeze_idle: bool = False
    """Whether every bot's group was frozen while it was not being asked."""
    matches: int
    decisions: int
    """The search bot's decisions timed."""
    median_ms: float
    p99_ms: float
    max_ms: float
    waited_p99_ms: float | None = None
    """The p99 of each decision's wall time less the search bot's own CPU time in it (from its
    control group): time it was ready to think and did not get a core, the share a neighbour
    took. Its own work varies (a pass costs it 80 to 120 ms, a late play 5), this does not."""
    timeouts: int
    """Seats dropped for a time-out (any seat) over all the matches."""
    busy: int = 0
    """Busy loops of other work on the machine all along, outside the referee's groups."""
    seconds: float


def _table(scenario: str, spinners: int, playouts: int) -> list[str]:
    python = sys.executable
    search = f"{python} {REPO}/sample_bots/python/search_bot.py --playouts {playouts}"
    random_bot = f"{python} {REPO}/sample_bots/python/random_bot.py"
    middle = random_bot if scenario == "none" else f"{python} {SPINNER} {scenario} {spinners}"
    return [search, middle, random_bot, random_bot]


@contextlib.contextmanager
def _other_work(busy: int) -> Iterator[None]:
    """``busy`` processes spinning beside the tables, in the referee's own group (not a bot's),
    at nice 0 even when the bench itself runs under ``nice``."""
    spin = [sys.executable, "-c", "while True: pass"]
    loops = [subprocess.Popen(spin, preexec_fn=_nice_zero) for _ in range(busy)]  # noqa: PLW1509 - no threads yet
    try:
        yield
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()


def _played(
    seats: list[str], rules: RuleSet, options: TableOptions, logs: list[Path]
) -> tuple[list[float], list[float], int]:
    """One seeded match per log: the search bot's wall time per decision, the part of each it
    waited for a core (wall less its own CPU), and every seat's time-outs."""
    times: list[float] = []
    waited: list[float] = []
    timeouts = 0
    for number, log in enumerate(logs):
        play = functools.partial(play_match, seats, rules, options=options)
        outcome = trio.run(functools.partial(play, seed=number + 1, log_path=log))
        timeouts += [s.status for s in outcome.seats].count("timeout")
        match = read_log(log).matches[0]
        wall, cpu = decision_times(match)[0], decision_cpu(match)[0]
        times += wall
        if len(cpu) == len(wall):
            waited += [max(0.0, w - c) for w, c in zip(wall, cpu, strict=True)]
    return times, waited, timeouts


def _nice_zero() -> None:
    with contextlib.suppress(OSError):  # unprivileged, a process cannot raise its priority back
        os.setpriority(os.PRIO_PROCESS, 0, 0)


def bench_fairness(
    *,
    spinners: int = 48,
    matches: int = 4,
    playouts: int = 30,
    per_move: float = 1.0,
    scenarios: tuple[str, ...] = SCENARIOS,
    compare: bool = False,
    freeze_idle: bool = False,
    sandbox: Sandbox | None = None,
    busy: int = 0,
) -> list[FairnessCase]:
    """Every scenario (each without groups too when ``compare``), ``matches`` seeded matches each;
    with ``busy``, that many busy loops outside the referee's groups all along (other work on
    the machine, as the operator's own jobs would be)."""
    rules = ruleset("american", {"end": "rounds", "rounds": 2})
    config = MatchConfig(per_decision=per_move, bank=10.0, startup=30.0)
    cases: list[FairnessCase] = []
    with tempfile.TemporaryDirectory(prefix="fairness-") as folder, _other_work(busy):
        for scenario in scenarios:
            for groups in (True, False) if compare else (True,):
                limits = BotLimits(sandbox=sandbox, freeze_idle=freeze_idle and groups)
                if not groups:
                    limits = BotLimits(sandbox=sandbox, group=None)
                seats = _table(scenario, spinners, playouts)
                start = time.perf_counter()
                options = TableOptions(config=config, cwd=REPO, limits=limits)
                logs = [Path(folder) / f"{scenario}-{groups}-{number}.jsonl" for number in range(matches)]
                times, waited, timeouts = _played(seats, rules, options, logs)
                summary = summarize(times)
                assert summary is not None
                waits = summarize(waited)
                cases.append(
                    FairnessCase(
                        scenario=scenario,
                        spinners=0 if scenario == "none" else spinners,
                        groups=groups,
                        freeze_idle=freeze_idle and groups,
                        matches=matches,
                        decisions=summary.decisions,
                        median_ms=summary.median_ms,
                        p99_ms=summary.p99_ms,
                        max_ms=summary.max_ms,
                        waited_p99_ms=waits.p99_ms if waits is not None else None,
                        timeouts=timeouts,
                        busy=busy,
                        seconds=round(time.perf_counter() - start, 2),
                    )
                )
    return cases
