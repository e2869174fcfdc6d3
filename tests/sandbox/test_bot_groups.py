"""A bot harms only itself (issue 22): every bot the referee starts runs in a control group of
its own, whose bounds hold for all its processes together. Real matches with real attacking
bots (``tests/bots/resource_bot.py``), in the sandbox and out of it: the attacker is stopped by
its own bound with a named reason, the other seats play on, the log verifies, nothing is left.

Skipped where no control group can be made (not root, nothing delegated)."""

from __future__ import annotations

import json
import os
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
import trio

from referee.match.config import MatchConfig
from referee.match.outcome import MatchOutcome
from referee.match.play import TableOptions, play_match
from referee.players.process import DEFAULT_GROUP, BotLimits
from referee.rules import ruleset
from referee.sandbox import bwrap
from referee.sandbox.bwrap import Sandbox, choose_sandbox
from referee.sandbox.cgroups import BotGroupLimits, CgroupHost
from referee.sandbox.groups import bot_groups
from tests.check.helpers import sandbox
from tests.shared import stray, verified

ROOT = Path(__file__).resolve().parents[2]
GOOD = f"{sys.executable} {ROOT}/tests/bots/first_legal_bot.py"
SHORT = ruleset("american", {"end": "rounds", "rounds": 1})
ROOMY = MatchConfig(per_decision=30.0, bank=30.0, startup=30.0, grace=1.0)
"""Clocks no bot here can miss on a busy machine: the verdicts are about bounds, not speed."""

HOST = bot_groups()
pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(
        not isinstance(HOST, CgroupHost), reason=f"no control groups here: {getattr(HOST, 'reason', '')}"
    ),
]


def attacker(mode: str, marker: str, *extra: str) -> str:
    return " ".join([sys.executable, f"{ROOT}/tests/bots/resource_bot.py", mode, marker, *extra])


async def against_good_bots(bot: str, log: Path, limits: BotLimits | None = None) -> MatchOutcome:
    """A round of ``bot`` at seat 0 against three first-legal bots."""
    with trio.fail_after(300):  # a guard against a hang, not a verdict on speed
        return await play_match(
            [bot, GOOD, GOOD, GOOD], SHORT, seed=3, log_path=log, options=TableOptions(config=ROOMY, limits=limits)
        )


def play(bot: str, log: Path, limits: BotLimits) -> MatchOutcome:
    return trio.run(against_good_bots, bot, log, limits)


def stderr_entry(log: Path, seat: int) -> dict[str, Any]:
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    entry: dict[str, Any] = next(e for e in entries if e["type"] == "stderr" and e["seat"] == seat)
    return entry


def our_groups() -> list[str]:
    """The bots' groups this referee process has now (each should be gone after its match)."""
    assert isinstance(HOST, CgroupHost)
    bases = [base for base in HOST.bases.values() if base.is_dir()]
    return sorted({entry.name for base in bases for entry in os.scandir(base) if entry.is_dir(follow_symlinks=False)})


def assert_only_the_attacker_dropped(outcome: MatchOutcome, log: Path, reason: str) -> None:
    assert outcome.seats[0].status == reason
    assert [s.status for s in outcome.seats[1:]] == ["ok"] * 3
    assert outcome.reason == "rounds_played"
    assert verified(log) == "verified"
    assert our_groups() == []


@pytest.mark.parametrize("sandboxed", [False, True], ids=["bare", "sandboxed"])
def test_a_bot_writing_4_gib_into_memfd_is_stopped_by_its_own_memory_bound(tmp_path: Path, sandboxed: bool) -> None:
    """memfd pages belong to no process: ``RLIMIT_AS`` never saw them, and such a bot got the
    referee OOM-killed. Now they count in the bot's group, and the kernel kills the bot."""
    marker = uuid.uuid4().hex
    log = tmp_path / "m.jsonl"
    limits = BotLimits(group=BotGroupLimits(memory_mb=192), sandbox=sandbox() if sandboxed else None)
    outcome = play(attacker("memfd", marker), log, limits)
    assert_only_the_attacker_dropped(outcome, log, "memory")
    fault = next(f for f in outcome.faults if f.seat == 0)
    assert "memory bound (192 MiB for all its processes" in fault.message
    assert stray(marker) == []


