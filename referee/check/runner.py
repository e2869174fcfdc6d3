"""Run the steps of ``referee check`` against a bot program and collect a ``CheckReport``.

Every step gets a fresh bot process: the runner starts it, shakes hands (unless the step is
about the handshake), runs the step's script, says goodbye and ends the process with
``ProcessLink.close`` whatever happened, so one step's failure never spoils the next and no
process outlives the check. A bot that fails the first step (the plain handshake) gets the
rest reported as skipped; with ``fail_fast`` the first failure of any step does that.

For a bot that connects over TCP (``tcp:NAME[:TOKEN]``) the runner listens instead, and each
step waits for a fresh connection (``referee.check.listener``); a step that waits in vain gets
the rest skipped, so a bot that stopped coming costs one connect timeout, not one per step.

Every bot process of a check runs in the same ``sandbox`` (``referee.sandbox.bwrap``: bubblewrap), or
in none; the report says which, and the steps about the sandbox are skipped without one.
"""

from __future__ import annotations

import fnmatch
import functools
import statistics
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final, NamedTuple

import msgspec
import trio

from protocol.ruleset import RuleSet
from referee.check.causes import group_causes, step_hint
from referee.check.conversation import StepFailed
from referee.check.links import CheckProcessLink
from referee.check.listener import CONNECT_TIMEOUT, CheckListener, tcp_target
from referee.check.probe import Limits, Probe
from referee.check.results import CheckReport, StepResult, Summary
from referee.check.start_causes import explain_sandboxed_start, kit_hint
from referee.check.steps import FIRST, STEPS, AnyStep, Step, SummaryStep
from referee.network import DEFAULT_HOST, HIDDEN_TOKEN, show_address
from referee.players.process import STDERR_CAP, BotLimits, BotStartError
from referee.rules.presets import DEFAULT_PRESET, ruleset
from referee.sandbox.bwrap import Sandbox

STDERR_KEPT = 16 * 1024
"""Characters of a step's stderr kept in the report (the end of it)."""
KILL_GRACE = 0.2
"""Seconds a bot that failed its step gets between closed stdin, SIGTERM and SIGKILL."""
TIMEOUTS_IN_A_ROW: Final = 3
"""Steps timed out one after the other after which the check stops (unless ``keep_going``):
a bot that does not answer in time makes each further step wait as long, and says nothing new
(a bot answering in 2.5 s ran 320 s, 17 steps timed out in a row)."""
NOT_ISOLATED = "none — bots are not isolated"
OVER_TCP = "none — a tcp: bot runs wherever it was started; the check does not start it"


def sandbox_description(sandbox: Sandbox | None, *, tcp: bool = False) -> str:
    """What the check's bots run in, for the report: ``bubblewrap (own uid, no network,
    private /tmp)``, or ``none`` and why."""
    if tcp:
        return OVER_TCP
    if sandbox is None:
        return NOT_ISOLATED
    user = "own uid" if sandbox.privileged else "user namespace"
    binds = f", {len(sandbox.binds)} extra read-only path{'s' if len(sandbox.binds) != 1 else ''}"
    return f"bubblewrap ({user}, no network, private /tmp{binds if sandbox.binds else ''})"


def select(patterns: Sequence[str] = ()) -> list[AnyStep]:
    """The steps whose names match any of the shell-style ``patterns`` (all without any)."""
    if not patterns:
        return list(STEPS)
    return [s for s in STEPS if any(fnmatch.fnmatchcase(s.name, p) for p in patterns)]


