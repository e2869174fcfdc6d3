"""A ladder's season (``referee/ladder/season.py``, ``season_run.py``): after the end time no
duplicate set begins and the sets begun finish whole; after the submissions freeze no new
version is taken (an upload refused with the freeze time, a bot list edit not taken); the final
plays its sets among the top N alone and its order is told from its own matches; a run waits
for the end time even with nothing to play; the season is kept in the database, and a run
started again after the end time goes on with the final, playing nothing twice.

Time is the test's: a clock it moves (``Clock``), trio's ``MockClock`` for the waits, never
the machine's."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import trio
import trio.testing
from click.testing import CliRunner

from referee.cli import main
from referee.errors import LadderError
from referee.ladder.play import LadderPlan, RunOutput, play_ladder
from referee.ladder.season import (
    SeasonAsked,
    SeasonTimeError,
    closed_reason,
    parse_time,
    season_of,
    stamp,
    taking_versions,
)
from referee.ladder.season_run import (
    SeasonFeed,
    SeasonRun,
    check_season,
    choose_finalists,
    frozen_entries,
    keep_season,
    season_report,
)
from referee.ladder.setup import open_ladder
from referee.ladder.uploads import receive, uploads
from referee.players.bot_config import BotEntry, read_bots
from referee.rules import ruleset
from referee.store.records import ScheduledMatch, Season
from referee.store.writer import LadderStore
from referee.web.ladder.board import board_body
from referee.web.ladder.queries import board
from tests.ladder.helpers import ROOT, bot_list, check_consistent, earlier_ladder, record_of
from tests.ladder.test_migrations import assert_kept, dump
from tests.ladder.test_resume import done_count, ladder_command, marked_ladder, result_rows, wait_for
from tests.ladder.test_uploads import Ladder, archive
from tests.shared import stray

START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
NAMES = ["ace", "bea", "cid", "dot"]
"""Bots of the in-process ladders, strongest first: ``scores`` ranks them so."""


def scores(match: ScheduledMatch) -> list[int]:
    """Each seat's score by its bot's strength (``NAMES`` order): the same order every match."""
    return [5 * NAMES.index(bot) + seat for seat, bot in enumerate(match.seats)]


class Clock:
    """The season's clock, where the test puts it."""

    def __init__(self, at: datetime = START) -> None:
        self.at = at

    def __call__(self) -> datetime:
        return self.at


def made(tmp_path: Path, games: int, season: Season) -> LadderStore:
    """A ladder of ``NAMES`` (no bot is ever started: results are recorded by the test) with
    ``games`` sets drawn up front (every set seats every bot) and ``season``."""
    entries = [BotEntry(name=n, command=f"cmd {n}") for n in NAMES]
    store, _ = open_ladder(tmp_path / "s.db", entries, None, games=games, seed=5, default_rules=ruleset("american"))
    store.set_season(season)
    return store


@pytest.fixture
def season_store(tmp_path: Path) -> Iterator[LadderStore]:
    ends = stamp(START + timedelta(hours=1))
    store = made(tmp_path, 5, Season(ends=ends, closes=ends, final_top=2, final_sets=2))
    yield store
    store.close()


def play(store: LadderStore, group: Sequence[ScheduledMatch]) -> None:
    for match in group:
        store.record(record_of(match, scores(match)))


def stage_of(store: LadderStore, stage: str) -> list[int]:
    return [s.index for s in store.sets(stage)]


# -- times and the freeze, pure ---------------------------------------------------------------------
def test_a_season_time_is_iso_with_an_offset_or_a_duration_from_now() -> None:
    assert parse_time("+2h", START) == START + timedelta(hours=2)
    assert parse_time("+1d12h", START) == START + timedelta(days=1, hours=12)
    assert parse_time("2026-03-01T18:00:00+01:00", START) == datetime(2026, 3, 1, 17, 0, tzinfo=UTC)
    assert parse_time("2026-03-01T18:00:00Z", START) == datetime(2026, 3, 1, 18, 0, tzinfo=UTC)
    for bad, why in (("2026-03-01T18:00:00", "no offset"), ("tomorrow", "not a time"), ("+2y", "not a time")):
        with pytest.raises(SeasonTimeError, match=why):
            parse_time(bad, START)


