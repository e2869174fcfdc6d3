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
import statistics
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import trio

from protocol.ruleset import RuleSet
from referee.check.causes import group_causes, step_hint
from referee.check.listener import CONNECT_TIMEOUT, CheckListener, CheckSocketLink, tcp_target
from referee.check.probe import Limits, Probe, StepFailed
from referee.check.results import CheckReport, StepResult, Summary
from referee.check.steps import FIRST, STEPS, AnyStep, Step, SummaryStep
from referee.match.seats.link import STDERR_CAP, BotLimits, BotStartError, ProcessLink
from referee.network import DEFAULT_HOST, show_address
from referee.rules.presets import DEFAULT_PRESET, ruleset
from referee.sandbox.bwrap import Sandbox
from referee.sandbox.misses import bind_hint

STDERR_KEPT = 16 * 1024
"""Characters of a step's stderr kept in the report (the end of it)."""
KILL_GRACE = 0.2
"""Seconds a bot that failed its step gets between closed stdin, SIGTERM and SIGKILL."""
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
) -> CheckReport:
    """Check the bot ``command`` (a command line, or ``tcp:NAME[:TOKEN]`` for a bot that
    connects to ``host:port``, once per step, each within ``connect_timeout`` seconds;
    ``on_listening`` is called with the listener, which has the address and the token, once
    it listens). ``variant`` is the preset whose rules the general steps use. ``jobs`` steps
    run at once (each with its own bot); the first step always runs alone, and the results
    come out in the steps' order: ``on_result`` is called with each as soon as the steps
    before it are done. Every bot process starts in ``sandbox`` (none: not isolated; a
    ``tcp:`` bot is never started, so never sandboxed). Raises ``InvalidRuleSet`` for an
    unknown variant before anything is started, ``OSError`` when the address cannot be
    listened on."""
    limits = limits or Limits()
    rules = ruleset(variant)
    target = tcp_target(command, host=host, port=port, connect_timeout=connect_timeout)
    if target is None:
        return await _check(
            command, rules, variant, limits, steps, fail_fast, jobs, keep_transcripts, cwd, on_result, sandbox=sandbox
        )
    listener = CheckListener(target)
    await listener.listen()
    async with trio.open_nursery() as services:
        services.start_soon(listener.serve)
        if on_listening is not None:
            on_listening(listener)
        try:
            return await _check(
                target.spec, rules, variant, limits, steps, fail_fast, jobs, keep_transcripts, cwd, on_result, listener
            )
        finally:
            services.cancel_scope.cancel()


async def _check(  # noqa: PLR0917
    command: str,
    rules: RuleSet,
    variant: str,
    limits: Limits,
    steps: Sequence[AnyStep] | None,
    fail_fast: bool,
    jobs: int,
    keep_transcripts: bool,
    cwd: str | Path | None,
    on_result: Callable[[StepResult], None] | None,
    listener: CheckListener | None = None,
    *,
    sandbox: Sandbox | None = None,
) -> CheckReport:
    chosen = list(STEPS if steps is None else steps)
    sandbox = None if listener is not None else sandbox
    isolation = sandbox_description(sandbox, tcp=listener is not None)
    run = _Run(chosen, keep_transcripts, on_result)
    start = trio.current_time()
    pending = iter([i for i, s in enumerate(chosen) if isinstance(s, Step)])

    async def work(indices: Iterator[int]) -> None:
        for index in indices:  # an iterator shared by the workers: each takes the next step
            current = chosen[index]
            assert isinstance(current, Step)
            if run.skip_reason is not None:
                run.record(index, _skipped(current, *run.skip_reason))
                continue
            if current.sandboxed and sandbox is None:
                run.record(index, _skipped(current, f"no sandbox: {isolation.removeprefix('none — ')}", "no_sandbox"))
                continue
            result, hello_name = await run_step(
                current,
                command,
                rules=rules,
                variant=variant,
                limits=limits,
                cwd=cwd,
                listener=listener,
                sandbox=sandbox,
            )
            run.name = run.name or hello_name
            if result.verdict == "fail" and current.name == FIRST and sandbox is not None:
                missed = bind_hint(result.stderr)
                if missed is not None:
                    result.hint = missed
                else:
                    result.message += (
                        " (in the sandbox: if it passes with --sandbox off, it needs a path the sandbox "
                        "does not show it: --sandbox-bind PATH)"
                    )
            run.record(index, result)
            if result.verdict == "fail" and run.skip_reason is None:
                if listener is not None and listener.missed:
                    timeout = listener.target.connect_timeout
                    run.skip_reason = (
                        f"not run: no bot connected within {timeout:g} s in {current.name}",
                        "no_connection",
                    )
                elif current.name == FIRST:
                    run.skip_reason = (
                        f"not run: the bot never completed its handshake ({FIRST} failed), and every step "
                        "begins with one",
                        "handshake",
                    )
                elif fail_fast:
                    run.skip_reason = (f"not run: --fail-fast stopped after {current.name} failed", "fail_fast")

    if chosen and chosen[0].name == FIRST:
        await work(iter([next(pending)]))  # alone: whether the rest can run depends on it
    async with trio.open_nursery() as nursery:
        for _ in range(max(1, jobs)):
            nursery.start_soon(work, pending)
    for index, current in enumerate(chosen):
        if isinstance(current, SummaryStep):
            if run.skip_reason is not None:
                result = _skipped(current, *run.skip_reason)
            else:
                result = StepResult(name=current.name, summary=current.summary, verdict="pass")
                current.judge(run.done(), limits, rules, result)
            run.record(index, result)
    seconds = trio.current_time() - start
    return _report(
        command,
        name=run.name,
        variant=variant,
        limits=limits,
        results=run.done(),
        seconds=seconds,
        sandbox=sandbox,
        isolation=isolation,
    )