@dataclass(frozen=True, kw_only=True)
class CheckPlan:
    """What one check runs and how: ``run_check``'s options, as every step needs them."""

    command: str
    """The bot: a command line, or ``tcp:NAME`` (how reports name a bot that connects)."""
    rules: RuleSet
    """The rules of ``variant``, for the general steps."""
    variant: str
    limits: Limits
    steps: Sequence[AnyStep]
    fail_fast: bool = False
    jobs: int = 1
    keep_transcripts: bool = False
    cwd: str | Path | None = None
    on_result: Callable[[StepResult], None] | None = None
    sandbox: Sandbox | None = None
    """What every bot process starts in (``None``: not isolated; a ``tcp:`` bot: always none)."""
    clean_env: bool = False
    """Start the bot in the environment a sandbox gives it, without the sandbox: the one run
    that tells whether the sandbox is why the bot failed its handshake."""
    keep_going: bool = False
    """Run every step even after ``TIMEOUTS_IN_A_ROW`` steps timed out one after the other."""


async def run_check(
    command: str,
    *,
    variant: str = DEFAULT_PRESET,
    limits: Limits | None = None,
    steps: Sequence[AnyStep] | None = None,
    fail_fast: bool = False,
    jobs: int = 1,
    keep_transcripts: bool = False,
    cwd: str | Path | None = None,
    on_result: Callable[[StepResult], None] | None = None,
    host: str = DEFAULT_HOST,
    port: int = 0,
    connect_timeout: float = CONNECT_TIMEOUT,
    on_listening: Callable[[CheckListener], None] | None = None,
    sandbox: Sandbox | None = None,
    keep_going: bool = False,
) -> CheckReport:
    """Check the bot ``command`` (a command line, or ``tcp:NAME[:TOKEN]`` for a bot that
    connects to ``host:port``, once per step, each within ``connect_timeout`` seconds;
    ``on_listening`` is called with the listener, which has the address and the token, once
    it listens). ``variant`` is the preset whose rules the general steps use. ``jobs`` steps
    run at once (each with its own bot); the first step always runs alone, and the results
    come out in the steps' order: ``on_result`` is called with each as soon as the steps
    before it are done. Every bot process starts in ``sandbox`` (none: not isolated; a
    ``tcp:`` bot is never started, so never sandboxed). After ``TIMEOUTS_IN_A_ROW`` steps timed
    out in a row the rest are skipped, unless ``keep_going``. Raises ``InvalidRuleSet`` for an
    unknown variant before anything is started, ``OSError`` when the address cannot be
    listened on."""
    rules = ruleset(variant)
    target = tcp_target(command, host=host, port=port, connect_timeout=connect_timeout)
    plan = CheckPlan(
        command=command if target is None else target.spec,
        rules=rules,
        variant=variant,
        limits=limits or Limits(),
        steps=list(STEPS if steps is None else steps),
        fail_fast=fail_fast,
        jobs=jobs,
        keep_transcripts=keep_transcripts,
        cwd=cwd,
        on_result=on_result,
        sandbox=sandbox if target is None else None,
        keep_going=keep_going,
    )
    if target is None:
        return await _check(plan)
    listener = CheckListener(target)
    await listener.listen()
    async with trio.open_nursery() as services:
        services.start_soon(listener.serve)
        if on_listening is not None:
            on_listening(listener)
        try:
            return await _check(plan, listener)
        finally:
            services.cancel_scope.cancel()


async def _check(plan: CheckPlan, listener: CheckListener | None = None) -> CheckReport:
    run = _Run(plan, listener)
    start = trio.current_time()
    pending = iter([i for i, s in enumerate(plan.steps) if isinstance(s, Step)])
    if plan.steps and plan.steps[0].name == FIRST:
        await run.work(iter([next(pending)]))  # alone: whether the rest can run depends on it
    async with trio.open_nursery() as nursery:
        for _ in range(max(1, plan.jobs)):
            nursery.start_soon(run.work, pending)
    run.judge_summaries()
    seconds = trio.current_time() - start
    return _report(plan, name=run.name, results=run.done(), seconds=seconds, isolation=run.isolation)


