"""The analysis of a match as data (``referee analyze --json``, schema ``SCHEMA``) and as text.

Every figure is in points of the round (the seat's score change: lower is better) unless
named a *chance* (of finishing first, 0 to 1). Seats count from 0, rounds and tricks from 0, as
in the log. docs/analysis.md describes each field.
"""

from __future__ import annotations

from typing import Final, Literal, TypeAlias

import msgspec

from referee.analysis.estimate import Budget, ChoiceValue, Interval
from referee.analysis.infoset import Kind, Phase
from referee.analysis.luck import RoundLuck
from referee.names import printable

SCHEMA: Final = 1
Verdict: TypeAlias = Literal["best", "good", "inaccuracy", "mistake", "blunder", "forced", "fallback", "not_analysed"]
ERRORS: Final = ("inaccuracy", "mistake", "blunder")


class DecisionReport(msgspec.Struct, kw_only=True):
    index: int
    """Its place among the analysed seats' decisions, in the order made."""
    seat: int
    round: int
    trick: int | None
    """``None`` for a pass, a declaration or a moon choice."""
    kind: Kind
    phase: Phase
    chosen: str
    verdict: Verdict
    """A grade (``best`` to ``blunder``, see docs/analysis.md), or why there is none:
    ``forced`` (one legal choice), ``fallback`` (the referee moved for the seat),
    ``not_analysed`` (``reason`` says why)."""
    best: str | None = None
    loss: Interval | None = None
    """Points: the choice made minus the best choice, 95% interval (paired)."""
    chance_loss: Interval | None = None
    """Chance of finishing first lost against the best choice."""
    choices: list[ChoiceValue] = msgspec.field(default_factory=list)
    """The best candidates valued (``SHOWN``, 12) and the choice made, best first."""
    valued: int = 0
    """Candidates valued (a pass in American Hearts: all 286)."""
    worlds: int = 0
    exact_worlds: int = 0
    playouts: int = 0
    reason: str | None = None


class SeatSummary(msgspec.Struct, kw_only=True):
    seat: int
    name: str
    decisions: int
    analysed: int
    """Decisions with more than one choice, valued."""
    mean_loss: float
    """Mean loss per analysed decision (points)."""
    loss_by_phase: dict[str, float]
    """Mean loss per analysed decision of each phase: pass, lead, follow, discard, declare."""
    total_loss: float
    grades: dict[str, int]
    luck: float
    """Sum over rounds of ``RoundLuck.luck``: positive, the cards were better than the table's."""
    expected: float
    """Sum over rounds of the points the dealt cards were worth (``RoundLuck.dealt``)."""
    actual: int
    """Points the seat took over the analysed rounds."""


class Analysis(msgspec.Struct, kw_only=True):
    schema: int = SCHEMA
    log: str
    match_id: str
    variant: str
    seats: list[SeatSummary]
    decisions: list[DecisionReport]
    worst: list[int]
    """Indices in ``decisions`` of the three largest graded losses, worst first."""
    luck: list[RoundLuck]
    seed: int
    policy: str
    budget: Budget
    seconds: float = 0.0
    playouts: int = 0


def _iv(value: Interval) -> str:
    half = (value.high - value.low) / 2
    return f"{value.mean:.2f} ± {half:.2f}"


def decision_line(d: DecisionReport, names: list[str]) -> str:
    where = f"round {d.round}" + (f" trick {d.trick}" if d.trick is not None else "")
    head = f"{where:<17} {names[d.seat]:<12} {d.phase:<8} played {d.chosen:<10}"
    if d.loss is None or d.best is None:
        return f"{head} {d.verdict}" + (f" ({d.reason})" if d.reason else "")
    chance = f", chance {100 * d.chance_loss.mean:+.1f}%" if d.chance_loss and d.chance_loss.mean else ""
    if d.best == d.chosen:
        return f"{head} best ({d.worlds} worlds)"
    return f"{head} best {d.best:<10} loss {_iv(d.loss)} pts{chance}  {d.verdict}"


def render(analysis: Analysis) -> str:
    names = [s.name for s in sorted(analysis.seats, key=lambda s: s.seat)]
    seat_names = {s.seat: printable(s.name) for s in analysis.seats}
    names = [seat_names.get(i, f"seat {i}") for i in range(max(seat_names, default=0) + 1)]
    lines = [
        f"analysis of {analysis.log} (match {analysis.match_id}, {analysis.variant}); "
        f"policy {analysis.policy}, seed {analysis.seed}"
    ]
    lines.append("")
    lines.append("the three worst decisions:" if analysis.worst else "no decision graded an error")
    lines += ["  " + decision_line(analysis.decisions[i], names) for i in analysis.worst]
    for s in analysis.seats:
        lines += ["", f"seat {s.seat} ({printable(s.name)}): {s.analysed} of {s.decisions} decisions analysed"]
        phases = "  ".join(f"{k} {v:.2f}" for k, v in s.loss_by_phase.items())
        lines.append(f"  mean loss {s.mean_loss:.2f} pts per decision ({phases}); total {s.total_loss:.1f} pts")
        lines.append("  grades: " + ", ".join(f"{k} {v}" for k, v in s.grades.items()))
        verdict = "the cards" if abs(s.luck) > s.total_loss else "the play"
        lines.append(
            f"  luck {s.luck:+.1f} pts (cards worth {s.expected:.1f}, took {s.actual}); lost more on {verdict}"
        )
    lines += ["", "luck by round (points the dealt cards were worth, against the table's):"]
    for r in analysis.luck:
        after = f", after the pass {_iv(r.after_pass)}" if r.after_pass else ""
        lines.append(
            f"  round {r.round} {names[r.seat]:<12} {_iv(r.dealt)} vs {r.table:.2f}: "
            f"luck {_iv(r.luck)}{after}; took {r.actual}"
        )
    lines += ["", "every decision:"]
    lines += ["  " + decision_line(d, names) for d in analysis.decisions]
    lines.append(f"\n{analysis.playouts} playouts in {analysis.seconds:.1f} s")
    return "\n".join(lines)
