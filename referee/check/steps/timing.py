"""Summary steps about time: how fast the bot answered, over every step of the check.

Each step times every decision (from the written request to the complete reply line, as the
referee's clock does) and every handshake; these steps judge the lot. A missed limit has
already failed its own step; here it fails again so the time summary is never rosier than
the steps. Answers that take half the limit or more get a warning: a busier machine or a
ladder's shorter clock would turn them into timeouts.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Final

from referee.check.probe import Limits
from referee.check.results import StepResult
from referee.check.steps.base import SummaryStep

WARN_SHARE: Final = 0.5
"""A share of a limit that earns a warning."""


def _ms(value: float) -> str:
    return f"{value:.1f} ms" if value < 100 else f"{value:.0f} ms"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def judge_decisions(results: Sequence[StepResult], limits: Limits, result: StepResult) -> None:
    limit_ms = limits.per_decision * 1000
    timed = [(r.name, d) for r in results for d in r.decisions]
    late = [(name, d) for name, d in timed if d.ms is None]
    answered = [(name, d, d.ms) for name, d in timed if d.ms is not None]
    if late:
        name, first = late[0]
        result.verdict = "fail"
        result.message = f"{len(late)} request(s) got no reply within {limit_ms:.0f} ms (first: {name})"
        result.expected = f"every reply within {limit_ms:.0f} ms"
        result.got = f"no reply to {first.request} {first.id} in step {name}"
        return
    if not answered:
        result.verdict = "skip"
        result.message = "no decisions were made"
        return
    values = [ms for _, _, ms in answered]
    name, worst, worst_ms = max(answered, key=lambda item: item[2])
    result.verdict = "pass"
    result.message = (
        f"{_count(len(values), 'decision')}: median {_ms(statistics.median(values))}, worst {_ms(worst_ms)} "
        f"({worst.request} {worst.id} in {name}), limit {limit_ms:.0f} ms"
    )
    slow = [(n, d, ms) for n, d, ms in answered if ms >= WARN_SHARE * limit_ms]
    if slow:
        result.verdict = "warn"
        result.warnings.append(
            f"{len(slow)} decision(s) took {WARN_SHARE:.0%} of the {limit_ms:.0f} ms limit or more; "
            f"worst {_ms(worst_ms)} ({worst.request} {worst.id} in {name})"
        )


def judge_startup(results: Sequence[StepResult], limits: Limits, result: StepResult) -> None:
    limit_ms = limits.startup * 1000
    measured = [(r.name, r.startup_ms) for r in results if r.startup_ms is not None]
    if not measured:
        result.verdict = "skip"
        result.message = "no handshake completed"
        return
    values = [ms for _, ms in measured]
    name, worst = max(measured, key=lambda item: item[1])
    result.verdict = "pass"
    result.message = (
        f"{_count(len(values), 'start')}: median {_ms(statistics.median(values))} to hello, worst {_ms(worst)} "
        f"({name}), limit {limit_ms:.0f} ms"
    )
    if worst >= WARN_SHARE * limit_ms:
        result.verdict = "warn"
        result.warnings.append(
            f"the slowest start took {_ms(worst)}, {worst / limit_ms:.0%} of the {limit_ms:.0f} ms start-up limit"
        )


decisions = SummaryStep(
    "timing.decisions",
    "Over every request of the check: each answer came within the per-decision limit (2 s by "
    "default); the median and the worst time are reported, and a warning given when any answer "
    "took half the limit or more.",
    judge_decisions,
)
startup = SummaryStep(
    "timing.startup",
    "Over every start of the bot in the check: the time from hello (over TCP: from the "
    "connection) to its hello, median and worst; a warning when a start took half the start-up "
    "limit (10 s by default) or more.",
    judge_startup,
)

STEPS = (decisions, startup)
