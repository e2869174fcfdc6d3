"""Why an answer did not come in time (issue 43, part 2): a slow bot is told its time and its
bank first, a bot that reads its input in blocks (``mawk``, ``sys.stdin.buffer.read(4096)``) is
told it reads late, not that it did not flush, and ``referee check`` stops after a few steps in
a row timed out (unless ``--keep-going``). Real bots; the check's clock is a ``MockClock`` where
a bot that never answers would make the test wait."""

from __future__ import annotations

import shutil
import sys

import pytest
from trio.testing import MockClock

from referee.check.probe import Limits
from referee.check.runner import TIMEOUTS_IN_A_ROW
from referee.hints import FLUSH, READS_LATE
from tests.check.helpers import FAST, author, by_verdict, check, hostile, step

PY = sys.executable
BLOCKS = f"{PY} tests/bots/block_reader_bot.py"
AWK = "mawk -f tests/bots/awk/bot.awk"
needs_mawk = pytest.mark.skipif(shutil.which("mawk") is None, reason="mawk is not installed")
QUICK = Limits(per_decision=1.0, bank=0.0, startup=2.0)
FOUR = ("play.lead_two_of_clubs", "play.lead_three_of_clubs", "play.follow_suit", "play.void_discard")


@pytest.mark.process
@pytest.mark.parametrize("command", [BLOCKS, pytest.param(AWK, marks=needs_mawk)], ids=["python-blocks", "mawk"])
def test_a_bot_reading_its_input_in_blocks_is_told_it_reads_late(command: str) -> None:
    """It flushes every line: what held its hello was its input, which it read only once it
    ended (its stderr shows it read the referee's error only then)."""
    result = step(check(command, "handshake.hello", limits=QUICK), "handshake.hello")
    assert result.verdict == "fail" and result.reason == "timeout", result
    assert "it reads its input late, in blocks" in result.message and "not flushed" not in result.message
    assert result.hint == READS_LATE
    assert "mawk -W interactive" in READS_LATE and "fgets" in READS_LATE


@pytest.mark.process
@pytest.mark.parametrize(
    "command",
    [f"{BLOCKS} lines", pytest.param("mawk -W interactive -f tests/bots/awk/bot.awk", marks=needs_mawk)],
    ids=["python-lines", "mawk-interactive"],
)
def test_the_same_bots_reading_line_by_line_pass(command: str) -> None:
    report = check(command, "handshake.*", "play.follow_suit", limits=QUICK)
    assert by_verdict(report, "fail") == [], [(s.name, s.message) for s in report.steps]


@pytest.mark.process
def test_a_bot_that_does_not_flush_is_still_told_so() -> None:
    """It reads the referee's error at once and ends: its line comes out as it does."""
    result = step(check(author("no_flush_play"), "play.follow_suit", limits=QUICK), "play.follow_suit")
    assert result.reason == "timeout" and result.hint == FLUSH
    assert "after the check wrote the referee's fatal error, as the bot ended" in result.message


@pytest.mark.process
def test_a_slow_bot_is_told_its_time_and_bank_first() -> None:
    """It answers 0.5 s after a 0.5 s limit (no bank): slow, not silent."""
    limits = Limits(per_decision=0.5, bank=0.0, startup=10.0, grace=4.0)
    result = step(check(author("slow", "1.0"), "play.follow_suit", limits=limits), "play.follow_suit")
    assert result.reason == "timeout", result
    assert result.message.startswith("it answered after "), result.message
    assert "no reply to play_request 1 within 0.5 s" in result.message
    hint = result.hint or ""
    assert hint.startswith("the bot answered ") and "over the 0.5 s it had (0.5 s to decide, then the bank" in hint
    assert "slow, not silent" in hint and "flushed" not in hint


@pytest.mark.process
@pytest.mark.parametrize("keep_going", [False, True])
def test_check_stops_after_timeouts_in_a_row_unless_asked_to_go_on(keep_going: bool) -> None:
    """A bot that never answers: three steps time out, the fourth is skipped and says why;
    with keep_going it is run too. The check's clock runs 50 times faster than the bot's."""
    report = check(hostile("sleep"), *FOUR, limits=FAST, clock=MockClock(rate=50), keep_going=keep_going)
    failed = by_verdict(report, "fail")
    assert failed == list(FOUR[: len(FOUR) if keep_going else TIMEOUTS_IN_A_ROW])
    assert all(step(report, name).reason == "timeout" for name in failed)
    if not keep_going:
        skipped = step(report, FOUR[-1])
        assert skipped.verdict == "skip" and skipped.reason == "timeouts"
        assert skipped.message.startswith(f"not run: {TIMEOUTS_IN_A_ROW} steps in a row timed out (")
        assert "--keep-going" in skipped.message
