"""A duel's database (``referee/duel/store.py``): each set scheduled with its pairing in one
transaction, and read back as one difference per complete set, OLD's points minus NEW's a
match (positive: NEW better), in the order the sets were completed."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.duel.feed import DuelFeed
from referee.duel.setup import check_same_duel, open_duel
from referee.errors import LadderError
from referee.ladder.play import LadderPlan
from referee.ladder.setup import open_ladder
from referee.players.bot_config import BotEntry
from referee.rules import ruleset
from referee.stats.sequential import SprtBounds
from referee.store.records import ScheduledMatch
from tests.duel.helpers import duel_settings, duel_store, play_set, scored
from tests.ladder.helpers import synthetic_store


def test_a_set_gives_olds_points_minus_news_a_match(tmp_path: Path) -> None:
    store = duel_store(tmp_path / "duel.db", duel_settings(sprt=None))
    feed = DuelFeed(store, duel_settings(sprt=None), max_sets=10)
    play_set(store, feed(), scored(new=5, old=11))  # NEW took fewer points: better by 6
    play_set(store, feed(), scored(new=11, old=5))

    def by_rotation(match: ScheduledMatch) -> list[int]:  # NEW takes r points in rotation r, OLD none
        return [match.rotation if bot == "new" else 0 for bot in match.seats]

    play_set(store, feed(), by_rotation)
    assert store.differences() == {"old": [6.0, -6.0, -1.5]}  # (0 + 1 + 2 + 3) / 4 matches
    assert store.set_count() == 3 and store.scheduled() == {"old": 3}


def test_the_differences_come_in_the_order_the_sets_were_completed(tmp_path: Path) -> None:
    store = duel_store(tmp_path / "duel.db", duel_settings(sprt=None))
    feed = DuelFeed(store, duel_settings(sprt=None), max_sets=10)
    first, second, third = feed(), feed(), feed()
    play_set(store, second, scored(new=0, old=2))
    play_set(store, first[:3], scored(new=0, old=1))  # not complete: no difference yet
    assert store.differences() == {"old": [2.0]}
    play_set(store, first[3:], scored(new=0, old=1))
    play_set(store, third, scored(new=0, old=3))
    assert store.differences() == {"old": [2.0, 1.0, 3.0]}
    assert [m.set_index for m in store.pending()] == []
    done = store.completed_sets()
    assert [d.difference for d in store.completed_sets(after=done[0].last)] == [1.0, 3.0]
    assert store.completed_sets(after=done[-1].last) == []


def test_each_set_is_stored_with_its_pairing_and_seed(tmp_path: Path) -> None:
    store = duel_store(tmp_path / "duel.db", duel_settings(olds=("old", "old2"), sprt=None))
    feed = DuelFeed(store, duel_settings(olds=("old", "old2"), sprt=None), max_sets=10)
    groups = [feed() for _ in range(4)]
    assert [g[0].set_index for g in groups] == [0, 1, 2, 3]
    pairs = store.db.execute("SELECT set_index, new, old FROM pairings ORDER BY set_index").fetchall()
    assert pairs == [(0, "new", "old"), (1, "new", "old2"), (2, "new", "old"), (3, "new", "old2")]
    assert [s.table for s in store.sets()] == [("new", "x", old, "x") for old in ("old", "old2", "old", "old2")]
    assert len({s.seed for s in store.sets()}) == 4 and store.settings().games == 4


def plan(db: Path, names: list[str]) -> LadderPlan:
    entries = [BotEntry(name=n, command=f"cmd {n}") for n in names]
    return LadderPlan(db=db, entries=entries, rules=None, default_rules=ruleset("american"))


def test_a_duel_and_a_ladder_never_take_each_others_database(tmp_path: Path) -> None:
    synthetic_store(tmp_path / "ladder.db", ["new", "old", "x"], 1, lambda m: [0, 1, 2, 3]).close()
    with pytest.raises(LadderError, match="ladder's database, not a duel's"):
        check_same_duel(plan(tmp_path / "ladder.db", ["new", "old", "x"]), duel_settings())
    store, _ = open_duel(plan(tmp_path / "duel.db", ["new", "old", "x"]), duel_settings())
    store.close()
    with pytest.raises(LadderError, match=r"the database of a `referee duel`, not a ladder"):
        open_ladder(
            tmp_path / "duel.db", plan(tmp_path, ["new", "old", "x"]).entries, None, default_rules=ruleset("american")
        )


def test_a_duel_resumed_with_other_settings_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "duel.db"
    store, notes = open_duel(plan(db, ["new", "old", "x"]), duel_settings())
    store.close()
    assert notes[0].startswith("new duel: american, 4 players")
    given = duel_settings(sprt=None)  # no --sprt: the stored test goes on
    assert check_same_duel(plan(db, ["new", "old", "x"]), given) == duel_settings()
    swapped = duel_settings(olds=("x",))
    with pytest.raises(LadderError, match="holds another duel: its OLD: old, not x"):
        check_same_duel(plan(db, ["new", "old", "x"]), swapped)
    with pytest.raises(LadderError, match="other bots"):
        check_same_duel(plan(db, ["new", "old", "y"]), duel_settings())
    with pytest.raises(LadderError, match=r"its test: --sprt 0,2 --alpha 0.05 --beta 0.05, not --sprt 0,3"):
        check_same_duel(plan(db, ["new", "old", "x"]), duel_settings(sprt=SprtBounds(0, 3)))
