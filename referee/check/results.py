"""What ``referee check`` reports: one ``StepResult`` per step and a ``CheckReport`` around them.

Plain msgspec Structs, so ``referee check --json`` is ``msgspec.json.encode(report)``: one
object with ``steps`` and a ``summary`` (which groups the failed and skipped steps by cause).
Field docstrings are the documentation of that JSON.
"""

from __future__ import annotations

from typing import Literal, TypeAlias

import msgspec

Verdict: TypeAlias = Literal["pass", "warn", "fail", "skip"]
"""``pass``; ``warn``: it works, but something is close to a limit or odd; ``fail``: a referee
would drop the bot (or the bot breaks a rule of the protocol); ``skip``: not run."""


class TranscriptLine(msgspec.Struct, frozen=True, kw_only=True):
    """One protocol line of a step, as written or read."""

    ms: float
    """Milliseconds since the step began."""
    direction: Literal["send", "recv"]
    """``send``: check to bot (``>>``); ``recv``: bot to check (``<<``)."""
    line: str
    """The line without its newline (cut after 2000 characters, with a note of the length)."""


class DecisionTime(msgspec.Struct, frozen=True, kw_only=True):
    """One request and how long the bot took to answer it."""

    request: str
    """The request's type: ``pass_request``, ``play_request``, ``declare_request``, ``moon_request``."""
    id: int
    ms: float | None
    """From the written request to the complete reply line; ``null``: no reply in time."""


class StepResult(msgspec.Struct, kw_only=True):
    """The outcome of one step."""

    name: str
    summary: str
    """What the step verifies."""
    verdict: Verdict
    message: str = ""
    """One line: what happened (for a failure: what went wrong; for a skip: why)."""
    warnings: list[str] = msgspec.field(default_factory=list)
    expected: str | None = None
    """For a failure: what the bot should have done."""
    got: str | None = None
    """For a failure: what it did (the line it wrote, or what happened instead)."""
    reason: str | None = None
    """For a failure, the fault as the referee names it (``bad_json``, ``timeout``, ``crash``,
    ``illegal_move``, ...; ``no_exit``, ``exit_status``, ``unexpected_line``, ``too_slow`` for
    what only the check judges); for a skip, why (``handshake``, ``fail_fast``,
    ``timeouts``: steps in a row timed out, ``no_connection``, ``no_sandbox``, ``no_data``)."""
    hint: str | None = None
    """For a failure: what the author should try (a debug print on stdout? a line not
    flushed?), the same words ``referee match`` prints for that fault."""
    seconds: float = 0.0
    decisions: list[DecisionTime] = msgspec.field(default_factory=list)
    startup_ms: float | None = None
    """How long the handshake of this step's bot process took."""
    transcript: list[TranscriptLine] = msgspec.field(default_factory=list)
    """Every line of the step (kept for failures and warnings)."""
    stderr: str = ""
    """The bot's stderr during the step (kept for failures and warnings)."""
    exit_code: int | None = None
    """The bot program's exit status at the end of the step (negative: killed by a signal)."""


class Cause(msgspec.Struct, kw_only=True):
    """Steps that failed (or were skipped) for one root cause."""

    verdict: Literal["fail", "skip"]
    reason: str
    """The steps' ``reason``."""
    rule: str | None = None
    """For ``illegal_move``: the rule broken."""
    message: str
    """The first step's message (for a skip: why the steps were not run)."""
    hint: str | None = None
    steps: list[str]
    """The names of the steps, in the order they ran."""


class Summary(msgspec.Struct, kw_only=True):
    """Counts over every step, and the bot's answer times over every decision of the check."""

    steps: int
    passed: int
    warned: int
    failed: int
    skipped: int
    ok: bool
    """No step failed (warnings allowed)."""
    seconds: float
    decisions: int
    median_ms: float | None
    worst_ms: float | None
    causes: list[Cause] = msgspec.field(default_factory=list)
    """The failed and skipped steps grouped by root cause, in the order each came up."""


class CheckReport(msgspec.Struct, kw_only=True):
    """The whole check: what ``referee check --json`` prints."""

    bot: str
    """The bot's command line."""
    name: str | None
    """The name from the bot's hello, if it sent one."""
    variant: str
    per_decision_ms: int
    bank_ms: int
    """The bank of each step's match (full again at every match_start, as in a match)."""
    startup_ms: int
    grace_ms: int
    sandboxed: bool
    """Whether every bot process of the check ran in the bubblewrap sandbox (``false`` for a
    ``tcp:`` bot, which the check does not start)."""
    sandbox: str
    """What the bot ran in, for people: ``bubblewrap (own uid, no network, private /tmp)``,
    or ``none`` and why."""
    steps: list[StepResult]
    summary: Summary
    exit_code: int
    """0: every step passed (warnings allowed); 1: a step failed."""
