"""What a ladder tells a bot's author about its faults: after ``ladder run``'s table, per bot
that was dropped, its counts by reason and its first fault explained (message, hint, exit
status, last stderr lines, the log to replay); ``ladder table --bot NAME`` shows one bot in
detail. The explanations are kept in the ``faults`` table, which older databases get when
opened (``referee/ladder/faults.py``, ``referee/store/migrations.py``)."""

from __future__ import annotations

import dataclasses
import json
import shlex
import sqlite3
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner, Result
from rich.console import Console

from referee.cli import main
from referee.ladder.faults import BotFaults, bot_faults
from referee.ladder.schedule import draw_sets
from referee.ladder.standings import standings, standings_table
from referee.rules import ruleset
from referee.shared import FaultReport
from referee.store.records import Drop, LadderSettings
from referee.store.writer import LadderStore
from tests.ladder.helpers import BOTS, bot_list, check_consistent, earlier_ladder, record_of, synthetic_store

# the crashing bot of tests/bots/hostile_bot.py, with a last word on stderr first
CRASH = "sh -c " + shlex.quote(f"echo 'boom: no strategy for this trick' >&2; exec {BOTS['crash']}")


def ladder(*args: str) -> Result:
    return CliRunner().invoke(main, ["ladder", *args], catch_exceptions=False)


@pytest.mark.process
def test_a_crashing_bot_is_explained_after_the_table_and_in_its_detail(tmp_path: Path) -> None:
    config = bot_list(tmp_path, ["first", "crash"], crash=CRASH)
    db = tmp_path / "l.db"
    result = ladder("run", str(config), "--games", "1", "--db", str(db), "--sandbox", "off", "--time-per-move", "3")
    assert result.exit_code == 0, result.output
    check_consistent(db)
    out = result.output
    summary = out[out.index("faults:") :]
    assert "crash: dropped 8 times in 4 of 4 matches: crash 8" in summary
    assert "first (crash), in match 00000-0:" in summary
    assert "crash: crash (dropped: the referee played the seat from then on)" in summary
    assert "its program exited with code 3" in summary
    assert "hint: the bot's program ended: its stderr (below, or in the log) shows why" in summary
    assert "| boom: no strategy for this trick" in summary
    assert f"look closer: referee replay {tmp_path}/l-logs/00000-0.jsonl --seat" in summary
    assert f"all of its faults: referee ladder table --bot crash --db {db}" in summary
    assert "first:" not in summary.replace("first (crash)", "")  # the bot that never failed is not listed

    detail = ladder("table", "--db", str(db), "--bot", "crash")
    assert detail.exit_code == 0, detail.output
    assert "8/0/0" in detail.output and "first " not in detail.output.split("command:")[0]  # its row only
    assert f"command: {CRASH}" in detail.output
    assert "first crash (of 8), in match 00000-0:" in detail.output
    assert "| boom: no strategy for this trick" in detail.output
    assert "replay its faults (8 seats in 4 matches):" in detail.output
    assert detail.output.count("  referee replay ") == 8

    data = json.loads(ladder("table", "--db", str(db), "--bot", "crash", "--json").output)
    assert data["standing"]["crashes"] == 8 and data["reasons"] == {"crash": 8} and data["faulty_matches"] == 4
    fault = data["examples"][0]["fault"]
    assert (fault["name"], fault["reason"], fault["exit"]) == ("crash", "crash", "exited with code 3")
    assert fault["stderr"] == ["boom: no strategy for this trick"] and fault["stderr_lines"] == 1
    assert len(data["drops"]) == 8 and all(d["log"] for d in data["drops"])

    clean = ladder("table", "--db", str(db), "--bot", "first")
    assert "first: no faults in 4 matches" in clean.output
    unknown = CliRunner().invoke(main, ["ladder", "table", "--db", str(db), "--bot", "nobody"])
    assert unknown.exit_code == 1 and "no bot named 'nobody' in this ladder (bots: crash, first)" in unknown.output
    con = sqlite3.connect(db)
    assert con.execute("SELECT COUNT(*), COUNT(DISTINCT match) FROM faults WHERE bot = 'crash'").fetchone() == (8, 4)
    con.close()


@pytest.mark.process
def test_a_clean_ladder_prints_no_fault_summary(tmp_path: Path) -> None:
    config = bot_list(tmp_path, ["first", "random"])
    result = ladder("run", str(config), "--games", "1", "--db", str(tmp_path / "l.db"), "--sandbox", "off")
    assert result.exit_code == 0, result.output
    assert "faults:" not in result.output
    assert "played 4 matches in" in result.output