class _Run:
    """The steps of a check being run, and their results as they come in, handed on in the
    steps' order."""

    def __init__(self, plan: CheckPlan, listener: CheckListener | None) -> None:
        self.plan = plan
        self.listener = listener
        self.isolation = sandbox_description(plan.sandbox, tcp=listener is not None)
        self.results: list[StepResult | None] = [None] * len(plan.steps)
        self.shown = 0
        self.name: str | None = None
        self.skip_reason: tuple[str, str] | None = None
        """Why the steps not yet run are skipped, and that reason's name."""
        self.timed_out: list[str] = []
        """The steps that timed out since the last that did not, in the order they ended."""

    async def work(self, indices: Iterator[int]) -> None:
        """Run steps one after the other: ``indices`` is shared by the workers, each takes
        the next step."""
        for index in indices:
            current = self.plan.steps[index]
            assert isinstance(current, Step)
            skipped = self._skipped(current)
            if skipped is not None:
                self.record(index, skipped)
                continue
            result, hello_name, shown = await run_step(current, self.plan, self.listener)
            self.name = self.name or hello_name
            sandbox = self.plan.sandbox
            if result.verdict == "fail" and current.name == FIRST and sandbox is not None:
                bare = functools.partial(self._passes_bare, current)
                await explain_sandboxed_start(result, shown, bare, stranger=sandbox.privileged)
            self.record(index, result)
            if result.verdict == "fail" and self.skip_reason is None:
                self.skip_reason = self._stop_after(current)
            self._count_timeouts(result)

    def _count_timeouts(self, result: StepResult) -> None:
        """Stop the steps not yet run after ``TIMEOUTS_IN_A_ROW`` timed out one after the
        other (unless ``keep_going``): each would wait as long, to say the same."""
        if result.verdict != "fail" or result.reason != "timeout":
            self.timed_out = []
            return
        self.timed_out.append(result.name)
        if len(self.timed_out) >= TIMEOUTS_IN_A_ROW and self.skip_reason is None and not self.plan.keep_going:
            steps = ", ".join(self.timed_out)
            self.skip_reason = (
                f"not run: {len(self.timed_out)} steps in a row timed out ({steps}), and each further step would "
                "wait as long: the bot does not answer in time (the first's hint says why; --keep-going runs "
                "every step)",
                "timeouts",
            )

    async def _passes_bare(self, current: Step) -> bool:
        """Whether ``current`` passes with the bot started without the sandbox (as it would be
        in it otherwise: the same clean environment and limits)."""
        bare = replace(self.plan, sandbox=None, clean_env=True)
        result = (await run_step(current, bare)).result
        return result.verdict in ("pass", "warn")

    def _skipped(self, current: Step) -> StepResult | None:
        """The result of a step that is not run, or ``None`` to run it."""
        if self.skip_reason is not None:
            return _skipped(current, *self.skip_reason)
        if current.sandboxed and self.plan.sandbox is None:
            return _skipped(current, f"no sandbox: {self.isolation.removeprefix('none — ')}", "no_sandbox")
        return None

    def _stop_after(self, failed: Step) -> tuple[str, str] | None:
        """Why the steps after ``failed`` are not run (and the reason's name), or ``None``."""
        if self.listener is not None and self.listener.missed:
            timeout = self.listener.target.connect_timeout
            return f"not run: no bot connected within {timeout:g} s in {failed.name}", "no_connection"
        if failed.name == FIRST:
            return (
                f"not run: the bot never completed its handshake ({FIRST} failed), and every step begins with one",
                "handshake",
            )
        if self.plan.fail_fast:
            return f"not run: --fail-fast stopped after {failed.name} failed", "fail_fast"
        return None

    def judge_summaries(self) -> None:
        """The steps that judge the others' results, once those are all in."""
        for index, current in enumerate(self.plan.steps):
            if isinstance(current, SummaryStep):
                if self.skip_reason is not None:
                    result = _skipped(current, *self.skip_reason)
                else:
                    result = StepResult(name=current.name, summary=current.summary, verdict="pass")
                    current.judge(self.done(), self.plan.limits, self.plan.rules, result)
                self.record(index, result)

    def record(self, index: int, result: StepResult) -> None:
        if result.verdict == "pass" and not self.plan.keep_transcripts:
            result.transcript = []
            result.stderr = ""
        self.results[index] = result
        while self.shown < len(self.results) and (ready := self.results[self.shown]) is not None:
            if self.plan.on_result is not None:
                self.plan.on_result(ready)
            self.shown += 1

    def done(self) -> list[StepResult]:
        return [r for r in self.results if r is not None]


