"""Per-bot limits set before a bot starts: CPU seconds, memory, open files, working
directory and environment."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import trio

from referee.match.config import MatchConfig
from referee.match.outcome import MatchOutcome
from referee.match.play import TableOptions, play_match
from referee.players.process import DEFAULT_OPEN_FILES, BotLimits
from referee.rules import ruleset
from referee.sandbox.cgroups import BotGroupLimits

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parents[2]
GOOD = f"{sys.executable} {ROOT}/tests/bots/first_legal_bot.py"
SHORT = ruleset("american", {"end": "rounds", "rounds": 1})


def run(mode: str, limits: BotLimits, per_decision: float = 5.0) -> MatchOutcome:
    bot = f"{sys.executable} {ROOT}/tests/bots/limits_bot.py {mode}"
    config = MatchConfig(per_decision=per_decision, bank=0.0, startup=10.0, grace=0.3)
    return trio.run(
        lambda: play_match([bot, GOOD, GOOD, GOOD], SHORT, seed=1, options=TableOptions(config=config, limits=limits))
    )


def test_cpu_limit_ends_a_spinning_bot() -> None:
    """Named ``cpu`` (the kernel's SIGXCPU), not a plain crash."""
    outcome = run("cpu", BotLimits(cpu_seconds=1))
    assert outcome.seats[0].status == "cpu"
    (fault,) = outcome.faults
    assert fault.message == "the bot used up its CPU time (1 s) and was killed"
    assert fault.hint is not None and "--cpu-limit" in fault.hint
    assert [s.status for s in outcome.seats[1:]] == ["ok"] * 3


@pytest.mark.parametrize(
    ("mode", "limits"), [("memory", BotLimits(memory_mb=400)), ("files", BotLimits(open_files=64))]
)
def test_memory_and_file_limits_stop_the_bot(mode: str, limits: BotLimits) -> None:
    assert run(mode, limits).seats[0].status == "crash"
    # the same bot without the limit (its 1 GiB would pass the default group bound of 1 GiB)
    assert run(mode, BotLimits(group=BotGroupLimits(memory_mb=2048))).seats[0].status == "ok"


def test_descriptors_are_bounded_by_default() -> None:
    """Without ``--files-limit`` a bot's processes get DEFAULT_OPEN_FILES each (a bot filled the
    machine's file table when they were not bounded); ``None`` lifts it."""
    assert BotLimits().open_files == DEFAULT_OPEN_FILES < 1000
    assert run("files_1000", BotLimits()).seats[0].status == "crash"
    assert run("files_1000", BotLimits(open_files=None)).seats[0].status == "ok"


def test_working_directory_and_environment(tmp_path: Path) -> None:
    limits = BotLimits(cwd=str(tmp_path), env={"HEARTS_TEST_VAR": "seen"})
    outcome = run("nothing", limits)
    assert outcome.seats[0].name == f"{tmp_path.name}|seen"
    clean = run("nothing", BotLimits(clean_env=True))
    assert clean.seats[0].name.endswith("|-")
