"""No verdict on a broken bot, end to end with real bot processes: a duel whose OLD or NEW
crashes in its matches (``hostile_bot.py crash``: it says hello, then exits at its first play
request) or cannot start at all ends with exit status 2 naming the bot and its fault, never
with H0 or H1, and says so again when resumed; a gauntlet measures its pool without the broken
pool bots and ends with exit status 2 too. The JSON carries every bot's fault counts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from referee.cli import main
from tests.duel.helpers import FIRST, PY, RANDOM, SHORT
from tests.ladder.helpers import ROOT

pytestmark = pytest.mark.process

CRASH = f"{PY} {ROOT}/tests/bots/hostile_bot.py crash"
"""Says hello, then exits with status 3 at its first play request: dropped from every seat."""
DEAD = f"{PY} -c \"import sys; print('missing: libhearts.so', file=sys.stderr); sys.exit(4)\""
"""Exits before its hello, saying why on stderr."""
MUTE = f'{PY} -c "import time; time.sleep(30)"'
"""Starts and never says hello."""
QUICK = [*SHORT, "--sandbox", "off", "-k", "2", "--opponents", FIRST, "--sprt", "0,2"]


def referee(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def as_json(result: Result) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(result.stdout)
    return data


@pytest.mark.parametrize(("new", "old", "broken", "role"), [(FIRST, CRASH, "old", "OLD"), (CRASH, FIRST, "new", "NEW")])
def test_a_duel_whose_bot_crashes_in_its_matches_ends_with_status_2(
    tmp_path: Path, new: str, old: str, broken: str, role: str
) -> None:
    args = ["duel", new, old, "--db", str(tmp_path / "duel.db"), "--max-sets", "40", *QUICK]
    result = referee(*args)
    assert result.exit_code == 2, result.output
    assert "verdict: H1" not in result.output and "verdict: H0" not in result.output
    assert f"verdict: none: {broken} ({role}) is broken: it was dropped from" in result.output
    assert "(crash " in result.output and "referee: the bot exited with code 3" in result.output
    assert f"referee ladder table --bot {broken}" in result.output
    found = as_json(referee(*args, "--json"))  # resumed: it says so again, and plays nothing more
    assert found["verdict"] == "broken" and found["exit_status"] == 2 and found["this_run"]["matches"] == 0
    faults = found["faults"][broken]
    assert faults["dropped"] == faults["seats"] == faults["reasons"]["crash"] >= 3 and faults["broken"]
    assert faults["example"]["reason"] == "crash" and faults["example"]["exit"] == "exited with code 3"
    other = "new" if broken == "old" else "old"
    assert found["faults"][other]["dropped"] == 0 and found["faults"][other]["seats"] == faults["seats"]
    assert [b["bot"] for b in found["broken"]] == [broken] and found["broken"][0]["role"] == role
    (pairing,) = found["pairings"]
    assert pairing["scheduled"] <= 2  # the sets begun with the first (two tables), none after


@pytest.mark.parametrize(
    ("bot", "said"),
    [
        (DEAD, ["crash: the bot exited with code 4", "| missing: libhearts.so"]),
        (MUTE, ["timeout: no hello within the start-up limit of 2 s"]),
    ],
)
def test_a_duel_whose_bot_cannot_start_ends_before_its_first_set(tmp_path: Path, bot: str, said: list[str]) -> None:
    args = ["duel", FIRST, bot, "--db", str(tmp_path / "duel.db"), "--startup", "2", *QUICK]
    result = referee(*args)
    assert result.exit_code == 2, result.output
    assert "verdict: none: old (OLD) is broken: it failed to start" in result.output
    assert all(line in result.output for line in said), result.output
    found = as_json(referee(*args, "--json"))  # the roll call again: it fails again
    assert found["exit_status"] == 2 and found["this_run"]["matches"] == 0
    assert found["pairings"][0]["scheduled"] == 0
    assert found["broken"][0]["bot"] == "old" and found["broken"][0]["unstarted"]
    assert said[0].split(":")[0] == found["broken"][0]["example"]["reason"]


def test_a_failed_start_names_its_command_and_the_folder_it_started_in(tmp_path: Path) -> None:
    """Issue 43: "new (NEW) is broken: it failed to start (crash)" said neither what was started
    nor where, the first things to check when a bot cannot find its own files."""
    folder = tmp_path / "new"
    (folder / "bin").mkdir(parents=True)
    (folder / "bin" / "bot.py").write_text("import sys\nsys.exit('cannot open vendor/autoload.php')\n")
    args = ["duel", f"dir={folder} {PY} bin/bot.py", FIRST, "--db", str(tmp_path / "duel.db"), *QUICK]
    result = referee(*args)
    assert result.exit_code == 2, result.output
    lines = result.output.splitlines()
    at = lines.index("new (NEW) is broken: it failed to start (crash: the bot exited with code 1)")
    assert lines[at + 1 : at + 3] == [
        "  referee: the bot exited with code 1",
        f"  started: {PY} bin/bot.py (in {folder})",
    ]
    example = as_json(referee(*args, "--json"))["faults"]["new"]["example"]
    assert (example["command"], example["folder"]) == (f"{PY} bin/bot.py", str(folder))


def test_a_gauntlet_measures_its_pool_without_its_broken_bots(tmp_path: Path) -> None:
    pool = tmp_path / "pool.toml"
    bots = {"random": RANDOM, "crashing": CRASH, "dead": DEAD}
    pool.write_text("".join(f"[[bot]]\nname = {json.dumps(n)}\ncommand = {json.dumps(c)}\n\n" for n, c in bots.items()))
    args = ["gauntlet", FIRST, "--pool", str(pool), "--db", str(tmp_path / "gauntlet.db"), "--max-sets", "3"]
    result = referee(*args, *QUICK, "--json")
    assert result.exit_code == 2, result.output
    found = as_json(result)
    rows = {p["against"]: p for p in found["pairings"]}
    assert rows["random"]["sets"] == 3 and rows["random"]["verdict"] == "continue"
    assert rows["crashing"]["verdict"] == "broken" and 1 <= rows["crashing"]["scheduled"] <= 2
    assert rows["dead"]["verdict"] == "broken" and rows["dead"]["scheduled"] == 0
    assert [(b["bot"], b["role"], b["unstarted"]) for b in found["broken"]] == [
        ("crashing", "pool bot", False),
        ("dead", "pool bot", True),
    ]
    assert found["verdict"] == "broken" and found["exit_status"] == 2
    assert "dead (pool bot) is broken: it failed to start" in result.stderr
    assert f"  started: {DEAD} (in {tmp_path})" in result.stderr  # the pool list's folder
    text = referee(*args, *QUICK)
    table: dict[str, list[str]] = {}
    for line in text.output.splitlines():  # the table's rows come first
        if line.strip():
            table.setdefault(line.split()[0], line.split())
    assert table["crashing"][-1] == table["dead"][-1] == "broken" and table["random"][-1] == "-"