def _skipped(step: AnyStep, message: str, reason: str) -> StepResult:
    return StepResult(name=step.name, summary=step.summary, verdict="skip", message=message, reason=reason)


class StepRun(NamedTuple):
    """A step run: its result, the name its bot gave (``None``: no ``hello``), and the places
    the bot's sandbox showed it (``ProcessLink.shown``: empty without a sandbox or a process)."""

    result: StepResult
    name: str | None
    shown: tuple[str, ...]


async def run_step(step: Step, plan: CheckPlan, listener: CheckListener | None = None) -> StepRun:
    """Run one step against a new bot process, started in the plan's sandbox when there is
    one (or the next connection to ``listener``)."""
    result = StepResult(name=step.name, summary=step.summary, verdict="pass")
    start = trio.current_time()
    async with trio.open_nursery() as nursery:
        if listener is not None:
            probe, failure = await _connected(plan, listener)
            start = trio.current_time()  # the step's time starts with its bot, not the wait for it
        else:
            probe, failure = await _started(plan, nursery)
        if probe is not None:
            failure = await _converse(step, probe, plan.limits)
    result.seconds = round(trio.current_time() - start, 3)
    if probe is not None:
        _transcribe(result, probe)
    if failure is not None:
        result.verdict = "fail"
        result.message = failure.message
        result.expected = failure.expected
        result.got = failure.got
        result.reason = failure.reason or "fail"
        result.hint = (
            failure.hint
            or kit_hint(result.stderr)
            or step_hint(failure.reason, failure.message, failure.line, result.exit_code)
        )
    elif result.warnings:
        result.verdict = "warn"
    if listener is not None and listener.target.given:
        _hide_token(result, listener.target.token)
    hello = probe.hello if probe is not None else None
    shown = probe.link.shown if probe is not None and isinstance(probe.link, CheckProcessLink) else ()
    return StepRun(result, hello.name if hello is not None else None, shown)


def _hide_token(result: StepResult, token: str) -> None:
    """Take a token the user supplied out of a step's result: the bot's hello carries it, and a
    transcript, a failure's line or its message would print it (in a CI log, ``--json``)."""
    forms = sorted({token, msgspec.json.encode(token).decode()[1:-1]}, key=len, reverse=True)

    def hide(text: str) -> str:
        for form in forms:
            text = text.replace(form, HIDDEN_TOKEN)
        return text

    result.message, result.stderr = hide(result.message), hide(result.stderr)
    result.expected = None if result.expected is None else hide(result.expected)
    result.got = None if result.got is None else hide(result.got)
    result.warnings = [hide(w) for w in result.warnings]
    result.transcript = [msgspec.structs.replace(t, line=hide(t.line)) for t in result.transcript]


async def _started(plan: CheckPlan, nursery: trio.Nursery) -> tuple[Probe | None, StepFailed | None]:
    """A new bot process for a step (its stderr drained in ``nursery``), or why it did not start."""
    try:
        link = await CheckProcessLink.start(
            plan.command, nursery, cwd=plan.cwd, limits=BotLimits(sandbox=plan.sandbox, clean_env=plan.clean_env)
        )
    except BotStartError as err:
        failure = StepFailed(
            "the bot program cannot be started",
            expected="a program that starts",
            got=str(err),
            reason="cannot_start",
        )
        return None, failure
    isolation = sandbox_description(plan.sandbox) if plan.sandbox is not None else None
    return Probe(link, plan.limits, plan.rules, plan.variant, sandbox=isolation), None


