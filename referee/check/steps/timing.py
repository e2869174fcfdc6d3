"""Summary steps about time: how fast the bot answered, over every step of the check.

Each step times every decision (from the written request to the complete reply line, as the
referee's clock does) and every handshake; these steps judge the lot. A missed limit has
already failed its own step; here it fails again so the time summary is never rosier than
the steps.

A step is a short match with a full bank, so a bot that spends a little of the bank on
every move passes each step and still runs out in a real match. ``timing.decisions``
therefore projects the answer times onto a whole match of the variant (its typical number of
decisions for one seat, from matches the rules engine plays at random): when the time beyond
the decision limit would add up to more than the bank, the bot fails, as it would forfeit in
a match. Answers that take half the decision limit or more get a warning: a busier machine
or a ladder's shorter clock would turn them into timeouts.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Sequence
from typing import Final

from protocol.ruleset import RuleSet
from referee.check.causes import step_hint
from referee.check.probe import MATCH_CLOCK, Limits
from referee.check.results import DecisionTime, StepResult
from referee.check.steps.base import SummaryStep
from referee.rules.match import Match
from referee.rules.random_play import play_match

WARN_SHARE: Final = 0.5
"""A share of a limit that earns a warning."""
SAMPLE_MATCHES: Final = 9
"""Seeded random matches whose median length is a match's number of decisions."""


def match_decisions(rules: RuleSet) -> int:
    """About how many decisions one seat makes in a match of ``rules`` (passes, plays,
    declarations, moon choices): the median over a few seeded matches the rules engine plays
    at random, some 180 in the American game to 100 points. Deterministic, a few ms."""
    counts = []
    for seed in range(SAMPLE_MATCHES):
        _, decisions = play_match(Match(rules, seed), random.Random(seed))
        counts.append(decisions / rules.players)
    return max(1, round(statistics.median(counts)))


def bank_spent(times_ms: Sequence[float], limits: Limits, decisions: int) -> float:
    """The seconds beyond the decision limit that ``decisions`` answers, timed like
    ``times_ms``, would draw from the bank: the mean excess per answer times their number."""
    per_ms = limits.per_decision * 1000
    excess = sum(max(0.0, ms - per_ms) for ms in times_ms) / len(times_ms)
    return excess * decisions / 1000


def clock_name(limits: Limits) -> str:
    """``the default match clock (1 s a decision + 10 s bank)``, or the clock given."""
    which = "the default match clock" if limits.is_match_default else "the clock given"
    return f"{which} ({limits.clock_text()})"


def _ms(value: float) -> str:
    return f"{value:.1f} ms" if value < 100 else f"{value:.0f} ms"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def judge_decisions(results: Sequence[StepResult], limits: Limits, rules: RuleSet, result: StepResult) -> None:
    limit_ms = limits.per_decision * 1000
    bank_ms = limits.bank * 1000
    clock = f"{limit_ms:.0f} ms" + (f" + {bank_ms:.0f} ms bank" if bank_ms else "")
    timed = [(r.name, d) for r in results for d in r.decisions]
    late = [(name, d) for name, d in timed if d.ms is None]
    answered = [(name, d, d.ms) for name, d in timed if d.ms is not None]
    if late:
        _unanswered(late, clock, result)
        return
    if not answered:
        result.verdict = "skip"
        result.message = "no decisions were made"
        result.reason = "no_data"
        return
    values = [ms for _, _, ms in answered]
    name, worst, worst_ms = max(answered, key=lambda item: item[2])
    median = statistics.median(values)
    in_match = match_decisions(rules)
    spent = bank_spent(values, limits, in_match)
    result.verdict = "pass"
    result.message = (
        f"{_count(len(values), 'decision')}: median {_ms(median)}, worst {_ms(worst_ms)} "
        f"({worst.request} {worst.id} in {name}), limit {clock}"
    )
    over = [ms for ms in values if ms > limit_ms]
    if spent > limits.bank:
        at = (
            f"at {_ms(median)} each (median)"
            if median > limit_ms
            else f"{len(over)} of {len(values)} answers here over {limit_ms:.0f} ms (worst {_ms(worst_ms)})"
        )
        seen = f"median {_ms(median)}, worst {_ms(worst_ms)} over {_count(len(values), 'decision')} of the check"
        _too_slow(limits, in_match, spent, result, at=at, seen=seen)
        return
    slow = [(n, d, ms) for n, d, ms in answered if ms >= WARN_SHARE * limit_ms]
    if slow:
        result.verdict = "warn"
        result.warnings.append(
            f"{len(slow)} decision(s) took {WARN_SHARE:.0%} of the {limit_ms:.0f} ms limit or more; "
            f"worst {_ms(worst_ms)} ({worst.request} {worst.id} in {name})"
        )
    if over:
        result.verdict = "warn"
        result.warnings.append(
            f"{len(over)} decision(s) drew on the bank: a match of about {in_match} decisions would spend about "
            f"{spent:.1f} s of its {limits.bank:g} s bank"
        )


