"""A ladder whose pool changes while it lives (``referee/ladder/pool.py``, ``setup.py``,
``feed.py``, ``follow.py``): bots join, change and leave; a changed bot is a new version with its
own rating, linked to the one it replaces; nothing played is lost or played again; sets begun
are finished with the versions they began with."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from itertools import pairwise
from pathlib import Path

import pytest
import trio
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from referee.cli import main
from referee.ladder.feed import LadderFeed
from referee.ladder.follow import PoolFollower
from referee.ladder.order import order_of
from referee.ladder.pool import pool_change, same_bot
from referee.ladder.runner import RunOptions
from referee.ladder.schedule import EXPLORE, next_set
from referee.ladder.setup import open_ladder, sets_for_newcomers
from referee.players.bot_config import BotEntry, read_bots
from referee.rules import ruleset
from referee.stats.ratings import INITIAL
from referee.store.records import BotVersion
from referee.store.writer import LadderStore
from tests.ladder.helpers import BOTS, ROOT, bot_list, check_consistent, record_of
from tests.ladder.test_resume import count, done_count, wait_for

AMERICAN = ruleset("american")
NOW = "2026-12-03T10:00:00+00:00"


def entries(**commands: str) -> list[BotEntry]:
    return [BotEntry(name=n, command=c) for n, c in commands.items()]


def applied(stored: list[BotVersion], listed: list[BotEntry], now: str = NOW) -> list[BotVersion]:
    """``stored`` after the change ``listed`` asks for, as the store would keep it."""
    change = pool_change(stored, listed, now)
    by_name = {v.name: v for v in stored}
    for name in change.retired:
        by_name[name] = BotVersion(**{**by_name[name].__dict__, "retired": now})
    for name in change.back:
        by_name[name] = BotVersion(**{**by_name[name].__dict__, "retired": None})
    for name, entry in change.entries.items():
        by_name[name] = BotVersion(**{**by_name[name].__dict__, "entry": entry})
    for name, position in change.positions.items():
        by_name[name] = BotVersion(**{**by_name[name].__dict__, "position": position})
    for version in change.added:
        by_name[version.name] = version
    return list(by_name.values())


# -- the pool, pure ---------------------------------------------------------------------------------
def test_a_new_list_makes_first_versions_named_as_their_entrants() -> None:
    change = pool_change([], entries(a="x", b="y"), NOW)
    assert [(v.name, v.entrant, v.version, v.replaces, v.added) for v in change.added] == [
        ("a", "a", 1, None, NOW),
        ("b", "b", 1, None, NOW),
    ]
    assert change.retired == [] and change.describe() == ["new entrant a", "new entrant b"]


def test_a_changed_command_build_or_folder_is_a_new_version_replacing_the_old() -> None:
    pool = applied([], entries(a="x", b="y"))
    for changed in (
        BotEntry(name="b", command="y2"),
        BotEntry(name="b", command="y", build="make"),
        BotEntry(name="b", command="y", folder="b"),
    ):
        change = pool_change(pool, [BotEntry(name="a", command="x"), changed], NOW)
        assert [(v.name, v.version, v.replaces) for v in change.added] == [("b@2", 2, "b")], changed
        assert change.retired == ["b"]
        assert change.describe() == ["new version b@2 of b (replaces b)"]
    # a build's time limit is not another bot
    same = BotEntry(name="b", command="y", build_timeout=5.0)
    assert not pool_change(pool, [BotEntry(name="a", command="x"), same], NOW).added


def test_a_removed_entrant_retires_and_comes_back_unchanged_as_the_same_version() -> None:
    pool = applied([], entries(a="x", b="y", c="z"))
    change = pool_change(pool, entries(a="x", b="y"), NOW)
    assert change.retired == ["c"] and not change.added
    assert change.describe() == ["c retired (removed from the bot list)"]
    pool = applied(pool, entries(a="x", b="y"))
    back = pool_change(pool, entries(a="x", b="y", c="z"), NOW)
    assert back.back == ["c"] and not back.added and not back.retired


def test_a_version_from_before_schema_6_knows_its_command_only() -> None:
    old = BotVersion("a", "a", 1, "x", None, 0)
    assert same_bot(BotEntry(name="a", command="x", build="make"), old)
    change = pool_change([old], [BotEntry(name="a", command="x", build="make")], NOW)
    assert not change.added and change.entries == {"a": BotEntry(name="a", command="x", build="make")}


def test_an_entrant_named_as_another_entrants_version_is_refused() -> None:
    pool = applied(applied([], entries(a="x", b="y")), entries(a="x", b="y2"))
    with pytest.raises(ValueError, match="that is the name of version 2 of 'b'"):
        pool_change(pool, [*entries(a="x", b="y2"), BotEntry(name="b@2", command="q")], NOW)


lists = st.lists(
    st.tuples(st.sampled_from("abcde"), st.sampled_from(["x", "y", "z"]), st.sampled_from([None, "make"])),
    min_size=0,
    max_size=5,
    unique_by=lambda t: t[0],
)


@given(st.lists(lists, min_size=1, max_size=6))
def test_any_sequence_of_lists_keeps_one_active_version_per_listed_entrant(steps: list[list[tuple]]) -> None:
    pool: list[BotVersion] = []
    for step in steps:
        listed = [BotEntry(name=n, command=c, build=b) for n, c, b in step]
        pool = applied(pool, listed)
        active = [v for v in pool if v.active]
        # exactly the listed entrants play, each with one version that runs what the list says
        assert sorted(v.entrant for v in active) == sorted(e.name for e in listed)
        for entry in listed:
            (version,) = [v for v in active if v.entrant == entry.name]
            assert same_bot(entry, version)
        # names are unique; a version replaces the entrant's previous one; nothing is forgotten
        assert len({v.name for v in pool}) == len(pool)
        for version in pool:
            if version.replaces is not None:
                before = next(v for v in pool if v.name == version.replaces)
                assert (before.entrant, before.version) == (version.entrant, version.version - 1)
        # the same list again changes nothing
        assert pool_change(pool, listed, NOW).empty


# -- the store ------------------------------------------------------------------------------------
def five(tmp_path: Path, games: int = 6) -> Path:
    db = tmp_path / "l.db"
    store, _ = open_ladder(db, entries(a="a", b="b", c="c", d="d", e="e"), None, games=games, seed=3,
                           default_rules=AMERICAN)  # fmt: skip
    store.close()
    return db


def play_sets(store: LadderStore, how_many: int, scores: dict[str, int] | None = None) -> None:
    """Play ``how_many`` sets from the ladder's feed, each bot scoring as given (default 10)."""
    feed = LadderFeed(store)
    for _ in range(how_many):
        group = feed()
        assert group is not None
        for match in group:
            store.record(record_of(match, [(scores or {}).get(b, 10) for b in match.seats]))


