"""Shared pieces of the `referee check` tests: bot commands and a synchronous check runner."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
import trio

from referee.check.probe import Limits
from referee.check.results import CheckReport, StepResult
from referee.check.runner import run_check, select
from referee.sandbox.bwrap import Sandbox, SandboxUnavailable, choose_sandbox

ROOT = Path(__file__).resolve().parents[2]
GOOD = f"{sys.executable} tests/bots/first_legal_bot.py"
FAST = Limits(per_decision=1.0, bank=0.0, startup=10.0)
"""Short enough that a hanging bot costs little (no bank), long enough for a loaded machine."""
ROOMY = Limits(per_decision=30.0, bank=60.0, startup=60.0, grace=10.0)
"""A clock no sample bot can miss on a busy machine: tests on it judge what the bots say, not
how fast (the search bot answered within the default clock on a quiet machine and took up to
5.9 s on a loaded one). How they fare on the default clock is measured with ``referee check``
itself, figures in docs/performance.md."""
NOT_SANDBOXED = ["sandbox.works"]
"""The steps skipped when the bot is not started in a sandbox (the ``check`` default here)."""
needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (bwrap) is not installed")


def sandbox(*binds: str) -> Sandbox:
    """The sandbox ``--sandbox on`` gets here (the test is skipped where bubblewrap cannot run)."""
    try:
        return choose_sandbox("on", pytest.fail, binds)
    except SandboxUnavailable as err:
        pytest.skip(str(err))


def hostile(mode: str, *extra: str) -> str:
    return f"{sys.executable} tests/bots/hostile_bot.py {mode} {' '.join(extra)}".strip()


def check_hostile(mode: str, *extra: str) -> str:
    return f"{sys.executable} tests/bots/check_hostile_bot.py {mode} {' '.join(extra)}".strip()


def author(mode: str, *extra: str) -> str:
    """tests/bots/check_author_bot.py: a mistake bot authors make."""
    return f"{sys.executable} tests/bots/check_author_bot.py {mode} {' '.join(extra)}".strip()


def check(
    command: str,
    *patterns: str,
    variant: str = "american",
    limits: Limits = FAST,
    fail_fast: bool = False,
    jobs: int = 1,
    keep_transcripts: bool = False,
    sandbox: Sandbox | None = None,
    clock: trio.abc.Clock | None = None,
    keep_going: bool = False,
) -> CheckReport:
    """The check of ``command`` (``clock``: a ``trio.testing.MockClock`` to run the check's
    clock faster than the bot's)."""
    steps = select(patterns) if patterns else None
    return trio.run(
        lambda: run_check(
            command,
            variant=variant,
            limits=limits,
            steps=steps,
            fail_fast=fail_fast,
            jobs=jobs,
            keep_transcripts=keep_transcripts,
            cwd=ROOT,
            sandbox=sandbox,
            keep_going=keep_going,
        ),
        clock=clock,
    )


def failures(report: CheckReport) -> list[tuple[str, str, str | None, str | None]]:
    """Each failed step: its name, what went wrong, what was expected and what came."""
    return [(s.name, s.message, s.expected, s.got) for s in report.steps if s.verdict == "fail"]


def by_verdict(report: CheckReport, verdict: str) -> list[str]:
    return [s.name for s in report.steps if s.verdict == verdict]


def step(report: CheckReport, name: str) -> StepResult:
    return next(s for s in report.steps if s.name == name)


def names(steps: Sequence[StepResult]) -> list[str]:
    return [s.name for s in steps]