def _unanswered(late: Sequence[tuple[str, DecisionTime]], clock: str, result: StepResult) -> None:
    """The verdict when requests went unanswered within the clock: ``timeout``."""
    name, first = late[0]
    result.verdict = "fail"
    result.message = f"{len(late)} request(s) got no reply within {clock} (first: {name}) (timeout)"
    result.expected = f"every reply within {clock}"
    result.got = f"no reply to {first.request} {first.id} in step {name}"
    result.reason = "timeout"
    result.hint = step_hint("timeout", result.message)


def _too_slow(limits: Limits, in_match: int, spent: float, result: StepResult, *, at: str, seen: str) -> None:
    """The verdict when a match at this pace would spend more than the bank: ``too_slow``."""
    result.verdict = "fail"
    result.reason = "too_slow"
    result.message = (
        f"would time out under {clock_name(limits)}: about {in_match} decisions in a match {at}; "
        f"they would take about {spent:.0f} s beyond the decision limit, more than the {limits.bank:g} s "
        "bank (too_slow)"
    )
    result.expected = (
        f"answers that spend at most the {limits.bank:g} s bank beyond {limits.per_decision:g} s a decision "
        f"over a match of about {in_match} decisions"
    )
    result.got = seen
    result.hint = step_hint("too_slow", result.message)


def judge_startup(results: Sequence[StepResult], limits: Limits, rules: RuleSet, result: StepResult) -> None:
    limit_ms = limits.startup * 1000
    measured = [(r.name, r.startup_ms) for r in results if r.startup_ms is not None]
    if not measured:
        result.verdict = "skip"
        result.message = "no handshake completed"
        return
    values = [ms for _, ms in measured]
    name, worst = max(measured, key=lambda item: item[1])
    result.verdict = "pass"
    result.message = (
        f"{_count(len(values), 'start')}: median {_ms(statistics.median(values))} to hello, worst {_ms(worst)} "
        f"({name}), limit {limit_ms:.0f} ms"
    )
    if worst >= WARN_SHARE * limit_ms:
        result.verdict = "warn"
        result.warnings.append(
            f"the slowest start took {_ms(worst)}, {worst / limit_ms:.0%} of the {limit_ms:.0f} ms start-up limit"
        )


decisions = SummaryStep(
    "timing.decisions",
    "Over every request of the check: each answer came within the decision limit plus the bank "
    f"(by default a match's: {MATCH_CLOCK.per_decision:g} s and {MATCH_CLOCK.bank:g} s); the median "
    "and the worst time are reported. It fails when the answers, over a whole match of the "
    "variant (its typical number of decisions), would spend more than the bank beyond the "
    "decision limit; a warning when any answer took half the decision limit or more, or drew "
    "on the bank.",
    judge_decisions,
)
startup = SummaryStep(
    "timing.startup",
    "Over every start of the bot in the check: the time from hello (over TCP: from the "
    "connection) to its hello, median and worst; a warning when a start took half the start-up "
    f"limit ({MATCH_CLOCK.startup:g} s by default) or more.",
    judge_startup,
)

STEPS = (decisions, startup)