def test_a_bot_filling_its_tmpfs_is_stopped_by_its_memory_bound(tmp_path: Path) -> None:
    """The sandbox's private /tmp is a 256 MiB tmpfs in memory: files there count too."""
    log = tmp_path / "m.jsonl"
    limits = BotLimits(group=BotGroupLimits(memory_mb=128), sandbox=sandbox())
    outcome = play(attacker("tmpfs", uuid.uuid4().hex), log, limits)
    assert_only_the_attacker_dropped(outcome, log, "memory")


def test_a_fork_bomb_is_stopped_by_its_process_bound(tmp_path: Path) -> None:
    marker = uuid.uuid4().hex
    log = tmp_path / "m.jsonl"
    outcome = play(attacker("forkbomb", marker), log, BotLimits(group=BotGroupLimits(processes=40)))
    assert_only_the_attacker_dropped(outcome, log, "processes")
    assert stray(marker) == []  # its sleeping children went with its group


def test_48_setsid_spinners_get_one_core_and_leave_nothing(tmp_path: Path) -> None:
    """The spinners are the attacker's own business: they share its one core (its group's CPU
    time over the match is at most its quota, a bound the kernel enforces whatever the load),
    the others play, and the spinners end with the bot."""
    marker = uuid.uuid4().hex
    log = tmp_path / "m.jsonl"
    used: list[float] = []

    async def watched() -> MatchOutcome:
        start = trio.current_time()
        outcome = await against_good_bots(attacker("spin", marker, "48"), log)
        used.append(trio.current_time() - start)
        return outcome

    outcome = trio.run(watched)
    assert [s.status for s in outcome.seats] == ["ok"] * 4
    assert verified(log) == "verified"
    assert stray(marker) == []
    assert our_groups() == []
    cpu = stderr_entry(log, 0)["cpu_seconds"]
    assert cpu is not None and 0 < cpu <= DEFAULT_GROUP.cpu_cores * used[0] + 0.5
    assert all(stderr_entry(log, seat)["cpu_seconds"] < cpu for seat in (1, 2, 3))


def open_files() -> int:
    return int(Path("/proc/sys/fs/file-nr").read_text().split()[0])


def test_descriptors_across_processes_stay_a_small_part_of_the_file_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bot opening all it can in 300 processes (its process bound stops it at 256): at most
    that bound times its descriptor limit (65,536 by default), never the machine's table; a
    sandbox chosen while it holds them works."""
    marker = uuid.uuid4().hex
    log = tmp_path / "m.jsonl"
    before = open_files()
    peak: list[int] = []
    chosen: list[Sandbox | None] = []
    monkeypatch.setattr(bwrap, "_probed", {})  # tried for real while the attacker holds its files

    async def with_probe() -> MatchOutcome:
        async with trio.open_nursery() as nursery:

            async def probe() -> None:
                while True:
                    peak.append(open_files())
                    if peak[-1] - before > 30_000 and not chosen:
                        chosen.append(await trio.to_thread.run_sync(choose_sandbox, "auto", pytest.fail))
                    await trio.sleep(0.02)

            nursery.start_soon(probe)
            outcome = await against_good_bots(attacker("files", marker, "300"), log)
            nursery.cancel_scope.cancel()
        return outcome

    outcome = trio.run(with_probe)
    assert [s.status for s in outcome.seats] == ["ok"] * 4
    assert 30_000 < max(peak) - before < 100_000
    assert len(chosen) == 1 and isinstance(chosen[0], Sandbox)
    text = stderr_entry(log, 0)["text"]
    held = sum(int(line.split()[1]) for line in text.splitlines() if line.startswith("HELD "))
    assert 0 < held <= DEFAULT_GROUP.processes * 256
    assert stray(marker) == []


def cpu_of(log: Path, seat: int) -> tuple[float, float]:
    """The bot's CPU time (its group's, at its end) and the sum of its replies' ``cpu``."""
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    asked = sum(e["cpu"] for e in entries if e["type"] == "recv" and e["seat"] == seat and e.get("cpu") is not None)
    return float(stderr_entry(log, seat)["cpu_seconds"]), asked


