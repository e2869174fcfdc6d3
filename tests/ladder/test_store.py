"""The SQLite store: a result and its rating update land in one transaction or not at all, a
match is never counted twice, and a half-made ladder is made again."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from referee.errors import LadderError
from referee.ladder.schedule import draw_sets
from referee.ladder.setup import open_ladder
from referee.players.bot_config import BotEntry
from referee.rules import ruleset
from referee.stats.ratings import INITIAL
from referee.store import writer as store_module
from referee.store.records import LadderSettings, ScheduledMatch
from referee.store.writer import LadderStore
from tests.ladder.helpers import check_consistent, record_of, synthetic_store

BOTS = ["a", "b", "c", "d", "e"]


def new_store(path: Path, games: int = 3) -> LadderStore:
    store = LadderStore(path)
    rules = ruleset("american")
    store.initialize(
        LadderSettings(1, rules, games, "2026-01-01T00:00:00+00:00"),
        [(b, f"cmd {b}") for b in BOTS],
        draw_sets(BOTS, 4, 1, games),
    )
    return store


def test_the_schedule_is_stored_up_front(tmp_path: Path) -> None:
    store = new_store(tmp_path / "l.db")
    assert store.progress() == (0, 12)
    assert [(m.set_index, m.rotation) for m in store.pending()] == [(s, r) for s in range(3) for r in range(4)]
    assert store.sets() == draw_sets(BOTS, 4, 1, 3)
    assert store.ratings() == dict.fromkeys(BOTS, INITIAL)


def test_a_result_and_its_ratings_are_one_transaction(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = new_store(tmp_path / "l.db")
    first, second = store.pending()[:2]
    assert store.record(record_of(first, [10, 20, 30, 40])) is not None

    def broken(*args: object) -> None:
        raise RuntimeError("the rating update failed")

    monkeypatch.setattr(store_module, "rate_match", broken)
    with pytest.raises(RuntimeError):
        store.record(record_of(second, [40, 30, 20, 10]))
    monkeypatch.undo()
    # nothing of the second match was kept: not its status, not its result rows
    assert store.progress() == (1, 12)
    con = sqlite3.connect(tmp_path / "l.db")
    assert con.execute("SELECT COUNT(*) FROM results").fetchone() == (4,)
    assert con.execute("SELECT COUNT(*) FROM rating_history").fetchone() == (4,)
    con.close()
    assert store.record(record_of(second, [40, 30, 20, 10])) is not None
    store.close()
    check_consistent(tmp_path / "l.db")


def test_a_match_is_never_counted_twice(tmp_path: Path) -> None:
    store = new_store(tmp_path / "l.db")
    match = store.pending()[0]
    assert store.record(record_of(match, [10, 20, 30, 40])) is not None
    ratings = store.ratings()
    assert store.record(record_of(match, [40, 30, 20, 10])) is None
    assert store.ratings() == ratings
    assert store.progress() == (1, 12)
    store.close()
    check_consistent(tmp_path / "l.db")


def test_a_result_must_match_the_schedule(tmp_path: Path) -> None:
    store = new_store(tmp_path / "l.db")
    match = store.pending()[0]
    wrong = type(match)(match.set_index, match.rotation, tuple(reversed(match.seats)), match.seed)
    with pytest.raises(LadderError, match="seats"):
        store.record(record_of(wrong, [10, 20, 30, 40]))
    assert store.progress() == (0, 12)


def test_a_half_made_ladder_is_made_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "l.db"

    def broken(*args: object) -> None:
        raise RuntimeError("killed while scheduling")

    monkeypatch.setattr(LadderStore, "_insert_sets", staticmethod(broken))
    with pytest.raises(RuntimeError):
        new_store(path)
    monkeypatch.undo()
    assert not LadderStore(path).initialized  # the schema went with the rest
    store = new_store(path)
    assert store.progress() == (0, 12)


def test_resuming_checks_the_ladder_and_extends_it(tmp_path: Path) -> None:
    entries = [BotEntry(name=b, command=f"cmd {b}") for b in BOTS]
    american = ruleset("american")
    store, _ = open_ladder(tmp_path / "l.db", entries, None, games=2, seed=4, default_rules=american)
    sets = store.sets()
    store.close()
    store, notes = open_ladder(tmp_path / "l.db", entries, None, games=5, default_rules=american)
    assert store.sets() == sets and store.settings().games == 5  # the 3 more are drawn as tables free up
    assert store.progress() == (0, 20)
    assert any("3 more" in n for n in notes)
    assert sets == draw_sets(BOTS, 4, 4, 2)
    store.close()
    with pytest.raises(LadderError, match="other rules"):
        open_ladder(tmp_path / "l.db", entries, ruleset("dutch"), default_rules=american)
    with pytest.raises(LadderError, match="seed"):
        open_ladder(tmp_path / "l.db", entries, None, seed=5, default_rules=american)


def test_figures_and_set_scores(tmp_path: Path) -> None:
    # "a" always takes 10 points fewer than the table's others; everyone else ties
    def scores(match: ScheduledMatch) -> list[int]:
        return [50 if bot == "a" else 60 for bot in match.seats]

    store = synthetic_store(tmp_path / "l.db", BOTS, 10, scores)
    figures = store.figures()
    assert sum(f.matches for f in figures.values()) == 40 * 4
    assert figures["a"].wins == figures["a"].matches
    assert figures["b"].wins < figures["b"].matches / 3  # only at tables without "a", shared four ways
    ranked = sorted(store.ratings().items(), key=lambda kv: -kv[1].mu)
    assert ranked[0][0] == "a"
    sets = store.set_scores(["a", "b"])
    assert sets and all(len(matches) == 4 for matches in sets.values())
    store.close()
    check_consistent(tmp_path / "l.db")