class _Run:
    """The results of a check as they come in, handed on in the steps' order."""

    def __init__(
        self, steps: Sequence[AnyStep], keep_transcripts: bool, on_result: Callable[[StepResult], None] | None
    ) -> None:
        self.results: list[StepResult | None] = [None] * len(steps)
        self.keep_transcripts = keep_transcripts
        self.on_result = on_result
        self.shown = 0
        self.name: str | None = None
        self.skip_reason: tuple[str, str] | None = None
        """Why the steps not yet run are skipped, and that reason's name."""

    def record(self, index: int, result: StepResult) -> None:
        if result.verdict == "pass" and not self.keep_transcripts:
            result.transcript = []
            result.stderr = ""
        self.results[index] = result
        while self.shown < len(self.results) and (ready := self.results[self.shown]) is not None:
            if self.on_result is not None:
                self.on_result(ready)
            self.shown += 1

    def done(self) -> list[StepResult]:
        return [r for r in self.results if r is not None]


def _skipped(step: AnyStep, message: str, reason: str) -> StepResult:
    return StepResult(name=step.name, summary=step.summary, verdict="skip", message=message, reason=reason)


async def run_step(
    step: Step,
    command: str,
    *,
    rules: RuleSet,
    variant: str,
    limits: Limits,
    cwd: str | Path | None = None,
    listener: CheckListener | None = None,
    sandbox: Sandbox | None = None,
) -> tuple[StepResult, str | None]:
    """Run one step against a new bot process, started in ``sandbox`` when there is one (or
    the next connection to ``listener``); its result and the name the bot gave."""
    result = StepResult(name=step.name, summary=step.summary, verdict="pass")
    start = trio.current_time()
    failure: StepFailed | None = None
    probe: Probe | None = None
    budget = limits.startup + 4 * limits.grace + 300 * limits.per_decision + 3 * limits.bank
    async with trio.open_nursery() as nursery:
        link: ProcessLink | CheckSocketLink | None = None
        if listener is not None:
            link = await listener.next_link()
            start = trio.current_time()  # the step's time starts with its bot, not the wait for it
            if link is None:
                timeout = listener.target.connect_timeout
                failure = StepFailed(
                    f"no bot connected within {timeout:g} s",
                    expected=f"a connection to {show_address(*listener.address)} (one per step)",
                    got="no connection",
                    reason="timeout",
                )
        else:
            try:
                link = await ProcessLink.start(command, nursery, cwd=cwd, limits=BotLimits(sandbox=sandbox))
            except BotStartError as err:
                failure = StepFailed(
                    "the bot program cannot be started",
                    expected="a program that starts",
                    got=str(err),
                    reason="cannot_start",
                )
        if link is not None:
            if isinstance(link, CheckSocketLink):
                assert listener is not None
                connected = max(link.accepted, start)  # a connection that waited: from the step's start
                probe = Probe(link, limits, rules, variant, token=listener.target.token, connected=connected)
            else:
                isolation = sandbox_description(sandbox) if sandbox is not None else None
                probe = Probe(link, limits, rules, variant, sandbox=isolation)
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
                await link.close(limits.grace if failure is None else KILL_GRACE)
    result.seconds = round(trio.current_time() - start, 3)
    if probe is not None:
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
    if failure is not None:
        result.verdict = "fail"
        result.message = failure.message
        result.expected = failure.expected
        result.got = failure.got
        result.reason = failure.reason or "fail"
        result.hint = failure.hint or step_hint(failure.reason, failure.message, failure.line, result.exit_code)
    elif result.warnings:
        result.verdict = "warn"
    hello = probe.hello if probe is not None else None
    return result, hello.name if hello is not None else None


async def _setup_handshake(probe: Probe) -> None:
    try:
        await probe.shake_hands()
    except StepFailed as err:
        err.message = f"handshake: {err.message}"
        raise


def _report(
    command: str,
    *,
    name: str | None,
    variant: str,
    limits: Limits,
    results: list[StepResult],
    seconds: float,
    sandbox: Sandbox | None,
    isolation: str,
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
        bot=command,
        name=name,
        variant=variant,
        per_decision_ms=round(limits.per_decision * 1000),
        bank_ms=round(limits.bank * 1000),
        startup_ms=round(limits.startup * 1000),
        grace_ms=round(limits.grace * 1000),
        sandboxed=sandbox is not None,
        sandbox=isolation,
        steps=results,
        summary=summary,
        exit_code=0 if summary.ok else 1,
    )
