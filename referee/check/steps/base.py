"""What a step is: a name, the sentence of what it verifies, and the scripted referee side.

A ``Step`` runs against a fresh bot process of its own (the runner starts it, shakes hands
unless the step does that itself, and ends it afterwards). A ``SummaryStep`` starts no
process: it judges what the steps before it measured (the answer times).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from protocol.ruleset import RuleSet
from referee.check.probe import Limits, Probe
from referee.check.results import StepResult
from referee.rules.presets import ruleset, with_options

StepFn = Callable[[Probe], Awaitable[None]]
JudgeFn = Callable[[Sequence[StepResult], Limits, RuleSet, StepResult], None]


@dataclass(frozen=True)
class Step:
    name: str
    summary: str
    """What the step verifies, in one or two sentences (shown in reports and docs/check.md)."""
    run: StepFn
    handshake: bool = True
    """Whether the runner shakes hands before ``run`` (the handshake steps do it themselves)."""
    sandboxed: bool = False
    """Whether the step is about the sandbox: it runs only when the bot is started in one,
    and is skipped (saying the bot is not isolated) otherwise."""


@dataclass(frozen=True)
class SummaryStep:
    name: str
    summary: str
    judge: JudgeFn
    """Fills in the verdict of the given result from the results before it (and the clock
    and the rules of the variant checked)."""


AnyStep = Step | SummaryStep


def step(name: str, summary: str, *, handshake: bool = True, sandboxed: bool = False) -> Callable[[StepFn], Step]:
    """Make a step of a coroutine function ``async def f(probe) -> None``."""

    def make(run: StepFn) -> Step:
        return Step(name, summary, run, handshake, sandboxed)

    return make


def passing_rules(rules: RuleSet) -> RuleSet:
    """Rules whose first round passes cards: the given ones with their first passing
    direction, or the American game's first round when they never pass."""
    directions = [d for d in rules.pass_schedule if d != "hold"]
    if rules.pass_count == 0 or not directions:
        rules = ruleset("american")
        directions = ["left"]
    return with_options(rules, {"pass_schedule": [directions[0]]})
