"""Hostile bots: each misbehaviour fails the step that is about it, first in the suite, with
the reason named; the steps after a failure still run on a fresh process (unless
--fail-fast); a bot that cannot even start fails the first step and skips the rest."""

from __future__ import annotations

import pytest

from referee.check.probe import Limits
from referee.check.steps import STEPS
from tests.check.helpers import GOOD, NOT_SANDBOXED, by_verdict, check, check_hostile, hostile, step

pytestmark = pytest.mark.process

ORDER = [s.name for s in STEPS]
FIRST_PLAY = "play.lead_two_of_clubs"


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("crash", "the bot exited with code 3 (crash)"),
        ("close_stdout", "closed its output (disconnect)"),
        ("garbage", "(bad_json)"),
        ("sleep", "(timeout)"),
        ("no_newline", "(timeout)"),
        ("ignore_term", "(timeout)"),
        ("fork_child", "(crash)"),
    ],
)
def test_a_bot_that_fails_at_its_first_play_fails_the_first_play_step(mode: str, reason: str) -> None:
    """tests/bots/hostile_bot.py misbehaves at its first play request; --fail-fast stops there."""
    report = check(hostile(mode), fail_fast=True)
    assert by_verdict(report, "fail") == [FIRST_PLAY]
    result = step(report, FIRST_PLAY)
    assert reason in result.message
    assert result.expected == "a 'play' reply with id 1 within 1000 ms"
    position = ORDER.index(FIRST_PLAY)
    assert by_verdict(report, "pass") == [s for s in ORDER[:position] if s not in NOT_SANDBOXED]
    assert by_verdict(report, "skip") == ORDER[position + 1 :]  # sandbox.works among them
    stopped = f"not run: --fail-fast stopped after {FIRST_PLAY} failed"
    assert all(s.message == stopped for s in report.steps[position + 1 :])
    assert report.exit_code == 1


ONLY_HELLO = ["handshake.hello"]


@pytest.mark.parametrize(
    ("mode", "failures", "reason"),
    [
        ("no_name", ONLY_HELLO, "missing required field `name`"),
        ("wrong_version", ONLY_HELLO, "(no_common_version)"),
        ("stray_line", ONLY_HELLO, "wrote a line after its hello"),
        ("highest_version", ["handshake.versions_1_2", "handshake.versions_2_1"], "version 2 chosen from [1, 2]"),
        (
            "deny_unknown_fields",
            ["handshake.unknown_fields", "compat.unknown_fields", "compat.long_line"],
            "exited with code 2",
        ),
        ("no_declare", ["declare.first", "declare.after_others", "timing.decisions"], "no reply to declare_request 1"),
        ("bad_moon", ["moon.choice"], "Invalid enum value 'keep'"),
        ("crash_on_unknown", ["compat.unknown_event", "compat.unknown_request"], "exited with code 1"),
        ("int32_id", ["ids.large"], "reply id -2147483648 does not answer request 2147483648 (wrong_id)"),
        ("counting_id", ["ids.large", "ids.non_sequential"], "reply id 1 does not answer request 2147483648"),
        ("quits_on_error", ["error.nonfatal_substitute", "error.nonfatal_revoke"], "exited with code 1"),
        ("exit_nonzero", ["exit.goodbye"], "exited with code 2"),
    ],
)
def test_a_protocol_mistake_fails_exactly_the_steps_about_it(mode: str, failures: list[str], reason: str) -> None:
    """tests/bots/check_hostile_bot.py makes one mistake each: every step runs (each on a
    fresh process) and exactly the steps about that mistake fail, the first with the reason."""
    report = check(check_hostile(mode), jobs=3)
    assert by_verdict(report, "fail") == failures, [(s.name, s.message) for s in report.steps if s.verdict == "fail"]
    first = step(report, failures[0])
    assert reason in first.message
    assert first.expected and first.got
    if failures == ONLY_HELLO:
        assert by_verdict(report, "skip") == ORDER[1:]
    else:
        assert by_verdict(report, "skip") == NOT_SANDBOXED
    assert report.exit_code == 1


