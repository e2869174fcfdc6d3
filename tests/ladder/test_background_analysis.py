"""``ladder run --analyze N`` (``referee.ladder.background``): while a small real ladder plays, a
worker process at nice 19 analyses up to N matches per bot not analysed yet and stores them as
``referee ladder analyze`` does; a log that cannot be analysed, or an error inside the
analysis, is told and skipped, never the ladder's end nor the worker's."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.analysis import Budget
from referee.cli import main
from referee.ladder import background
from referee.ladder.analysis import AnalyseSettings
from referee.store.analysis import ToAnalyse, bot_analyses
from referee.store.writer import LadderStore
from tests.ladder.helpers import ROOT
from tests.ladder.test_ladder_analysis import BOTS, SHORT
from tests.web.ladder_helpers import hostile_ladder

SMALL = AnalyseSettings(budget=Budget(first=8, most=8, luck=8, sift=2))


@pytest.mark.process
def test_ladder_run_analyze_stores_up_to_n_matches_per_bot(tmp_path: Path) -> None:
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "first_legal_bot.py").write_text((ROOT / "tests" / "bots" / "first_legal_bot.py").read_text())
    (tmp_path / "bots.toml").write_text(BOTS)
    db = tmp_path / "l.db"
    run = ["ladder", "run", str(tmp_path / "bots.toml"), "--games", "2", "--db", str(db), "--seed", "7", "-q"]
    run += [*SHORT, "--sandbox", "off", "--cwd", str(tmp_path), "--analyze", "1", "--analyze-budget", "8"]
    result = CliRunner().invoke(main, run)
    assert result.exit_code == 0, result.output
    store = LadderStore(db)
    try:
        found = {bot: bot_analyses(store.db, bot, 100) for bot in ("alice", "bob")}
    finally:
        store.close()
    for bot, rows in found.items():
        assert len({r.key for r in rows}) == 1, bot  # one match each: N = 1
        assert all(r.bot == bot and r.valued > 0 and r.settings["budget"] == 8 for r in rows)
    with closing(sqlite3.connect(db)) as con:
        (played,) = con.execute("SELECT COUNT(*) FROM matches WHERE status = 'done'").fetchone()
    assert played == 8  # the ladder played every match


def test_a_log_that_cannot_be_analysed_is_told_and_skipped(tmp_path: Path) -> None:
    db = hostile_ladder(tmp_path, games=1)  # its rows name logs that were never written
    told: list[str] = []
    worked = background.work(db, 2, SMALL, ended=lambda: True, say=told.append)
    assert worked > 0 and len(told) == worked and all("skipped, no readable log" in line for line in told)
    with closing(sqlite3.connect(db)) as con:
        assert con.execute("SELECT COUNT(*) FROM analyses").fetchone() == (0,)


def test_an_error_inside_the_analysis_is_told_and_the_worker_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = hostile_ladder(tmp_path, games=1)
    asked: list[int] = []

    def broken(_db: Path, _con: sqlite3.Connection, match: ToAnalyse, _settings: AnalyseSettings) -> str | None:
        asked.append(match.match)
        raise RuntimeError("boom")

    monkeypatch.setattr(background, "analyse_one", broken)
    told: list[str] = []
    worked = background.work(db, 1, SMALL, ended=lambda: True, say=told.append)
    assert worked == len(asked) > 1 and all("RuntimeError: boom" in line for line in told)
    assert len(set(asked)) == len(asked)  # each match tried once, never again and again


def test_the_worker_waits_for_the_ladders_database_and_never_makes_one(tmp_path: Path) -> None:
    calls = iter([False, False, True])
    assert background.work(tmp_path / "none.db", 1, SMALL, ended=lambda: next(calls)) == 0
    assert not (tmp_path / "none.db").exists()