def test_a_changed_bot_gets_a_version_of_its_own_and_history_is_kept(tmp_path: Path) -> None:
    db = five(tmp_path)
    store = LadderStore(db)
    play_sets(store, 3)
    before = store.rated_matches()
    old_rating = store.ratings()["b"]
    store.close()
    store, notes = open_ladder(db, entries(a="a", b="b2", c="c", d="d", e="e"), None, default_rules=AMERICAN)
    try:
        assert "new version b@2 of b (replaces b)" in notes
        versions = {v.name: v for v in store.versions()}
        assert versions["b"].retired is not None and versions["b@2"].replaces == "b"
        assert versions["b@2"].entry == BotEntry(name="b", command="b2")
        assert store.ratings()["b"] == old_rating and store.ratings()["b@2"] == INITIAL
        assert store.rated_matches() == before  # nothing played is lost or changed
        assert "b" not in store.active() and "b@2" in store.active()
        # no set not begun seats the retired version; the new one sits at the next set drawn
        assert all("b" not in m.seats for m in store.pending())
        drawn = LadderFeed(store)()
        assert drawn is not None and "b@2" in drawn[0].seats
        # the order to make sure is the active versions': a retired one plays no more sets
        assert sorted(order_of(store, 10).bots) == ["a", "b@2", "c", "d", "e"]
    finally:
        store.close()


