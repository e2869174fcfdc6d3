"""Bots started ahead of their match (issue 22, item 8): with fresh bots, a table starts the
next match's bots while a match plays. Each started program still plays exactly one match, a
waiting one has the least CPU weight (it cannot take time from the match in play), it gets a
playing bot's weight back when its match comes, and none is left running after the ladder.
Real bot processes, real control groups where the machine has them."""

from __future__ import annotations

import json
import uuid
from collections import Counter
from pathlib import Path

import pytest
import trio

from referee.ladder.spares import WAITING_WEIGHT, Spares
from referee.players.process import DEFAULT_GROUP, BotLimits
from referee.sandbox.cgroups import CgroupHost
from referee.sandbox.groups import bot_groups
from tests.ladder.helpers import PY, ROOT, bot_list, check_consistent
from tests.ladder.test_run import ladder
from tests.shared import stray

pytestmark = pytest.mark.process

PID_BOT = ROOT / "tests" / "bots" / "first_legal_bot.py"


def test_each_program_plays_exactly_one_match_and_none_is_left(tmp_path: Path) -> None:
    marker = f"spare-{uuid.uuid4().hex}"
    wrapper = tmp_path / "pid_bot.py"  # says its process id on stderr: the logs tell which process played where
    wrapper.write_text(f"import os, runpy, sys\nsys.stderr.write(f'PID {{os.getpid()}}\\n')\nsys.argv[1:] = []\n"
                       f"runpy.run_path({str(PID_BOT)!r}, run_name='__main__')\n")  # fmt: skip
    command = f"{PY} {wrapper} {marker}"
    config = bot_list(tmp_path, ["a", "b", "c", "d"], a=command, b=command, c=command, d=command)
    db = tmp_path / "l.db"
    result = ladder("run", str(config), "--games", "2", "--db", str(db), "--sandbox", "off", "--quiet")
    assert result.exit_code == 0, result.output
    assert check_consistent(db) == {"done": 8, "total": 8}
    played: Counter[str] = Counter()
    for log in (tmp_path / "l-logs").glob("*.jsonl"):
        for entry in map(json.loads, log.read_text().splitlines()):
            if entry["type"] == "stderr":
                played.update(line for line in entry["text"].splitlines() if line.startswith("PID "))
    assert sum(played.values()) == 8 * 4  # a process for every seat of every match
    assert set(played.values()) == {1}  # and no process in two matches
    assert stray(marker) == []  # spares never used were ended with the table


def _cpu_weight_file(link: object) -> Path:
    group = link.group  # type: ignore[attr-defined]
    folder = group.folders["cpu"]
    return folder / ("cpu.shares" if group.version == 1 else "cpu.weight")


@pytest.mark.skipif(not isinstance(bot_groups(), CgroupHost), reason="no control groups here")
async def test_a_waiting_spare_has_the_least_weight_and_a_playing_bots_when_taken() -> None:
    limits = BotLimits(group=DEFAULT_GROUP)
    async with trio.open_nursery() as nursery:
        spares = Spares(nursery, {"a": f"{PY} {PID_BOT}"}, lambda name: limits)
        spares.ahead(["a"])
        with trio.fail_after(60):  # a hang guard
            while not spares.waiting.get("a"):
                await trio.sleep(0.01)
        (waiting,) = spares.waiting["a"]
        weight = _cpu_weight_file(waiting)
        low = WAITING_WEIGHT * 1024 // 100 if weight.name == "cpu.shares" else WAITING_WEIGHT
        assert int(weight.read_text()) == low
        taken = spares.take("a")
        assert taken is waiting and spares.take("a") is None  # each spare for one match
        assert int(weight.read_text()) == (1024 if weight.name == "cpu.shares" else 100)
        await taken.close()
        await spares.close()
        nursery.cancel_scope.cancel()