def test_versions_are_taken_before_the_freeze_only() -> None:
    season = season_of(SeasonAsked(ends="+2h", closes="+1h"), None, START)
    assert (season.ends, season.closes) == ("2026-03-01T14:00:00+00:00", "2026-03-01T13:00:00+00:00")
    assert taking_versions(season, START + timedelta(minutes=59))
    assert not taking_versions(season, START + timedelta(hours=1))
    assert closed_reason(season) == "submissions closed at 2026-03-01T13:00:00+00:00: no new version is taken after it"
    assert taking_versions(None, START)
    assert season_of(SeasonAsked(ends="+2h"), None, START).closes == "2026-03-01T14:00:00+00:00"  # at the end
    for asked, why in (
        (SeasonAsked(ends="+1h", closes="+2h"), "after the season ends"),
        (SeasonAsked(final_top=3, final_sets=2), "needs an end time"),
        (SeasonAsked(ends="+1h", final_top=3), "needs both"),
    ):
        with pytest.raises(SeasonTimeError, match=why):
            season_of(asked, None, START)


# -- the end time, the final, a restart: the feed on a store ----------------------------------------
def test_no_set_begins_after_the_end_time_and_the_sets_begun_finish_whole(season_store: LadderStore) -> None:
    store = season_store
    clock = Clock()
    feed = SeasonFeed(store, clock)
    taken = feed()  # a table takes set 0 before the end
    assert taken is not None and taken[0].set_index == 0
    pending = {m.set_index: m for m in reversed(store.pending())}
    play(store, [pending[1]])  # set 1 begun by a run before this one (its first rotation done)
    clock.at = START + timedelta(hours=1)
    rest = feed()
    assert rest is not None and {m.set_index for m in rest} == {1} and [m.rotation for m in rest] == [1, 2, 3]
    assert feed() is None  # nothing new begins: sets 2 to 4 were drawn, never begun
    assert {m.set_index for m in store.pending()} == {0, 1}
    assert store.settings().games == 5 and store.sets("final") == []
    closed = store.match_rows()
    assert all(r["status"] == "pending" for r in closed if r["set_index"] >= 2)
    play(store, taken)
    play(store, rest)
    # the regular season's sets are whole: four rotations each, or none played
    done = [r["set_index"] for r in store.match_rows() if r["status"] == "done"]
    assert sorted(done) == [0] * 4 + [1] * 4


def test_the_final_plays_its_sets_among_the_top_n_alone_and_its_order_is_told(season_store: LadderStore) -> None:
    store = season_store
    clock = Clock(START + timedelta(hours=2))
    feed = SeasonFeed(store, clock)
    assert feed() is None  # past the end before any set began: nothing regular is played
    assert store.pending() == [] and all(r["status"] == "pending" for r in store.match_rows())
    chosen = choose_finalists(store, store.season() or Season(), clock())
    assert [f.bot for f in chosen] == ["ace", "bea"]  # all rated alike: the standings' order, by name
    assert choose_finalists(store, store.season() or Season(), clock()) == chosen  # chosen once
    first = feed()
    assert first is not None and set(first[0].seats) == {"ace", "bea"}
    play(store, first)
    # a run started again draws no set twice: it takes the final where it stopped
    again = SeasonFeed(store, clock)
    second = again()
    assert second is not None and set(second[0].seats) == {"ace", "bea"} and second[0].set_index != first[0].set_index
    assert again() is None and SeasonFeed(store, clock)() == second  # the pending final set, not a new one
    play(store, second)
    assert SeasonFeed(store, clock)() is None and len(stage_of(store, "final")) == 2
    report = season_report(store, clock())
    assert report is not None and report.state == "over" and report.final_done == 2
    assert report.order is not None and report.order.bots == ["ace", "bea"] and report.order.sets == 2
    assert report.order.progress.neighbours[0].sets == 2  # judged on the final's two sets alone
    assert check_consistent(store.path)