def test_a_set_begun_before_a_change_is_finished_with_the_versions_it_began_with(tmp_path: Path) -> None:
    db = five(tmp_path)
    store = LadderStore(db)
    group = LadderFeed(store)()
    assert group is not None
    store.record(record_of(group[0], [10] * 4))  # one rotation of four played
    begun = group[0].set_index
    leaving = group[0].seats[0]
    store.close()
    kept = {n: n for n in "abcde" if n != leaving}
    store, _ = open_ladder(db, entries(**kept), None, default_rules=AMERICAN)
    try:
        assert [m.set_index for m in store.pending()][:3] == [begun] * 3
        assert leaving in store.runnable() and leaving not in store.active()
        again = LadderFeed(store)()  # the begun set comes first
        assert again is not None and [m.rotation for m in again] == [1, 2, 3] and leaving in again[0].seats
    finally:
        store.close()


def test_new_versions_get_sets_to_catch_up(tmp_path: Path) -> None:
    db = five(tmp_path, games=4)
    store = LadderStore(db)
    play_sets(store, 4)
    assert store.progress() == (16, 16)
    store.close()
    store, notes = open_ladder(db, entries(a="a", b="b", c="c", d="d", e="e", f="f"), None, default_rules=AMERICAN)
    try:
        # each of the five sat at 4 sets of 4 out of 5: about 3.2 appearances; f gets 4 sets, seated at each
        assert store.settings().games == 8 and any("4 more duplicate sets for the new versions" in n for n in notes)
        play_sets(store, 4)
        assert all("f" in s.table for s in store.sets()[4:])
        assert LadderFeed(store)() is None
    finally:
        store.close()


def test_the_least_sure_pair_is_seated_together_once_every_pair_has_met(tmp_path: Path) -> None:
    db = five(tmp_path, games=40)
    store = LadderStore(db)
    # a and b are clearly best; c, d, e take nearly the same points: their order is least sure
    play_sets(store, 8, {"a": 0, "b": 5, "c": 12, "d": 12, "e": 12})
    sets = store.sets()
    assert all(_met(sets, x, y) >= EXPLORE for x in "abcde" for y in "abcde" if x < y)
    focus = [("a", "b")]
    drawn = next_set(store.next_index(), store.active(), 4, 3, sets, focus)
    assert {"a", "b"} <= set(drawn.table)
    feed_set = LadderFeed(store)()
    assert feed_set is not None
    seated = set(feed_set[0].seats)
    ratings = store.ratings()
    order = sorted("abcde", key=lambda b: -ratings[b].mu)
    least_sure = [(x, y) for x, y in pairwise(order) if {x, y} <= {"c", "d", "e"}]
    assert any({x, y} <= seated for x, y in least_sure), (order, seated)
    store.close()


def _met(sets: list, x: str, y: str) -> int:
    return sum(1 for s in sets if x in s.table and y in s.table)


def test_newcomers_to_a_ladder_that_drew_nothing_need_no_extra_sets(tmp_path: Path) -> None:
    db = five(tmp_path)
    store = LadderStore(db)
    change = pool_change(store.versions(), entries(a="a", b="b", c="c", d="d", e="e", f="f"), NOW)
    assert sets_for_newcomers(store, change) > 0  # five sets drawn up front: f must catch up
    store.close()


# -- real runs ------------------------------------------------------------------------------------
def run_command(config: Path, db: Path, *more: str) -> list[str]:
    return [sys.executable, "-m", "referee", "ladder", "run", str(config), "--db", str(db), "--seed", "5",
            "--sandbox", "off", "--keep-bots", "-q", *more]  # fmt: skip


