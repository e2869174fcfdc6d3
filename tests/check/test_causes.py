"""The check's judgement of answer times over a whole match, and the grouping of failed and
skipped steps by cause: pure functions, fed made-up step results."""

from __future__ import annotations

from referee.check.causes import group_causes, heading, step_hint
from referee.check.probe import Limits
from referee.check.results import DecisionTime, StepResult
from referee.check.steps.timing import bank_spent, judge_decisions, match_decisions
from referee.hints import FLUSH, STDOUT_IS_PROTOCOL
from referee.rules.presets import ruleset

AMERICAN = ruleset("american")


def answered(*times_ms: float, name: str = "play.follow_suit") -> StepResult:
    decisions = [DecisionTime(request="play_request", id=i, ms=ms) for i, ms in enumerate(times_ms, 1)]
    return StepResult(name=name, summary="", verdict="pass", decisions=decisions)


def judged(*times_ms: float, limits: Limits | None = None) -> StepResult:
    result = StepResult(name="timing.decisions", summary="", verdict="pass")
    judge_decisions([answered(*times_ms)], limits or Limits(), AMERICAN, result)
    return result


def failed(name: str, reason: str, message: str, hint: str | None = None) -> StepResult:
    return StepResult(name=name, summary="", verdict="fail", reason=reason, message=message, hint=hint)


def test_a_match_has_the_decisions_of_many_rounds() -> None:
    assert 100 < match_decisions(AMERICAN) < 300
    assert match_decisions(ruleset("achterhoeks")) < match_decisions(AMERICAN)
    assert match_decisions(AMERICAN) == match_decisions(AMERICAN)  # seeded: the same every time


def test_the_bank_a_match_would_spend() -> None:
    assert bank_spent([1500.0, 500.0], Limits(), 100) == 25.0  # half the answers 0.5 s over
    assert bank_spent([999.0], Limits(), 100) == 0.0


def test_a_bot_that_spends_the_bank_on_every_move_fails() -> None:
    result = judged(*[1500.0] * 20)
    n = match_decisions(AMERICAN)
    assert result.verdict == "fail" and result.reason == "too_slow"
    assert result.message == (
        f"would time out under the default match clock (1 s a decision + 10 s bank): about {n} decisions in a "
        f"match at 1500 ms each (median); they would take about {n * 0.5:.0f} s beyond the decision limit, more "
        "than the 10 s bank (too_slow)"
    )
    assert result.hint is not None


def test_a_few_long_thinks_fit_in_the_bank_with_a_warning() -> None:
    result = judged(*[100.0] * 99, 3000.0)
    assert result.verdict == "warn"
    assert any(w.startswith("1 decision(s) drew on the bank: a match of about") for w in result.warnings)


def test_often_over_the_limit_fails_even_with_a_quick_median() -> None:
    result = judged(*[100.0] * 8, 3000.0, 3000.0)
    assert result.verdict == "fail"
    assert "2 of 10 answers here over 1000 ms (worst 3000 ms)" in result.message


def test_another_clock_is_named_as_given() -> None:
    result = judged(*[150.0] * 10, limits=Limits(per_decision=0.1, bank=2.0))
    assert result.message.startswith("would time out under the clock given (0.1 s a decision + 2 s bank)")


def test_quick_answers_pass_and_half_the_limit_warns() -> None:
    assert judged(*[5.0] * 10).verdict == "pass"
    assert judged(*[5.0] * 9, 600.0).verdict == "warn"


def test_steps_are_grouped_by_reason_and_rule() -> None:
    results = [
        failed("play.a", "bad_json", "not a valid bot message (bad_json)", STDOUT_IS_PROTOCOL),
        failed("play.b", "illegal_move", "illegal play: x (illegal_move, must_follow_suit)", "legal"),
        failed("play.c", "bad_json", "not a valid bot message (bad_json)", STDOUT_IS_PROTOCOL),
        failed("play.d", "illegal_move", "illegal play: y (illegal_move, hearts_not_broken)", "legal"),
        failed("play.e", "crash", "the bot exited with code 1 (crash)", "ended"),
        failed("play.f", "crash", "the bot exited with code 3 (crash)", "ended"),
        StepResult(name="x.y", summary="", verdict="pass"),
        StepResult(name="sandbox.works", summary="", verdict="skip", message="no sandbox: none", reason="no_sandbox"),
    ]
    causes = group_causes(results)
    assert [(c.reason, c.rule, c.steps) for c in causes] == [
        ("bad_json", None, ["play.a", "play.c"]),
        ("illegal_move", "must_follow_suit", ["play.b"]),
        ("illegal_move", "hearts_not_broken", ["play.d"]),
        ("crash", None, ["play.e"]),
        ("crash", None, ["play.f"]),
        ("no_sandbox", None, ["sandbox.works"]),
    ]
    assert heading(causes[0]) == f"2 steps failed: bad_json — {STDOUT_IS_PROTOCOL}"
    assert heading(causes[1]) == "1 step failed: illegal_move (must_follow_suit) — legal"
    assert heading(causes[-1]) == "1 step skipped: no sandbox: none"


def test_skips_are_grouped_by_why() -> None:
    message = "not run: the bot never completed its handshake (handshake.hello failed), and every step begins with one"
    results = [failed("handshake.hello", "timeout", "no hello (timeout)", FLUSH)] + [
        StepResult(name=f"s{i}", summary="", verdict="skip", message=message, reason="handshake") for i in range(44)
    ]
    causes = group_causes(results)
    assert [len(c.steps) for c in causes] == [1, 44]
    assert heading(causes[1]) == f"44 steps skipped: {message.removeprefix('not run: ')}"


def test_the_hints_of_the_check() -> None:
    assert step_hint("bad_json", "x", "my hand is [2C]") == STDOUT_IS_PROTOCOL
    said = step_hint("timeout", "no reply to play_request 1 within 1 s") or ""
    assert said.startswith("no reply arrived within the bot's time (the decision limit, then its bank)"), said
    assert FLUSH in said and "mawk -W interactive" in said
    assert step_hint("crash", "the bot was killed", exit_code=-9) is not None
    assert "exit when goodbye" in (step_hint("no_exit", "still running") or "")
    assert step_hint(None, "") is None
