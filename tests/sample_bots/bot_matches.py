"""The sample bots and the kits through the referee: their commands, whole matches and
``referee check``.

The search bots' tests (search and ISMCTS) play real matches through `referee match` in a
subprocess and read their logs: the entries, the time a seat took per decision
(``referee.replay.timing``) and the bank the referee's clock left it. The kits' tests play
matches with ``play_match`` and check their bots with ``run_check``, on clocks no bot misses on
a loaded machine, behind a guard against a hang: they judge what the bots say, not how fast.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import trio

from protocol.ruleset import RuleSet
from referee.check.results import CheckReport
from referee.check.runner import run_check
from referee.match.config import MatchConfig
from referee.match.outcome import MatchOutcome
from referee.match.play import TableOptions, play_match
from referee.players.bot_config import BotEntry, read_bots, runnable
from referee.players.building import build
from referee.replay.reader import read_log
from referee.replay.timing import decision_times
from referee.sandbox.bwrap import Sandbox
from tests.check.helpers import ROOMY

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
BOTS = {e.name: e for e in read_bots(ROOT / "sample_bots" / "bots.toml")}
"""The sample bots of sample_bots/bots.toml, by name."""
ROOMY_MATCH = MatchConfig(per_decision=30.0, bank=60.0, startup=60.0, grace=10.0)
"""The clock of ``ROOMY`` for whole matches."""
HANG = 900.0
"""Seconds a whole match or check may take before a test takes it to hang."""


def python_bot(name: str, seed: int | None = None) -> str:
    """The command of a Python sample bot (``name``: random, heuristic), runnable from any folder."""
    command = f"{PY} {ROOT}/sample_bots/python/{name}_bot.py"
    return command if seed is None else f"{command} --seed {seed}"


HEURISTIC = python_bot("heuristic")


def random_bot(seed: int) -> str:
    return python_bot("random", seed)


def sample_bot_command(entry: BotEntry) -> str:
    """The command of a sample bot of bots.toml, built, to run from the repository root (the
    test is skipped where a program it needs is missing)."""
    if not runnable(entry):
        pytest.skip(f"{entry.name} needs a tool that is not installed here")
    folder = build(entry, ROOT).folder  # from ROOT, a command run in a bot's folder names it
    words = [str(folder / word) if word.startswith("./") else word for word in shlex.split(entry.command)]
    return shlex.join(words).replace("python3 ", f"{sys.executable} ", 1)


def play(seats: list[str], rules: RuleSet, seed: int, options: TableOptions, log: Path | None = None) -> MatchOutcome:
    """``play_match`` from synchronous code, behind the hang guard."""

    async def guarded() -> MatchOutcome:
        with trio.fail_after(HANG):
            return await play_match(seats, rules, seed=seed, log_path=log, options=options)

    return trio.run(guarded)


def check_kit(command: str, folder: Path, *, variant: str = "american", sandbox: Sandbox | None = None) -> CheckReport:
    """``referee check COMMAND`` run from a kit's ``folder`` (as a bot list with ``folder`` runs
    it), on the ``ROOMY`` clock, behind the hang guard."""

    async def guarded() -> CheckReport:
        with trio.fail_after(HANG):
            return await run_check(
                command, variant=variant, limits=ROOMY, jobs=3, cwd=folder, sandbox=sandbox, keep_transcripts=True
            )

    return trio.run(guarded)


def match(
    variant: str, bots: list[str], seed: int, log: Path, *extra: str, rounds: int = 1, timeout: float = 300
) -> dict[str, Any]:
    """``referee match --json`` of ``rounds`` rounds (``extra``: more options); its result."""
    done = subprocess.run(
        [PY, "-m", "referee.cli", "match", "--json", "--variant", variant, "--seed", str(seed),
         "--set", "end=rounds", "--set", f"rounds={rounds}", "--log", str(log), *extra, *bots],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def entries(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def decision_seconds(log: Path, seat: int) -> list[float]:
    """For each request to ``seat``, the time from the request to its reply (from the log)."""
    return decision_times(read_log(log).matches[0])[seat]


def bank_left_ms(log: Path, seat: int) -> int:
    """The seat's bank as the referee's last request to it gave it, in milliseconds."""
    sent = [e["msg"] for e in entries(log) if e["type"] == "send" and e["seat"] == seat]
    requests = [msg for msg in sent if msg["type"].endswith("_request")]
    return int(requests[-1]["time"]["bank_ms"])
