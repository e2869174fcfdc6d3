"""What a bot author reads when their bot makes a common mistake (tests/bots/check_author_bot.py):
the hint for it, one heading with a count for the steps it fails, one line for the steps it
skips, and a slow bot judged by the match's clock (``MockClock(rate=10)`` runs the check's
clock ten times faster than the bot's, so a bot thinking 0.13 s answers in 1.3 s of the
check's time)."""

from __future__ import annotations

import json
from typing import Any

import click
import pytest
import trio
from click.testing import CliRunner
from trio.testing import MockClock

from referee.check.listener import CheckListener
from referee.check.probe import Limits
from referee.check.results import CheckReport
from referee.check.runner import run_check, select
from referee.check.steps import STEPS
from referee.check.steps.timing import match_decisions
from referee.cli import main
from referee.hints import FLUSH, STDOUT_IS_PROTOCOL
from referee.match.config import MatchConfig
from referee.rules.presets import ruleset
from tests.check.helpers import FAST, ROOT, author, by_verdict, check, hostile, step

PLAYS = [s.name for s in STEPS if s.name.startswith("play.")]
IN_A_MATCH = match_decisions(ruleset("american"))


@pytest.fixture(autouse=True)
def _repo_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the bot commands are relative to the repository


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["check", "--sandbox", "off", *args], catch_exceptions=False)
    return result.exit_code, result.stdout


@pytest.mark.process
def test_a_debug_print_on_stdout_is_one_cause_with_the_hint() -> None:
    code, out = invoke(author("debug_print"), "--only", "handshake.hello", "--only", "play.*")
    assert code == 1, out
    assert f"=== {len(PLAYS)} steps failed: bad_json — {STDOUT_IS_PROTOCOL}\n    play.lead_two_of_clubs, " in out
    assert out.count("--- FAIL") == 1  # the details of the first, not one block per step
    details = out[out.index("--- FAIL play.lead_two_of_clubs (the first of 12") :]
    assert "got:      thinking about ['2C']" in details
    assert f"hint:     {STDOUT_IS_PROTOCOL}" in details
    assert "<< thinking about ['2C']" in details
    assert out.rstrip().endswith(f"result: FAIL — bad_json ({len(PLAYS)} steps)")


@pytest.mark.process
def test_verbose_and_json_keep_every_step() -> None:
    code, out = invoke(author("debug_print"), "-v", "--only", "play.follow_suit", "--only", "play.void_discard")
    assert code == 1
    assert out.count("--- FAIL") == 2 and out.count(f"hint:     {STDOUT_IS_PROTOCOL}") == 2
    assert f"2 steps failed: bad_json — {STDOUT_IS_PROTOCOL}" in out
    args = ["check", "--json", "--sandbox", "off", "--only", "play.*", author("debug_print")]
    report: dict[str, Any] = json.loads(CliRunner().invoke(main, args).stdout)
    assert all(s["reason"] == "bad_json" and s["hint"] == STDOUT_IS_PROTOCOL for s in report["steps"])
    assert report["summary"]["causes"] == [
        {
            "verdict": "fail",
            "reason": "bad_json",
            "rule": None,
            "message": report["steps"][0]["message"],
            "hint": STDOUT_IS_PROTOCOL,
            "steps": PLAYS,
        }
    ]


@pytest.mark.process
def test_a_bot_that_never_flushes_fails_its_handshake_and_the_rest_is_one_line() -> None:
    """Its hello waits in the output buffer until the check closes its input and it exits."""
    code, out = invoke(author("no_flush"), "--startup", "1")
    assert code == 1
    assert "problem:  no hello within the start-up limit of 1 s; its line came" in out
    assert "after the check wrote the referee's fatal error, as the bot ended, so it was waiting in the bot's" in out
    assert "output buffer: not flushed" in out
    assert f"hint:     {FLUSH}" in out
    skipped = len(STEPS) - 1
    never = "the bot never completed its handshake (handshake.hello failed), and every step begins with one"
    assert f"\n{skipped} steps skipped: {never}\n" in out
    assert out.count("--- FAIL") == 1 and "timing.decisions" not in out.split("SKIP  timing.startup")[1]
    assert "result: FAIL — timeout (handshake.hello)" in out


@pytest.mark.process
def test_a_reply_left_in_the_buffer_is_named_not_flushed() -> None:
    report = check(author("no_flush_play"), "play.follow_suit", limits=Limits(per_decision=0.5, bank=0.0))
    result = step(report, "play.follow_suit")
    assert result.verdict == "fail" and result.reason == "timeout" and result.hint == FLUSH
    assert result.message.startswith("no reply to play_request 1 within 0.5 s; its line came")
    assert result.message.endswith("waiting in the bot's output buffer: not flushed (timeout)")
    assert result.got == '{"type": "play", "id": 1, "card": "6C"}'


@pytest.mark.process
def test_a_bot_that_never_answers_is_asked_whether_it_flushed() -> None:
    report = check(hostile("sleep"), "play.lead_two_of_clubs", limits=FAST)
    result = step(report, "play.lead_two_of_clubs")
    assert result.reason == "timeout"
    assert result.hint is not None and result.hint.startswith("no reply arrived within the bot's time (the decision")
    assert "was the line flushed?" in result.hint