@pytest.mark.xdist_group("spinners")  # beside the fairness bench's check that no spinner is left
@pytest.mark.parametrize("sandboxed", [False, True], ids=["bare", "sandboxed"])
def test_freeze_idle_stops_a_bot_thinking_on_the_others_time(tmp_path: Path, sandboxed: bool) -> None:
    """A bot that spins a thread all match long, at a table of slow bots: frozen whenever it is
    not asked, it uses CPU only for its start and its own decisions; not frozen, it spins
    through the others' turns. Each reply's CPU time is in the log (``recv`` ``cpu``: since its
    previous reply), and they add up to no more than its group's total."""
    marker = uuid.uuid4().hex
    spinner = f"{sys.executable} {ROOT}/referee/bench/spinner_bot.py threads 1"
    slow = f"{sys.executable} {ROOT}/tests/bots/hostile_bot.py slow {marker}"
    used: dict[bool, tuple[float, float]] = {}
    box = sandbox() if sandboxed else None
    for freeze in (True, False):
        log = tmp_path / f"freeze-{freeze}.jsonl"

        async def guarded(log: Path = log, freeze: bool = freeze) -> MatchOutcome:
            with trio.fail_after(300):
                limits = BotLimits(freeze_idle=freeze, sandbox=box)
                options = TableOptions(config=ROOMY, limits=limits)
                return await play_match([spinner, slow, slow, slow], SHORT, seed=3, log_path=log, options=options)

        outcome = trio.run(guarded)
        assert [s.status for s in outcome.seats] == ["ok"] * 4
        assert verified(log) == "verified"
        used[freeze] = cpu_of(log, 0)
    print(f"CPU (all, in its replies): frozen {used[True]} s, not frozen {used[False]} s")
    assert used[True][0] * 2 < used[False][0], used
    for total, asked in used.values():
        assert 0 < asked <= total + 0.01, used
    assert used[False][1] > used[True][0] * 2, used  # the spinning is counted in its replies
    assert stray(marker) == []
    assert our_groups() == []


def test_a_bot_that_ends_between_decisions_is_a_crash_not_a_broken_reply(tmp_path: Path) -> None:
    """The bot answers its first play and exits at once: its group (and the descriptors the
    referee reads its CPU time through) is gone before it is asked again, which must read as
    what it is, a crash, for every policy."""
    script = tmp_path / "quitter.py"
    script.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m['type'] == 'hello':\n"
        "        print(json.dumps({'type': 'hello', 'version': 1, 'name': 'quitter'}), flush=True)\n"
        "    elif m['type'] == 'pass_request':\n"
        "        print(json.dumps({'type': 'pass', 'id': m['id'], 'cards': m['legal'][:m['count']]}), flush=True)\n"
        "    elif m['type'] == 'play_request':\n"
        "        print(json.dumps({'type': 'play', 'id': m['id'], 'card': m['legal'][0]}), flush=True)\n"
        "        sys.exit(3)\n"
    )
    for freeze in (False, True):
        log = tmp_path / f"q-{freeze}.jsonl"
        outcome = play(f"{sys.executable} {script}", log, BotLimits(freeze_idle=freeze))
        assert [s.status for s in outcome.seats] == ["crash", "ok", "ok", "ok"], outcome.faults
        assert outcome.faults[0].message == "the bot exited with code 3"
        assert verified(log) == "verified"
    assert our_groups() == []
