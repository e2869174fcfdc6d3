"""Every sample bot passes `referee check` in the bubblewrap sandbox (JavaScript and C skip
without node or a compiler, all of them without bubblewrap), and the check's own lines are
valid protocol messages."""

from __future__ import annotations

import pytest

from protocol.codec import decode_referee
from tests.check.helpers import GOOD, ROOMY, by_verdict, check, failures, needs_bwrap, sandbox, step
from tests.sample_bots.bot_matches import BOTS
from tests.sample_bots.bot_matches import sample_bot_command as command

pytestmark = pytest.mark.process


@needs_bwrap
@pytest.mark.parametrize("name", list(BOTS))
def test_every_sample_bot_passes_in_the_sandbox(name: str) -> None:
    report = check(command(BOTS[name]), limits=ROOMY, jobs=3, sandbox=sandbox())
    assert failures(report) == []
    assert by_verdict(report, "skip") == []
    assert report.exit_code == 0 and report.summary.ok
    assert report.summary.steps == 46
    assert report.summary.decisions > 300
    assert report.sandboxed and report.sandbox.startswith("bubblewrap (")
    assert step(report, "sandbox.works").message.startswith(f"ran in {report.sandbox}: hello after")


@pytest.mark.parametrize("variant", ["dutch", "double-deck", "american-moon-choice", "achterhoeks", "black-maria"])
def test_the_c_bot_passes_in_other_variants(variant: str) -> None:
    report = check(command(BOTS["c"]), variant=variant, limits=ROOMY)
    assert by_verdict(report, "fail") == []
    assert report.variant == variant


def test_every_line_the_check_writes_is_a_referee_message() -> None:
    """Apart from the steps that send unknown types and fields on purpose, every line is one
    the referee itself could send."""
    report = check(GOOD, limits=ROOMY, keep_transcripts=True, jobs=3)
    assert report.summary.ok
    checked = 0
    for result in report.steps:
        if result.name.startswith(("compat.", "handshake.unknown")):
            continue
        for line in result.transcript:
            if line.direction == "send":
                assert decode_referee(line.line.encode()) is not None, (result.name, line.line)
                checked += 1
    assert checked > 1000
