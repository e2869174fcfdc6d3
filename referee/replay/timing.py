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


def decision_times(match: LogMatch) -> list[list[float]]:
    """Seconds from each request to the seat's next line, by seat, in the order asked.

    A log is untrusted input: a ``send`` whose message is not a JSON object is no request, a
    seat out of range or a time that is not a finite number is skipped."""
    times: list[list[float]] = [[] for _ in match.header.seats]
    asked: dict[int, float] = {}
    for line in match.entries:
        entry = line.entry
        if isinstance(entry, Sent):
            if sent_type(entry) in REQUESTS:
                asked[entry.seat] = entry.t
        elif isinstance(entry, Received):
            start = asked.pop(entry.seat, None)
            if start is None or not 0 <= entry.seat < len(times):
                continue
            took = entry.t - start
            if math.isfinite(took):
                times[entry.seat].append(max(0.0, took))
    return times


class TimeSummary(msgspec.Struct, frozen=True, kw_only=True):
    """Decision times of one seat or bot, in milliseconds (percentiles by nearest rank)."""

    decisions: int
    median_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float


def summarize(seconds: Iterable[float]) -> TimeSummary | None:
    """The summary of some decision times, or ``None`` when there are none."""
    ordered = sorted(seconds)
    if not ordered:
        return None

    def rank(p: float) -> float:
        return round(ordered[max(0, math.ceil(p * len(ordered)) - 1)] * 1000, 1)

    return TimeSummary(
        decisions=len(ordered),
        median_ms=rank(0.5),
        p90_ms=rank(0.9),
        p99_ms=rank(0.99),
        max_ms=round(ordered[-1] * 1000, 1),
    )


def time_lines(rows: Sequence[tuple[str, TimeSummary | None]]) -> list[str]:
    """A small table: one row per seat or bot (names made safe for a terminal by the caller)."""
    width = max([4, *(len(name) for name, _ in rows)])
    lines = [f"{'':{width}}  decisions  median ms  p90 ms  p99 ms  max ms"]
    for name, summary in rows:
        if summary is None:
            lines.append(f"{name:{width}}  {0:9}  (no decision answered)")
            continue
        lines.append(
            f"{name:{width}}  {summary.decisions:9}  {summary.median_ms:9.1f}  {summary.p90_ms:6.1f}"
            f"  {summary.p99_ms:6.1f}  {summary.max_ms:6.1f}"
        )
    return lines