@pytest.mark.process
def test_ladder_run_again_with_an_edited_list_goes_on_in_the_same_database(tmp_path: Path) -> None:
    db = tmp_path / "ladder.db"
    config = bot_list(tmp_path, ["first", "random", "heuristic"])
    first = subprocess.run(run_command(config, db, "--games", "2"), cwd=ROOT, capture_output=True, text=True,
                           timeout=300, check=False)  # fmt: skip
    assert first.returncode == 0, first.stderr
    played = _done_rows(db)
    assert len(played) == 8
    # a late entrant, and a new version of "first" (another command line)
    config = bot_list(tmp_path, ["first", "random", "heuristic", "random2"], first=f"{BOTS['first']} v2",
                      random2=BOTS["random"])  # fmt: skip
    second = subprocess.run(run_command(config, db), cwd=ROOT, capture_output=True, text=True, timeout=300,
                            check=False)  # fmt: skip
    assert second.returncode == 0, second.stderr
    after = _done_rows(db)
    assert after[: len(played)] == played  # nothing played is lost or played again
    bots = _bot_rows(db)
    assert bots["first"][1] is not None and bots["first@2"][:1] == ("first",)  # retired; replaced
    assert bots["random2"][1] is None
    seated = {name for row in after[len(played) :] for name in json.loads(row[2])}
    assert {"first@2", "random2"} <= seated and "first" not in seated
    check_consistent(db)
    table = CliRunner(env={"COLUMNS": "200"}).invoke(main, ["ladder", "table", "--db", str(db)])
    assert table.exit_code == 0, table.output
    lines = {line.split()[1]: line for line in table.output.splitlines() if line.strip()[:1].isdigit()}
    assert "retired" in lines["first"] and "(after first)" in lines["first@2"] and "retired" not in lines["first@2"]


def _done_rows(db: Path) -> list[tuple]:
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT id, seq, seats, match_id FROM matches WHERE seq IS NOT NULL ORDER BY seq").fetchall()
    finally:
        con.close()


def _bot_rows(db: Path) -> dict[str, tuple]:
    con = sqlite3.connect(db)
    try:
        return {n: (r, t) for n, r, t in con.execute("SELECT name, replaces, retired FROM bots")}
    finally:
        con.close()


@pytest.mark.process
@pytest.mark.parametrize("moment", ["at_once", "after_the_change"])
def test_a_running_ladder_follows_its_list_and_a_kill_mid_change_loses_nothing(moment: str, tmp_path: Path) -> None:
    db = tmp_path / "ladder.db"
    config = bot_list(tmp_path, ["first", "random", "heuristic"])
    process = subprocess.Popen(run_command(config, db, "--games", "3"), cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)  # fmt: skip
    try:
        wait_for(lambda: done_count(db) >= 2)
        bot_list(tmp_path, ["first", "random", "heuristic", "late"], late=BOTS["first"])
        process.send_signal(signal.SIGHUP)  # at once, not at the next look
        if moment == "after_the_change":
            wait_for(lambda: count(db, "SELECT COUNT(*) FROM results WHERE bot = 'late'") >= 1)
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    before = _done_rows(db)
    again = subprocess.run(run_command(config, db, "--games", "3"), cwd=ROOT, capture_output=True, text=True,
                           timeout=600, check=False)  # fmt: skip
    assert again.returncode == 0, again.stderr
    after = _done_rows(db)
    assert after[: len(before)] == before
    assert "late" in _bot_rows(db)
    assert count(db, "SELECT COUNT(*) FROM results WHERE bot = 'late'") >= 1
    check_consistent(db)


# -- a running ladder's follower -------------------------------------------------------------------
def follower_of(tmp_path: Path, db: Path, told: list[str]) -> tuple[PoolFollower, dict[str, str], LadderStore]:
    store = LadderStore(db)
    commands = dict(store.bots())
    follower = PoolFollower(tmp_path / "bots.toml", tmp_path, store, LadderFeed(store), commands, {}, None, (),
                            told.append)  # fmt: skip
    return follower, commands, store


def test_the_follower_takes_a_saved_list_whole_or_not_at_all(tmp_path: Path) -> None:
    names = ["first", "random", "heuristic"]
    config = bot_list(tmp_path, names)
    db = tmp_path / "l.db"
    store, _ = open_ladder(db, read_bots(config), None, games=2, default_rules=AMERICAN)
    store.close()
    told: list[str] = []
    follower, commands, store = follower_of(tmp_path, db, told)
    try:
        assert trio.run(follower.look) == []  # unchanged: nothing to do
        # garbage, a bot whose program does not exist: named, and nothing changes
        config.write_text("[[bot]\nname = ")
        assert trio.run(follower.look) == [] and "not taken" in told[-1] and "the ladder goes on" in told[-1]
        bot_list(tmp_path, [*names, "ghost"], ghost="no-such-program-here --x")
        assert trio.run(follower.look) == [] and "no-such-program-here" in told[-1]
        assert [v.name for v in store.versions()] == names
        # a good edit is taken: a late entrant, a removal; the new bot's command is the run's
        bot_list(tmp_path, ["first", "random", "late"], late=BOTS["first"])
        lines = trio.run(follower.look)
        assert lines == [
            "new entrant late",
            "heuristic retired (removed from the bot list)",
            "2 more duplicate sets for the new versions to catch up (4 in all)",  # told as at a start
        ]
        assert commands["late"] == BOTS["first"] and store.active() == ["first", "random", "late"]
        # the same content saved again changes nothing; SIGHUP (force) reads it again, still nothing
        assert trio.run(follower.look) == [] and trio.run(lambda: follower.look(force=True)) == []
    finally:
        store.close()


