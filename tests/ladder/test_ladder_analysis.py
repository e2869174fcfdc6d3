"""``referee ladder analyze`` (``referee.ladder.analysis``): a ladder's latest finished matches
analysed and kept in its database, one match per transaction, resumable; the link of a worst
decision lands on its step of the replay viewer; ``referee analyze --cluster local:2`` gives the
figures of a local run with the same seed."""

from __future__ import annotations

import json
import shlex
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.analysis.infoset import match_decisions
from referee.bench.analyze import greedy_match
from referee.cli import main
from referee.cli.play import analysis_offer
from referee.ladder.analysis import viewer_step
from referee.replay.record import MatchRecord
from referee.store.analysis import bot_analyses
from referee.store.writer import LadderStore
from tests.ladder.helpers import ROOT
from tests.web.ladder_helpers import hostile_ladder

BOTS = """
[[bot]]
name = "alice"
command = "python3 bots/first_legal_bot.py"

[[bot]]
name = "bob"
command = "python3 bots/first_legal_bot.py"
"""
SHORT = ["--set", "end=rounds", "--set", "rounds=2"]
"""The ladders' matches: two rounds (a match's analysis is a few seconds of CPU a round)."""


def viewer_steps(record: MatchRecord) -> list[tuple[int, str, int | None, int | None]]:
    """The replay viewer's steps (viewer.html's ``steps``): (round index, kind, trick, seat)."""
    steps: list[tuple[int, str, int | None, int | None]] = []
    for ri, r in enumerate(record.rounds):
        steps.append((ri, "deal", None, None))
        if r.passes:
            steps.append((ri, "pass", None, None))
        if r.declarations:
            steps.append((ri, "declare", None, None))
        steps += [(ri, "play", t.number, p.seat) for t in r.tricks for p in t.plays]
        if r.result:
            steps.append((ri, "end", None, None))
    return steps


def test_a_decisions_step_is_the_viewers() -> None:
    record = greedy_match(3)
    steps = viewer_steps(record)
    starts = {ri: steps.index((ri, "deal", None, None)) for ri in range(len(record.rounds))}
    places = {r.round: i for i, r in enumerate(record.rounds)}
    checked = 0
    for d in match_decisions(record, [0, 1]):
        if d.info.kind not in ("play", "pass"):
            continue
        ri = places[d.info.round]
        report = type("R", (), {"kind": d.info.kind, "trick": d.trick, "seat": d.info.view.seat})()
        step = viewer_step(record.rounds[ri], report)  # type: ignore[arg-type]
        kind, trick, seat = steps[starts[ri] + step - 1][1:]
        assert kind == d.info.kind and (d.info.kind == "pass" or (trick, seat) == (d.trick, d.info.view.seat))
        checked += 1
    assert checked > 50


def test_a_match_without_its_log_is_skipped_not_stored(tmp_path: Path) -> None:
    db = hostile_ladder(tmp_path, games=1)  # its rows name logs that were never written
    result = CliRunner().invoke(main, ["ladder", "analyze", "--db", str(db), "--bot", "alpha", "--matches", "2"])
    assert result.exit_code == 0, result.output
    assert result.output.count("skipped, no readable log") == 2 and "0 matches analysed" in result.output
    store = LadderStore(db)
    try:
        assert bot_analyses(store.db, "alpha", 10) == []
    finally:
        store.close()
    refused = CliRunner().invoke(main, ["ladder", "analyze", "--db", str(db), "--bot", "nobody"])
    assert refused.exit_code == 2 and "no bot named 'nobody'" in refused.output


def small_ladder(folder: Path) -> Path:
    (folder / "bots").mkdir()
    (folder / "bots" / "first_legal_bot.py").write_text((ROOT / "tests" / "bots" / "first_legal_bot.py").read_text())
    (folder / "bots.toml").write_text(BOTS)
    db = folder / "l.db"
    run = ["ladder", "run", str(folder / "bots.toml"), "--games", "1", "--db", str(db), "--seed", "7", "-q"]
    result = CliRunner().invoke(main, [*run, *SHORT, "--sandbox", "off", "--cwd", str(folder)])
    assert result.exit_code == 0, result.output
    return db


@pytest.mark.process
def test_ladder_analyze_stores_each_match_and_resumes(tmp_path: Path) -> None:
    db = small_ladder(tmp_path)
    ask = ["ladder", "analyze", "--db", str(db), "--bot", "alice", "--matches", "1", "--budget", "8", "--workers", "1"]
    first = CliRunner().invoke(main, ask)
    assert first.exit_code == 0 and "1 match analysed" in first.output, first.output
    second = CliRunner().invoke(main, ask)
    assert second.exit_code == 0 and "1 match analysed" in second.output, second.output
    store = LadderStore(db)
    try:
        rows = bot_analyses(store.db, "alice", 10)
    finally:
        store.close()
    assert len({r.key for r in rows}) == 2 and len(rows) == 4  # alice holds two seats of each match
    assert all(r.bot == "alice" and r.valued > 0 and r.decisions >= r.valued for r in rows)
    assert any(r.worst for r in rows) and all(w.step >= 1 and w.loss > 0 for r in rows for w in r.worst)
    with closing(sqlite3.connect(db)) as con:
        (version,) = con.execute("PRAGMA user_version").fetchone()
    assert version == 9


@pytest.mark.process
def test_analyze_on_a_local_cluster_gives_the_local_figures(tmp_path: Path) -> None:
    db = small_ladder(tmp_path)
    log = sorted((tmp_path / "l-logs").glob("*.jsonl"))[0]
    base = ["analyze", str(log), "--seat", "0", "--budget", "8", "--json", "--seed", "5"]
    local = CliRunner().invoke(main, [*base, "--workers", "1"])
    cluster = CliRunner().invoke(main, [*base, "--cluster", "local:2"])
    assert local.exit_code == 0 and cluster.exit_code == 0, cluster.output
    figures = [json.loads(r.stdout) for r in (local, cluster)]
    for found in figures:
        del found["seconds"]
    assert figures[0] == figures[1] and db.exists()


def test_play_offers_the_command_that_analyses_the_persons_match(tmp_path: Path) -> None:
    assert "--log FILE" in analysis_offer(None, 2)
    offer = analysis_offer(str(tmp_path / "my match.jsonl"), 2)
    command = shlex.split(offer.split(": ", 1)[1].split("; then open")[0])
    assert command == ["referee", "analyze", str(tmp_path / "my match.jsonl"), "--seat", "2", "--html",
                       str(tmp_path / "my match-analysis.html")]  # fmt: skip
    lower = shlex.split(analysis_offer(str(tmp_path / "m.jsonl"), 0, 8).split(": ", 1)[1].split("; then open")[0])
    assert lower[3:7] == ["--seat", "0", "--budget", "8"]  # the page's --analysis-budget: the page's figures


@pytest.mark.process
def test_the_offered_command_writes_the_persons_analysis(tmp_path: Path) -> None:
    small_ladder(tmp_path)
    log = sorted((tmp_path / "l-logs").glob("*.jsonl"))[0]
    command = shlex.split(analysis_offer(str(log), 1).split(": ", 1)[1].split("; then open")[0])
    result = CliRunner().invoke(main, [*command[1:], "--budget", "8", "--workers", "1"])
    assert result.exit_code == 0, result.output
    page = log.with_name(f"{log.stem}-analysis.html").read_text()
    assert '"seat":1' in page and "Hearts replay" in page
