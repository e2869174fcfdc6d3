"""Root causes: the hint for each failed step, and the steps grouped by what went wrong.

One mistake usually fails many steps: a debug print on stdout fails every step that asks for
a play, a failed handshake skips every step after it. The report groups the failed steps by
their reason (and the hint that goes with it), and the skipped steps by why they were not
run, so the author reads one heading with a count (``32 steps failed: bad_json — stdout
carries the protocol only ...``) instead of 32 identical blocks.

The hints come from ``referee.hints`` (the same words ``referee match`` and the replay views
print), with a few for what only the check looks at: the exit after goodbye, a line where
none is due, a bot too slow for a whole match.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from referee.check.results import Cause, StepResult
from referee.hints import hint

CHECK_HINTS: Final = {
    "unexpected_line": (
        "events get no reply and a request exactly one line: is the bot answering an event, or writing a second reply?"
    ),
    "no_exit": "exit when goodbye (or a fatal error) arrives and when stdin ends: leave the read loop and return",
    "exit_status": "after goodbye, exit with status 0 (an exception on the way out shows in stderr)",
    "not_reading": "keep reading stdin while thinking: a bot that stops reading blocks the referee's writes",
    "cannot_start": (
        "run the command by hand from the same folder: the program, its interpreter and its files must exist"
    ),
    "too_slow": (
        "answer most requests within the request's time.decision_ms: the bank (time.bank_ms) covers a few "
        "long thinks in a match, not every move"
    ),
}
"""Hints for what only the check looks at (``referee.hints`` has the referee's faults)."""

_RULE = re.compile(r"\((\w+), (\w+)\)$")


def step_hint(reason: str | None, message: str, line: str | None = None, exit_code: int | None = None) -> str | None:
    """What the author should try for a step that failed with ``reason``."""
    if reason is None:
        return None
    return hint(reason, message, line, exit_code) or CHECK_HINTS.get(reason)


def _key(result: StepResult) -> tuple[str, ...]:
    if result.verdict == "skip":
        return ("skip", result.message)
    reason = result.reason or "fail"
    rule = _RULE.search(result.message)
    detail = rule.group(2) if rule and rule.group(1) == reason else ""
    if reason == "crash":  # each exit status is its own cause
        detail = result.message
    return ("fail", reason, detail, result.hint or "")


def group_causes(results: Sequence[StepResult]) -> list[Cause]:
    """The failed and the skipped steps grouped by cause, in the order each cause first
    came up."""
    causes: dict[tuple[str, ...], Cause] = {}
    for result in results:
        if result.verdict not in ("fail", "skip"):
            continue
        key = _key(result)
        cause = causes.get(key)
        if cause is None:
            rule = key[2] if result.verdict == "fail" and result.reason != "crash" else ""
            cause = Cause(
                verdict="fail" if result.verdict == "fail" else "skip",
                reason=(result.reason or "fail") if result.verdict == "fail" else (result.reason or "skip"),
                rule=rule or None,
                message=result.message if result.verdict == "fail" else result.message.removeprefix("not run: "),
                hint=result.hint,
                steps=[],
            )
            causes[key] = cause
        cause.steps.append(result.name)
    return list(causes.values())


def heading(cause: Cause) -> str:
    """``32 steps failed: bad_json — stdout carries the protocol only ...``; a skip's reason
    instead of a hint: ``44 steps skipped: the bot never completed its handshake ...``."""
    count = len(cause.steps)
    steps = f"{count} step{'s' if count != 1 else ''}"
    if cause.verdict == "skip":
        return f"{steps} skipped: {cause.message}"
    reason = f"{cause.reason} ({cause.rule})" if cause.rule else cause.reason
    return f"{steps} failed: {reason} — {cause.hint or cause.message}"