class Played:
    """A run's tables, in-process: every set the feed hands out is recorded at once, and when."""

    def __init__(self, store: LadderStore, feed: SeasonFeed) -> None:
        self.store = store
        self.feed = feed
        self.sets: list[tuple[float, int]] = []

    async def run(self) -> None:
        while (group := self.feed()) is not None:
            self.sets.append((trio.current_time(), group[0].set_index))
            play(self.store, group)
            await trio.sleep(0)


async def test_an_idle_run_wakes_at_the_end_time_and_plays_the_final(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    ends = stamp(START + timedelta(seconds=90))
    store = made(tmp_path, 2, Season(ends=ends, closes=ends, final_top=3, final_sets=2))
    try:

        def now() -> datetime:
            return START + timedelta(seconds=trio.current_time())

        played = Played(store, SeasonFeed(store, now))
        await played.run()  # the regular season's sets, at once: then nothing to play until the end
        assert [t for t, _ in played.sets] == [0.0, 0.0]
        told: list[str] = []
        await SeasonRun(store, now, told.append).carry_on(played)  # type: ignore[arg-type]
        final = [(t, i) for t, i in played.sets if i in stage_of(store, "final")]
        assert [t for t, _ in final] == [90.0, 90.0]  # woken at the end time itself, with no set in flight
        assert told == [f"the season ended at {ends}: the final, 2 sets among ace, bea, cid"]
        assert all("dot" not in s.table for s in store.sets("final"))
    finally:
        store.close()


# -- the season kept in the database --------------------------------------------------------------
def test_the_season_is_kept_and_differing_flags_are_refused_unless_changed(tmp_path: Path) -> None:
    store = made(tmp_path, 1, Season())
    db = store.path
    asked = SeasonAsked(ends="+2h", final_top=2, final_sets=3)
    assert keep_season(store, asked, START) == [
        "season: ends at 2026-03-01T14:00:00+00:00, submissions close at 2026-03-01T14:00:00+00:00;"
        " final: top 2 x 3 sets"
    ]
    store.close()
    later = START + timedelta(minutes=30)
    check_season(db, asked, later)  # the same words again, later: the same season
    check_season(db, SeasonAsked(), later)  # no flags: the stored season
    with pytest.raises(LadderError, match=r"differ from it \(the final's sets: 3 stored, 5 given\).*--change-season"):
        check_season(db, SeasonAsked(final_sets=5), later)
    check_season(db, SeasonAsked(final_sets=5, change=True), later)
    store = LadderStore(db)
    keep_season(store, SeasonAsked(final_sets=5, change=True), later)
    season = store.season()
    assert season is not None and (season.final_sets, season.ends_given) == (5, "+2h")
    store.close()
    with pytest.raises(LadderError, match="the season ended at 2026-03-01T14:00:00"):
        check_season(db, SeasonAsked(final_sets=1, change=True), START + timedelta(hours=3))


def test_ladder_run_refuses_season_flags_that_differ_before_starting_a_bot(tmp_path: Path) -> None:
    config = bot_list(tmp_path, ["first", "random"])
    store, _ = open_ladder(tmp_path / "l.db", read_bots(config), None, games=1, default_rules=ruleset("american"))
    keep_season(store, SeasonAsked(ends="+3d", final_top=2, final_sets=4), datetime.now(UTC))
    store.close()
    args = ["ladder", "run", str(config), "--db", str(tmp_path / "l.db"), "--sandbox", "off", "--final-sets", "6"]
    refused = CliRunner().invoke(main, args, catch_exceptions=False)
    assert refused.exit_code == 1
    assert "has a season already" in refused.output and "the final's sets: 4 stored, 6 given" in refused.output
    alone = CliRunner().invoke(main, [*args[:-2], "--change-season"], catch_exceptions=False)
    assert alone.exit_code == 2 and "--change-season changes the stored season" in alone.output


def test_a_ladder_of_schema_7_upgrades_to_seasons_keeping_every_row(tmp_path: Path) -> None:
    db = earlier_ladder("v7-f9885c8.db", tmp_path)
    before = dump(db)
    store = LadderStore(db)
    try:
        assert store.season() is None and [s.index for s in store.sets("regular")] == [s.index for s in store.sets()]
        assert season_report(store, START) is None
    finally:
        store.close()
    after = dump(db)
    assert_kept(before, after)
    assert after["season"] == [] and {row["stage"] for row in after["sets"]} == {"regular"}
    check_consistent(db)


# -- the freeze on a running ladder's follower ----------------------------------------------------
def test_after_the_freeze_an_upload_and_a_list_edit_are_refused_by_name(tmp_path: Path) -> None:
    ladder = Ladder(tmp_path, check=False)
    try:
        closes = stamp(START + timedelta(hours=1))
        ladder.store.set_season(Season(ends=closes, closes=closes))
        after = START + timedelta(hours=1, seconds=1)
        ladder.follower.now = Clock(after)
        receive(ladder.db, "alice", archive({"bot.py": "x"}), command="python3 bot.py", build=None, now=stamp(after))
        assert trio.run(ladder.follower.look) == []
        [refused] = uploads(ladder.db)
        assert refused.state == "refused"
        assert refused.detail == (
            f"received at {stamp(after)}, after submissions closed at {closes}: no new version is taken after it"
        )
        bot_list(tmp_path, ["first", "random", "heuristic"])
        assert trio.run(ladder.follower.look) == []
        assert ladder.told[-1] == (
            f"{ladder.config}: not taken (submissions closed at {closes}: no new version is taken after it);"
            " the ladder goes on with the bots it had"
        )
        assert [v.name for v in ladder.store.versions()] == ["first", "random"]
    finally:
        ladder.store.close()


def test_a_start_after_the_freeze_plays_the_stored_versions(season_store: LadderStore) -> None:
    store = season_store
    listed = [BotEntry(name=n, command=f"cmd {n}") for n in NAMES[1:]]
    changed = [BotEntry(name="ace", command="cmd ace --better"), *listed, BotEntry(name="eve", command="cmd eve")]
    assert frozen_entries(store, changed, START) == (changed, [])  # before the freeze: as listed
    kept, notes = frozen_entries(store, changed, START + timedelta(hours=1))
    assert [(e.name, e.command) for e in kept] == [(n, f"cmd {n}") for n in NAMES]
    closed = "submissions closed at 2026-03-01T13:00:00+00:00: no new version is taken after it"
    assert notes == [
        f"ace: its changed entry not taken ({closed}); ace plays on",
        f"new entrant eve not taken: {closed}",
    ]


# -- what the pages and the command line show ------------------------------------------------------
def test_the_board_and_ladder_season_show_the_season(season_store: LadderStore) -> None:
    store = season_store
    page = board_body(board(store))
    assert '<section class="season"><h2>Season</h2>' in page
    assert "ends at: <strong>2026-03-01T13:00:00+00:00</strong>" in page
    assert "final: <strong>top 2 × 2 sets</strong>" in page and "state: <strong>" in page
    shown = CliRunner().invoke(main, ["ladder", "season", "--db", str(store.path), "--json"], catch_exceptions=False)
    assert shown.exit_code == 0, shown.output
    found = json.loads(shown.output)
    assert found["ends"] == "2026-03-01T13:00:00+00:00" and found["final_top"] == 2 and found["final_order"] is None


# -- real ladders ----------------------------------------------------------------------------------
@pytest.mark.process
def test_a_real_ladder_stops_at_the_end_time_then_plays_its_final(tmp_path: Path) -> None:
    config = bot_list(tmp_path, ["random", "heuristic", "first"])
    db = tmp_path / "season.db"

    def now() -> datetime:  # the end time passes once the first match is done
        return START + timedelta(hours=2 if done_count(db) >= 1 else 0)

    told: list[str] = []
    plan = LadderPlan(
        db=db, entries=read_bots(config), rules=None, default_rules=ruleset("american"), games=3, seed=11,
        concurrency=2, cwd=tmp_path, keep_bots=True, season=SeasonAsked(ends="+1h", final_top=2, final_sets=1),
        now=now,
    )  # fmt: skip
    result = play_ladder(plan, RunOutput(quiet=True, warn=told.append))
    store = LadderStore(db)
    try:
        rows = store.match_rows()
        by_set: dict[int, list[str]] = {}
        for row in rows:
            by_set.setdefault(row["set_index"], []).append(row["status"])
        regular = stage_of(store, "regular")
        # two tables took sets 0 and 1 before the end; both finished whole, set 2 never began
        assert regular == [0, 1, 2] and by_set[0] == by_set[1] == ["done"] * 4 and by_set[2] == ["pending"] * 4
        season = store.season()
        assert season is not None and season.finalists is not None
        finalists = {f.bot for f in season.finalists}
        [final] = store.sets("final")
        assert len(finalists) == 2 and set(final.table) == finalists and by_set[final.index] == ["done"] * 4
        report = season_report(store, now())
        assert report is not None and report.state == "over" and report.order is not None
        assert set(report.order.bots) == finalists
        assert result.played == 12 and (result.done, result.total) == (12, 12)
        assert told[-1].startswith("the season ended at 2026-03-01T13:00:00+00:00: the final, 1 set among")
    finally:
        store.close()
    assert check_consistent(db) == {"done": 12, "total": 16}
    shown = CliRunner().invoke(main, ["ladder", "season", "--db", str(db)], catch_exceptions=False)
    assert "final order: " in shown.output and "season: over" in shown.output


@pytest.mark.process
def test_killed_then_started_after_the_end_time_it_finishes_what_began_and_plays_the_final(tmp_path: Path) -> None:
    marker, config, db = marked_ladder(tmp_path)
    season = ["--season-end", "+1h", "--final-top", "2", "--final-sets", "1"]
    process = subprocess.Popen(
        [*ladder_command(config, db), *season], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        wait_for(lambda: done_count(db) >= 1)
        assert process.poll() is None, "the run ended before it could be killed"
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.wait(10)
    assert process.returncode == -signal.SIGKILL
    kept = result_rows(db)
    begun = {row[0] for row in kept}
    # started again with the season's end moved into the past: the end time has passed
    past = stamp(datetime.now(UTC) - timedelta(minutes=1))
    again = [*ladder_command(config, db), "--season-end", past, "--change-season", "--final-top", "2"]
    ended = subprocess.run(
        [*again, "--final-sets", "1"], cwd=ROOT, capture_output=True, text=True, timeout=180, check=False
    )
    assert ended.returncode == 0, ended.stdout + ended.stderr
    store = LadderStore(db)
    try:
        statuses: dict[int, list[str]] = {}
        for row in store.match_rows():
            statuses.setdefault(row["set_index"], []).append(row["status"])
        for index in stage_of(store, "regular"):  # whole, or never begun
            assert statuses[index] == (["done"] * 4 if index in begun else ["pending"] * 4), index
        [final] = store.sets("final")
        found = store.season()
        assert found is not None and found.finalists is not None
        assert set(final.table) == {f.bot for f in found.finalists} and statuses[final.index] == ["done"] * 4
    finally:
        store.close()
    assert result_rows(db)[: len(kept)] == kept  # nothing done before the kill was played again
    done = check_consistent(db)["done"]
    assert done == 4 * len(begun) + 4
    # started once more, with no season flags: the season is over, nothing is played
    over = subprocess.run(
        ladder_command(config, db), cwd=ROOT, capture_output=True, text=True, timeout=180, check=False
    )
    assert over.returncode == 0, over.stdout + over.stderr
    assert check_consistent(db)["done"] == done
    wait_for(lambda: not stray(marker), timeout=30)
