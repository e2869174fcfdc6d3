"""Real ladder runs with real bot processes: the demo ranks the heuristic bot above the random
one, every rotation of a set is dealt the same hands, bot processes are kept between matches
with --keep-bots (and fresh otherwise), a crashing bot is restarted and its crashes counted,
and K tables run at once."""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from referee.cli import main
from referee.ladder.setup import run_lock
from referee.ladder.standings import standings
from referee.store.writer import LadderStore
from tests.ladder.helpers import ROOT, bot_list, check_consistent

pytestmark = pytest.mark.process


def ladder(*args: str) -> Result:
    return CliRunner().invoke(main, ["ladder", *args], catch_exceptions=False)


def log_entries(folder: Path) -> dict[str, list[dict[str, Any]]]:
    return {
        log.stem: [json.loads(line) for line in log.read_text().splitlines()] for log in sorted(folder.glob("*.jsonl"))
    }


def hellos(entries: list[dict[str, Any]]) -> list[int]:
    """Seats whose handshake is in this match's log (a new process for that seat)."""
    return [e["seat"] for e in entries if e["type"] == "recv" and json.loads(e["line"]).get("type") == "hello"]


def test_demo_ranks_heuristic_above_random_with_identical_deals(tmp_path: Path) -> None:
    config = bot_list(tmp_path, ["random", "heuristic"])
    db = tmp_path / "demo.db"
    result = ladder("run", str(config), "--games", "2", "--db", str(db), "--seed", "3", "--keep-bots")
    assert result.exit_code == 0, result.output
    assert "new ladder: 2 duplicate sets" in result.output
    assert "8 of 8 matches" in result.output and "matches/min" in result.output
    assert "order of the top 2: 0 of 1 neighbours sure" in result.output  # 2 sets never decide
    assert check_consistent(db) == {"done": 8, "total": 8}
    store = LadderStore(db)
    rows = standings(store)
    store.close()
    assert [r.bot for r in rows] == ["heuristic", "random"]
    assert rows[0].mu - rows[1].mu > rows[0].sigma + rows[1].sigma
    assert rows[0].matches == rows[1].matches == 8
    assert rows[0].fresh_bots == 0  # --keep-bots: no result of this ladder had fresh bots
    assert "with bots kept across matches (--keep-bots)" in result.output and "warning:" in result.output

    logs = log_entries(tmp_path / "demo-logs")
    assert len(logs) == 8
    by_set: dict[str, dict[int, dict[int, list[list[str]]]]] = defaultdict(dict)
    for name, entries in logs.items():
        set_index, rotation = name.split("-")
        header = entries[0]
        assert header["type"] == "header" and header["seed"] == entries[0]["seed"]
        by_set[set_index][int(rotation)] = {e["round"]: e["hands"] for e in entries if e["type"] == "deal"}
    for rotations in by_set.values():
        assert sorted(rotations) == [0, 1, 2, 3]
        longest = max(len(deals) for deals in rotations.values())
        for number in range(longest):
            dealt = [deals[number] for deals in rotations.values() if number in deals]
            assert len(dealt) >= 1
            assert all(hands == dealt[0] for hands in dealt), f"round {number} was dealt differently"
        assert all(0 in deals and 1 in deals for deals in rotations.values())  # more than one round compared
    # with --keep-bots every seat's bot process was started once and kept for all eight matches
    assert sum(len(hellos(entries)) for entries in logs.values()) == 4
    assert hellos(logs["00000-0"]) == [0, 1, 2, 3]

    # `ladder times`: every request each bot was sent, answered, pooled by bot
    asked: dict[str, int] = defaultdict(int)
    longest: dict[str, float] = defaultdict(float)  # seconds, from the logs' own ``t`` fields
    for entries in logs.values():
        names = [seat["name"] for seat in entries[0]["seats"]]
        waiting: dict[int, float] = {}
        for e in entries:
            if e["type"] == "send" and e["msg"]["type"].endswith("_request"):
                asked[names[e["seat"]]] += 1
                waiting[e["seat"]] = e["t"]
            elif e["type"] == "recv" and e["seat"] in waiting:
                took = e["t"] - waiting.pop(e["seat"])
                longest[names[e["seat"]]] = max(longest[names[e["seat"]]], took)
    times = ladder("times", "--db", str(db), "--json")
    assert times.exit_code == 0, times.output
    data = json.loads(times.output)
    assert data["matches"] == 8 and data["unreadable"] == []
    for bot in ("random", "heuristic"):
        figures = data["bots"][bot]
        assert figures["decisions"] == asked[bot] > 100
        assert 0 <= figures["median_ms"] <= figures["p90_ms"] <= figures["p99_ms"] <= figures["max_ms"]
        assert figures["max_ms"] == round(longest[bot] * 1000, 1)
    # a ladder made with a relative --db records relative log paths: still found from elsewhere
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE matches SET log = 'demo-logs/' || substr(log, length(log) - 12)")
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT log FROM matches ORDER BY id").fetchone() == ("demo-logs/00000-0.jsonl",)
    assert json.loads(ladder("times", "--db", str(db), "--json").output)["matches"] == 8
    (tmp_path / "demo-logs" / "00000-0.jsonl").unlink()
    text = ladder("times", "--db", str(db))
    assert text.exit_code == 0, text.output
    assert "over 7 matches" in text.output and "left out:" in text.output and "00000-0.jsonl" in text.output