async def _connected(plan: CheckPlan, listener: CheckListener) -> tuple[Probe | None, StepFailed | None]:
    """The next bot that connects, or the failure of a step no bot came to."""
    link = await listener.next_link()
    if link is None:
        timeout = listener.target.connect_timeout
        failure = StepFailed(
            f"no bot connected within {timeout:g} s",
            expected=f"a connection to {show_address(*listener.address)} (one per step)",
            got="no connection",
            reason="timeout",
        )
        return None, failure
    connected = max(link.accepted, trio.current_time())  # a connection that waited: from the step's start
    target = listener.target
    shown = target.shown_token if target.given else None  # a token the user gave: never by its value
    return Probe(
        link, plan.limits, plan.rules, plan.variant, token=target.token, shown_token=shown, connected=connected
    ), None


async def _converse(step: Step, probe: Probe, limits: Limits) -> StepFailed | None:
    """The step's conversation with its bot, ended as the referee ends one whatever happened;
    the failure, if any."""
    budget = limits.startup + 4 * limits.grace + 300 * limits.per_decision + 3 * limits.bank
    failure: StepFailed | None = None
    try:
        with trio.fail_after(budget):
            if step.handshake:
                await _setup_handshake(probe)
            await step.run(probe)
            await probe.wind_down()
    except StepFailed as err:
        failure = err
    except trio.TooSlowError:
        failure = StepFailed(
            f"the step did not finish within {budget:g} s",
            expected="a step that ends",
            got="still going",
            reason="timeout",
        )
    finally:
        # a bot that failed is in no state to be waited for
        await probe.link.close(limits.grace if failure is None else KILL_GRACE)
    return failure


def _transcribe(result: StepResult, probe: Probe) -> None:
    """What the step's bot said and did, for the report."""
    result.decisions = probe.decisions
    result.startup_ms = probe.startup_ms
    result.transcript = probe.transcript
    result.warnings = probe.warnings
    result.message = "; ".join(probe.notes)
    text, dropped = probe.link.stderr_text()
    kept = text[-STDERR_KEPT:]
    result.stderr = kept if len(kept) == len(text) and not dropped else f"[...]\n{kept}"
    if dropped:
        result.warnings.append(
            f"{len(text.encode()) + dropped} bytes on stderr in one step: the referee keeps the first "
            f"{STDERR_CAP // 1024} KiB of a match's stderr and drops the rest"
        )
    result.exit_code = probe.link.exit_code()


async def _setup_handshake(probe: Probe) -> None:
    try:
        await probe.shake_hands()
    except StepFailed as err:
        err.message = f"handshake: {err.message}"
        raise


def _report(
    plan: CheckPlan, *, name: str | None, results: list[StepResult], seconds: float, isolation: str
) -> CheckReport:
    count = {v: sum(r.verdict == v for r in results) for v in ("pass", "warn", "fail", "skip")}
    times = [d.ms for r in results for d in r.decisions if d.ms is not None]
    summary = Summary(
        steps=len(results),
        passed=count["pass"],
        warned=count["warn"],
        failed=count["fail"],
        skipped=count["skip"],
        ok=count["fail"] == 0,
        seconds=round(seconds, 3),
        decisions=len(times),
        median_ms=round(statistics.median(times), 3) if times else None,
        worst_ms=max(times) if times else None,
        causes=group_causes(results),
    )
    return CheckReport(
        bot=plan.command,
        name=name,
        variant=plan.variant,
        per_decision_ms=round(plan.limits.per_decision * 1000),
        bank_ms=round(plan.limits.bank * 1000),
        startup_ms=round(plan.limits.startup * 1000),
        grace_ms=round(plan.limits.grace * 1000),
        sandboxed=plan.sandbox is not None,
        sandbox=isolation,
        steps=results,
        summary=summary,
        exit_code=0 if summary.ok else 1,
    )