@pytest.mark.parametrize(
    ("mode", "first_failure", "reason"),
    [
        ("wrong_id", "pass.legal", "reply id 2 does not answer request 1 (wrong_id)"),
        ("answers_events", "events.silent", "wrote a line after match_start and round_start"),
        ("illegal_card", FIRST_PLAY, "(illegal_move, must_lead_card)"),
        ("ignores_passed", "state.hand_after_pass", "card not in hand"),
    ],
)
def test_a_pervasive_mistake_is_named_by_the_first_step_it_meets(mode: str, first_failure: str, reason: str) -> None:
    report = check(check_hostile(mode), jobs=3)
    failed = by_verdict(report, "fail")
    assert failed[0] == first_failure
    assert reason in step(report, first_failure).message
    run = [s for s in ORDER[: ORDER.index(first_failure)] if s not in NOT_SANDBOXED]
    assert by_verdict(report, "pass") + by_verdict(report, "warn") >= run
    assert by_verdict(report, "skip") == NOT_SANDBOXED


@pytest.mark.parametrize(
    ("mode", "problem"),
    [("exit_nonzero", "exited with code 2"), ("linger", "still running 1 s after goodbye")],
)
def test_a_bad_exit_fails_the_goodbye_step(mode: str, problem: str) -> None:
    report = check(check_hostile(mode), "handshake.hello", "exit.*")
    assert by_verdict(report, "fail") == ["exit.goodbye"]
    assert problem in step(report, "exit.goodbye").message
    assert step(report, "exit.end_of_input").verdict == "pass"


def test_without_fail_fast_every_step_runs_on_a_fresh_process() -> None:
    report = check(hostile("crash"), jobs=3)
    failed = by_verdict(report, "fail")
    assert by_verdict(report, "skip") == NOT_SANDBOXED
    # every step that asks for a play sees the crash; the others pass
    assert failed[0] == FIRST_PLAY
    assert {"handshake.hello", "pass.legal", "pass.double_deck", "events.silent"} <= set(by_verdict(report, "pass"))
    assert {"exit.goodbye", "variant.dutch", "compat.unknown_fields"} <= set(failed)
    assert all("exited with code 3" in step(report, name).message for name in failed)


def test_a_slow_bot_passes_with_a_warning() -> None:
    """The slow mode takes 60% of the limit for every answer: no step fails, the time summary warns."""
    limits = Limits(per_decision=1.0, startup=10.0)
    report = check(check_hostile("slow"), "play.hearts_*", "timing.*", limits=limits, jobs=3)
    assert by_verdict(report, "fail") == []
    assert by_verdict(report, "warn") == ["timing.decisions"]
    warning = step(report, "timing.decisions").warnings[0]
    assert warning.startswith("4 decision(s) took 50% of the 1000 ms limit or more; worst")
    assert report.exit_code == 0


def test_a_bot_that_cannot_start_fails_the_first_step_and_skips_the_rest() -> None:
    report = check("no-such-program-here --flag", fail_fast=False)
    first = report.steps[0]
    assert first.name == "handshake.hello" and first.verdict == "fail"
    assert "cannot start bot 'no-such-program-here --flag'" in (first.got or "")
    assert by_verdict(report, "skip") == ORDER[1:]
    never = "not run: the bot never completed its handshake (handshake.hello failed)"
    assert all(s.message.startswith(never) for s in report.steps[1:])
    assert first.reason == "cannot_start" and first.hint and "run the command by hand" in first.hint
    assert [(c.verdict, len(c.steps)) for c in report.summary.causes] == [("fail", 1), ("skip", 45)]


def test_a_failing_step_keeps_its_transcript_and_stderr() -> None:
    report = check(check_hostile("crash_on_unknown"), "compat.unknown_event")
    result = step(report, "compat.unknown_event")
    assert result.verdict == "fail"
    assert result.transcript[0].direction == "send" and '"type":"hello"' in result.transcript[0].line
    assert any(line.line == '{"type":"weather","x":1}' for line in result.transcript)
    assert "KeyError: 'weather'" in result.stderr
    assert result.exit_code == 1


def test_passing_steps_drop_their_transcripts() -> None:
    report = check(GOOD, "pass.legal")
    result = step(report, "pass.legal")
    assert result.verdict == "pass" and result.transcript == [] and result.stderr == ""
    assert [d.request for d in result.decisions] == ["pass_request"]