def test_a_crashing_bot_is_restarted_for_every_match_and_its_crashes_counted(tmp_path: Path) -> None:
    config = bot_list(tmp_path, ["first", "crash"])
    db = tmp_path / "l.db"
    result = ladder(
        "run", str(config), "--games", "1", "--db", str(db), "--time-per-move", "3", "--quiet", "--keep-bots"
    )
    assert result.exit_code == 0, result.output
    assert result.output == ""
    check_consistent(db)
    table = {row["bot"]: row for row in json.loads(ladder("table", "--db", str(db), "--json").output)}
    assert table["crash"]["crashes"] == 8  # two seats in each of four matches
    assert table["first"]["crashes"] == 0
    assert table["first"]["rank"] == 1
    logs = log_entries(tmp_path / "l-logs")
    for name, entries in logs.items():
        header = entries[0]
        crash_seats = [s["seat"] for s in header["seats"] if s["name"] == "hostile-crash"]
        assert len(crash_seats) == 2
        assert set(crash_seats) <= set(hellos(entries)), f"{name}: the crashed bot was not started again"
        faults = [e for e in entries if e["type"] == "fault"]
        assert sorted(f["seat"] for f in faults) == sorted(crash_seats)
        assert all(f["reason"] == "crash" for f in faults)
        stderr = {e["seat"]: e for e in entries if e["type"] == "stderr"}
        assert sorted(stderr) == [0, 1, 2, 3]  # every seat's stderr of this match
        assert all(stderr[s]["exit_code"] == 3 for s in crash_seats)
        assert all(e["exit_code"] is None for s, e in stderr.items() if s not in crash_seats)  # kept: still running
    # with --keep-bots the first-legal bots were kept: their handshakes are in the first match only
    first_hellos = sum(
        len(set(hellos(e)) - {s["seat"] for s in e[0]["seats"] if s["name"] == "hostile-crash"}) for e in logs.values()
    )
    assert first_hellos == 2


def test_tables_run_at_once_each_with_its_own_bots(tmp_path: Path) -> None:
    config = bot_list(tmp_path, ["first", "random", "heuristic"])
    db = tmp_path / "k.db"
    args = ["run", str(config), "--games", "2", "--concurrency", "2", "--quiet"]
    result = ladder(*args, "--db", str(db), "--keep-bots")
    assert result.exit_code == 0, result.output
    assert check_consistent(db) == {"done": 8, "total": 8}
    logs = log_entries(tmp_path / "k-logs")
    assert sum(len(hellos(entries)) for entries in logs.values()) == 8  # four processes per table
    # fresh bots (the default): four new processes for every match, at both tables
    fresh = tmp_path / "f.db"
    result = ladder(*args, "--db", str(fresh))
    assert result.exit_code == 0, result.output
    assert check_consistent(fresh) == {"done": 8, "total": 8}
    assert all(hellos(entries) == [0, 1, 2, 3] for entries in log_entries(tmp_path / "f-logs").values())


def test_a_missing_bot_program_is_refused_before_the_ladder_is_made(tmp_path: Path) -> None:
    config = bot_list(tmp_path, ["first", "ghost"], ghost="/nonexistent/bot")
    db = tmp_path / "l.db"
    result = CliRunner().invoke(main, ["ladder", "run", str(config), "--games", "1", "--db", str(db), "--quiet"])
    assert result.exit_code == 1
    named = "bot ghost: its command '/nonexistent/bot' needs the program '/nonexistent/bot': there is no"
    assert named in result.output
    assert not db.exists()


def test_a_bot_that_cannot_start_is_left_out_by_the_roll_call_and_the_others_play(tmp_path: Path) -> None:
    ghost = tmp_path / "ghost"
    ghost.write_text("#!/nonexistent/interpreter\n")  # an executable file whose interpreter is missing
    ghost.chmod(0o755)
    config = bot_list(tmp_path, ["first", "random", "ghost"], ghost=str(ghost))
    db = tmp_path / "l.db"
    args = ["ladder", "run", str(config), "--games", "1", "--db", str(db), "--quiet", "--sandbox", "off"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "bot ghost refused: it failed its start-up check (start); the ladder goes on without it" in result.output
    assert "cannot start bot" in result.output
    assert check_consistent(db) == {"done": 4, "total": 4}

    (tmp_path / "alone").mkdir()
    alone = bot_list(tmp_path / "alone", ["first", "ghost"], ghost=str(ghost))
    result = CliRunner().invoke(main, [*args[:2], str(alone), *args[3:6], str(tmp_path / "alone.db"), *args[7:]])
    assert result.exit_code == 1
    assert "bot ghost refused" in result.output and "a ladder needs at least two bots, 1 left" in result.output


def test_a_second_run_on_the_same_database_is_refused(tmp_path: Path) -> None:
    config = bot_list(tmp_path, ["first", "random"])
    db = tmp_path / "l.db"
    with run_lock(db):
        result = CliRunner().invoke(main, ["ladder", "run", str(config), "--db", str(db), "--quiet"])
    assert result.exit_code == 1
    assert "in use" in result.output


def test_commands_run_from_cwd(tmp_path: Path) -> None:
    config = tmp_path / "bots.toml"
    config.write_text(
        '[[bot]]\nname = "a"\ncommand = "python3 tests/bots/first_legal_bot.py"\n\n'
        '[[bot]]\nname = "b"\ncommand = "python3 sample_bots/python/random_bot.py"\n'
    )
    db = tmp_path / "l.db"
    result = ladder("run", str(config), "--games", "1", "--db", str(db), "--cwd", str(ROOT), "--quiet")
    assert result.exit_code == 0, result.output
    assert check_consistent(db) == {"done": 4, "total": 4}