@pytest.mark.process
def test_a_bot_that_crashes_after_goodbye_is_named_after_the_run_not_counted_as_a_fault(tmp_path: Path) -> None:
    """Its matches were over and count; its author still has something to fix (issue 32)."""
    mistake = f"{BOTS['first'].split()[0]} {Path(BOTS['first'].split()[1]).parent / 'mistake_bot.py'} crash_at_goodbye"
    config = bot_list(tmp_path, ["first", "sloppy"], sloppy=mistake)
    db = tmp_path / "l.db"
    result = ladder("run", str(config), "--games", "1", "--db", str(db), "--sandbox", "off")
    assert result.exit_code == 0, result.output
    assert check_consistent(db) == {"done": 4, "total": 4}
    assert "faults:" not in result.output
    [line] = [line for line in result.output.splitlines() if "after goodbye" in line]
    assert line.startswith("bot sloppy: its program exited with code 1 after goodbye, once its match was over, 8 times")
    assert line.endswith("; its stderr ended: RuntimeError: no statistics to save") and "the results stand" in line
    con = sqlite3.connect(db)
    assert con.execute("SELECT COUNT(*) FROM faults").fetchone() == (0,)
    assert con.execute("SELECT COUNT(*) FROM results WHERE status != 'ok'").fetchone() == (0,)
    con.close()


def test_faults_are_stored_with_their_match_and_read_back(tmp_path: Path) -> None:
    store = LadderStore(tmp_path / "f.db")
    rules = ruleset("american")
    store.initialize(
        LadderSettings(9, rules, 1, "2026-01-01T00:00:00+00:00"),
        [("a", "cmd a"), ("b", "cmd b")],
        draw_sets(["a", "b"], rules.players, 9, 1),
    )
    match = store.pending()[0]
    report = FaultReport(
        seat=1,
        name="hello-name",
        reason="bad_json",
        message="not JSON",
        action="forfeit",
        line="debug: x",
        hint="stdout carries the protocol only",
        exit="exited with code 0",
        stderr=["a", "b"],
        stderr_lines=7,
    )
    record = record_of(match, [10, 20, 30, 40], ["ok", "bad_json", "ok", "ok"])
    store.record(dataclasses.replace(record, faults=[report], log="logs/00000-0.jsonl"))
    bot = match.seats[1]
    details = store.fault_details(bot)
    assert len(details) == 1
    stored = details[0]
    assert (stored.match, stored.seq, stored.log) == ("00000-0", 1, "logs/00000-0.jsonl")
    assert stored.report == msgspec.structs.replace(report, name=bot)
    assert store.fault_details("b" if bot == "a" else "a") == []
    assert store.drops() == [Drop("00000-0", 1, 1, bot, "bad_json", "logs/00000-0.jsonl")]
    assert store.drop_counts() == {bot: 1}
    assert bot_faults(store, bot).headline() == "dropped once in 1 of 1 match: bad_json 1"
    store.close()


def test_an_earlier_database_gets_the_faults_table_and_its_drops_are_still_listed(tmp_path: Path) -> None:
    db = earlier_ladder("v2-71f432d.db", tmp_path)  # written before faults were explained
    store = LadderStore(db)
    assert store.fault_details() == [] and len(store.drops("crash")) == 8
    store.close()
    detail = ladder("table", "--db", str(db), "--bot", "crash")
    assert detail.exit_code == 0, detail.output
    assert "crash: dropped" in detail.output and "crash 8" in detail.output
    assert "recorded before the ladder kept explanations: referee replay v2-71f432d-logs/" in detail.output


def test_headlines_count_in_words() -> None:
    drop = Drop("00000-0", 1, 0, "a", "crash", None)
    assert BotFaults("a", 1, [drop], []).headline() == "dropped once in 1 of 1 match: crash 1"
    timeout = Drop("00000-1", 2, 2, "a", "timeout", None)
    many = BotFaults("a", 3, [drop, timeout, drop], [])
    assert many.headline() == "dropped 3 times in 2 of 3 matches: crash 2, timeout 1"
    assert BotFaults("a", 1, [], []).headline() == "no faults in 1 match"


def test_long_names_are_shown_whole_where_the_table_has_room(tmp_path: Path) -> None:
    name = "a-bot-with-a-name-of-thirty-two-"
    store = synthetic_store(tmp_path / "l.db", [name, "b"], 1, lambda m: [0, 5, 10, 26])
    rows = standings(store)
    store.close()
    wide = Console(width=120, record=True)
    wide.print(standings_table(rows))
    assert name in wide.export_text()
    narrow = Console(width=80, record=True)
    narrow.print(standings_table(rows))
    text = narrow.export_text()
    assert "crash/tmo/err" in text and "pts/rd" in text and "…" not in text  # figures never squeezed
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.strip().startswith("1 "))
    second = next(i for i, line in enumerate(lines) if line.strip().startswith("2 "))
    pieces = [lines[first].split()[1]] + [line.strip() for line in lines[first + 1 : second]]
    assert "".join(pieces) == name  # folded onto the next lines, not cut