@pytest.mark.process
def test_a_live_edit_runs_the_start_up_check_a_restart_runs(tmp_path: Path) -> None:
    """Issue 42: a bot that cannot get to its hello is refused while the ladder runs, by name
    and with why, as a restart refuses it (it played 16 matches and crashed in all of them); a
    bot that answers is taken, and the catch-up sets are told as at a start."""
    names = ["first", "random"]
    config = bot_list(tmp_path, names)
    db = tmp_path / "l.db"
    store, _ = open_ladder(db, read_bots(config), None, games=2, default_rules=AMERICAN)
    store.close()
    told: list[str] = []
    store = LadderStore(db)
    commands = dict(store.bots())
    options = RunOptions(logs=tmp_path / "logs", cwd=tmp_path)
    follower = PoolFollower(config, tmp_path, store, LadderFeed(store), commands, {}, None, (), told.append,
                            options=options)  # fmt: skip
    try:
        dies = f'{sys.executable} -c "import sys; sys.exit(3)"'  # its program exists; it dies before its hello
        bot_list(tmp_path, [*names, "dies"], dies=dies)
        assert trio.run(follower.look) == []
        assert "not taken" in told[-1] and "bot dies refused: it failed its start-up check" in told[-1]
        assert [v.name for v in store.versions()] == names and "dies" not in commands
        bot_list(tmp_path, [*names, "late"], late=BOTS["heuristic"])
        lines = trio.run(follower.look)
        assert lines[0] == "new entrant late" and store.active() == ["first", "random", "late"]
    finally:
        store.close()


@pytest.mark.process
def test_a_kept_running_ladder_waits_for_new_bots_and_plays_them(tmp_path: Path) -> None:
    db = tmp_path / "ladder.db"
    config = bot_list(tmp_path, ["first", "random"])
    short = ["--set", "end=rounds", "--set", "rounds=1"]
    process = subprocess.Popen(run_command(config, db, "--games", "1", "--keep-running", *short), cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        wait_for(lambda: done_count(db) == 4)  # every set played: it waits instead of ending
        assert process.poll() is None
        bot_list(tmp_path, ["first", "random", "late"], late=BOTS["heuristic"])  # saved: no signal
        wait_for(lambda: count(db, "SELECT COUNT(*) FROM results WHERE bot = 'late'") >= 4)
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, err
    assert "bots.toml: new entrant late" in err and "interrupted:" in err
    check_consistent(db)


def test_keep_running_needs_follow(tmp_path: Path) -> None:
    config = bot_list(tmp_path, ["first", "random"])
    result = CliRunner().invoke(main, ["ladder", "run", str(config), "--keep-running", "--no-follow"])
    assert result.exit_code == 2 and "--keep-running waits for edits to CONFIG: it needs --follow" in result.output


def test_when_every_bot_changes_the_new_versions_still_get_their_sets(tmp_path: Path) -> None:
    db = tmp_path / "l.db"
    store, _ = open_ladder(db, entries(a="a", b="b"), None, games=2, seed=3, default_rules=AMERICAN)
    play_sets(store, 2)
    store.close()
    store, notes = open_ladder(db, entries(a="a2", b="b2"), None, default_rules=AMERICAN)
    try:
        assert store.active() == ["a@2", "b@2"] and store.settings().games == 4, notes
        play_sets(store, 2)
        assert LadderFeed(store)() is None and {b for s in store.sets()[2:] for b in s.table} == {"a@2", "b@2"}
    finally:
        store.close()
