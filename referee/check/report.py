"""The human-readable report of ``referee check``: a line per step, then the details of every
step that failed or warned (what was expected, what came back, the transcript, the bot's
stderr), then the summary. ``--json`` prints the ``CheckReport`` itself instead."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from referee.check.listener import TCP_PREFIX
from referee.check.probe import Limits
from referee.check.results import CheckReport, StepResult
from referee.names import printable

LABELS: Final = {"pass": "PASS", "warn": "WARN", "fail": "FAIL", "skip": "SKIP"}
NAME_WIDTH: Final = 30
TRANSCRIPT_TAIL: Final = 40
"""Transcript lines shown for a failing step (the last ones) unless verbose."""
STDERR_TAIL: Final = 20
LINE_WIDTH: Final = 240


def header(command: str, variant: str, limits: Limits, steps: int, sandbox: str) -> str:
    """The top of the report; ``sandbox`` is what the bot runs in (``sandbox_description``)."""
    return (
        f"referee check: {command}\n"
        f"  variant {variant}; {limits.per_decision:g} s per decision; start-up {limits.startup:g} s; "
        f"{steps} step{'s' if steps != 1 else ''}\n"
        f"  sandbox: {sandbox}\n"
    )


def step_line(result: StepResult) -> str:
    """``PASS  play.follow_suit   legal 6C 9C QC: played 6C``"""
    text = result.message
    if result.verdict == "warn" and result.warnings:
        text = result.warnings[0] if not text else f"{text}; {result.warnings[0]}"
    seconds = f"{result.seconds:5.2f}s" if result.verdict != "skip" else " " * 6
    return f"{LABELS[result.verdict]}  {result.name:<{NAME_WIDTH}} {seconds}  {_cut(text, 160)}"


def details(result: StepResult, *, verbose: bool = False, tcp: bool = False) -> str:
    """Everything about a failed (or warned) step (``tcp``: of a bot that connected, whose
    stderr the check cannot see)."""
    out = [f"--- {LABELS[result.verdict]} {result.name} " + "-" * max(3, 60 - len(result.name))]
    out.append(f"verifies: {result.summary}")
    if result.verdict == "fail":
        out.append(f"problem:  {result.message}")
        out.append(f"expected: {result.expected}")
        out.append(f"got:      {result.got}")
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
        out.append(f"exit status at the end of the step: {result.exit_code}")
    return "\n".join(out)


def summary(report: CheckReport) -> str:
    s = report.summary
    counts = f"{s.passed} passed, {s.warned} warned, {s.failed} failed, {s.skipped} skipped"
    lines = [f"{s.steps} step{'s' if s.steps != 1 else ''}: {counts} in {s.seconds:.1f} s"]
    if s.decisions and s.median_ms is not None and s.worst_ms is not None:
        plural = "s" if s.decisions != 1 else ""
        lines.append(
            f"answers: {s.decisions} decision{plural}, median {s.median_ms:.1f} ms, worst {s.worst_ms:.1f} ms "
            f"(limit {report.per_decision_ms} ms)"
        )
    lines.append(f"sandbox: {report.sandbox}")
    verdict = "PASS" if s.ok else "FAIL"
    failed = [r.name for r in report.steps if r.verdict == "fail"]
    named = f" ({', '.join(failed[:5])}{', ...' if len(failed) > 5 else ''})" if failed else ""
    lines.append(f"result: {verdict}{named}")
    return "\n".join(lines)


def footer(report: CheckReport, *, verbose: bool = False) -> str:
    """The details of every step that failed or warned (every step run, if verbose), then the
    summary."""
    wanted = ("pass", "warn", "fail") if verbose else ("warn", "fail")
    shown: Sequence[StepResult] = [r for r in report.steps if r.verdict in wanted]
    tcp = report.bot.startswith(TCP_PREFIX)
    parts = [details(r, verbose=verbose, tcp=tcp) for r in shown]
    parts.append(summary(report))
    return "\n\n".join(parts)


def format_report(report: CheckReport, limits: Limits, *, verbose: bool = False) -> str:
    """The whole report at once (the command prints the step lines as they come instead)."""
    lines = [step_line(r) for r in report.steps]
    top = header(report.bot, report.variant, limits, len(report.steps), report.sandbox)
    return "\n".join([top, *lines, "", footer(report, verbose=verbose)])


def _cut(text: str, width: int) -> str:
    """A bot's text for the terminal: escapes shown, not obeyed (``names.printable``), cut."""
    text = printable(text)
    return text if len(text) <= width else text[: width - 3] + "..."
