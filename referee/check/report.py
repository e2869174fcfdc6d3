"""The human-readable report of ``referee check``: a line per step, then what went wrong
grouped by root cause (``referee.check.causes``: one heading with a count and the steps'
names, then the details of the first of them: what was expected, what came back, the hint,
the transcript, the bot's stderr), the warnings, then the summary. ``--verbose`` shows the
details of every step run instead; ``--json`` prints the ``CheckReport`` itself."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Final

from referee.check.causes import heading
from referee.check.listener import TCP_PREFIX
from referee.check.probe import Limits
from referee.check.results import Cause, CheckReport, StepResult
from referee.hints import exit_text
from referee.names import printable

LABELS: Final = {"pass": "PASS", "warn": "WARN", "fail": "FAIL", "skip": "SKIP"}
NAME_WIDTH: Final = 30
TRANSCRIPT_TAIL: Final = 40
"""Transcript lines shown for a failing step (the last ones) unless verbose."""
STDERR_TAIL: Final = 20
LINE_WIDTH: Final = 240
NAMES_WIDTH: Final = 100
SKIPPED_NAMED: Final = 6
"""Skipped steps named under their heading when there are at most this many."""
CAUSES_NAMED: Final = 5


def header(command: str, variant: str, limits: Limits, steps: int, sandbox: str) -> str:
    """The top of the report; ``sandbox`` is what the bot runs in (``sandbox_description``)."""
    default = " (referee match's default)" if limits.is_match_default else ""
    return (
        f"referee check: {command}\n"
        f"  variant {variant}; clock {limits.clock_text()}{default}; start-up {limits.startup:g} s; "
        f"{steps} step{'s' if steps != 1 else ''}\n"
        f"  sandbox: {sandbox}\n"
    )


SLOW_START: Final = 30.0
"""Seconds of starts in all (the first start times the steps) worth a note before they are spent."""


def start_cost(first: StepResult, steps: int, jobs: int = 1) -> str | None:
    """What a slow start will cost the whole check, said once the first step has measured it:
    every step starts the bot afresh, so a 6 s start makes 46 steps take over 4 minutes."""
    if first.verdict not in ("pass", "warn") or first.startup_ms is None or steps <= 1:
        return None
    total = first.startup_ms / 1000 * steps / max(1, jobs)
    if total < SLOW_START:
        return None
    spent = f"{total / 60:.1f} min" if total >= 120 else f"{total:.0f} s"
    faster = "" if jobs > 1 else " (-j N runs N steps at once)"
    return (
        f"note: the bot took {first.startup_ms / 1000:.1f} s to say hello, and every step starts it afresh: "
        f"starting it alone will take about {spent} for {steps} steps{faster}"
    )


AS_ABOVE: Final = "not run: as above"


def step_line(result: StepResult, previous: StepResult | None = None) -> str:
    """``PASS  play.follow_suit   legal 6C 9C QC: played 6C``; a step skipped for the same
    reason as the ``previous`` one says ``as above``, so 45 skips are not 45 copies of it."""
    text = result.message
    if result.verdict == "skip" and previous is not None and (previous.verdict, previous.message) == ("skip", text):
        text = AS_ABOVE
    if result.verdict == "warn" and result.warnings:
        text = result.warnings[0] if not text else f"{text}; {result.warnings[0]}"
    seconds = f"{result.seconds:5.2f}s" if result.verdict != "skip" else " " * 6
    return f"{LABELS[result.verdict]}  {result.name:<{NAME_WIDTH}} {seconds}  {_cut(text, 160)}"


def details(result: StepResult, *, verbose: bool = False, tcp: bool = False, note: str = "") -> str:
    """Everything about a failed (or warned) step (``tcp``: of a bot that connected, whose
    stderr the check cannot see; ``note`` follows the step's name)."""
    title = f"--- {LABELS[result.verdict]} {result.name}{note} "
    out = [title + "-" * max(3, 66 - len(title))]
    out.append(f"verifies: {result.summary}")
    if result.verdict == "fail":
        out.append(f"problem:  {result.message}")
        out.append(f"expected: {result.expected}")
        out.append(f"got:      {result.got}")
        if result.hint:
            out.append(f"hint:     {result.hint}")
    for warning in result.warnings:
        out.append(f"warning:  {warning}")
    if result.transcript:
        lines = result.transcript
        shown = lines if verbose or len(lines) <= TRANSCRIPT_TAIL else lines[-TRANSCRIPT_TAIL:]
        out.append("transcript (ms since the step began; >> to the bot, << from the bot):")
        if len(shown) < len(lines):
            out.append(f"  ... {len(lines) - len(shown)} earlier lines (all of them: --verbose or --json)")
        for line in shown:
            arrow = ">>" if line.direction == "send" else "<<"
            out.append(f"  {line.ms:9.1f} {arrow} {printable(line.line) if verbose else _cut(line.line, LINE_WIDTH)}")
    stderr = result.stderr.rstrip("\n").splitlines()
    if stderr:
        tail = stderr if verbose else stderr[-STDERR_TAIL:]
        omitted = f", last {len(tail)} of {len(stderr)} lines" if len(tail) < len(stderr) else ""
        out.append(f"stderr{omitted}:")
        out.extend(f"  | {_cut(line, LINE_WIDTH)}" for line in tail)
    else:
        out.append("stderr: (not visible over TCP)" if tcp else "stderr: (empty)")
    if result.exit_code is not None:
        out.append(f"the bot at the end of the step: {exit_text(result.exit_code)}")
    return "\n".join(out)


def summary(report: CheckReport) -> str:
    s = report.summary
    counts = f"{s.passed} passed, {s.warned} warned, {s.failed} failed, {s.skipped} skipped"
    lines = [f"{s.steps} step{'s' if s.steps != 1 else ''}: {counts} in {s.seconds:.1f} s"]
    if s.decisions and s.median_ms is not None and s.worst_ms is not None:
        plural = "s" if s.decisions != 1 else ""
        lines.append(
            f"answers: {s.decisions} decision{plural}, median {s.median_ms:.1f} ms, worst {s.worst_ms:.1f} ms "
            f"(limit {report.per_decision_ms} ms" + (f" + {report.bank_ms} ms bank)" if report.bank_ms else ")")
        )
    lines.append(f"sandbox: {report.sandbox}")
    failures = [c for c in s.causes if c.verdict == "fail"]
    named = [f"{c.reason} ({c.steps[0] if len(c.steps) == 1 else f'{len(c.steps)} steps'})" for c in failures]
    more = ", ..." if len(named) > CAUSES_NAMED else ""
    lines.append("result: PASS" if s.ok else f"result: FAIL — {', '.join(named[:CAUSES_NAMED])}{more}")
    return "\n".join(lines)


def cause_text(cause: Cause, results: dict[str, StepResult], *, tcp: bool = False) -> str:
    """One cause: a failure of one step as its details; several steps under one heading with
    their names, then the details of the first; skipped steps as a heading."""
    count = len(cause.steps)
    if cause.verdict == "skip":
        named = count <= SKIPPED_NAMED
        return heading(cause) + (f"\n{_names(cause.steps)}" if named else "")
    first = results[cause.steps[0]]
    if count == 1:
        return details(first, tcp=tcp)
    note = f" (the first of {count}; each of them: --verbose or --json)"
    return f"=== {heading(cause)}\n{_names(cause.steps)}\n{details(first, tcp=tcp, note=note)}"


def footer(report: CheckReport, *, verbose: bool = False) -> str:
    """What went wrong, grouped by cause, and the warnings' details (every step run in
    full, if verbose, with the causes' headings after them), then the summary."""
    tcp = report.bot.startswith(TCP_PREFIX)
    causes = report.summary.causes
    if verbose:
        shown: Sequence[StepResult] = [r for r in report.steps if r.verdict != "skip"]
        parts = [details(r, verbose=True, tcp=tcp) for r in shown]
        if causes:
            parts.append("\n".join(heading(c) for c in causes))
    else:
        results = {r.name: r for r in report.steps}
        parts = [cause_text(c, results, tcp=tcp) for c in causes]
        parts += [details(r, tcp=tcp) for r in report.steps if r.verdict == "warn"]
    parts.append(summary(report))
    return "\n\n".join(parts)


def _names(steps: Sequence[str]) -> str:
    return textwrap.fill(", ".join(steps), NAMES_WIDTH, initial_indent="    ", subsequent_indent="    ")


def _cut(text: str, width: int) -> str:
    """A bot's text for the terminal: escapes shown, not obeyed (``names.printable``), cut."""
    text = printable(text)
    return text if len(text) <= width else text[: width - 3] + "..."
