"""Every sample bot passes `referee check` in the bubblewrap sandbox (JavaScript and C skip
without node or a compiler, all of them without bubblewrap), and the check's own lines are
valid protocol messages."""

from __future__ import annotations

import shlex
import sys

import pytest

from protocol.codec import decode_referee
from referee.check.probe import Limits
from referee.match.seats.bot_config import BotEntry, read_bots, runnable
from referee.match.seats.building import build
from tests.check.helpers import GOOD, ROOT, by_verdict, check, needs_bwrap, sandbox, step

BOTS = {e.name: e for e in read_bots(ROOT / "sample_bots" / "bots.toml")}
ROOMY = Limits(per_decision=30.0, bank=60.0, startup=60.0, grace=10.0)
"""A clock no sample bot can miss on a busy machine: these tests judge what the bots say, not
how fast (the search bot answered within the default clock on a quiet machine and took up to
5.9 s on a loaded one). How they fare on the default clock is measured with ``referee check``
itself, figures in docs/performance.md."""


def command(entry: BotEntry) -> str:
    if not runnable(entry):
        pytest.skip(f"{entry.name} needs a tool that is not installed here")
    folder = build(entry, ROOT).folder  # from ROOT, a command run in a bot's folder names it
    words = [str(folder / word) if word.startswith("./") else word for word in shlex.split(entry.command)]
    return shlex.join(words).replace("python3 ", f"{sys.executable} ", 1)


@needs_bwrap
@pytest.mark.parametrize("name", list(BOTS))
def test_every_sample_bot_passes_in_the_sandbox(name: str) -> None:
    report = check(command(BOTS[name]), limits=ROOMY, jobs=3, sandbox=sandbox())
    failed = [(s.name, s.message, s.expected, s.got) for s in report.steps if s.verdict == "fail"]
    assert failed == []
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
