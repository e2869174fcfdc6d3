"""How long each seat took to answer, read from a replay log's ``t`` fields.

A bot author wants to know how close to the clock a bot plays, and a ladder reports the time
per decision beside the strength it measures (docs/bots.md). The log holds both ends of every
decision: the request the referee sent (a ``send`` entry of a ``*_request``) and the next line
it received from that seat (``recv``). The time between is what the bot spent thinking plus
one round trip through the referee, as the clock saw it. A request never answered (a timeout,
a crash) has no time: the faults say what happened there.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import msgspec

from referee.log_format import Received, Sent
from referee.replay.cursor import REQUESTS, sent_type
from referee.replay.reader import LogMatch


def _answers(match: LogMatch) -> list[list[tuple[float, float | None]]]:
    """By seat, in the order asked: each answered request's wall seconds (from the request to
    the seat's next line) and the CPU seconds its bot used meanwhile (``None`` when the log
    has none: no control group, or an older log).

    A log is untrusted input: a ``send`` whose message is not a JSON object is no request, a
    seat out of range or a time that is not a finite number is skipped."""
    answers: list[list[tuple[float, float | None]]] = [[] for _ in match.header.seats]
    asked: dict[int, float] = {}
    for line in match.entries:
        entry = line.entry
        if isinstance(entry, Sent):
            if sent_type(entry) in REQUESTS:
                asked[entry.seat] = entry.t
        elif isinstance(entry, Received):
            start = asked.pop(entry.seat, None)
            if start is None or not 0 <= entry.seat < len(answers):
                continue
            took = entry.t - start
            if math.isfinite(took):
                cpu = entry.cpu if entry.cpu is not None and math.isfinite(entry.cpu) else None
                answers[entry.seat].append((max(0.0, took), max(0.0, cpu) if cpu is not None else None))
    return answers


def decision_times(match: LogMatch) -> list[list[float]]:
    """Seconds from each request to the seat's next line, by seat, in the order asked."""
    return [[wall for wall, _ in seat] for seat in _answers(match)]


def decision_cpu(match: LogMatch) -> list[list[float]]:
    """CPU seconds each seat's bot (all its processes) used per answered request, by seat;
    empty for a seat whose log has no such figures."""
    return [[cpu for _, cpu in seat if cpu is not None] for seat in _answers(match)]


class TimeSummary(msgspec.Struct, frozen=True, kw_only=True):
    """Decision times of one seat or bot, in milliseconds (percentiles by nearest rank)."""

    decisions: int
    median_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float
    cpu_median_ms: float | None = None
    """CPU time of all the bot's processes per decision (from its control group), where the
    log has it: beside the wall time it shows a bot that waits (or is starved) from one that
    computes."""
    cpu_p99_ms: float | None = None


def _rank(ordered: Sequence[float], p: float) -> float:
    """The ``p`` quantile of sorted seconds by nearest rank, in milliseconds."""
    return round(ordered[max(0, math.ceil(p * len(ordered)) - 1)] * 1000, 1)


def summarize(seconds: Iterable[float], cpu: Iterable[float] = ()) -> TimeSummary | None:
    """The summary of some decision times (and CPU times), or ``None`` when there are none."""
    ordered = sorted(seconds)
    if not ordered:
        return None
    used = sorted(cpu)
    return TimeSummary(
        decisions=len(ordered),
        median_ms=_rank(ordered, 0.5),
        p90_ms=_rank(ordered, 0.9),
        p99_ms=_rank(ordered, 0.99),
        max_ms=round(ordered[-1] * 1000, 1),
        cpu_median_ms=_rank(used, 0.5) if used else None,
        cpu_p99_ms=_rank(used, 0.99) if used else None,
    )


def time_lines(rows: Sequence[tuple[str, TimeSummary | None]]) -> list[str]:
    """A small table: one row per seat or bot (names made safe for a terminal by the caller)."""
    width = max([4, *(len(name) for name, _ in rows)])
    with_cpu = any(summary is not None and summary.cpu_median_ms is not None for _, summary in rows)
    head = f"{'':{width}}  decisions  median ms  p90 ms  p99 ms  max ms"
    lines = [head + ("  cpu median  cpu p99" if with_cpu else "")]
    for name, summary in rows:
        if summary is None:
            lines.append(f"{name:{width}}  {0:9}  (no decision answered)")
            continue
        cpu = ""
        if with_cpu:
            median, p99 = summary.cpu_median_ms, summary.cpu_p99_ms
            known = median is not None and p99 is not None
            cpu = f"  {median:10.1f}  {p99:7.1f}" if known else f"  {'-':>10}  {'-':>7}"
        lines.append(
            f"{name:{width}}  {summary.decisions:9}  {summary.median_ms:9.1f}  {summary.p90_ms:6.1f}"
            f"  {summary.p99_ms:6.1f}  {summary.max_ms:6.1f}{cpu}"
        )
    return lines