@pytest.mark.process
def test_a_crash_shows_the_exit_status_the_traceback_and_one_heading() -> None:
    code, out = invoke(author("crash"), "--only", "play.*")
    assert code == 1
    ended = "the bot's program ended: its stderr (below, or in the log) shows why"
    assert f"=== {len(PLAYS)} steps failed: crash — {ended}" in out
    assert "problem:  the bot exited with code 1 (crash)" in out
    assert "  | Traceback (most recent call last):" in out and "  | RuntimeError: no strategy for this trick" in out
    assert "the bot at the end of the step: exited with code 1" in out
    assert out.count("--- FAIL") == 1


@pytest.mark.process
def test_a_signal_is_named() -> None:
    report = check(author("segfault"), "play.follow_suit", "play.void_discard")
    result = step(report, "play.follow_suit")
    assert "killed by signal 11 (SIGSEGV)" in result.message
    assert result.hint is not None and "segmentation fault" in result.hint
    [cause] = report.summary.causes
    assert cause.reason == "crash" and cause.steps == ["play.follow_suit", "play.void_discard"]


@pytest.mark.process
def test_a_wrong_version_fails_the_handshake_with_the_hint() -> None:
    code, out = invoke(author("wrong_version"))
    assert code == 1
    assert "(no_common_version)" in out
    assert 'hint:     answer the referee\'s hello with a "version" from its "versions" list' in out
    assert f"{len(STEPS) - 1} steps skipped: the bot never completed its handshake" in out
    # the step lines say it once, then "as above"
    assert "SKIP  handshake.versions_1_2                 not run: the bot never completed its handshake" in out
    assert out.count("not run: as above") == len(STEPS) - 2


def test_a_tcp_hello_without_a_token_gets_the_token_hint() -> None:
    async def bot(address: tuple[str, int]) -> None:
        stream = await trio.open_tcp_stream(*address)
        async with stream:
            await stream.receive_some()  # the referee's hello
            await stream.send_all(b'{"type":"hello","version":1,"name":"no-token"}\n')
            while await stream.receive_some():  # the bad_token error, then the end
                pass

    async def run() -> CheckReport:
        async with trio.open_nursery() as nursery:

            def listening(listener: CheckListener) -> None:
                nursery.start_soon(bot, listener.address)

            with trio.fail_after(60):
                report = await run_check(
                    "tcp:bot:T", limits=FAST, steps=select(["handshake.hello", "pass.legal"]), on_listening=listening
                )
            nursery.cancel_scope.cancel()
        return report

    report = trio.run(run)
    first = step(report, "handshake.hello")
    assert first.reason == "bad_token"
    assert first.hint is not None and first.hint.startswith('a TCP bot\'s hello must carry "token"')
    assert by_verdict(report, "skip") == ["pass.legal"]


@pytest.mark.process
def test_a_bot_that_spends_the_bank_every_move_fails_under_the_match_clock() -> None:
    """1.3 s a decision passes every step (each step's match has a full 10 s bank, and the
    requests say what is left of it) but would forfeit a whole match."""
    report = check(
        author("slow", "0.13"),
        "handshake.hello",
        "play.*",
        "timing.decisions",
        limits=Limits(),
        clock=MockClock(rate=10),
        keep_transcripts=True,
    )
    assert by_verdict(report, "fail") == ["timing.decisions"]
    timing = step(report, "timing.decisions")
    clock = "the default match clock (1 s a decision + 10 s bank)"
    assert timing.message.startswith(f"would time out under {clock}: about {IN_A_MATCH} decisions in a match at ")
    assert " ms each (median); they would take about " in timing.message
    assert timing.message.endswith("beyond the decision limit, more than the 10 s bank (too_slow)")
    assert timing.reason == "too_slow" and timing.hint is not None and "time.bank_ms" in timing.hint
    requests = [line.line for line in step(report, "play.void_discard").transcript if "play_request" in line.line]
    assert '"bank_ms":10000' in requests[0] and '"bank_ms":10000' not in requests[1]
    assert report.bank_ms == 10000 and report.per_decision_ms == 1000


@pytest.mark.process
def test_a_check_with_a_shorter_clock_says_which_clock() -> None:
    code, out = invoke(
        author("slow", "0.15"), "--time-per-move", "0.1", "--time-bank", "2", "--only", "play.*", "--only", "timing.*"
    )
    assert code == 1, out
    assert "variant american; clock 0.1 s a decision + 2 s bank; start-up 10 s" in out
    assert "FAIL  timing.decisions" in out
    assert f"would time out under the clock given (0.1 s a decision + 2 s bank): about {IN_A_MATCH} decisions" in out
    assert "hint:     answer most requests within the request's time.decision_ms" in out
    assert out.rstrip().endswith("result: FAIL — too_slow (timing.decisions)")


def test_the_clock_options_default_to_the_match_clock() -> None:
    result = CliRunner().invoke(main, ["check", "--help"])
    assert "--time-bank SECONDS" in result.output
    check = main.get_command(click.Context(main), "check")
    assert check is not None
    defaults = {p.name: p.default for p in check.params}
    clock = MatchConfig()
    assert (defaults["time_per_move"], defaults["time_bank"], defaults["startup"]) == (
        clock.per_decision,
        clock.bank,
        clock.startup,
    )
