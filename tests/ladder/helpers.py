"""Ladders for tests: bot lists in TOML, synthetic results, and checks of a ladder database."""

from __future__ import annotations

import json
import shutil
import sqlite3
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from referee.ladder.schedule import draw_sets
from referee.rules import ruleset
from referee.stats.ratings import replay
from referee.store.records import LadderSettings, ScheduledMatch, SeatResult, StoredMatch
from referee.store.writer import LadderStore

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
BOTS = {
    "random": f"{PY} {ROOT}/sample_bots/python/random_bot.py",
    "heuristic": f"{PY} {ROOT}/sample_bots/python/heuristic_bot.py",
    "first": f"{PY} {ROOT}/tests/bots/first_legal_bot.py",
    "crash": f"{PY} {ROOT}/tests/bots/hostile_bot.py crash",
}


FIXTURES = Path(__file__).resolve().parent / "fixtures"
EARLIER = {
    "v1-dbafde3.db": 1,
    "v1-5ef8122.db": 1,
    "v2-71f432d.db": 2,
    "v3-1d94cdc.db": 3,
    "v4-e5bcbe2.db": 4,
    "v5-85eb0bb.db": 5,
    "v6-7aa84db.db": 6,
    "v7-f9885c8.db": 7,
    "v8-2935c75.db": 8,
    "chain-dbafde3-to-1d94cdc.db": 3,
}
"""The ladder databases written by earlier referees (``fixtures/README.md``), by the schema
version each was written at."""


def earlier_ladder(name: str, folder: Path) -> Path:
    """A copy of the fixture ``name`` in ``folder``, with the bot list it was run with
    (``bots.toml``) and the scripts that list runs, so that ``ladder run`` can resume it.
    The fixture itself is never opened: SQLite would write beside it."""
    db = folder / name
    shutil.copy(FIXTURES / name, db)
    shutil.copy(FIXTURES / "bots.toml", folder / "bots.toml")
    (folder / "bots").mkdir(exist_ok=True)
    for script in ("first_legal_bot.py", "hostile_bot.py"):
        shutil.copy(ROOT / "tests" / "bots" / script, folder / "bots" / script)
    return db


def bot_list(folder: Path, names: Sequence[str], **commands: str) -> Path:
    """A TOML bot list of the named bots (commands from ``BOTS`` unless given)."""
    path = folder / "bots.toml"
    text = "".join(
        f'[[bot]]\nname = "{n}"\ncommand = {json.dumps(commands.get(n, BOTS.get(n, "")))}\n\n' for n in names
    )
    path.write_text(text)
    return path


def synthetic_store(
    path: Path, bots: Sequence[str], games: int, scores: Callable[[ScheduledMatch], list[int]]
) -> LadderStore:
    """A ladder of ``games`` sets whose every match is recorded with the given scores."""
    store = LadderStore(path)
    rules = ruleset("american")
    sets = draw_sets(bots, rules.players, 9, games)
    store.initialize(
        LadderSettings(9, rules, games, "2026-01-01T00:00:00+00:00"), [(b, f"cmd {b}") for b in bots], sets
    )
    for match in store.pending():
        store.record(record_of(match, scores(match)))
    return store


def record_of(match: ScheduledMatch, scores: list[int], statuses: Sequence[str] | None = None) -> StoredMatch:
    statuses = statuses or ["ok"] * len(scores)
    best = min(s for s, st in zip(scores, statuses, strict=True) if st == "ok")
    winners = [i for i, s in enumerate(scores) if s == best and statuses[i] == "ok"]
    return StoredMatch(
        match=match,
        match_id=f"m{match.key}",
        reason="target_reached",
        rounds=5,
        decisions=100,
        log=None,
        seats=[
            SeatResult(
                seat=i,
                bot=b,
                score=scores[i],
                status=statuses[i],
                moons=0,
                win=1 / len(winners) if i in winners else 0.0,
            )
            for i, b in enumerate(match.seats)
        ],
    )


def check_consistent(db: Path) -> dict[str, int]:
    """A ladder database that holds every done match exactly once, whose ratings are what
    replaying its results from scratch gives, bit for bit. Returns counts."""
    store = LadderStore(db)
    try:
        rows = store.match_rows()
        done = [r for r in rows if r["status"] == "done"]
        seqs = sorted(r["seq"] for r in done)
        assert seqs == list(range(1, len(done) + 1)), "seq must run 1, 2, 3, ... without gaps"
        con = sqlite3.connect(db)
        per_match = dict(con.execute("SELECT match, COUNT(*) FROM results GROUP BY match").fetchall())
        seats = store.settings().rules.players
        assert per_match == {r["id"]: seats for r in done}, "every done match has one result row per seat, no other"
        history = con.execute("SELECT COUNT(DISTINCT seq) FROM rating_history").fetchone()[0]
        assert history == len(done)
        con.close()
        names = [name for name, _ in store.bots()]
        assert store.ratings() == replay(names, store.rated_matches())
        return {"done": len(done), "total": len(rows)}
    finally:
        store.close()
