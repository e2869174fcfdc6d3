"""A finished match as text for the terminal: the score table, the result, each seat's status,
and for every fault an explanation a bot author can act on (``FaultReport``: the referee's
message, the offending line, the hint, the last lines of stderr, the command to look closer)."""

from __future__ import annotations

import shlex

from referee.match.outcome import MatchOutcome
from referee.names import printable, seat_label
from referee.shared import FaultReport

TABLE_WIDTH = 100
"""Widest score table with the seats' names as column headings; wider ones use seat numbers."""


def format_outcome(outcome: MatchOutcome) -> str:
    """The score table (one row per round), the result, each seat's status, the faults."""
    names = [printable(s.name) for s in outcome.seats]
    width = max(8, *(len(n) for n in names))
    headings = names
    if 6 + (width + 1) * len(names) > TABLE_WIDTH:
        width = 8
        headings = [f"seat {s}" for s in range(len(names))]
    lines = [f"match {outcome.match_id}  variant {outcome.variant}  seed {outcome.seed}"]
    lines.append("round " + " ".join(f"{h:>{width}}" for h in headings))
    totals = [0] * len(names)
    for number, changes in enumerate(outcome.round_scores, 1):
        totals = [t + c for t, c in zip(totals, changes, strict=True)]
        lines.append(f"{number:>5} " + " ".join(f"{t:>{width}}" for t in totals))
    winners = ", ".join(names[w] for w in outcome.winners) or "nobody"
    tie = " (tie)" if len(outcome.winners) > 1 else ""
    rounds = f"{outcome.rounds} round{'' if outcome.rounds == 1 else 's'}"
    lines.append(f"result: {winners} won{tie}; {outcome.reason} after {rounds}")
    commands = {report.seat: report.command for report in outcome.faults if report.command}
    for seat in outcome.seats:
        extra = "".join(
            f", {label} {count}"
            for label, count in (("substitutions", seat.substitutions), ("penalties", seat.penalties))
            if count
        )
        lines.append(f"  {who(seat.seat, names[seat.seat], commands.get(seat.seat))}: {seat.status}{extra}")
    lines += [f"note: {printable(note)}" for note in outcome.notes]
    for report in outcome.faults:
        lines += fault_lines(report, outcome.log)
    if outcome.log:
        lines.append(f"log: {outcome.log}")
    return "\n".join(lines)


def who(seat: int, name: str, command: str | None) -> str:
    """A seat as a line names it: ``seat 1 NAME``; a bot known by no name but its seat's, by
    its command (``seat 0 (python3 bot.py)``), else once (``seat 0``, not ``seat 0 seat 0``)."""
    if name != seat_label(seat):
        return f"seat {seat} {name}"
    return f"seat {seat} ({printable(command, 120)})" if command else f"seat {seat}"


def why_lines(report: FaultReport) -> list[str]:
    """What the referee saw, what the bot sent, how its program ended, the hint and its stderr:
    a fault's explanation, whether of a seat in a match or of a bot that could not start."""
    lines = [f"  referee: {printable(report.message)}"]
    if report.folder is not None:  # a failed start outside a match: no seat names what was started
        lines.append(f"  started: {printable(report.command or '', 200)} (in {printable(report.folder, 200)})")
    if report.line is not None:
        lines.append(f"  it sent: {printable(report.line, 120) or '(an empty line)'}")
    if report.exit:
        lines.append(f"  its program {report.exit}")
    if report.hint:
        lines.append(f"  hint: {report.hint}")
    if report.stderr:
        shown = len(report.stderr)
        of = f", last {shown} of {report.stderr_lines}" if report.stderr_lines > shown else ""
        lines.append(f"  stderr{of}:")
        lines += [f"    | {line}" for line in report.stderr]
    elif report.exit is not None:
        lines.append("  stderr: (empty)")
    return lines


def fault_lines(report: FaultReport, log: str | None) -> list[str]:
    """One fault, explained: indented lines under the seat list."""
    rule = f" [{report.rule}]" if report.rule else ""
    action = {
        "forfeit": "dropped: the referee played the seat from then on",
        "penalty": "penalised: revoke penalty and a redeal",
        "substitute": "the referee's move was played for it",
        "reconnect": "disconnected: the referee waited for it to connect again",
    }.get(report.action, report.action)
    head = f"{who(report.seat, printable(report.name), report.command)}: {report.reason}{rule} ({action})"
    lines = [head, *why_lines(report)]
    if log:
        lines.append(f"  look closer: referee replay {shlex.quote(log)} --seat {report.seat}")
    else:
        lines.append("  look closer: run again with --log FILE, then referee replay FILE --seat N")
    return ["! " + lines[0], *lines[1:]]
